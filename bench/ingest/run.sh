#!/usr/bin/env bash
# bench/ingest/run.sh — the controller's ingest under many agents at once, on this machine's loopback.
#
# One controller (the packaged jar, its embedded PostgreSQL with default settings: fsync on) and agents, in
# one of two modes (MODE), each writing its own section of results.md next to this script (the other
# section is kept as it is):
#   intervals (default, intervals.sh) — the statistics path: AGENTS simulated agents (bench/ingest/IntervalAgents.java,
#             many WebSocket connections from AGENT_JVMS JVMs; no engines), each running one loopback run of
#             THREADS threads that closes an interval per thread every INTERVAL_MS: intervals stored per second,
#             interval -> visible row latency, CPU of the controller and of PostgreSQL per interval, bytes stored
#             per interval. Goal: p99 < 1 s.
#   trace     (trace.sh) — the per-cycle trace path: AGENTS real agent processes with their engines, every run
#             asking for a trace of its first TRACE_FIRST cycles (per-cycle rows in `run_trace`), against psql's COPY
#             of the same rows; the measurement of bench/ingest before interval statistics.
# Knobs of each mode: see its file. Common: MODE=intervals AGENT_NICE=10 (the agents stand in for other hosts:
#   they get the CPU the controller and PostgreSQL leave) WRITERS= (qplab.ingest.writers; empty: the default)
#   LINGER= (qplab.ingest.linger, e.g. 0 or 25ms; empty: the default)
#   LOAD_MAX=1.5 LOAD_WAIT_MINUTES=20 (before anything starts, wait until the 1-minute load average is below
#   LOAD_MAX, checking every 30 s, at most this long; 0: do not wait) EXPERIMENT_LIMIT_MINUTES=180 (an experiment
#   that has not ended by then stops the script: an overloaded ingest takes long to drain) KEEP_TMP=1 (keep the logs and the
#   database in /tmp/qplab-ingest-bench.*, for looking into a run) REGISTER_SECONDS (every agent must have
#   registered this long after the agents were started, else the script names those that did not, with the last error
#   each saw, and exits non-zero; default 120 s per 1000 agents, at least 120 s: 1000 took 20-33 s on a busy machine)
#   CONTROLLER_JAR= (the controller jar to run; empty: controller/target/qplab-controller.jar, e.g. an older build's
#   copy, to measure before and after a change on the same machine) CONTROLLER_JAVA_OPTS= (added to -Xmx2g, e.g.
#   -XX:StartFlightRecording=filename=/tmp/c.jfr,settings=profile,dumponexit=true for a JFR profile)
#   PG_STATEMENTS=1 (load pg_stat_statements into the embedded PostgreSQL: the controller is started, stopped, the
#   extension created in single-user mode, and started again; the intervals mode then reports the top statements)
# Needs: the packaged jars (./mvnw -q package -DskipTests), psql (Debian: postgresql-client), curl; javac for
#   the intervals mode.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MODE=${MODE:-intervals}
AGENT_NICE=${AGENT_NICE:-10}
WRITERS=${WRITERS:-}
LINGER=${LINGER:-}
LOAD_MAX=${LOAD_MAX:-1.5}
LOAD_WAIT_MINUTES=${LOAD_WAIT_MINUTES:-20}
EXPERIMENT_LIMIT_MINUTES=${EXPERIMENT_LIMIT_MINUTES:-180}
REGISTER_SECONDS=${REGISTER_SECONDS:-} # empty: register_seconds AGENTS, once the mode has set AGENTS
AJAR=$ROOT/agent/target/qplab-agent.jar
RESULTS=$HERE/results.md

die() { echo "run.sh: $*" >&2; exit 1; }
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"
case $MODE in intervals | trace) ;; *) die "MODE must be intervals or trace, not $MODE" ;; esac
BENCH_CJAR=${CONTROLLER_JAR:-$BENCH_CJAR}
PG_STATEMENTS=${PG_STATEMENTS:-}
[ -f "$BENCH_CJAR" ] && [ -f "$AJAR" ] || die "build first: ./mvnw -q package -DskipTests"
command -v psql >/dev/null || die "psql is needed (Debian: apt-get install postgresql-client)"
command -v curl >/dev/null || die "curl is needed"

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# Other work on this machine (builds, tests) takes cores from the controller: wait for a quiet moment, bounded.
LOAD_WAITED=0
while [ "$LOAD_WAIT_MINUTES" != 0 ] && awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$LOAD_MAX" 'BEGIN { exit !(l >= m) }'; do
    if [ "$LOAD_WAITED" -ge $((LOAD_WAIT_MINUTES * 60)) ]; then
        echo "the load average is still $(load_average) after $LOAD_WAIT_MINUTES min: starting anyway" >&2
        break
    fi
    echo "load average $(load_average) (waiting for the 1-minute one to drop below $LOAD_MAX, ${LOAD_WAITED} s so far)..." >&2
    sleep 30
    LOAD_WAITED=$((LOAD_WAITED + 30))
