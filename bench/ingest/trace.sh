# bench/ingest/trace.sh — the per-cycle trace path of bench/ingest; sourced by run.sh (MODE=trace).
#
# The measurement bench/ingest made before interval statistics, when every cycle was a row in `run_trace`: now the
# opt-in trace. Every run asks for `trace_first: TRACE_FIRST` (the engine keeps at most 1,000,000 trace records
# per run: trace_first x threads <= 1,000,000; the runs have 1 thread), against a plain COPY of the same rows
# through psql, side by side in one run on the same PostgreSQL server.
#
# AGENTS agent processes (the agent jar, with their engines) on loopback, each running one tcp loopback run at
# the same time:
#   rate    — RATE_SIZE-byte messages for RATE_SECONDS, unpaced: the engines make cycles faster than anything
#             can store them, so the agents' outboxes fill (memory, then spool). While the engines run, the
#             busy engine threads share the machine's cores with everything else; once they have stopped,
#             all agents stream their backlog at once and the controller ingests at its capacity. Ingest
#             rate = rows stored after the last engine stopped while all agents still stream (until the
#             first has stored its whole backlog) / that time (the tail and the whole window are reported too).
#             RATE_REPEATS times (`run_trace` truncated and a checkpoint before each); the median ingest rate stands.
#             Before it, WAL_WARM_ROWS rows' worth of WAL written once, so that neither load pays for creating
#             the server's WAL segment files (see below). A run traces its first TRACE_FIRST cycles only (it
#             makes more in RATE_SECONDS unpaced), so an agent's backlog is at most TRACE_FIRST rows.
#   psql    — the rows the rate phase stored, exported with COPY TO (binary) and loaded back with
#             psql's \copy FROM (binary, one transaction) into a table like `run_trace` (same BRIN index),
#             REPEATS times; the median rate. The rows are those of the last rate phase. Ratio = ingest rate / psql rate (goal >= 0.8).
#   latency — first, after the warm-up: LAT_SIZE-byte messages for LAT_SECONDS, each engine paced at
#             LAT_RATE cycles/s (rate_limit), then again at LAT_RATE_HIGH (reported beside, no goal); per stored frame, latency = when its rows became visible (the commit timestamp of its run_frame row,
#             just before commit) - when its oldest cycle ended (the run's t0_realtime_ns + first_end_ns).
#             Percentiles are over trace records (every record of a frame counted at its frame's oldest: an
#             upper bound). Goal p99 < 1 s.
# The agents (and their engines) stand in for other hosts: they run at nice AGENT_NICE, so the controller
# and PostgreSQL get the cores first, as on a controller host that runs only them. Without it the 50 agent
# JVMs and 100 engine threads keep both cores busy and every hop of a trace record waits its turn among ~70
# runnable threads (p99 1.4 s at 200 cycles/s per agent, 0.2 s niced).
# Knobs: AGENTS=50 TRACE_FIRST=1000000 RATE_SIZE=64 RATE_SECONDS=20 LAT_SIZE=4096 LAT_RATE=200 LAT_RATE_HIGH=1000
#   LAT_SECONDS=20 REPEATS=3 RATE_REPEATS=$REPEATS WAL_WARM_ROWS=15000000
#   WARMUP_ROUNDS=4 (short runs on every agent first: agents are long-running, their JIT warm)
#   LATENCY_ONLY=1 (stop after the latency phases, for looking into them; results.md is not written)

AGENTS=${AGENTS:-50}
REGISTER_SECONDS=${REGISTER_SECONDS:-$(register_seconds "$AGENTS")}
TRACE_FIRST=${TRACE_FIRST:-1000000}
RATE_SIZE=${RATE_SIZE:-64}
RATE_SECONDS=${RATE_SECONDS:-20}
LAT_SIZE=${LAT_SIZE:-4096}
LAT_RATE=${LAT_RATE:-200}
LAT_RATE_HIGH=${LAT_RATE_HIGH-1000} # a second latency phase at this rate, reported beside (empty: none)
LAT_SECONDS=${LAT_SECONDS:-20}
REPEATS=${REPEATS:-3}
RATE_REPEATS=${RATE_REPEATS:-$REPEATS}
WAL_WARM_ROWS=${WAL_WARM_ROWS:-15000000} # ~1.5 GB of WAL: more than one rate phase writes
WARMUP_ROUNDS=${WARMUP_ROUNDS:-4}

