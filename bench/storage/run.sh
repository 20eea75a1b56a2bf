#!/usr/bin/env bash
# bench/storage/run.sh — what a run costs in PostgreSQL per thread-minute, now that intervals are the data.
#
# One controller (the packaged jar, its embedded PostgreSQL) and one local agent on loopback. Per point
# (message size) one tcp loopback run of one thread and one connection for SECONDS, unpaced: as many
# cycles as the machine makes. Bytes stored = the growth of pg_total_relation_size (table, TOAST and
# indexes) of run_interval, run_histogram and run_frame over the run, after VACUUM; per
# thread-minute = that / (threads x seconds / 60). Beside it, what the same run's cycles would take as
# per-cycle rows (before interval statistics every cycle was a row in `run_trace`): cycles x the bytes a
# trace row takes, measured here with a traced run (TRACE_ROWS rows, the same growth of `run_trace`).
# Writes results.md next to this script.
#
# Needs: the packaged jars (./mvnw -q package -DskipTests), psql (Debian: postgresql-client), curl, jq.
# Knobs: SIZES="64 65536" RUN_SECONDS=60 TRACE_ROWS=1000000 INTERVAL_MS=100
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SIZES=${SIZES:-"64 65536"}
SECONDS_PER_RUN=${RUN_SECONDS:-60}
TRACE_ROWS=${TRACE_ROWS:-1000000}
INTERVAL_MS=${INTERVAL_MS:-100}
AJAR=$ROOT/agent/target/qplab-agent.jar
GOAL_BYTES=1000000 # per thread-minute, at any cycle rate

die() { echo "run.sh: $*" >&2; exit 1; }
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"
[ -f "$BENCH_CJAR" ] && [ -f "$AJAR" ] || die "build first: ./mvnw -q package -DskipTests"
for tool in psql curl jq; do command -v "$tool" >/dev/null || die "$tool is needed"; done

TMP=$(mktemp -d /tmp/qplab-storage-bench.XXXXXX)
chmod 755 "$TMP" # the embedded PostgreSQL runs as nobody when this runs as root
AGENT_PID=
cleanup() {
    [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null || true
    stop_controller
    rm -rf "$TMP"
}
trap cleanup EXIT

CPORT=$(free_port)
PGPORT=$(free_port)
URL=http://127.0.0.1:$CPORT
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U qplab -d qplab) # PGPASSFILE: start_controller

echo "starting the controller on $URL (embedded PostgreSQL on $PGPORT)..." >&2
start_controller "$TMP" "$CPORT" "$PGPORT"
QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN java -jar "$AJAR" --controller "ws://127.0.0.1:$CPORT/agent" --id storage-agent \
    --spool-dir "$TMP/spool" --state-dir "$TMP/agent-state" >"$TMP/agent.log" 2>&1 &
AGENT_PID=$!
for _ in $(seq 120); do
    [ "$("${PSQL[@]}" -c "SELECT count(*) FROM agent WHERE connected")" = 1 ] && break
    sleep 0.5
done

# bytes of the tables a run's statistics go to (heap, TOAST and indexes)
stats_bytes() {
    "${PSQL[@]}" -c "VACUUM run_interval, run_histogram, run_frame" >/dev/null
    "${PSQL[@]}" -c "SELECT pg_total_relation_size('run_interval') + pg_total_relation_size('run_histogram')
                          + pg_total_relation_size('run_frame')"
}
trace_bytes() {
    "${PSQL[@]}" -c "VACUUM run_trace" >/dev/null
    "${PSQL[@]}" -c "SELECT pg_total_relation_size('run_trace')"
}

run() { # matrix JSON -> run id, once the run has ended (FINISHED, or die)
    local id status
    id=$(api -sf -H 'Content-Type: application/json' -d "$1" "$URL/api/experiments" | jq -r .id) || die "submit failed"
    for _ in $(seq 600); do
        status=$(api -sf "$URL/api/experiments/$id" | jq -r .status)
        case "$status" in FINISHED) break ;; FAILED|CANCELLED) die "experiment $id $status: $(api -s "$URL/api/experiments/$id/runs")" ;; esac
        sleep 1
    done
    [ "$status" = FINISHED ] || die "experiment $id did not end"
    api -sf "$URL/api/experiments/$id/runs" | jq -r '.[0].id'
}