done
LOAD_AT_START=$(load_average)

HZ=$(getconf CLK_TCK)
# CPU seconds (user + system) used so far by processes and, for PostgreSQL, by its backends (alive or reaped)
cpu_seconds() {
    local p files=()
    for p in "$@"; do files+=("/proc/$p/stat"); done
    [ ${#files[@]} -gt 0 ] || { echo 0.0; return; }
    # fields from the 3rd on: utime is the 12th of these, cutime the 14th
    { sed 's/^.*) //' "${files[@]}" 2>/dev/null || true; } |
        awk -v hz="$HZ" '{ t += $12 + $13 + $14 + $15 } END { printf "%.1f", t / hz }'
}
postgres_pids() {
    local master
    master=$(head -1 "$TMP/postgres/postmaster.pid" 2>/dev/null) || return 0
    echo "$master $(pgrep -P "$master" | tr '\n' ' ')"
}
# "KIND SECONDS" per PostgreSQL process kind, for diagnosis: backends, walwriter, checkpointer, ...; postmaster
# with the backends it reaped
postgres_cpu() {
    local pids
    pids=$(postgres_pids)
    [ -n "$pids" ] || return 0
    ps -o pid=,args= -p "$(echo $pids | tr ' ' ',')" | awk -v hz="$HZ" '{
        kind = ($2 != "postgres:") ? "postmaster" : ($3 == "qplab") ? "backends" : $3; f = "/proc/" $1 "/stat"
        if ((getline line < f) > 0) { sub(/^.*\) /, "", line); split(line, x, " "); t[kind] += x[12] + x[13] + x[14] + x[15] }
        close(f) }
        END { for (k in t) printf "%s %.1f\n", k, t[k] / hz }'
}
postgres_breakdown() { postgres_cpu | awk '{ printf "%s %s s; ", $1, $2 }'; }
# "NAME SECONDS" per thread name of a process (digits as N: one line per pool), for diagnosis
thread_cpu() {
    { cat /proc/"$1"/task/*/stat 2>/dev/null || true; } | awk -v hz="$HZ" '{
        lp = index($0, "("); rp = 0
        for (i = length($0); i > 0; i--) if (substr($0, i, 1) == ")") { rp = i; break }
        name = substr($0, lp + 1, rp - lp - 1); gsub(/[0-9]+/, "N", name); gsub(/ /, "_", name)
        split(substr($0, rp + 2), f, " ")
        cpu[name] += (f[12] + f[13]) / hz }
        END { for (n in cpu) printf "%s %.2f\n", n, cpu[n] }'
}
# machine-wide CPU seconds since boot: "BUSY STEAL" (busy: user, nice, system, irq, softirq)
machine_cpu() {
    awk -v hz="$HZ" '$1 == "cpu" { printf "%.1f %.1f", ($2 + $3 + $4 + $7 + $8) / hz, $9 / hz; exit }' /proc/stat
}
wal_bytes() { "${PSQL[@]}" -c "SELECT wal_bytes || ' B WAL, ' || wal_fpi || ' full-page images' FROM pg_stat_wal"; }
usage_snapshot() { # -> "agents controller postgres" CPU seconds
    echo "$(cpu_seconds "${PIDS[@]}") $(cpu_seconds "$CONTROLLER_PID") $(cpu_seconds $(postgres_pids))"
}

TMP=$(mktemp -d /tmp/qplab-ingest-bench.XXXXXX)
chmod 755 "$TMP" # the embedded PostgreSQL runs as nobody when this runs as root
PIDS=()           # the agents' processes
BACKGROUND=()     # helpers of this script
cleanup() {
    for p in "${BACKGROUND[@]}" "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    stop_controller
    if [ -n "${KEEP_TMP:-}" ]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

CPORT=$(free_port)
PGPORT=$(free_port)
URL=http://127.0.0.1:$CPORT
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U qplab -d qplab) # PGPASSFILE: start_controller

echo "starting the controller on $URL (embedded PostgreSQL on $PGPORT)..." >&2
CONTROLLER_ARGS=(${WRITERS:+--qplab.ingest.writers=$WRITERS} ${LINGER:+--qplab.ingest.linger=$LINGER})
BENCH_JAVA_OPTS="-Xmx2g ${CONTROLLER_JAVA_OPTS:-}" start_controller "$TMP" "$CPORT" "$PGPORT" "${CONTROLLER_ARGS[@]}"
# Latency is measured to each frame's commit (pg_xact_commit_timestamp): the controller's embedded PostgreSQL tracks
# commit timestamps; a CONTROLLER_JAR from before it did (2026-11-29) is restarted with them tracked
COMMIT_TIMES=$("${PSQL[@]}" -c "SHOW track_commit_timestamp")
if [ -n "$PG_STATEMENTS" ] || [ "$COMMIT_TIMES" != on ]; then
    echo "restarting with${PG_STATEMENTS:+ pg_stat_statements and} commit timestamps..." >&2
    stop_controller
    printf "track_commit_timestamp = on\n" >>"$TMP/postgres/postgresql.conf"
fi
if [ -n "$PG_STATEMENTS" ]; then
    # pg_stat_statements needs shared_preload_libraries (a restart) and its extension (a superuser: the embedded
    # server's postgres, reachable only in single-user mode, as the OS user the server runs as)
    PGBIN=/var/lib/qplab/postgres-bin/bin # where the controller unpacks them (PostgresBinaries)
    [ "$(id -u)" = 0 ] || PGBIN=${XDG_CACHE_HOME:-$HOME/.cache}/qplab/postgres-bin/bin
    printf "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = all\n" >>"$TMP/postgres/postgresql.conf"
    AS_SERVER=()
    [ "$(id -u)" != 0 ] || AS_SERVER=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
    printf 'CREATE EXTENSION pg_stat_statements;\n\n' | "${AS_SERVER[@]}" "$PGBIN/postgres" --single -j -D "$TMP/postgres" qplab \
        >"$TMP/single-user.log" 2>&1 || die "creating pg_stat_statements failed: $(cat "$TMP/single-user.log")"
fi
if [ -n "$PG_STATEMENTS" ] || [ "$COMMIT_TIMES" != on ]; then
    BENCH_JAVA_OPTS="-Xmx2g ${CONTROLLER_JAVA_OPTS:-}" start_controller "$TMP" "$CPORT" "$PGPORT" "${CONTROLLER_ARGS[@]}"
    [ "$("${PSQL[@]}" -c "SHOW track_commit_timestamp")" = on ] || die "PostgreSQL does not track commit timestamps"
fi

# alive PID: the process runs (a child that exited stays a zombie until waited for, and kill -0 still finds it)
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }

# register_seconds N: the default deadline for N agents to register (they hello one after another through the
# controller's event loops and its database, so it grows with N)
register_seconds() { echo $(($1 * 120 / 1000 > 120 ? $1 * 120 / 1000 : 120)); }

# await_agents ID...: until every agent of the list is connected. Gives up when REGISTER_SECONDS have passed (plus
# 15 s for the simulator's own report, which comes at REGISTER_SECONDS) or an agent process has exited, and then
# names the agents that never registered, each with the last error it saw, and stops the script. Issue 38: one agent
# of 1000 whose hello was lost left the bench waiting. The mode says, from its agents' logs, the last error an agent
# saw (agent_error ID) and, if its agents report it themselves, which never registered (unregistered: one id a line;
# once a simulator has exited, its links are closing and the database no longer says which were in).
await_agents() {
    local want=$# n=0 deadline=$((SECONDS + REGISTER_SECONDS + 15)) why="" p id missing
    while [ -z "$why" ]; do
        n=$("${PSQL[@]}" -c "SELECT count(*) FROM agent WHERE connected")
        [ "$n" -ge "$want" ] && return
        for p in "${PIDS[@]}"; do alive "$p" || { why="agent process $p exited"; break; }; done
        [ -n "$why" ] || [ "$SECONDS" -lt "$deadline" ] || why="not within REGISTER_SECONDS=$REGISTER_SECONDS s"
        [ -n "$why" ] || sleep 0.5
    done
    sleep 1 # what an exiting simulator still writes
    missing=$(declare -F unregistered >/dev/null && unregistered)
    if [ -z "$missing" ]; then
        missing=$(grep -vxF -f <("${PSQL[@]}" -c "SELECT id FROM agent WHERE connected") <(printf '%s\n' "$@") || true)
    fi
    local count
    count=$(grep -c . <<<"$missing")
    echo "$count of $want agents never registered ($why):" >&2
    head -50 <<<"$missing" | while read -r id; do echo "  $id: $(agent_error "$id")" >&2; done
    [ "$count" -le 50 ] || echo "  ... and $((count - 50)) more" >&2
    die "$count of $want agents never registered"
}

# run_experiment NAME BASE (the base parameters, YAML flow mapping) -> experiment id, after it ended (all runs must
# finish); the runs go to the agents in $HOSTS, one loopback run each
run_experiment() {
    local name=$1 base=$2 id state bad
    id=$(api -sf -H 'Content-Type: application/yaml' --data-binary @- "$URL/api/experiments" <<EOF | sed -n 's/.*"id":\([0-9]*\).*/\1/p'
name: "$name"
hosts: {loopback: [$HOSTS]}
base: $base
EOF
)
    [ -n "$id" ] || die "submitting $name failed"
    local deadline=$((SECONDS + EXPERIMENT_LIMIT_MINUTES * 60))
    while [ "$SECONDS" -lt "$deadline" ]; do
        state=$("${PSQL[@]}" -c "SELECT status FROM experiment WHERE id = $id")
        case $state in FINISHED)
            bad=$("${PSQL[@]}" -c "SELECT string_agg(id || ' ' || status || ': ' || coalesce(error, ''), '; ') FROM run
                                   WHERE experiment_id = $id AND superseded_by IS NULL AND status <> 'FINISHED'")
            [ -z "$bad" ] || die "$name: runs that did not finish: $bad"
            echo "$id"; return ;; FAILED|CANCELLED) die "$name ended $state: $("${PSQL[@]}" -c "SELECT string_agg(DISTINCT error, '; ') FROM run WHERE experiment_id = $id")" ;; esac
        sleep 1
    done
    die "$name did not end within $EXPERIMENT_LIMIT_MINUTES minutes"
}