echo "starting $AGENTS agents..." >&2
ids=()
for i in $(seq -w 1 "$AGENTS"); do
    ids+=("ingest-$i")
    QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN nice -n "$AGENT_NICE" java -Xmx256m -jar "$AJAR" --controller "ws://127.0.0.1:$CPORT/agent" \
        --id "ingest-$i" --spool-dir "$TMP/spool/$i" --state-dir "$TMP/agent-state/$i" --spool-memory-mb 64 \
        >"$TMP/agent-$i.log" 2>&1 &
    PIDS+=($!)
done
# the last warning or error an agent logged (its log: agent-N.log for ingest-N)
agent_error() {
    local e
    e=$(grep -hE "WARN|ERROR|Exception" "$TMP/agent-${1#ingest-}.log" 2>/dev/null | tail -1)
    echo "${e:-(none logged)}"
}
await_agents "${ids[@]}"
HOSTS=$(IFS=,; echo "${ids[*]}")

# SQL columns of an experiment's runs: trace records their engines kept, records their rings dropped (the agent did not
# drain them in time: counted, never stored), and the records asked for (each run's first TRACE_FIRST cycles)
traced_dropped_wanted() {
    local runs
    runs=$(printf "$RUNS_OF" "$1")
    echo "(SELECT sum((summary->>'traced')::bigint) FROM run_summary WHERE run_id IN ($runs)),
          (SELECT sum(dropped) FROM run_summary WHERE run_id IN ($runs)),
          (SELECT sum(least(cycles, $TRACE_FIRST)) FROM run_summary WHERE run_id IN ($runs))"
}
check_trace() { # rows stored, traced, dropped, wanted
    [ "$1" = "$2" ] || die "stored $1 trace records but the engines kept $2"
    [ $(($2 + $3)) = "$4" ] || die "the engines kept $2 trace records and dropped $3, but the runs asked for $4"
}

# submit NAME SIZE SECONDS [MORE BASE KEYS] -> experiment id, after it ended (all runs must finish)
trace_experiment() {
    run_experiment "$1" "{provider: tcp, msg_size: $2, duration_ms: $(($3 * 1000)), ring_capacity: 1048576, trace_first: $TRACE_FIRST${4:-}}"
}

# Agents are long-running processes: warm them up (the JIT compiles their draining and sending paths) with
# WARMUP_ROUNDS short runs each before anything is measured.
# (paced like the latency phase: the same code paths, without gigabytes for the disk to write back)
for r in $(seq "$WARMUP_ROUNDS"); do
    echo "warm-up $r of $WARMUP_ROUNDS: $AGENTS x ${LAT_SIZE} B at $LAT_RATE cycles/s for 5 s..." >&2
    trace_experiment "warm-up $r" "$LAT_SIZE" 5 ", rate_limit: $LAT_RATE" >/dev/null
done

