# bench/ingest/intervals.sh — the interval path of bench/ingest; sourced by run.sh (MODE=intervals, the default).
#
# AGENTS simulated agents (IntervalAgents.java next to this file, compiled against the agent jar): AGENT_JVMS JVMs
# at nice AGENT_NICE, each holding its share of the agents' WebSocket connections; no engines. One experiment of
# AGENTS loopback runs, one per agent (tcp, MSG_SIZE B, THREADS threads, interval_ms INTERVAL_MS): every agent
# sends one frame of THREADS intervals (about CYCLES cycles each, a few hundred histogram buckets) every
# INTERVAL_MS, at a random phase of its own. First a warm-up experiment of WARMUP_SECONDS (the controller's JIT,
# PostgreSQL's WAL segments), then the measured one of DURATION seconds. Measured:
#   - intervals stored per second, and CPU per interval stored (controller, PostgreSQL, the simulator), while every
#     run streams (from the moment the last run's first frame was stored to the moment the first run's last one
#     was, CPU read from /proc every SAMPLE_SECONDS; the whole experiment beside);
#   - interval -> visible row latency over every interval of the experiment: when the frame's transaction committed
#     (pg_xact_commit_timestamp of its run_frame row's xmin; run.sh makes sure PostgreSQL tracks commit timestamps) - (the run's t0_realtime_ns + the frame's first_end_ns, the earliest end of its intervals);
#   - bytes stored per interval (run_interval with its index, run_histogram, run_frame; WAL beside);
#   - checks: every run FINISHED (the controller also checks that each run's stored intervals count its summary's
#     cycles), stored interval cycles = the summaries' cycles, every frame the simulator sent acknowledged and
#     stored once, every interval stored once.
# Knobs: AGENTS=1000 AGENT_JVMS=1 THREADS=4 INTERVAL_MS=100 DURATION=60 WARMUP_SECONDS=20 CYCLES=400000
#   MSG_SIZE=64 SAMPLE_SECONDS=2 SIM_HEAP=2g FRAME_LAYOUT=3 (2: the frames of the previous release's agents, histograms
#   as pair lists that the controller encodes for storing; needed by a CONTROLLER_JAR from before layout 3)

AGENTS=${AGENTS:-1000}
REGISTER_SECONDS=${REGISTER_SECONDS:-$(register_seconds "$AGENTS")}
AGENT_JVMS=${AGENT_JVMS:-1}
THREADS=${THREADS:-4}
INTERVAL_MS=${INTERVAL_MS:-100}
DURATION=${DURATION:-60}
WARMUP_SECONDS=${WARMUP_SECONDS:-20}
CYCLES=${CYCLES:-400000}
MSG_SIZE=${MSG_SIZE:-64}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-2}
SIM_HEAP=${SIM_HEAP:-2g}
FRAME_LAYOUT=${FRAME_LAYOUT:-3}
WINDOW_FRAMES=4 # AgentGateway.INGEST_WINDOW: frames of one agent being stored at once; the controller reads no further
command -v javac >/dev/null || die "javac is needed to compile IntervalAgents.java (a JDK, not only a JRE)"

CLASSES=$TMP/classes
javac -cp "$AJAR" -d "$CLASSES" "$HERE/IntervalAgents.java" || die "compiling IntervalAgents.java failed"

ids=()
for i in $(seq 1 "$AGENTS"); do ids+=("$(printf 'sim-%04d' "$i")"); done
HOSTS=$(IFS=,; echo "${ids[*]}")
PER_JVM=$(((AGENTS + AGENT_JVMS - 1) / AGENT_JVMS))
echo "starting $AGENTS simulated agents in $AGENT_JVMS JVM(s)..." >&2
for ((j = 0; j * PER_JVM < AGENTS; j++)); do
    n=$((AGENTS - j * PER_JVM < PER_JVM ? AGENTS - j * PER_JVM : PER_JVM))
    QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN nice -n "$AGENT_NICE" java -Xmx"$SIM_HEAP" -cp "$AJAR:$CLASSES" org.qplab.agent.IntervalAgents \
        --controller "ws://127.0.0.1:$CPORT/agent" --agents "$n" --first $((j * PER_JVM + 1)) \
        --cycles "$CYCLES" --register-within "$REGISTER_SECONDS" --frame-layout "$FRAME_LAYOUT" >"$TMP/sim-$j.log" 2>"$TMP/sim-$j.err" &
    PIDS+=($!)