RUNS_OF="SELECT id FROM run WHERE experiment_id = %s AND superseded_by IS NULL"

verdict() { awk -v v="$1" -v g="$2" -v dir="$3" 'BEGIN { ok = (dir == "ge") ? (v >= g) : (v < g); print ok ? "met" : "NOT met" }'; }

machine_facts() {
    echo "$(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r), $(java -version 2>&1 | head -1)"
}

# write_section FILE: results.md with this mode's section replaced by FILE (which starts with its "## " heading),
# every other "## " section kept as it is (the other mode's, and notes of their own such as "Per-interval cost")
trim_blank() { sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; } # drops trailing empty lines
section_of() { # KIND (intervals, trace or other) -> those sections of results.md
    awk -v want="$1" '/^## / { kind = /^## Interval path/ ? "intervals" : /^## Trace path/ ? "trace" : "other" }
        kind == want' "$RESULTS" 2>/dev/null | trim_blank || true
}
write_section() {
    section_of intervals >"$TMP/section-intervals.md"
    section_of other >"$TMP/section-other.md"
    section_of trace >"$TMP/section-trace.md"
    trim_blank <"$1" >"$TMP/section-$MODE.md"
    {
        echo "# bench/ingest: many agents streaming into one controller"
        echo
        echo "Two figures: the interval path (the statistics every run sends) and the per-cycle trace path (opt-in,"
        echo "\`trace_first\`). \`bench/ingest/run.sh\` measures the first, \`MODE=trace bench/ingest/run.sh\` the second;"
        echo "each rewrites its own section and keeps the others."
        for section in "$TMP/section-intervals.md" "$TMP/section-other.md" "$TMP/section-trace.md"; do
            if [ -s "$section" ]; then echo; cat "$section"; fi
        done
    } >"$RESULTS.new"
    mv "$RESULTS.new" "$RESULTS"
}

# shellcheck source=/dev/null
. "$HERE/$MODE.sh"
cat "$RESULTS"