# latency_phase RATE: one paced run per agent; sets LAT_P50 LAT_P99 LAT_MAX LAT_ROWS LAT_ROWS_PER_S LAT_DROPPED LAT_CPU
latency_phase() {
    local rate=$1 id la0 lc0 lp0 la1 lc1 lp1 window traced wanted
    echo "latency phase: $AGENTS x ${LAT_SIZE} B at $rate cycles/s for ${LAT_SECONDS} s..." >&2
    read -r la0 lc0 lp0 <<<"$(usage_snapshot)"
    id=$(trace_experiment "ingest latency at $rate cycles/s" "$LAT_SIZE" "$LAT_SECONDS" ", rate_limit: $rate")
    read -r la1 lc1 lp1 <<<"$(usage_snapshot)"
    LAT_CPU="agents and their engines $(awk -v a="$la0" -v b="$la1" 'BEGIN { printf "%.1f", b - a }') s, controller $(awk -v a="$lc0" -v b="$lc1" 'BEGIN { printf "%.1f", b - a }') s, PostgreSQL $(awk -v a="$lp0" -v b="$lp1" 'BEGIN { printf "%.1f", b - a }') s"
    IFS='|' read -r LAT_P50 LAT_P99 LAT_MAX LAT_ROWS window traced LAT_DROPPED wanted <<<"$("${PSQL[@]}" -c "
        WITH f AS (
            SELECT b.rows, (extract(epoch FROM pg_xact_commit_timestamp(b.xmin)) * 1e9
                            - ((s.summary->'clock'->>'t0_realtime_ns')::numeric + b.first_end_ns)) / 1e6 AS ms, pg_xact_commit_timestamp(b.xmin) AS visible_at
            FROM run_frame b JOIN run_summary s ON s.run_id = b.run_id
            WHERE b.run_id IN ($(printf "$RUNS_OF" "$id")) AND b.rows > 0),
        w AS (SELECT ms, sum(rows) OVER (ORDER BY ms) AS upto, sum(rows) OVER () AS total FROM f)
        SELECT round(min(ms) FILTER (WHERE upto >= total * 0.5)::numeric, 1),
               round(min(ms) FILTER (WHERE upto >= total * 0.99)::numeric, 1), round(max(ms)::numeric, 1),
               (SELECT sum(rows) FROM f), (SELECT extract(epoch FROM max(visible_at) - min(visible_at)) FROM f),
               $(traced_dropped_wanted "$id")
        FROM w")"
    check_trace "$LAT_ROWS" "$traced" "$LAT_DROPPED" "$wanted"
    LAT_ROWS_PER_S=$(awk -v r="$LAT_ROWS" -v w="$window" 'BEGIN { printf "%.0f", r / w }')
    echo "  p50 $LAT_P50 ms, p99 $LAT_P99 ms, max $LAT_MAX ms at $LAT_ROWS_PER_S rows/s; CPU: $LAT_CPU" >&2
    [ -z "${LATENCY_ONLY:-}" ] || "${PSQL[@]}" -F ' ' -c "
        SELECT to_char(date_trunc('second', pg_xact_commit_timestamp(b.xmin)), 'HH24:MI:SS') AS second, sum(b.rows) AS rows,
               round(avg((extract(epoch FROM pg_xact_commit_timestamp(b.xmin)) * 1e9
                          - ((s.summary->'clock'->>'t0_realtime_ns')::numeric + b.first_end_ns)) / 1e6)) AS avg_ms,
               round(max((extract(epoch FROM pg_xact_commit_timestamp(b.xmin)) * 1e9
                          - ((s.summary->'clock'->>'t0_realtime_ns')::numeric + b.first_end_ns)) / 1e6)) AS max_ms
        FROM run_frame b JOIN run_summary s ON s.run_id = b.run_id
        WHERE b.run_id IN ($(printf "$RUNS_OF" "$id")) AND b.rows > 0 GROUP BY 1 ORDER BY 1" |
        sed 's/^/    /' >&2
}

latency_phase "$LAT_RATE"
read -r G_P50 G_P99 G_MAX G_ROWS G_ROWS_PER_S G_DROPPED G_CPU <<<"$LAT_P50 $LAT_P99 $LAT_MAX $LAT_ROWS $LAT_ROWS_PER_S $LAT_DROPPED $LAT_CPU"
H_ROWS=""
if [ -n "$LAT_RATE_HIGH" ]; then
    latency_phase "$LAT_RATE_HIGH"
    H_ROWS="| the same at $LAT_RATE_HIGH cycles/s per agent ($LAT_ROWS rows at $LAT_ROWS_PER_S rows/s): p50 / p99 / max | $LAT_P50 / $LAT_P99 / $LAT_MAX ms | | |
| CPU used during that phase | $LAT_CPU | | |"
    G_DROPPED="$G_DROPPED + $LAT_DROPPED"
fi

[ -n "${LATENCY_ONLY:-}" ] && { echo "LATENCY_ONLY: stopping before the rate phase (results.md not written)" >&2; exit 0; }