rows=()
# per-cycle rows, as a trace, to price the old way
before=$(trace_bytes)
traced=$(run "{\"name\":\"storage trace\",\"base\":{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":$TRACE_ROWS,\"trace_first\":$TRACE_ROWS,\"ring_capacity\":1048576}}")
trace_rows=$("${PSQL[@]}" -c "SELECT count(*) FROM run_trace WHERE run_id = $traced")
row_bytes=$(awk -v a="$before" -v b="$(trace_bytes)" -v n="$trace_rows" 'BEGIN { printf "%.1f", (b - a) / n }')
echo "a per-cycle row takes $row_bytes B ($trace_rows rows traced)" >&2

for size in $SIZES; do
    echo "size $size: one thread for $SECONDS_PER_RUN s..." >&2
    before=$(stats_bytes)
    id=$(run "{\"name\":\"storage $size\",\"base\":{\"provider\":\"tcp\",\"msg_size\":$size,\"duration_ms\":$((SECONDS_PER_RUN * 1000)),\"interval_ms\":$INTERVAL_MS}}")
    after=$(stats_bytes)
    run_json=$(api -sf "$URL/api/runs/$id")
    cycles=$(echo "$run_json" | jq .summary.cycles)
    stored=$(echo "$run_json" | jq .cyclesStored)
    rate=$(echo "$run_json" | jq .summary.msg_rate)
    seconds=$(echo "$run_json" | jq '.summary.duration_ns / 1e9')
    intervals=$("${PSQL[@]}" -c "SELECT count(*) FROM run_interval WHERE run_id = $id")
    [ "$cycles" = "$stored" ] || die "run $id: the stored intervals count $stored cycles, the summary $cycles"
    rows+=("$(awk -v s="$size" -v c="$cycles" -v r="$rate" -v sec="$seconds" -v i="$intervals" -v d="$((after - before))" \
        -v rb="$row_bytes" -v goal="$GOAL_BYTES" 'BEGIN {
            per_min = d / (sec / 60); old = c * rb / (sec / 60)
            printf "| %s B | %.0f | %.3f | %d | %d | %.0f | **%.0f** | %.2f GB | %.0fx | %s |", s, c, r / 1e6, i, d, d / i,
                per_min, old / 1e9, old / per_min, (per_min <= goal ? "met" : "not met") }')")
done

{
    echo "# Storage per thread-minute: intervals vs per-cycle rows"
    echo
    echo "One tcp loopback run per message size: 1 thread, 1 connection, unpaced, ${SECONDS_PER_RUN} s,"
    echo "\`interval_ms\` $INTERVAL_MS, through a real agent and the controller into its embedded PostgreSQL."
    echo "Bytes stored = growth of \`pg_total_relation_size\` (heap, TOAST, indexes) of \`run_interval\`,"
    echo "\`run_histogram\` and \`run_frame\` over the run, after VACUUM. Per thread-minute = bytes ÷"
    echo "(threads × run seconds ÷ 60). \"As per-cycle rows\" is what the same cycles took before interval"
    echo "statistics, when every cycle was a row in \`run_trace\`: cycles × $row_bytes B, the growth of \`run_trace\`"
    echo "per row measured here with a traced run of $trace_rows rows. Goal: ≤ 1 MB per thread-minute at any cycle rate."
    echo
    echo "| message size | cycles | cycle rate [M/s] | intervals | bytes stored | bytes per interval | **bytes per thread-minute** | as per-cycle rows, per thread-minute | factor | goal ≤ 1 MB |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Every run's stored intervals counted exactly its summary's cycles (checked)."
    echo
    echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)."
    echo
    echo "Regenerate: \`./mvnw -q package -DskipTests && SIZES=\"$SIZES\" RUN_SECONDS=$SECONDS_PER_RUN TRACE_ROWS=$TRACE_ROWS INTERVAL_MS=$INTERVAL_MS bench/storage/run.sh\`"
} >"$HERE/results.md"
cat "$HERE/results.md"
