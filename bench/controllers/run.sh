#!/usr/bin/env bash
# bench/controllers/run.sh — two controllers on one PostgreSQL, AGENTS simulated agents spread over them, pair runs
# across them, and (KILL=1, the default) controller 1 killed with SIGKILL in the middle of the experiment; issue 38.
#
# Controller 1 is the packaged jar with its embedded PostgreSQL; controller 2 the same jar with
# spring.datasource.url on controller 1's PostgreSQL (which survives controller 1's SIGKILL, as in
# ControllersIntegrationTests; the password goes to it through the environment, never argv). AGENTS simulated agents
# (bench/ingest/IntervalAgents.java compiled against the agent jar, two JVMs at nice AGENT_NICE): sim-0001 .. the
# first half list controller 1 first (`--controller C1,C2`), the second half controller 2 first; each moves on to the
# next of its list when a link cannot be made, keeps every frame and run end until acknowledged and replays them on
# its next link, and takes part in pair runs (see IntervalAgents.java). One experiment, `hosts: {pairs: [...]}`:
# agent i of the first half with agent i of the second (the client on controller 1 for odd i, on controller 2 for
# even i: pairs across the controllers, their messages relayed through the database), and SAME_PAIRS pairs within
# each half (same-controller pairs), each run on tcp for DURATION_MS with THREADS threads and interval_ms
# INTERVAL_MS, at POINTS msg_size values. With KILL=1, once KILL_AT of the runs have ended and a run driven by
# controller 1 is measuring (has stored frames), controller 1 is SIGKILLed; then the script waits (at most
# EXPERIMENT_LIMIT_SECONDS) for the experiment to end and checks, in PostgreSQL and against the simulators' reports:
#   - every run FINISHED (the current try of each point and pair); a try that was replaced FAILED, with a reason; no
#     run left RUNNING; no host ran two benchmarks at once;
#   - per run of the experiment, stored interval cycles = its stored frames' cycles; a FINISHED run's = its
#     run_histogram's cycles = its summary's cycles (> 0), its stored frames = the summary's batches = the frames its client
#     sent (the simulator's report once the run was recorded), every one acknowledged;
#   - the agents were spread (AGENTS/2 on each controller at the start); with KILL=1: every agent of controller 1
#     registered on controller 2, the time from its link dropping to its welcome there (the simulator's `failover`
#     lines) below FAILOVER_LIMIT_MS for every one, and all AGENTS on controller 2 at the end.
# A check that fails makes the script exit non-zero with a line naming it (the logs and the database are kept).
# Writes results.md next to this script, passed or not: one row of its table per KILL value (the other row is kept),
# saying which checks failed, and the run's details below it.
# Knobs: AGENTS=200 (even) KILL=1 KILL_AT=0.4 POINTS=5 DURATION_MS=5000 SAME_PAIRS=10 (per controller) THREADS=1
#   INTERVAL_MS=100 CYCLES=400000 AGENT_NICE=10 SIM_HEAP=512m FAILOVER_LIMIT_MS=10000 EXPERIMENT_LIMIT_SECONDS=600
#   STALL_SECONDS=120 (no run ended for this long while the experiment has not: stuck; the script says what is left)
#   REGISTER_SECONDS=120 CONTROLLER_ARGS= (more --key=value for both controllers, e.g. --qplab.cluster.dead-after=4s;
#   default: the controllers' defaults) KEEP_TMP=1 (keep the logs and the database in /tmp/qplab-controllers-bench.*)
# Needs: the packaged jars (./mvnw -q package -DskipTests), a JDK (javac), psql (Debian: postgresql-client), curl.
# Traffic on this machine's loopback only.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
AGENTS=${AGENTS:-200}
KILL=${KILL:-1}
KILL_AT=${KILL_AT:-0.4}
POINTS=${POINTS:-5}
DURATION_MS=${DURATION_MS:-5000}
SAME_PAIRS=${SAME_PAIRS:-10}
THREADS=${THREADS:-1}
INTERVAL_MS=${INTERVAL_MS:-100}
CYCLES=${CYCLES:-400000}
AGENT_NICE=${AGENT_NICE:-10}
SIM_HEAP=${SIM_HEAP:-512m}
FAILOVER_LIMIT_MS=${FAILOVER_LIMIT_MS:-10000}
EXPERIMENT_LIMIT_SECONDS=${EXPERIMENT_LIMIT_SECONDS:-600}
STALL_SECONDS=${STALL_SECONDS:-120}
REGISTER_SECONDS=${REGISTER_SECONDS:-120}
CONTROLLER_ARGS=${CONTROLLER_ARGS:-}
AJAR=$ROOT/agent/target/qplab-agent.jar
RESULTS=$HERE/results.md