# A long-running server recycles its WAL segments at each checkpoint; a new one creates and zero-fills a
# 16 MiB file for every segment it writes (IO/WalInitWrite and the LWLock/WALWrite waits behind it were about
# a third of the ingest writers' samples in pg_stat_activity on a fresh server). Whichever load came first
# paid for that and the later ones did not (the psql loads found the ingest's segments recycled): write
# WAL_WARM_ROWS rows' worth of WAL once (a table created and dropped) and checkpoint, so both find them.
echo "WAL warm-up: $WAL_WARM_ROWS rows written and dropped..." >&2
"${PSQL[@]}" -c "CREATE TABLE wal_warm AS SELECT g AS a, g AS b, g AS c, g AS d, g AS e, g AS f
                 FROM generate_series(1::bigint, $WAL_WARM_ROWS) g; DROP TABLE wal_warm; CHECKPOINT"
echo "  $(wal_bytes); $(ls "$TMP/postgres/pg_wal" | grep -c '^[0-9A-F]\{24\}$') segment files" >&2

# rate_phase: one unpaced run per agent; appends a line to $TMP/rate-runs:
# INGEST_RATE ALL_ROWS ALL_WINDOW DRAIN_RATE DRAIN_ROWS DRAIN_WINDOW WHOLE_RATE RATE_ROWS RATE_FRAMES RATE_WINDOW
# RATE_DROPPED RATE_ID DRAIN_USAGE (the last with spaces; the two before it are not needed for the median run)
rate_phase() {
    local id a0 c0 p0 a1 c1 p1 usage rows window frames traced dropped wanted drain_rows drain_window all_rows all_window
    local whole drain ingest
    # only the last phase's rows are kept (for the psql loads): each phase stores up to ~13 GB
    "${PSQL[@]}" -c "TRUNCATE run_trace; CHECKPOINT" # as before each psql load
    echo "rate phase $1 of $RATE_REPEATS: $AGENTS x ${RATE_SIZE} B for ${RATE_SECONDS} s..." >&2
    (sleep $((RATE_SECONDS + 3)); usage_snapshot >"$TMP/usage-drain-start") & # the engines have stopped by then
    local snapshot=$!
    id=$(trace_experiment "ingest rate $1" "$RATE_SIZE" "$RATE_SECONDS")
    read -r a1 c1 p1 <<<"$(usage_snapshot)"
    wait "$snapshot" # (a phase too short to measure ends before it; the window check below says so)
    read -r a0 c0 p0 <"$TMP/usage-drain-start"
    usage=$(awk -v a0="$a0" -v a1="$a1" -v c0="$c0" -v c1="$c1" -v p0="$p0" -v p1="$p1" \
        'BEGIN { printf "agents %.1f s, controller %.1f s, PostgreSQL %.1f s", a1 - a0, c1 - c0, p1 - p0 }')
    # the engines stopped when the last cycle of any run ended: its frame's oldest cycle (or interval end) is at most
    # 100 ms older; "all streaming": from then until the first agent had stored its whole trace backlog (all still
    # sending). Rates count trace records (rows) and the frames that carry them.
    IFS='|' read -r rows window frames traced dropped wanted drain_rows drain_window all_rows all_window <<<"$("${PSQL[@]}" -c "
        WITH b AS (SELECT b.run_id, b.rows, pg_xact_commit_timestamp(b.xmin) AS received_at, to_timestamp(((s.summary->'clock'->>'t0_realtime_ns')::numeric
                                                                + b.first_end_ns) / 1e9) AS oldest
                   FROM run_frame b JOIN run_summary s ON s.run_id = b.run_id
                   WHERE b.run_id IN ($(printf "$RUNS_OF" "$id"))),
             e AS (SELECT max(oldest) + interval '100 milliseconds' AS stopped FROM b),
             f AS (SELECT min(last) AS first_done
                   FROM (SELECT max(received_at) FILTER (WHERE rows > 0) AS last FROM b GROUP BY run_id) r)
        SELECT sum(rows), extract(epoch FROM max(received_at) FILTER (WHERE rows > 0) - min(received_at) FILTER (WHERE rows > 0)),
               count(*) FILTER (WHERE rows > 0), $(traced_dropped_wanted "$id"),
               sum(rows) FILTER (WHERE received_at > (SELECT stopped FROM e)),
               extract(epoch FROM max(received_at) FILTER (WHERE rows > 0) - (SELECT stopped FROM e)),
               coalesce(sum(rows) FILTER (WHERE received_at > (SELECT stopped FROM e) AND received_at <= (SELECT first_done FROM f)), 0),
               greatest(extract(epoch FROM (SELECT first_done FROM f) - (SELECT stopped FROM e)), 0)
        FROM b")"
    check_trace "$rows" "$traced" "$dropped" "$wanted"
    whole=$(awk -v r="$rows" -v w="$window" 'BEGIN { printf "%.0f", r / w }')
    drain=$(awk -v r="$drain_rows" -v w="$drain_window" 'BEGIN { printf "%.0f", r / w }')
    awk -v w="$all_window" 'BEGIN { exit !(w >= 2) }' ||
        die "an agent had stored its backlog ${all_window} s after the engines stopped: too short to measure; raise RATE_SECONDS"
    ingest=$(awk -v r="$all_rows" -v w="$all_window" 'BEGIN { printf "%.0f", r / w }')
    echo "  stored $rows rows in $window s ($whole rows/s); after the engines stopped $drain_rows rows in $drain_window s: $drain rows/s; while all $AGENTS still streamed $all_rows rows in $all_window s: $ingest rows/s" >&2
    echo "  CPU from ${RATE_SECONDS}+3 s to the end: $usage" >&2
    echo "  PostgreSQL processes so far: $(postgres_breakdown)" >&2
    echo "  PostgreSQL WAL so far: $(wal_bytes)" >&2
    echo "$ingest $all_rows $all_window $drain $drain_rows $drain_window $whole $rows $frames $window $dropped $id $usage" >>"$TMP/rate-runs"
}
for r in $(seq "$RATE_REPEATS"); do
    rate_phase "$r"