done
# the agents a simulator reports never registered (it exits when one is not in within REGISTER_SECONDS), and the
# last error a simulated agent saw: from that report, else the last line the simulator wrote about the agent; then
# what the controller logged about the agent's link (found by its local port: a link refused before its hello has no
# agent id in the controller's log), e.g. what its first frame was
unregistered() { sed -n 's/^never registered: \([^:]*\): .*/\1/p' "$TMP"/sim-*.log 2>/dev/null; }
agent_error() {
    local e port
    e=$(grep -h -- "^never registered: $1: " "$TMP"/sim-*.log 2>/dev/null | tail -1 | sed "s/^never registered: $1: //")
    [ -n "$e" ] || e=$(grep -h -- "^$1: " "$TMP"/sim-*.err 2>/dev/null | tail -1 | sed "s/^$1: //")
    echo "${e:-(none reported)}"
    port=$(sed -n 's/.*(link from local port \([0-9]*\))$/\1/p' <<<"$e")
    [ -z "$port" ] || { grep -E "127\.0\.0\.1:$port([^0-9]|\$)" "$TMP/controller.log" 2>/dev/null || true; } |
        { grep -E 'WARN|ERROR' || true; } | head -3 | cut -c1-400 | sed 's/^/      controller: /'
}
await_agents "${ids[@]}"
cat "$TMP"/sim-*.log | sed 's/^/  simulator: /' >&2
TEMPLATES=$(sed -n '1s/^histograms: //p' "$TMP/sim-0.log")

base() { # seconds -> the runs' parameters
    echo "{provider: tcp, msg_size: $MSG_SIZE, threads: $THREADS, interval_ms: $INTERVAL_MS, duration_ms: $(($1 * 1000))}"
}

echo "warm-up: $AGENTS agents x $THREADS threads for ${WARMUP_SECONDS} s..." >&2
run_experiment "ingest warm-up" "$(base "$WARMUP_SECONDS")" >/dev/null

# every SAMPLE_SECONDS: "TICK EPOCH SIMULATOR CONTROLLER POSTGRES BUSY STEAL" CPU seconds, and per tick the
# controller's, the simulators' and PostgreSQL's CPU by thread or process kind, and what the database sessions are
# doing: "UPSERTING LOCKED COPYING OTHER" (sessions running the ingest's run_histogram upsert, the same waiting for
# a lock, the COPY into run_interval, anything else)
ACTIVITY="SELECT count(*) FILTER (WHERE query LIKE 'INSERT INTO run_histogram%' AND wait_event_type IS DISTINCT FROM 'Lock'),
    count(*) FILTER (WHERE query LIKE 'INSERT INTO run_histogram%' AND wait_event_type = 'Lock'),
    count(*) FILTER (WHERE query LIKE 'COPY run_interval%'),
    count(*) FILTER (WHERE query NOT LIKE 'INSERT INTO run_histogram%' AND query NOT LIKE 'COPY run_interval%')
    FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
mkdir "$TMP/ticks"
sampler() {
    local k=0 p
    set +e # a process that ended meanwhile is no reason to stop sampling
    while :; do
        echo "$k $(date +%s.%N) $(usage_snapshot) $(machine_cpu)" >>"$TMP/cpu.log"
        thread_cpu "$CONTROLLER_PID" >"$TMP/ticks/controller-$k"
        for p in "${PIDS[@]}"; do thread_cpu "$p"; done >"$TMP/ticks/simulator-$k"
        postgres_cpu >"$TMP/ticks/postgres-$k"
        "${PSQL[@]}" -F ' ' -c "$ACTIVITY" >"$TMP/ticks/activity-$k"
        k=$((k + 1))
        sleep "$SAMPLE_SECONDS"
    done
}
sizes() { # -> "RUN_INTERVAL RUN_HISTOGRAM RUN_FRAME WAL HISTOGRAM_ROW_WRITES CHECKPOINTS" (bytes, rows)
    "${PSQL[@]}" -F ' ' -c "SELECT pg_total_relation_size('run_interval'), pg_total_relation_size('run_histogram'),
        pg_total_relation_size('run_frame'), (SELECT wal_bytes FROM pg_stat_wal),
        (SELECT n_tup_ins + n_tup_upd FROM pg_stat_user_tables WHERE relname = 'run_histogram'),
        (SELECT num_timed + num_requested FROM pg_stat_checkpointer)"
}