die() { echo "run.sh: $*" >&2; exit 1; }
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"
HALF=$((AGENTS / 2))
[ $((HALF * 2)) -eq "$AGENTS" ] && [ "$HALF" -ge 2 ] || die "AGENTS must be even and at least 4, not $AGENTS"
[ $((SAME_PAIRS * 2)) -le "$HALF" ] || die "SAME_PAIRS ($SAME_PAIRS) takes two agents of a half each: at most $((HALF / 2))"
case $KILL in 0 | 1) ;; *) die "KILL must be 0 or 1, not $KILL" ;; esac
[ "$POINTS" -ge 1 ] && [ "$POINTS" -le 8 ] || die "POINTS must be 1-8"
[ -f "$BENCH_CJAR" ] && [ -f "$AJAR" ] || die "build first: ./mvnw -q package -DskipTests"
# the jars must be those of this checkout's sources: a stale jar measures other code
NEWER=$(find "$ROOT"/{agent,controller,protocol,engine}/src/main "$ROOT/db" -newer "$BENCH_CJAR" -type f 2>/dev/null | head -3)
[ -z "$NEWER" ] || die "the controller jar is older than its sources ($(echo $NEWER)): ./mvnw -q package -DskipTests"
command -v psql >/dev/null || die "psql is needed (Debian: apt-get install postgresql-client)"
command -v curl >/dev/null || die "curl is needed"
command -v javac >/dev/null || die "javac is needed to compile IntervalAgents.java (a JDK, not only a JRE)"

load_average() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD_AT_START=$(load_average)

TMP=$(mktemp -d /tmp/qplab-controllers-bench.XXXXXX)
chmod 755 "$TMP" # the embedded PostgreSQL runs as nobody when this runs as root
mkdir "$TMP/c1" "$TMP/c2"
chmod 755 "$TMP/c1" "$TMP/c2"
PIDS=()       # the simulators
BACKGROUND=() # helpers of this script
C1_PID=
C2_PID=
# alive PID: the process runs (a child that exited stays a zombie until waited for, and kill -0 still finds it)
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }
cleanup() {
    local pg
    for p in "${BACKGROUND[@]}" "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    CONTROLLER_PID=$C2_PID stop_controller
    CONTROLLER_PID=$C1_PID stop_controller
    # controller 1's PostgreSQL outlives its SIGKILL: stop it (fast shutdown) by its postmaster's pid
    pg=$(head -1 "$TMP/c1/postgres/postmaster.pid" 2>/dev/null || true)
    if [ -n "$pg" ] && kill -INT "$pg" 2>/dev/null; then
        for _ in $(seq 30); do kill -0 "$pg" 2>/dev/null || break; sleep 1; done
    fi
    if [ -n "${KEEP_TMP:-}" ]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

C1PORT=$(free_port)
C2PORT=$(free_port)
PGPORT=$(free_port)
while [ "$C2PORT" = "$C1PORT" ]; do C2PORT=$(free_port); done
while [ "$PGPORT" = "$C1PORT" ] || [ "$PGPORT" = "$C2PORT" ]; do PGPORT=$(free_port); done
URL1=http://127.0.0.1:$C1PORT
URL2=http://127.0.0.1:$C2PORT
WS1=ws://127.0.0.1:$C1PORT/agent
WS2=ws://127.0.0.1:$C2PORT/agent
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U qplab -d qplab) # PGPASSFILE: start_controller
q() { "${PSQL[@]}" -c "$1"; }

# shellcheck disable=SC2086 # CONTROLLER_ARGS holds several words
{
    echo "starting controller 1 on $URL1 (embedded PostgreSQL on $PGPORT)..." >&2
    BENCH_JAVA_OPTS=-Xmx1g start_controller "$TMP/c1" "$C1PORT" "$PGPORT" $CONTROLLER_ARGS
    C1_PID=$CONTROLLER_PID
    # controller 2 on the same database: the password through the environment; the same password file for psql
    cp "$TMP/c1/postgres-password" "$TMP/c2/postgres-password"
    echo "starting controller 2 on $URL2 (controller 1's PostgreSQL)..." >&2
    SPRING_DATASOURCE_PASSWORD=$(tr -d ' \r\n' <"$TMP/c1/postgres-password") BENCH_JAVA_OPTS=-Xmx1g \
        start_controller "$TMP/c2" "$C2PORT" 0 --spring.datasource.url="jdbc:postgresql://127.0.0.1:$PGPORT/qplab" \
        --spring.datasource.username=qplab $CONTROLLER_ARGS
    C2_PID=$CONTROLLER_PID
}
controller_id() { q "SELECT id FROM controller WHERE url LIKE '%:$1' AND stopped_at IS NULL"; }
C1_ID=$(controller_id "$C1PORT")
C2_ID=$(controller_id "$C2PORT")
[ -n "$C1_ID" ] && [ -n "$C2_ID" ] && [ "$C1_ID" != "$C2_ID" ] \
    || die "the controller table does not show both controllers: $(q "SELECT string_agg(id || ' ' || coalesce(url, ''), '; ') FROM controller")"