done
# the run with the median ingest rate (the lower middle one of an even count) stands for the phase
INGEST_RATES=$(awk '{ printf "%s ", $1 }' "$TMP/rate-runs")
read -r INGEST_RATE ALL_ROWS ALL_WINDOW DRAIN_RATE DRAIN_ROWS DRAIN_WINDOW WHOLE_RATE RATE_ROWS RATE_FRAMES RATE_WINDOW \
    _ _ DRAIN_USAGE <<<"$(sort -n -k1,1 "$TMP/rate-runs" | sed -n "$(( (RATE_REPEATS + 1) / 2 ))p")"
RATE_DROPS=$(awk '{ printf "%s%s", (NR > 1 ? " + " : ""), $11 }' "$TMP/rate-runs")
echo "  PostgreSQL: $("${PSQL[@]}" -c "SELECT 'run_trace: ' || autovacuum_count || ' autovacuums, ' || autoanalyze_count
    || ' autoanalyzes; checkpoints: ' || (SELECT num_timed + num_requested FROM pg_stat_checkpointer)
    FROM pg_stat_user_tables WHERE relname = 'run_trace'")" >&2

echo "psql phase: the last rate phase's rows through psql's \\copy, $REPEATS times..." >&2
LAST_ID=$(awk 'END { print $12 }' "$TMP/rate-runs")
PSQL_ROWS=$(awk 'END { print $8 }' "$TMP/rate-runs")
"${PSQL[@]}" -c "\\copy (SELECT run_id, thread, cycle, start_ns, end_ns, bytes, messages, errors FROM run_trace
    WHERE run_id IN ($(printf "$RUNS_OF" "$LAST_ID"))) TO '$TMP/rows.bin' WITH (FORMAT binary)"