# run_interval's parts: "HEAP INDEXES TOAST" (bytes; TOAST with its index)
iv_parts() {
    "${PSQL[@]}" -F ' ' -c "SELECT pg_relation_size('run_interval'), pg_indexes_size('run_interval'),
        pg_total_relation_size('run_interval') - pg_relation_size('run_interval') - pg_indexes_size('run_interval')"
}
# PG_STATEMENTS=1: pg_stat_statements before the measured experiment, to subtract from what it says after
PSS_COLUMNS="queryid, calls, total_exec_time, rows, left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS query"
sleep 1 # the warm-up's last statistics reach pg_stat
[ -z "$PG_STATEMENTS" ] || "${PSQL[@]}" -c "CREATE TABLE bench_pss AS SELECT $PSS_COLUMNS FROM pg_stat_statements"
read -r S0_IV S0_HIST S0_BATCH S0_WAL S0_HROWS S0_CKPT <<<"$(sizes)"
read -r P0_HEAP P0_INDEX P0_TOAST <<<"$(iv_parts)"
read -r U0_SIM U0_CTL U0_PG <<<"$(usage_snapshot)"
echo "measured: $AGENTS agents x $THREADS threads x $((1000 / INTERVAL_MS)) intervals/s for ${DURATION} s..." >&2
sampler &
BACKGROUND+=($!)
EXP=$(run_experiment "ingest: $AGENTS agents x $THREADS threads" "$(base "$DURATION")")
read -r U1_SIM U1_CTL U1_PG <<<"$(usage_snapshot)"
kill "${BACKGROUND[-1]}"
LOAD_AT_END=$(load_average)
sleep 1
read -r S1_IV S1_HIST S1_BATCH S1_WAL S1_HROWS S1_CKPT <<<"$(sizes)"
read -r P1_HEAP P1_INDEX P1_TOAST <<<"$(iv_parts)"
RUNS=$(printf "$RUNS_OF" "$EXP")
STATEMENTS=""
if [ -n "$PG_STATEMENTS" ]; then # the measured experiment's statements by execution time, per interval stored
    STATEMENTS=$("${PSQL[@]}" -c "
        WITH d AS (SELECT n.query, n.calls - coalesce(o.calls, 0) AS calls, n.total_exec_time - coalesce(o.total_exec_time, 0) AS ms,
                          n.rows - coalesce(o.rows, 0) AS rows
                   FROM (SELECT $PSS_COLUMNS FROM pg_stat_statements) n LEFT JOIN bench_pss o USING (queryid)),
             t AS (SELECT sum(ms) AS all_ms FROM d), k AS (SELECT count(*) AS n FROM run_interval WHERE run_id IN ($RUNS))
        SELECT '| \`' || replace(query, '|', '\\|') || '\` | ' || calls || ' | ' || rows || ' | ' || round(ms::numeric) || ' ms ('
               || round((100 * ms / greatest(all_ms, 1e-9))::numeric) || ' %) | ' || round((ms * 1000 / greatest(k.n, 1))::numeric, 1) || ' µs |'
        FROM d, t, k WHERE ms > 0 ORDER BY ms DESC LIMIT 8")
    "${PSQL[@]}" -c "DROP TABLE bench_pss"
fi

# The window in which every run streamed: from the last run's first stored frame to the first run's last one;
# measured between the first and the last CPU sample inside it
read -r W0 W1 <<<"$("${PSQL[@]}" -F ' ' -c "SELECT extract(epoch FROM max(first)), extract(epoch FROM min(last))
    FROM (SELECT min(pg_xact_commit_timestamp(xmin)) AS first, max(pg_xact_commit_timestamp(xmin)) AS last FROM run_frame WHERE run_id IN ($RUNS) GROUP BY run_id) r")"
read -r KA TA A_SIM A_CTL A_PG A_BUSY A_STEAL <<<"$(awk -v w="$W0" '$2 >= w' "$TMP/cpu.log" | head -1)"
read -r KB TB B_SIM B_CTL B_PG B_BUSY B_STEAL <<<"$(awk -v w="$W1" '$2 <= w' "$TMP/cpu.log" | tail -1)"
[ -n "$KA" ] && [ -n "$KB" ] && [ "$KB" -gt "$KA" ] ||
    die "no two CPU samples while every run streamed (from $W0 to $W1): the runs did not overlap long enough; raise DURATION"

sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
per() { awk -v a="$1" -v b="$2" -v s="${3:-1}" 'BEGIN { printf "%.1f", (b > 0) ? a * s / b : 0 }'; } # a x s / b

# stored in the window: intervals, frames, group transactions (run_frame rows of one group share its xmin)
IFS='|' read -r W_INTERVALS W_FRAMES W_GROUPS W_GROUP_P50 W_GROUP_MAX <<<"$("${PSQL[@]}" -c "
    WITH g AS (SELECT xmin::text AS tx, count(*) AS frames, sum(intervals) AS intervals FROM run_frame
               WHERE run_id IN ($RUNS) AND pg_xact_commit_timestamp(xmin) > to_timestamp($TA) AND pg_xact_commit_timestamp(xmin) <= to_timestamp($TB) GROUP BY 1)
    SELECT sum(intervals), sum(frames), count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY frames), max(frames) FROM g")"