echo "controllers: 1 = $C1_ID, 2 = $C2_ID" >&2

CLASSES=$TMP/classes
javac -cp "$AJAR" -d "$CLASSES" "$ROOT/bench/ingest/IntervalAgents.java" || die "compiling IntervalAgents.java failed"
agent() { printf 'sim-%04d' "$1"; }
echo "starting $AGENTS simulated agents: $HALF listing controller 1 first, $HALF controller 2 first..." >&2
for j in 0 1; do
    list=$([ "$j" = 0 ] && echo "$WS1,$WS2" || echo "$WS2,$WS1")
    QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN nice -n "$AGENT_NICE" java -Xmx"$SIM_HEAP" -cp "$AJAR:$CLASSES" org.qplab.agent.IntervalAgents \
        --controller "$list" --agents "$HALF" --first $((j * HALF + 1)) --cycles "$CYCLES" \
        --register-within "$REGISTER_SECONDS" >"$TMP/sim-$j.log" 2>"$TMP/sim-$j.err" &
    PIDS+=($!)
done
deadline=$((SECONDS + REGISTER_SECONDS + 15))
while :; do
    IFS='|' read -r ON1 ON2 <<<"$(q "SELECT count(*) FILTER (WHERE controller_id = '$C1_ID'), count(*) FILTER (WHERE controller_id = '$C2_ID')
                            FROM agent WHERE connected")"
    [ "$((ON1 + ON2))" -lt "$AGENTS" ] || break
    for p in "${PIDS[@]}"; do alive "$p" || die "a simulator exited: $(cat "$TMP"/sim-*.log | grep -v '^histograms' | head -20)"; done
    [ "$SECONDS" -lt "$deadline" ] || die "only $((ON1 + ON2)) of $AGENTS agents registered within $REGISTER_SECONDS s"
    sleep 0.5
done
[ "$ON1" = "$HALF" ] && [ "$ON2" = "$HALF" ] || die "check failed: agents spread: $ON1 on controller 1, $ON2 on controller 2, expected $HALF each"
echo "registered: $ON1 on controller 1, $ON2 on controller 2" >&2

# the pairs: agent i of the first half with agent i of the second, the client on controller 1 for odd i and on
# controller 2 for even i; then SAME_PAIRS pairs within each half
PAIRS=()
for i in $(seq 1 "$HALF"); do
    if [ $((i % 2)) = 1 ]; then PAIRS+=("[$(agent "$i"), $(agent $((HALF + i)))]"); else PAIRS+=("[$(agent $((HALF + i))), $(agent "$i")]"); fi