"${PSQL[@]}" -c "TRUNCATE run_trace" # the disk they take, for the copies
"${PSQL[@]}" -c "CREATE TABLE trace_copy (LIKE run_trace INCLUDING ALL)"
psql_rates=""
P_BEFORE=$(cpu_seconds $(postgres_pids))
for r in $(seq "$REPEATS"); do
    "${PSQL[@]}" -c "TRUNCATE trace_copy; CHECKPOINT"
    t0=$(date +%s.%N)
    "${PSQL[@]}" -c "\\copy trace_copy (run_id, thread, cycle, start_ns, end_ns, bytes, messages, errors) FROM '$TMP/rows.bin' WITH (FORMAT binary)"
    t1=$(date +%s.%N)
    n=$("${PSQL[@]}" -c "SELECT count(*) FROM trace_copy")
    [ "$n" = "$PSQL_ROWS" ] || die "psql loaded $n rows, expected $PSQL_ROWS"
    rate=$(awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
    psql_rates+="$rate "
    echo "  psql run $r: $rate rows/s" >&2
done
echo "  PostgreSQL WAL after the psql loads: $(wal_bytes)" >&2
PSQL_CPU=$(awk -v a="$P_BEFORE" -v b="$(cpu_seconds $(postgres_pids))" -v r="$REPEATS" 'BEGIN { printf "%.1f", (b - a) / r }')
PSQL_RATE=$(echo "$psql_rates" | tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
"${PSQL[@]}" -c "DROP TABLE trace_copy"
RATIO=$(awk -v a="$INGEST_RATE" -v b="$PSQL_RATE" 'BEGIN { printf "%.2f", a / b }')

LOAD_AT_END=$(load_average)
cat >"$TMP/section.md" <<EOF
## Trace path: $AGENTS agents streaming per-cycle trace records at once vs psql's COPY of the same rows

One controller (\`qplab-controller.jar\`, its embedded PostgreSQL with default settings, fsync on) and
$AGENTS agent processes (\`nice -n $AGENT_NICE java -Xmx256m -jar qplab-agent.jar\`) on this machine's loopback, each running one tcp loopback run at the same time;
every run asks for a trace of its first $TRACE_FIRST cycles (\`trace_first\`), one row in \`run_trace\` each. All on one $(nproc)-core machine: the $AGENTS agent JVMs,
their engines, the controller and PostgreSQL share the same cores. The agents stand in for other hosts:
niced, they get the CPU the controller and PostgreSQL leave (un-niced, with the JDK's WebSocket client the
agents had then, ~70 runnable threads on 2 cores made every hop of a trace record wait its turn: p99 1.4 s at 200
cycles/s per agent).

| measure | value | goal | |
|---|---:|---:|---|
| **sustained ingest rate while all $AGENTS agents stream their backlogs at once** (engines stopped, until the first agent had stored all of its backlog), median of $RATE_REPEATS rate phases ($INGEST_RATES); that phase: $ALL_ROWS rows in ${ALL_WINDOW} s | **$INGEST_RATE rows/s** | | |
| the same until the last agent's backlog was stored (the tail: fewer and fewer agents, each with at most 4 frames in flight) ($DRAIN_ROWS rows in ${DRAIN_WINDOW} s) | $DRAIN_RATE rows/s | | |
| the whole window, engines running for the first ${RATE_SECONDS} s ($RATE_SIZE B messages; $RATE_ROWS rows in $RATE_FRAMES frames over ${RATE_WINDOW} s) | $WHOLE_RATE rows/s | | |
| psql \`\\copy ... FROM (FORMAT binary)\` of the last rate phase's rows ($PSQL_ROWS), one transaction, median of $REPEATS ($psql_rates) | $PSQL_RATE rows/s | | |
| **ratio ingest / psql** | **$RATIO** | ≥ 0.8 | $(verdict "$RATIO" 0.8 ge) |
| CPU used while the agents drained (from ${RATE_SECONDS} + 3 s to the end) | $DRAIN_USAGE | | |
| CPU PostgreSQL used per psql load | $PSQL_CPU s | | |
| trace record latency, engine record → visible row, p50 ($AGENTS agents each paced at $LAT_RATE cycles/s, $LAT_SIZE B messages: $G_ROWS rows at $G_ROWS_PER_S rows/s) | $G_P50 ms | | |
| **trace record latency p99** | **$G_P99 ms** | < 1000 ms | $(verdict "$G_P99" 1000 lt) |
| trace record latency max | $G_MAX ms | | |
| CPU used during the latency phase (its runs, start to end) | $G_CPU | | |
$H_ROWS

- Every run FINISHED; rows stored = trace records the engines kept, and kept + dropped = the cycles traced
  (each run's first $TRACE_FIRST; checked); records the engines' rings dropped: $RATE_DROPS (rate phases), $G_DROPPED (latency phases).
- The rate phase's engines produce cycles faster than they can be stored: the agents keep them (memory,
  then their spools). The ratio uses the sustained rate after the engines stopped while all $AGENTS agents
  still stream (until the first one has stored its whole backlog), when the machine runs only the
  agents' streaming, the controller and PostgreSQL — in a lab the engines run on other hosts;
  while they run here, 2 x $AGENTS busy engine threads share the same cores (the whole-window rate).
- The ingest can beat psql: its \`qplab.ingest.writers\` (2) each run their own COPY, so PostgreSQL
  inserts on both cores at once; psql's one \`\\copy\` is one backend. Each rate phase starts on an empty
  \`run_trace\` table (the previous phase's rows truncated, for disk space), as each psql load does.
- Before the rate phases, ${WAL_WARM_ROWS} rows' worth of WAL is written once and checkpointed: a new server
  creates and zero-fills a 16 MiB file for every WAL segment it writes, a long-running one recycles them at each
  checkpoint. Without it the first load paid for that and the later ones did not (IO/WalInitWrite and the
  WALWrite lock behind it were about a third of the ingest writers' samples in pg_stat_activity, and the
  psql loads, run after, found the ingest's segments recycled).
- The latency phase runs first: right after the rate and psql phases the kernel is still writing
  gigabytes back to disk, and every commit's WAL flush waits behind it (seconds).
- Latency is measured from the stored data: a frame is visible when its ingest transaction commits
  (\`pg_xact_commit_timestamp\` of its run_frame row's xmin); its oldest cycle's end is the run's \`t0_realtime_ns\` + \`first_end_ns\`; each
  frame's cycles all count at that oldest one's latency.
- Where the latency goes (\`LATENCY_ONLY=1\` prints it per second): an agent sends a frame when its oldest
  record is 100 ms old (or the frame is full), so at 200 cycles/s nearly all of the median is that wait.
  With the JDK's java.net.http WebSocket client the agents had before, the agents' threads kept both cores
  busy (over 10 s of this phase: the client's selector and worker threads 3.9 s of CPU, the engines' sender
  threads 2.3 s, the JIT compilers 3.0 s) and the latency came in waves up to ~1 s (p99 0.78-0.94 s in three
  runs, 0.34 s in one); with the agent's own client, p99 0.15-0.16 s. At 1000 cycles/s per agent the
  $AGENTS agents and their engines alone still keep both cores busy, and the latency comes and goes in waves.

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_facts); psql $(psql --version | awk '{ print $3 }')
- load average (1, 5, 15 min) at the start: $LOAD_AT_START; at the end: $LOAD_AT_END (this bench's own processes included)
- Before the measured phases every agent ran $WARMUP_ROUNDS paced warm-up runs of 5 s (agents are long-running
  processes; a fresh JVM compiling its hot paths is not what a lab's agents are doing).
- regenerate: \`./mvnw -q package -DskipTests && MODE=trace AGENTS=$AGENTS TRACE_FIRST=$TRACE_FIRST AGENT_NICE=$AGENT_NICE WARMUP_ROUNDS=$WARMUP_ROUNDS RATE_SIZE=$RATE_SIZE RATE_SECONDS=$RATE_SECONDS LAT_SIZE=$LAT_SIZE LAT_RATE=$LAT_RATE LAT_RATE_HIGH=$LAT_RATE_HIGH LAT_SECONDS=$LAT_SECONDS REPEATS=$REPEATS RATE_REPEATS=$RATE_REPEATS WAL_WARM_ROWS=$WAL_WARM_ROWS bench/ingest/run.sh\`
EOF
write_section "$TMP/section.md"