WDT=$(sub "$TA" "$TB")
RATE=$(per "$W_INTERVALS" "$WDT")
OFFERED=$((AGENTS * THREADS * 1000 / INTERVAL_MS))
CTL_US=$(per "$(sub "$A_CTL" "$B_CTL")" "$W_INTERVALS" 1000000)
PG_US=$(per "$(sub "$A_PG" "$B_PG")" "$W_INTERVALS" 1000000)
SIM_US=$(per "$(sub "$A_SIM" "$B_SIM")" "$W_INTERVALS" 1000000)
cores() { per "$(sub "$1" "$2")" "$WDT"; }
OTHER_CORES=$(awk -v busy="$(cores "$A_BUSY" "$B_BUSY")" -v s="$(cores "$A_SIM" "$B_SIM")" -v c="$(cores "$A_CTL" "$B_CTL")" \
    -v p="$(cores "$A_PG" "$B_PG")" 'BEGIN { printf "%.2f", busy - s - c - p }')

# latency over every interval of the experiment (each frame's intervals count at its oldest one), and in the window
latency_of() { # SQL condition on b -> "P50|P99|MAX|INTERVALS" in ms
    "${PSQL[@]}" -c "
        WITH f AS (SELECT b.intervals AS n, (extract(epoch FROM pg_xact_commit_timestamp(b.xmin)) * 1e9
                          - ((s.summary->'clock'->>'t0_realtime_ns')::numeric + b.first_end_ns)) / 1e6 AS ms
                   FROM run_frame b JOIN run_summary s ON s.run_id = b.run_id
                   WHERE b.run_id IN ($RUNS) AND b.intervals > 0 AND $1),
             w AS (SELECT ms, sum(n) OVER (ORDER BY ms) AS upto, sum(n) OVER () AS total FROM f)
        SELECT round(min(ms) FILTER (WHERE upto >= total * 0.5)::numeric, 1),
               round(min(ms) FILTER (WHERE upto >= total * 0.99)::numeric, 1), round(max(ms)::numeric, 1), max(total)
        FROM w"
}
IFS='|' read -r L_P50 L_P99 L_MAX L_N <<<"$(latency_of true)"
IFS='|' read -r LW_P50 LW_P99 LW_MAX _ <<<"$(latency_of "pg_xact_commit_timestamp(b.xmin) > to_timestamp($TA) AND pg_xact_commit_timestamp(b.xmin) <= to_timestamp($TB)")"
echo "  latency p50 $L_P50 ms, p99 $L_P99 ms, max $L_MAX ms over $L_N intervals; in the window ($WDT s) p50 $LW_P50, p99 $LW_P99, max $LW_MAX ms" >&2
echo "  $RATE intervals/s stored in the window (offered $OFFERED); CPU per interval: controller $CTL_US us, PostgreSQL $PG_US us, simulator $SIM_US us" >&2
# 10 s steps, longer ones (multiples of 10 s) when the frames took longer than 2 minutes to store: at most 12 rows
STEP=$("${PSQL[@]}" -c "SELECT greatest(10, ceil(extract(epoch FROM max(pg_xact_commit_timestamp(xmin)) - min(pg_xact_commit_timestamp(xmin))) / 120) * 10)::int
    FROM run_frame WHERE run_id IN ($RUNS)")
LATENCY_OVER_TIME=$("${PSQL[@]}" -c "
    WITH f AS (SELECT pg_xact_commit_timestamp(b.xmin) AS visible_at, b.intervals AS n, (extract(epoch FROM pg_xact_commit_timestamp(b.xmin)) * 1e9
                      - ((s.summary->'clock'->>'t0_realtime_ns')::numeric + b.first_end_ns)) / 1e6 AS ms
               FROM run_frame b JOIN run_summary s ON s.run_id = b.run_id WHERE b.run_id IN ($RUNS)),
         t AS (SELECT f.*, (floor(extract(epoch FROM f.visible_at - min(f.visible_at) OVER ()) / $STEP) * $STEP)::int AS step FROM f)
    SELECT '| ' || step || '-' || step + $STEP || ' s | ' || round(sum(n) / $STEP.0) || ' | '
           || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric) || ' | '
           || round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric) || ' | ' || round(max(ms)::numeric) || ' |'
    FROM t GROUP BY step ORDER BY step")
echo "$LATENCY_OVER_TIME" | sed 's/^/    /' >&2

# checks
IFS='|' read -r NRUNS SUM_IV_CYCLES SUM_SUMMARY_CYCLES N_INTERVALS SUM_BATCH_INTERVALS N_FRAMES SUM_BATCHES <<<"$("${PSQL[@]}" -c "
    SELECT (SELECT count(*) FROM run WHERE id IN ($RUNS) AND status = 'FINISHED'),
           (SELECT sum(cycles) FROM run_interval WHERE run_id IN ($RUNS)), (SELECT sum(cycles) FROM run_summary WHERE run_id IN ($RUNS)),
           (SELECT count(*) FROM run_interval WHERE run_id IN ($RUNS)), (SELECT sum(intervals) FROM run_frame WHERE run_id IN ($RUNS)),
           (SELECT count(*) FROM run_frame WHERE run_id IN ($RUNS)), (SELECT sum(batches) FROM run_summary WHERE run_id IN ($RUNS))")"