done
CROSS=${#PAIRS[@]}
for k in $(seq 1 "$SAME_PAIRS"); do
    PAIRS+=("[$(agent $((2 * k - 1))), $(agent $((2 * k)))]" "[$(agent $((HALF + 2 * k - 1))), $(agent $((HALF + 2 * k)))]")
done
SIZES=(4K 16K 64K 8K 32K 128K 2K 1K)
MSG_SIZES=$(IFS=,; echo "${SIZES[*]:0:$POINTS}" | sed 's/,/, /g')
RUNS_PLANNED=$((${#PAIRS[@]} * POINTS))

# machine load while the experiment runs: the 1-minute load average every 5 s
( while :; do echo "$(date +%s) $(cut -d' ' -f1 /proc/loadavg)" >>"$TMP/load.log"; sleep 5; done ) &
BACKGROUND+=($!)
STARTED=$SECONDS
EXP=$(api -sf -H 'Content-Type: application/yaml' --data-binary @- "$URL1/api/experiments" <<EOF | sed -n 's/.*"id":\([0-9]*\).*/\1/p'
name: "controllers: $AGENTS agents on two controllers, KILL=$KILL"
hosts: {pairs: [$(IFS=,; echo "${PAIRS[*]}" | sed 's/\],\[/], [/g')]}
retests: 0
base: {provider: tcp, threads: $THREADS, interval_ms: $INTERVAL_MS, duration_ms: $DURATION_MS}
dimensions: {msg_size: [$MSG_SIZES]}
EOF
)
[ -n "$EXP" ] || die "submitting the experiment failed"
echo "experiment $EXP: ${#PAIRS[@]} pairs ($CROSS across the controllers) x $POINTS msg sizes = $RUNS_PLANNED runs of $DURATION_MS ms..." >&2

ended() { q "SELECT count(*) FROM experiment WHERE id = $EXP AND status IN ('QUEUED', 'RUNNING')"; }
MEASURING="SELECT string_agg(id::text, ',' ORDER BY id) FROM run r WHERE experiment_id = $EXP AND status = 'RUNNING'
           AND controller_id = '$C1_ID' AND EXISTS (SELECT 1 FROM run_frame b WHERE b.run_id = r.id)"
KILLED_AFTER="" IN_FLIGHT="" IN_FLIGHT_C1="" MEASURING_C1="" ENDED_AT_KILL=""
if [ "$KILL" = 1 ]; then
    want=$(awk -v n="$RUNS_PLANNED" -v f="$KILL_AT" 'BEGIN { printf "%d", n * f }')
    deadline=$((SECONDS + EXPERIMENT_LIMIT_SECONDS))
    while :; do
        [ "$SECONDS" -lt "$deadline" ] || die "no moment to kill controller 1 within $EXPERIMENT_LIMIT_SECONDS s"
        [ "$(ended)" != 0 ] || die "the experiment ended before controller 1 was killed (KILL_AT=$KILL_AT)"
        n=$(q "SELECT count(*) FROM run WHERE experiment_id = $EXP AND status IN ('FINISHED', 'FAILED', 'CANCELLED')")
        if [ "$n" -ge "$want" ] && [ -n "$(q "$MEASURING")" ]; then break; fi
        sleep 0.2
    done
    kill -KILL "$C1_PID"
    KILL_EPOCH=$(date +%s.%N)
    KILLED_AFTER=$((SECONDS - STARTED))
    ENDED_AT_KILL=$n
    IN_FLIGHT=$(q "SELECT string_agg(id::text, ',' ORDER BY id) FROM run WHERE experiment_id = $EXP AND status = 'RUNNING'")
    IN_FLIGHT_C1=$(q "SELECT string_agg(id::text, ',' ORDER BY id) FROM run WHERE experiment_id = $EXP AND status = 'RUNNING' AND controller_id = '$C1_ID'")
    MEASURING_C1=$(q "$MEASURING")
    echo "killed controller 1 (SIGKILL) ${KILLED_AFTER} s into the experiment, $n runs ended; in flight: $(tr ',' '\n' <<<"$IN_FLIGHT" | grep -c .) runs, $(tr ',' '\n' <<<"$IN_FLIGHT_C1" | grep -c .) driven by controller 1 ($(tr ',' '\n' <<<"$MEASURING_C1" | grep -c .) measuring)" >&2
    # every agent on controller 2, bounded
    deadline=$((SECONDS + 60))
    while [ "$(q "SELECT count(*) FROM agent WHERE connected AND controller_id = '$C2_ID'")" -lt "$AGENTS" ] && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 0.2
    done
    ALL_ON_2=$(awk -v k="$KILL_EPOCH" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - k }')
    echo "all agents on controller 2 ${ALL_ON_2} s after the kill (or gave up after 60 s)" >&2
fi

# what is left when the experiment does not end: its runs not ended, the relayed messages no controller took (those
# for a controller that is gone stay), and for the hosts that queued runs wait for, the last run each took part in
stuck_report() {
    echo "runs not ended (of $(q "SELECT count(*) FROM run WHERE experiment_id = $EXP AND status NOT IN ('FINISHED', 'FAILED', 'CANCELLED')")):" >&2
    q "SELECT '  run ' || id || ' ' || status || ' ' || coalesce(agent_id, want_client, '?') || '>' || coalesce(server_agent_id, want_server, '?')
              || coalesce(' by ' || controller_id, '') FROM run WHERE experiment_id = $EXP AND status NOT IN ('FINISHED', 'FAILED', 'CANCELLED')
       ORDER BY id LIMIT 10" >&2
    echo "relayed messages not taken, by controller (alive: a heartbeat in the last 30 s) and kind:" >&2
    q "SELECT '  ' || m.to_controller || CASE WHEN c.last_seen > now() - interval '30 s' AND c.stopped_at IS NULL THEN ' (alive) ' ELSE ' (gone) ' END
              || m.kind || ': ' || count(*) || ' (runs ' || string_agg(DISTINCT m.run_id::text, ',') || ')'
       FROM controller_message m LEFT JOIN controller c ON c.id = m.to_controller GROUP BY m.to_controller, c.last_seen, c.stopped_at, m.kind" >&2
    echo "the hosts queued runs wait for, with the last run each took part in (its status, driver, end):" >&2
    q "WITH w AS (SELECT DISTINCT unnest(ARRAY[want_client, want_server]) AS host FROM run WHERE experiment_id = $EXP AND status = 'QUEUED')
       SELECT '  ' || w.host || ' on ' || coalesce(a.controller_id, '?') || CASE WHEN a.connected THEN '' ELSE ' (not connected)' END || ': run '
              || coalesce(l.id::text, '-') || ' ' || coalesce(l.status, '') || ' by ' || coalesce(l.controller_id, '-') || ' ended '
              || coalesce(l.finished_at::time::text, '-')
       FROM w LEFT JOIN agent a ON a.id = w.host
       LEFT JOIN LATERAL (SELECT * FROM run r WHERE w.host IN (r.agent_id, r.server_agent_id) ORDER BY r.started_at DESC NULLS LAST LIMIT 1) l ON true
       WHERE w.host IS NOT NULL ORDER BY l.finished_at NULLS FIRST, w.host LIMIT 40" >&2
}
deadline=$((SECONDS + EXPERIMENT_LIMIT_SECONDS))
LAST_ENDED=-1
LAST_CHANGE=$SECONDS
STUCK=""
while [ "$(ended)" != 0 ]; do
    n=$(q "SELECT count(*) FROM run WHERE experiment_id = $EXP AND status IN ('FINISHED', 'FAILED', 'CANCELLED')")
    [ "$n" = "$LAST_ENDED" ] || { LAST_ENDED=$n; LAST_CHANGE=$SECONDS; }
    why=""
    [ "$SECONDS" -lt "$deadline" ] || why="the experiment did not end within EXPERIMENT_LIMIT_SECONDS=$EXPERIMENT_LIMIT_SECONDS s"
    [ $((SECONDS - LAST_CHANGE)) -lt "$STALL_SECONDS" ] || why="no run of the experiment ended for STALL_SECONDS=$STALL_SECONDS s ($n tries ended)"
    if [ -n "$why" ]; then # the checks below fail on it; the row of results.md says so
        stuck_report
        STUCK=$why
        break
    fi
    sleep 1
done
ELAPSED=$((SECONDS - STARTED))
ELAPSED_TEXT="${ELAPSED} s"
[ -z "$STUCK" ] || ELAPSED_TEXT="did not end (given up after ${ELAPSED} s)"
LOAD_AT_END=$(load_average)
sleep 2 # the simulators' last reports (RunRecorded comes with the run's end)
kill "${BACKGROUND[0]}" 2>/dev/null || true
read -r LOAD_MAX LOAD_MEAN <<<"$(awk '{ if ($2 > m) m = $2; s += $2; n++ } END { printf "%.2f %.2f", m, n ? s / n : 0 }' "$TMP/load.log")"
echo "experiment $EXP ended after $ELAPSED s: $(q "SELECT status FROM experiment WHERE id = $EXP")" >&2

# checks
CHECKS_FAILED=${STUCK:+- $STUCK$'\n'}
check() { # description, value, expected
    if [ "$2" = "$3" ]; then echo "  ok: $1: $2" >&2; else CHECKS_FAILED+="- $1: $2, expected $3"$'\n'; fi
}
RUNS_OF="SELECT id FROM run WHERE experiment_id = $EXP"
IFS='|' read -r EXP_STATUS CURRENT FINISHED NOT_FINISHED TRIES RETRIED BAD_RETRIED STILL_RUNNING CROSS_RUNS <<<"$(q "
    SELECT (SELECT status FROM experiment WHERE id = $EXP),
           count(*) FILTER (WHERE superseded_by IS NULL), count(*) FILTER (WHERE superseded_by IS NULL AND status = 'FINISHED'),
           coalesce(string_agg(id || ' ' || status || ': ' || coalesce(error, ''), '; ') FILTER (WHERE superseded_by IS NULL AND status <> 'FINISHED'), ''),
           count(*), count(*) FILTER (WHERE superseded_by IS NOT NULL),
           count(*) FILTER (WHERE superseded_by IS NOT NULL AND (status <> 'FAILED' OR coalesce(error, '') = '')),
           count(*) FILTER (WHERE status NOT IN ('FINISHED', 'FAILED', 'CANCELLED')),
           count(*) FILTER (WHERE superseded_by IS NULL AND ((coalesce(agent_id, want_client) <= '$(agent "$HALF")')
                                                         <> (coalesce(server_agent_id, want_server) <= '$(agent "$HALF")')))
    FROM run WHERE experiment_id = $EXP")"
check "the experiment's status" "$EXP_STATUS" FINISHED
check "runs (the current try of each point and pair)" "$CURRENT" "$RUNS_PLANNED"
check "runs FINISHED" "$FINISHED" "$RUNS_PLANNED"
[ -z "$NOT_FINISHED" ] || echo "  runs not FINISHED: $NOT_FINISHED" >&2
check "runs across the controllers" "$CROSS_RUNS" "$((CROSS * POINTS))"
check "replaced tries that did not fail with a reason" "$BAD_RETRIED" 0
check "runs of the experiment not ended" "$STILL_RUNNING" 0
check "runs RUNNING anywhere" "$(q "SELECT count(*) FROM run WHERE status = 'RUNNING'")" 0

# per run: stored interval cycles = frame cycles; FINISHED: = its histogram's cycles (run_histogram, one row per run
# since V33, written when the run finishes; -1: none) = summary cycles > 0, frames = batches
q "SELECT r.id, r.status, coalesce(s.cycles, -1), coalesce(s.batches, -1),
          (SELECT coalesce(sum(cycles), 0) FROM run_interval i WHERE i.run_id = r.id),
          (SELECT coalesce(sum(cycles), 0) FROM run_frame b WHERE b.run_id = r.id),
          (SELECT coalesce(sum(cycles), -1) FROM run_histogram h WHERE h.run_id = r.id),
          (SELECT count(*) FROM run_frame b WHERE b.run_id = r.id)
   FROM run r LEFT JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = $EXP ORDER BY r.id" | tr '|' ' ' >"$TMP/cycles"
# the simulators' line per recorded run: "run ID agent A frames F acked K intervals I cycles C late_ms ..."
awk '$1 == "run" && $3 == "agent" { print $2, $6, $8, $12 }' "$TMP"/sim-*.log | sort -n >"$TMP/sim-runs"
read -r CYCLES_TWICE CYCLES_MISSING FRAMES_MISMATCH SIM_MISSING SIM_MISMATCH STORED_CYCLES <<<"$(awk '
    NR == FNR { frames[$1] = $2; acked[$1] = $3; cyc[$1] = $4; next }
    { id = $1; st = $2; sc = $3; sb = $4; ic = $5; fc = $6; hc = $7; nf = $8
      if (ic != fc || (st == "FINISHED" && ic != hc)) { twice++; print "run " id " (" st "): interval cycles " ic ", frame cycles " fc ", histogram cycles " hc > "/dev/stderr" }
      if (st == "FINISHED") {
          if (ic != sc || ic <= 0) { missing++; print "run " id ": stored cycles " ic ", its summary " sc > "/dev/stderr" }
          if (nf != sb) { fm++; print "run " id ": " nf " frames stored, its summary says " sb > "/dev/stderr" }
          if (!(id in frames)) { sm++; print "run " id ": no report from its client (simulator)" > "/dev/stderr" }
          else if (frames[id] != nf || acked[id] != nf || cyc[id] != sc) { smm++
              print "run " id ": the client sent " frames[id] " frames (" acked[id] " acknowledged) of " cyc[id] " cycles; stored " nf " frames, summary " sc " cycles" > "/dev/stderr" }
          total += ic }
    }
    END { printf "%d %d %d %d %d %.0f", twice, missing, fm, sm, smm, total }' "$TMP/sim-runs" "$TMP/cycles")"
check "runs whose interval and frame cycles differ, or FINISHED and its histogram's too (a cycle stored twice or lost)" "$CYCLES_TWICE" 0
check "FINISHED runs whose stored cycles are not their summary's" "$CYCLES_MISSING" 0
check "FINISHED runs whose stored frames are not their summary's batches" "$FRAMES_MISMATCH" 0
check "FINISHED runs the simulator did not report as recorded" "$SIM_MISSING" 0
check "FINISHED runs whose client sent other frames or cycles than stored, or not all acknowledged" "$SIM_MISMATCH" 0
# no host ran two benchmarks at once (FINISHED runs of this experiment, as client or server)
OVERLAPS=$(q "WITH h AS (SELECT agent_id AS host, started_at, finished_at FROM run WHERE experiment_id = $EXP AND status = 'FINISHED'
              UNION ALL SELECT server_agent_id, started_at, finished_at FROM run WHERE experiment_id = $EXP AND status = 'FINISHED'),
              o AS (SELECT host, started_at, lag(finished_at) OVER (PARTITION BY host ORDER BY started_at) AS before FROM h)
              SELECT count(*) FROM o WHERE started_at < before")
check "a host's FINISHED runs that overlap" "$OVERLAPS" 0

# failover: per agent of controller 1, from its link dropping to its welcome on controller 2 (the simulators' lines)
FAILOVERS=0 FAILOVER_P50="" FAILOVER_MAX="" RECOVERED="" RETRIED_IN_FLIGHT=""
if [ "$KILL" = 1 ]; then
    grep -h '^failover agent ' "$TMP"/sim-*.log | awk -v from="$WS1" -v to="$WS2" '$7 == from && $9 == to { print $5 }' | sort -n >"$TMP/failover-ms" || true
    FAILOVERS=$(grep -c . "$TMP/failover-ms" || true)
    FAILOVER_P50=$(awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }' "$TMP/failover-ms")
    FAILOVER_MAX=$(tail -1 "$TMP/failover-ms")
    check "agents of controller 1 that reached controller 2 (failover lines)" "$FAILOVERS" "$HALF"
    check "failovers slower than $FAILOVER_LIMIT_MS ms" "$(awk -v l="$FAILOVER_LIMIT_MS" '$1 >= l' "$TMP/failover-ms" | grep -c . || true)" 0
    check "agents connected to controller 2 at the end" "$(q "SELECT count(*) FROM agent WHERE connected AND controller_id = '$C2_ID'")" "$AGENTS"
    check "simulated agents whose link dropped more than once (relinked/failover lines)" \
        "$(grep -h -E '^(failover|relinked) agent ' "$TMP"/sim-*.log | awk '{ n[$3]++ } END { for (a in n) if (n[a] > 1) c++; print c + 0 }')" 0
    # the runs in flight at the kill: FINISHED as they were (recovered) or FAILED and tried again
    if [ -n "$IN_FLIGHT" ]; then
        IFS='|' read -r RECOVERED RETRIED_IN_FLIGHT <<<"$(q "SELECT count(*) FILTER (WHERE status = 'FINISHED'),
            count(*) FILTER (WHERE status = 'FAILED' AND superseded_by IS NOT NULL) FROM run WHERE id IN ($IN_FLIGHT)")"
        check "runs in flight at the kill neither FINISHED nor FAILED and tried again" \
            "$(q "SELECT count(*) FROM run WHERE id IN ($IN_FLIGHT) AND status <> 'FINISHED' AND NOT (status = 'FAILED' AND superseded_by IS NOT NULL)")" 0
    fi
    TAKEN_OVER=$(grep -c 'which drove it, is gone' "$TMP/c2/controller.log" || true)
    RELAY_PREPARED=$(cat "$TMP"/c*/controller.log | grep -c '(on another controller), preparing' || true)
else
    check "links lost" "$(cat "$TMP"/sim-*.err | grep -c 'link closed' || true)" 0
    RELAY_PREPARED=$(cat "$TMP"/c*/controller.log | grep -c '(on another controller), preparing' || true)
fi
REASONS=$(q "SELECT coalesce(string_agg(n || ' × ' || e, '; ' ORDER BY n DESC), '') FROM (SELECT left(regexp_replace(error, '[0-9]+', 'N', 'g'), 160) AS e, count(*) AS n
             FROM run WHERE experiment_id = $EXP AND superseded_by IS NOT NULL GROUP BY 1) x")
[ -z "$REASONS" ] || echo "  replaced tries' reasons: $REASONS" >&2
VERDICT="all passed"
if [ -n "$CHECKS_FAILED" ]; then
    printf '%s' "$CHECKS_FAILED" >&2
    KEEP_TMP=1
    VERDICT="**FAILED**: $(grep -c . <<<"$CHECKS_FAILED") check(s), first: $(head -1 <<<"$CHECKS_FAILED" | sed 's/^- //')"
fi

# results.md: this KILL value's row of the table and its details; the other's kept
MODE=$([ "$KILL" = 1 ] && echo "controller 1 killed" || echo "no kill")
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- agent controller protocol engine db bench/lib bench/ingest/IntervalAgents.java bench/controllers/run.sh 2>/dev/null || echo "+changes")
count_ids() { tr ',' '\n' <<<"$1" | grep -c . || true; }
FLIGHT_CELL="–"
[ "$KILL" = 0 ] || FLIGHT_CELL="$(count_ids "$IN_FLIGHT") ($(count_ids "$IN_FLIGHT_C1") driven by controller 1): ${RECOVERED:-0} FINISHED, ${RETRIED_IN_FLIGHT:-0} tried again"
FAILOVER_CELL="–"
[ "$KILL" = 0 ] || FAILOVER_CELL="$FAILOVER_P50 / $FAILOVER_MAX ms ($FAILOVERS agents)"
ROW="| $MODE | $AGENTS | 2 | $RUNS_PLANNED ($TRIES tries) | $((CROSS * POINTS)) | $FLIGHT_CELL | $FINISHED | $RETRIED | $FAILOVER_CELL | $VERDICT | $ELAPSED_TEXT | $LOAD_MAX / $LOAD_MEAN |"
cat >"$TMP/details.md" <<EOF
### $MODE

- date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT; experiment from submission to its end: $ELAPSED_TEXT
- runs: ${#PAIRS[@]} pairs ($CROSS across the controllers: the client on controller 1 for odd i, on controller 2 for even i; $((2 * SAME_PAIRS)) within one, $SAME_PAIRS on each) × $POINTS msg sizes ($MSG_SIZES), tcp, $THREADS thread(s), interval_ms $INTERVAL_MS, duration_ms $DURATION_MS; pair steps relayed between the controllers (\`(on another controller), preparing\` in their logs): $RELAY_PREPARED
EOF
if [ "$KILL" = 1 ]; then
    cat >>"$TMP/details.md" <<EOF
- kill: SIGKILL ${KILLED_AFTER} s into the experiment, after $ENDED_AT_KILL of $RUNS_PLANNED runs had ended; in flight: $IN_FLIGHT (driven by controller 1: ${IN_FLIGHT_C1:-none}; of these measuring, frames stored: ${MEASURING_C1:-none}); afterwards ${RECOVERED:-0} of them FINISHED as they were, ${RETRIED_IN_FLIGHT:-0} FAILED and were tried again; controller 2 took over $TAKEN_OVER runs whose driver was gone (\`which drove it, is gone\`)
- failover (agent's link dropped → welcomed by controller 2, per agent of controller 1): p50 $FAILOVER_P50 ms, max $FAILOVER_MAX ms over $FAILOVERS agents (limit $FAILOVER_LIMIT_MS ms); every agent connected to controller 2 ${ALL_ON_2} s after the kill
EOF
fi
cat >>"$TMP/details.md" <<EOF
- tries replaced (FAILED, tried again): $RETRIED${REASONS:+; their reasons: $REASONS}
- checks: $VERDICT$([ -z "$CHECKS_FAILED" ] || printf '\n%s' "$(sed 's/^/  /' <<<"${CHECKS_FAILED%$'\n'}")")
- load average (1 min) sampled every 5 s during the experiment: max $LOAD_MAX, mean $LOAD_MEAN; at the start $LOAD_AT_START, at the end $LOAD_AT_END (1, 5, 15 min; this bench's own processes included)
- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r), $(java -version 2>&1 | head -1), PostgreSQL $(q "SHOW server_version")
- regenerate: \`./mvnw -q package -DskipTests && KILL=$KILL AGENTS=$AGENTS POINTS=$POINTS DURATION_MS=$DURATION_MS SAME_PAIRS=$SAME_PAIRS THREADS=$THREADS KILL_AT=$KILL_AT${CONTROLLER_ARGS:+ CONTROLLER_ARGS='$CONTROLLER_ARGS'} bench/controllers/run.sh\`
EOF
other_row() { grep -F "| $1 |" "$RESULTS" 2>/dev/null | head -1 || true; }
other_details() { awk -v h="### $1" '$0 == h { f = 1; print; next } /^### / { f = 0 } f' "$RESULTS" 2>/dev/null | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' || true; }
OTHER=$([ "$KILL" = 1 ] && echo "no kill" || echo "controller 1 killed")
{
    echo "# bench/controllers: two controllers on one PostgreSQL, pairs across them, one killed"
    echo
    echo "Issue 38. \`bench/controllers/run.sh\` (KILL=1) and \`KILL=0 bench/controllers/run.sh\` each rewrite their own row"
    echo "and details and keep the other's. Controller 1: the packaged jar with its embedded PostgreSQL; controller 2: the"
    echo "same jar on controller 1's PostgreSQL. The agents are simulated (\`bench/ingest/IntervalAgents.java\`: real"
    echo "WebSocket links speaking the agent protocol, many per JVM; no engines), half listing controller 1 first, half"
    echo "controller 2 first. Checks (every run FINISHED, a replaced try FAILED with a reason, every cycle stored once:"
    echo "per run interval = frame cycles, a FINISHED run's = its histogram's = its summary's and its frames = batches = what"
    echo "its client sent; no host in two runs at once; with the kill, every agent of controller 1 on controller 2 within"
    echo "10 s) are in each row; a failed check also makes the script exit non-zero, naming it."
    echo
    echo "| run | agents | controllers | runs | runs across the controllers | in flight at the kill | FINISHED | tries replaced | failover p50 / max | checks | experiment | load max / mean |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|---|---|---:|---|"
    for m in "no kill" "controller 1 killed"; do
        if [ "$m" = "$MODE" ]; then echo "$ROW"; else other_row "$m"; fi
    done
    for m in "no kill" "controller 1 killed"; do
        echo
        if [ "$m" = "$MODE" ]; then cat "$TMP/details.md"; else other_details "$m"; fi
    done
} | cat -s >"$RESULTS.new"
mv "$RESULTS.new" "$RESULTS"
cat "$RESULTS"
[ -z "$CHECKS_FAILED" ] || die "check(s) failed: $(printf '%s' "$CHECKS_FAILED" | sed 's/^- //' | paste -sd ';') (logs and database kept in $TMP)"
