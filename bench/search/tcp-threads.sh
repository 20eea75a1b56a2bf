#!/usr/bin/env bash
# bench/search/tcp-threads.sh — search: knee on a real curve: the tcp engine's bandwidth against threads on
# loopback (this machine's own thread curve), against a grid of the same resolution run in the same session.
#
# One controller (the packaged jar, its embedded PostgreSQL) and one local agent. Two experiments, interleaved
# ROUNDS times: a knee search over threads LOW..HIGH (resolution 0.1, REPEATS repeats a point), and the geometric
# grid of ratio 1.1 over the same range with the same repeats (over integers: 34 values from 1 to 64). Both count
# their runs; the table says whether the grid's medians agree with the search's bracket (the best grid point and
# where the grid's curve stops rising by more than the noise). Writes tcp-threads.md next to this script.
#
# Needs: the packaged jars (./mvnw -q package -DskipTests), psql (postgresql-client), curl, jq.
# Knobs: LOW=1 HIGH=64 REPEATS=3 MSG_SIZE=65536 DURATION_MS=300 ROUNDS=2 MAX_RUNS=60 OUT=tcp-threads.md
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOW=${LOW:-1}
HIGH=${HIGH:-64}
REPEATS=${REPEATS:-3}
MSG_SIZE=${MSG_SIZE:-65536}
DURATION_MS=${DURATION_MS:-300}
ROUNDS=${ROUNDS:-2}
MAX_RUNS=${MAX_RUNS:-60}
OUT=$HERE/${OUT:-tcp-threads.md}
AJAR=$ROOT/agent/target/qplab-agent.jar

die() { echo "tcp-threads.sh: $*" >&2; exit 1; }
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"
[ -f "$BENCH_CJAR" ] && [ -f "$AJAR" ] || die "build first: ./mvnw -q package -DskipTests"
for tool in psql curl jq; do command -v "$tool" >/dev/null || die "$tool is needed"; done

TMP=$(mktemp -d /tmp/qplab-knee-bench.XXXXXX)
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
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U qplab -d qplab)

echo "starting the controller on $URL..." >&2
start_controller "$TMP" "$CPORT" "$PGPORT"
QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN java -jar "$AJAR" --controller "ws://127.0.0.1:$CPORT/agent" --id knee-agent \
    --spool-dir "$TMP/spool" --state-dir "$TMP/agent-state" >"$TMP/agent.log" 2>&1 &
AGENT_PID=$!
for _ in $(seq 120); do
    [ "$("${PSQL[@]}" -c "SELECT count(*) FROM agent WHERE connected")" = 1 ] && break
    sleep 0.5
done

# the grid of the search's resolution over integers (as KneeCounts.gridPoints counts it): from LOW, each next value
# the largest within 1.1x of the one before, or the next integer where none is, up to HIGH
GRID=$(awk -v lo="$LOW" -v hi="$HIGH" 'BEGIN { x = lo; printf "%d", x; while (x < hi) { n = int(x * 1.1); if (n <= x) n = x + 1; if (n > hi) n = hi; printf ",%d", n; x = n } }')
BASE="{\"provider\": \"tcp\", \"msg_size\": $MSG_SIZE, \"duration_ms\": $DURATION_MS}"

submit() {
    api -sf -H 'Content-Type: application/json' -d "$1" "$URL/api/experiments" | jq -r .id || die "submit failed: $1"
}
await() {
    local deadline=$((SECONDS + 1800)) status
    while [ $SECONDS -lt $deadline ]; do
        status=$(api -sf "$URL/api/experiments/$1" | jq -r .status)
        case "$status" in FINISHED) return ;; FAILED|CANCELLED) die "experiment $1 $status" ;; esac
        sleep 1
    done
    die "experiment $1 did not end within 30 min"
}
# median bandwidth (MB/s) per threads value of an experiment: "threads median" lines
medians() {
    "${PSQL[@]}" -F ' ' -c "SELECT (r.params->>'threads')::int, round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.bw_avg_bps) / 1e6)::numeric, 1)
        FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = $1 AND r.status = 'FINISHED'
        GROUP BY 1 ORDER BY 1"
}

ROWS=()
LOAD=
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round of $ROUNDS: the search..." >&2
    sid=$(submit "{\"name\": \"thread knee (search)\", \"base\": $BASE, \"repeats\": $REPEATS,
        \"search\": {\"knee\": \"threads\", \"low\": $LOW, \"high\": $HIGH, \"resolution\": 0.1, \"max_runs\": $MAX_RUNS}}")
    await "$sid"
    search=$(api -sf "$URL/api/experiments/$sid/search")
    echo "round $round of $ROUNDS: the grid ($GRID)..." >&2
    gid=$(submit "{\"name\": \"thread knee (grid)\", \"base\": $BASE, \"repeats\": $REPEATS,
        \"dimensions\": {\"threads\": [$GRID]}}")
    await "$gid"
    grid_runs=$("${PSQL[@]}" -c "SELECT count(*) FROM run WHERE experiment_id = $gid")
    search_runs=$(jq -r .runs <<< "$search")
    result=$(jq -r '.result | "\(.kind) \(.value), bracket [\(.bracketLow), \(.bracketHigh)]\(if .bracketed then "" else " (not within the resolution)" end)"' <<< "$search")
    points=$(jq -r '[.points[] | "\(.x): \((.y / 1e6 * 10 | round) / 10)"] | join(", ")' <<< "$search")
    grid=$(medians "$gid" | awk '{ printf "%s%s: %s", sep, $1, $2; sep = ", " }')
    best=$(medians "$gid" | sort -k2 -g | tail -1 | awk '{ print $1 " (" $2 " MB/s)" }')
    ratio=$(awk -v s="$search_runs" -v g="$grid_runs" 'BEGIN { printf "%.0f %%", 100 * s / g }')
    ROWS+=("| $round | $result | $search_runs | $grid_runs | $ratio | $best |")
    ROWS+=("|  | search, MB/s: $points; $(jq -r '.result.why' <<< "$search") |  |  |  | grid, MB/s: $grid |")
done
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

{
    echo "# search: knee on the tcp engine's own thread curve: a real search against a grid"
    echo
    echo "Regenerate: \`./mvnw -q package -DskipTests && bench/search/tcp-threads.sh   # ROUNDS=$ROUNDS REPEATS=$REPEATS\`"
    echo
    echo "Host: $(nproc) cores, $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC'), load average at the end $LOAD. tcp on loopback, $MSG_SIZE B messages,"
    echo "$DURATION_MS ms a run, threads $LOW to $HIGH, $REPEATS repeats a point; in each round the search"
    echo "(resolution 0.1, max_runs $MAX_RUNS) and then the grid of ratio 1.1 over the same range ($(tr ',' '\n' <<< "$GRID" | wc -l) values) run"
    echo "in one controller, one after the other. Bandwidth is each value's median over its repeats."
    echo
    echo "| round | search's result | search runs | grid runs | ratio | grid's best point |"
    echo "|---:|---|---:|---:|---:|---|"
    printf '%s\n' "${ROWS[@]}"
} | tee "$OUT"