"${PSQL[@]}" -c "$RUNS" >"$TMP/runs"
# the simulator's line per run: "run ID agent A frames F acked K intervals I cycles C late_ms MS:N,..."
awk 'NR == FNR { want[$1]; next } $1 == "run" && ($2 in want)' "$TMP/runs" "$TMP"/sim-*.log >"$TMP/sim-runs"
read -r SIM_RUNS SIM_FRAMES SIM_UNACKED SIM_INTERVALS SIM_CYCLES <<<"$(awk '{ n++; f += $6; if ($6 != $8) u++; i += $10; c += $12 }
    END { printf "%d %.0f %d %.0f %.0f", n, f, u, i, c }' "$TMP/sim-runs")"
# how late the frames went out, in whole ms (rounded down): p50 p99 max over every frame of the experiment
read -r LATE_P50 LATE_P99 LATE_MAX <<<"$(awk '{ n = split($14, p, ","); for (k = 1; k <= n; k++) { split(p[k], q, ":"); h[q[1]] += q[2] } }
    END { for (ms in h) print ms, h[ms] }' "$TMP/sim-runs" | sort -n |
    awk '{ ms[NR] = $1; c[NR] = $2; t += $2 }
         END { for (i = 1; i <= NR; i++) { s += c[i]; if (p50 == "" && s >= t * 0.5) p50 = ms[i]; if (p99 == "" && s >= t * 0.99) p99 = ms[i] }
               print p50, p99, ms[NR] }')"
CHECKS_FAILED=""
check() { # description, value, expected
    [ "$2" = "$3" ] || CHECKS_FAILED+="- $1: $2, expected $3"$'\n'
}
check "runs FINISHED" "$NRUNS" "$AGENTS"
check "the stored intervals' cycles" "$SUM_IV_CYCLES" "$SUM_SUMMARY_CYCLES"
check "the simulator's cycles (what it sent)" "$SIM_CYCLES" "$SUM_SUMMARY_CYCLES"
check "runs the simulator reported as recorded" "$SIM_RUNS" "$AGENTS"
check "frames stored" "$N_FRAMES" "$SIM_FRAMES"
check "frames the summaries count (batches)" "$SUM_BATCHES" "$SIM_FRAMES"
check "runs with a frame not acknowledged" "$SIM_UNACKED" 0
check "intervals stored" "$N_INTERVALS" "$SIM_INTERVALS"
check "intervals the stored frames carried" "$SUM_BATCH_INTERVALS" "$SIM_INTERVALS"
check "links lost" "$(cat "$TMP"/sim-*.err | grep -c 'link closed' || true)" 0
[ -z "$CHECKS_FAILED" ] || { printf '%s' "$CHECKS_FAILED" >&2; die "checks failed (the numbers above)"; }

BYTES_IV=$(per "$((S1_IV - S0_IV))" "$N_INTERVALS")
BYTES_HIST=$(per "$((S1_HIST - S0_HIST))" "$N_INTERVALS")
BYTES_BATCH=$(per "$((S1_BATCH - S0_BATCH))" "$N_INTERVALS")
BYTES_ALL=$(per "$((S1_IV - S0_IV + S1_HIST - S0_HIST + S1_BATCH - S0_BATCH))" "$N_INTERVALS")
BYTES_WAL=$(per "$((S1_WAL - S0_WAL))" "$N_INTERVALS")
BYTES_HEAP=$(per "$((P1_HEAP - P0_HEAP))" "$N_INTERVALS")
BYTES_INDEX=$(per "$((P1_INDEX - P0_INDEX))" "$N_INTERVALS")
BYTES_TOAST=$(per "$((P1_TOAST - P0_TOAST))" "$N_INTERVALS")
# an average row of the measured experiment (pg_column_size of the row: its tuple header and columns), its histogram
IFS='|' read -r ROW_BYTES HIST_STORED <<<"$("${PSQL[@]}" -c "SELECT round(avg(pg_column_size(i.*))), round(avg(pg_column_size(i.buckets)))
    FROM run_interval i TABLESAMPLE SYSTEM (1) WHERE run_id IN ($RUNS)")"
HIST_BYTES=$("${PSQL[@]}" -c "SELECT round(avg(octet_length(buckets))) FROM run_interval TABLESAMPLE SYSTEM (1) WHERE run_id IN ($RUNS)")
EXP_SECONDS=$("${PSQL[@]}" -c "SELECT round(extract(epoch FROM max(pg_xact_commit_timestamp(xmin)) - min(pg_xact_commit_timestamp(xmin)))::numeric, 1) FROM run_frame WHERE run_id IN ($RUNS)")
if awk -v e="$EXP_SECONDS" -v d="$DURATION" 'BEGIN { exit !(e > d + 30) }'; then
    SPREAD="the ingest fell behind: the agents kept what the controller had not taken yet, and it stored their frames long after the runs ended"
else
    SPREAD="the runs start and end a few seconds apart"
fi
HROWS_PER_S=$(per "$((S1_HROWS - S0_HROWS))" "$EXP_SECONDS")
WHOLE_CTL_US=$(per "$(sub "$U0_CTL" "$U1_CTL")" "$N_INTERVALS" 1000000)
WHOLE_PG_US=$(per "$(sub "$U0_PG" "$U1_PG")" "$N_INTERVALS" 1000000)
WHOLE_SIM_US=$(per "$(sub "$U0_SIM" "$U1_SIM")" "$N_INTERVALS" 1000000)

breakdown() { # what -> "name s (share %), ..." of the window, the largest first
    join -a 2 -e 0 -o 0,1.2,2.2 <(sort "$TMP/ticks/$1-$KA") <(sort "$TMP/ticks/$1-$KB") |
        awk -v dt="$WDT" '{ d = $3 - $2; if (d > 0) { print d, $1; t += d } } END { print t, "TOTAL" }' | sort -rn |
        awk 'NR == 1 { t = $1; next } NR <= 9 && $1 >= 0.05 { printf "%s%s %.1f s (%.0f %%)", (NR > 2 ? ", " : ""), $2, $1, 100 * $1 / t }'
}
CTL_THREADS=$(breakdown controller)
SIM_THREADS=$(breakdown simulator)
PG_KINDS=$(breakdown postgres)
echo "  controller threads: $CTL_THREADS" >&2
echo "  PostgreSQL: $PG_KINDS" >&2
echo "  simulator threads: $SIM_THREADS" >&2
# what the database sessions did while every run streamed, as shares of the sampled active sessions
ACTIVE=$(for k in $(seq "$KA" "$KB"); do cat "$TMP/ticks/activity-$k"; done | awk '{ u += $1; l += $2; c += $3; o += $4 }
    END { t = u + l + c + o; if (t == 0) t = 1
          printf "%d samples of active sessions: the run_histogram upsert running %.0f %%, the same waiting for a lock %.0f %%, the COPY into run_interval %.0f %%, anything else %.0f %%",
                 u + l + c + o, 100 * u / t, 100 * l / t, 100 * c / t, 100 * o / t }')
echo "  database sessions: $ACTIVE" >&2

# A group's writes, alone on the same server after the run, on copies of this experiment's rows: storing one second
# of every run's intervals, and, when the ingest upserts run_histogram (the sessions above show it), adding one count
# to every (run, bucket) of its runs' histograms (what a group holding a frame of every run does to run_histogram)
timed_sql() { # SQL -> the seconds it took (without the commit)
    "${PSQL[@]}" -c "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN $1;
        RAISE NOTICE 'took %', extract(epoch FROM clock_timestamp() - t0); END \$\$" 2>&1 | sed -n 's/.*took //p'
}
UPSERTING=$(for k in $(seq "$KA" "$KB"); do cat "$TMP/ticks/activity-$k"; done | awk '{ n += $1 + $2 } END { print n + 0 }')
"${PSQL[@]}" -c "CREATE TABLE bench_histogram (LIKE run_histogram INCLUDING ALL)" \
    -c "INSERT INTO bench_histogram SELECT * FROM run_histogram WHERE run_id IN ($RUNS)" -c "VACUUM ANALYZE bench_histogram" \
    -c "CREATE TABLE bench_interval (LIKE run_interval INCLUDING ALL)" \
    -c "CREATE TABLE bench_interval_rows AS SELECT * FROM run_interval WHERE run_id IN ($RUNS) AND idx < $((1000 / INTERVAL_MS))" \
    -c "VACUUM ANALYZE bench_interval_rows" -c "CHECKPOINT" # (the run had one every few seconds: both writes pay for it)
DIAG_HROWS=$("${PSQL[@]}" -c "SELECT count(*) FROM bench_histogram")
[ "$UPSERTING" = 0 ] || DIAG_H=$(timed_sql "INSERT INTO bench_histogram (run_id, bucket, count)
    SELECT run_id, bucket, 1 FROM bench_histogram ORDER BY 1, 2
    ON CONFLICT (run_id, bucket) DO UPDATE SET count = bench_histogram.count + excluded.count")
# in the order they arrive: interval by interval, the runs interleaved
DIAG_I=$(timed_sql "INSERT INTO bench_interval SELECT * FROM bench_interval_rows ORDER BY idx, run_id, thread")
DIAG_IROWS=$("${PSQL[@]}" -c "SELECT count(*) FROM bench_interval")
"${PSQL[@]}" -c "DROP TABLE bench_histogram, bench_interval, bench_interval_rows"
DIAG_I_US=$(per "$DIAG_I" "$DIAG_IROWS" 1000000)
DIAG_TEXT="inserting one second of every run's intervals
(\`run_interval\`, $DIAG_IROWS rows, from a copy of them) took $DIAG_I s, $DIAG_I_US µs a row."
if [ "$UPSERTING" != 0 ]; then
    DIAG_H_US=$(per "$DIAG_H" "$DIAG_HROWS" 1000000)
    DIAG_TEXT="adding one count to each of the $DIAG_HROWS (run, bucket) rows of its runs' histograms ($(per "$DIAG_HROWS" "$AGENTS") a run: what one group that holds a
frame of every run does to \`run_histogram\`) took $DIAG_H s, $DIAG_H_US µs a row; $DIAG_TEXT A group's transaction updates
every (run, bucket) its intervals touch once, however many of the run's intervals it holds: for p99 < 1 s a group
must commit well within a second, and one that holds a frame of every run updates all $DIAG_HROWS rows."
fi
echo "  alone: $DIAG_TEXT" | tr '\n' ' ' >&2
echo >&2

PG_VERSION=$("${PSQL[@]}" -c "SHOW server_version")
WAITED=""
[ "$LOAD_WAITED" -eq 0 ] || WAITED=" (after waiting ${LOAD_WAITED} s for the 1-minute one to drop below $LOAD_MAX)"

cat >"$TMP/section.md" <<EOF
## Interval path: $AGENTS agents × $THREADS threads × $((1000 / INTERVAL_MS)) intervals/s

One controller (\`java -Xmx2g -jar qplab-controller.jar\`, ${WRITERS:-2 (the default)} ingest writers, its embedded PostgreSQL $PG_VERSION with
default settings, fsync on) and $AGENTS agent connections on this machine's loopback, each running one loopback run of $THREADS threads with
\`interval_ms: $INTERVAL_MS\`: $OFFERED intervals/s offered, $((AGENTS * 1000 / INTERVAL_MS)) frames/s. The measured
experiment ran ${DURATION} s per run after a ${WARMUP_SECONDS} s warm-up experiment on every agent; its frames were stored over
${EXP_SECONDS} s ($SPREAD).

| measure | value | goal | |
|---|---:|---:|---|
| intervals stored per second while every run streamed (${WDT} s: $W_INTERVALS intervals in $W_FRAMES frames) | $RATE /s | $OFFERED /s offered | |
| interval → visible row latency p50, over all $L_N intervals of the experiment | $L_P50 ms | | |
| **interval → visible row latency p99** | **$L_P99 ms** | < 1000 ms | $(verdict "$L_P99" 1000 lt) |
| interval → visible row latency max | $L_MAX ms | | |
| the same while every run streamed: p50 / p99 / max | $LW_P50 / $LW_P99 / $LW_MAX ms | | |
| **controller CPU per interval stored** (while every run streamed) | **$CTL_US µs** | | |
| PostgreSQL CPU per interval stored (all its processes) | $PG_US µs | | |
| the simulator's CPU per interval sent | $SIM_US µs | | |
| the same over the whole experiment, submission to the last run's end: controller / PostgreSQL / simulator | $WHOLE_CTL_US / $WHOLE_PG_US / $WHOLE_SIM_US µs | | |
| cores busy while every run streamed: controller / PostgreSQL / simulator / everything else on the machine / stolen by the hypervisor | $(cores "$A_CTL" "$B_CTL") / $(cores "$A_PG" "$B_PG") / $(cores "$A_SIM" "$B_SIM") / $OTHER_CORES / $(cores "$A_STEAL" "$B_STEAL") of $(nproc) | | |
| bytes stored per interval: run_interval (rows, primary key, TOAST) + run_histogram + run_frame | $BYTES_ALL B ($BYTES_IV + $BYTES_HIST + $BYTES_BATCH) | | |
| run_interval per interval: heap / primary key / TOAST; its average row (pg_column_size, tuple header included) | $BYTES_HEAP / $BYTES_INDEX / $BYTES_TOAST B; $ROW_BYTES B | | |
| its histogram (\`buckets\`), average: bytes / as stored (with its length header) | $HIST_BYTES / $HIST_STORED B | | |
| WAL written per interval | $BYTES_WAL B | | |
| group commits while every run streamed: transactions, frames per transaction (median / max) | $W_GROUPS ($(per "$W_GROUPS" "$WDT")/s), $W_GROUP_P50 / $W_GROUP_MAX | | |
| run_histogram rows inserted or updated per second (the measured experiment) | $HROWS_PER_S /s | | |
| how long after its intervals closed the simulator sent a frame (whole ms, rounded down; it waits while the controller does not read: at most ${WINDOW_FRAMES} frames of an agent are being stored at once), p50 / p99 / max | $LATE_P50 / $LATE_P99 / $LATE_MAX ms | | |

Checks (all passed, else the script stops): every run FINISHED ($NRUNS); the stored intervals count
$SUM_IV_CYCLES cycles, as the summaries do (and the simulator sent); $N_FRAMES frames stored = the simulator's frames
sent = the summaries' batches, every one acknowledged; $N_INTERVALS intervals stored = the intervals the simulator
sent = the stored frames' interval counts (run_interval's primary key keeps each once).

Latency over the experiment, by when the rows became visible ($STEP s steps; intervals/s stored, latency in ms):

| since the first frame | intervals/s | p50 | p99 | max |
|---|---:|---:|---:|---:|
$LATENCY_OVER_TIME

Where the CPU went while every run streamed (thread names with digits as N; the largest first):
- controller: $CTL_THREADS
- PostgreSQL: $PG_KINDS
- simulator: $SIM_THREADS

What PostgreSQL's sessions did while every run streamed (sampled every ${SAMPLE_SECONDS} s from pg_stat_activity): $ACTIVE.
A group's writes, alone on the same server after the run, on copies of this experiment's rows:
$DIAG_TEXT
${STATEMENTS:+
PostgreSQL's statements during the measured experiment (pg_stat_statements, \`PG_STATEMENTS=1\`; execution time, not
CPU: waits included; planning, parsing and the commit's WAL flush are not), the largest first:

| statement | calls | rows | time (share) | per interval stored |
|---|---:|---:|---:|---:|
$STATEMENTS
}
How the agents are simulated: \`bench/ingest/IntervalAgents.java\`, compiled against the agent jar into its package
and run in $AGENT_JVMS JVM(s) (\`nice -n $AGENT_NICE java -Xmx$SIM_HEAP -cp qplab-agent.jar:... org.qplab.agent.IntervalAgents\`),
sending frames of layout v$FRAME_LAYOUT$( [ "$FRAME_LAYOUT" = 2 ] && echo " (histograms as pair lists: the controller encodes them for storing)" || echo " (histograms as the database stores them)").
Each agent is its own WebSocket connection (the agent's own client, \`BlockingWebSocket\`: a reader thread per
connection, which answers the controller's pings) with its own agent id, the controller's token and a hello, and
its own sender thread, as a real agent has; it heartbeats every 5 s. No engine runs: for the run it is assigned, it
answers RunStarted, then every $INTERVAL_MS ms sends one frame (sequence numbers from 0) with one interval per
thread, and at the end RunFinished with a summary whose cycles, messages and bytes are the intervals' sums,
\`clock.t0_realtime_ns\` the wall time its interval 0 began, and batches the frames sent. Each run's t0 is at a
random phase within its first interval, so the agents' frames are spread over the interval, not in lock step. A
frame goes out when its intervals close (its intervals' last end is just before that moment), so the latency
includes how late the simulator was; while the controller does not read an agent's link (back-pressure), that
agent's sender waits, as a real agent's outbox keeps its frames until the link takes them, and the wait counts too. Histograms: $TEMPLATES,
log-normal around 32 µs (σ 0.15–0.25) with 0.01 % of the cycles in a sparse tail to 30 × the median, drawn once at
start-up; each interval takes one at random. The agents stand in for other hosts: niced, they get the CPU that the
controller and PostgreSQL leave.

- date: $(date -u '+%Y-%m-%d %H:%M UTC'); the measured experiment's frames were stored over ${EXP_SECONDS} s
- machine: $(machine_facts); psql $(psql --version | awk '{ print $3 }')
- load average (1, 5, 15 min) at the start: $LOAD_AT_START$WAITED; at the end of the measured experiment: $LOAD_AT_END (this bench's own processes included)
- checkpoints during the measured experiment: $((S1_CKPT - S0_CKPT))
- registration: $(sed -n 's/^\([0-9]* of [0-9]* agents registered in [0-9.]* s\)$/\1/p' "$TMP"/sim-*.log | paste -sd ';' | sed 's/;/; /g') (each agent must be in within REGISTER_SECONDS=$REGISTER_SECONDS)
- regenerate: \`./mvnw -q package -DskipTests && ${WRITERS:+WRITERS=$WRITERS }${LINGER:+LINGER=$LINGER }${PG_STATEMENTS:+PG_STATEMENTS=1 }AGENTS=$AGENTS AGENT_JVMS=$AGENT_JVMS THREADS=$THREADS INTERVAL_MS=$INTERVAL_MS DURATION=$DURATION WARMUP_SECONDS=$WARMUP_SECONDS CYCLES=$CYCLES MSG_SIZE=$MSG_SIZE AGENT_NICE=$AGENT_NICE bench/ingest/run.sh\`
EOF
write_section "$TMP/section.md"
