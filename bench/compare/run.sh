#!/usr/bin/env bash
# bench/compare/run.sh — latency of GET /api/compare over 20 runs of 1 million cycles each.
#
# Starts a controller (own embedded PostgreSQL in a temporary directory) and a local agent,
# runs two experiments of 10 runs x 1,000,000 recorded cycles (tcp, 64 B, 1 thread) through the
# real path (engine -> agent -> ingest of its intervals -> each run's histogram, their sum), then calls the compare endpoint REPEAT
# times and reports p50 / p95 / max. Writes results.md next to this script. Goal: p95 < 300 ms.
#
# Usage: bench/compare/run.sh        Knobs: REPEAT=50 PORT=8097 CYCLES=1000000 RUNS=10
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
REPEAT=${REPEAT:-50}
PORT=${PORT:-8097}
CYCLES=${CYCLES:-1000000}
RUNS=${RUNS:-10}
BASE="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/qplab-bench-compare.XXXXXX)
chmod 755 "$WORK" # the embedded PostgreSQL runs as nobody when this runs as root
AGENT_PID=
cleanup() {
    [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null || true
    stop_controller
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "run.sh: $*" >&2; exit 1; }
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"
field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2 | tr -d '"'; }

command -v curl >/dev/null || die "curl is needed (apt-get install -y curl)"
(cd "$ROOT" && ./mvnw -B -q -DskipTests -pl controller -am package >"$WORK/build.log" 2>&1) || die "build failed: $(tail -20 "$WORK/build.log")"

start_controller "$WORK" "$PORT" 0
QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN java -jar "$ROOT/agent/target/qplab-agent.jar" --controller "ws://127.0.0.1:$PORT/agent" \
    --id bench-agent >"$WORK/agent.log" 2>&1 &
AGENT_PID=$!

matrix="{\"name\":\"compare-bench\",\"base\":{\"provider\":\"tcp\",\"msg_size\":64,\"threads\":1,\"qps_per_thread\":2,
\"iterations\":$CYCLES},\"repeats\":$RUNS}"
submit() { field "$(api -sf -H 'Content-Type: application/json' -d "$matrix" "$BASE/api/experiments")" id; }
baseline=$(submit) && candidate=$(submit) || die "submitting the experiments failed"
echo "run.sh: experiments $baseline and $candidate, $RUNS runs x $CYCLES cycles each; waiting..."
for id in "$baseline" "$candidate"; do
    for i in $(seq 1 1800); do
        state=$(field "$(api -sf "$BASE/api/experiments/$id")" status)
        case "$state" in FINISHED) break ;; FAILED|CANCELLED) die "experiment $id ended $state" ;; esac
        [ "$i" = 1800 ] && die "experiment $id did not finish in 30 min"
        sleep 1
    done
done
url="$BASE/api/compare?baseline=$baseline&candidate=$candidate"
api -sf "$url" >"$WORK/compare.json" || die "compare failed"
# cycles behind the comparison: the paired point's "cycles" of both sides
cycles=$(grep -o '"cycles":[0-9]*' "$WORK/compare.json" | head -2 | cut -d: -f2 | awk '{ n += $1 } END { print n }')
for i in 1 2 3 4 5; do api -sf -o /dev/null "$url"; done # warm-up
for i in $(seq 1 "$REPEAT"); do api -sf -o /dev/null -w '%{time_total}\n' "$url"; done | sort -n >"$WORK/times"
ms() { awk -v q="$1" '{ t[NR] = $1 } END { i = int(q * NR + 0.999999); if (i < 1) i = 1; printf "%.1f", t[i] * 1000 }' "$WORK/times"; }
p50=$(ms 0.50); p95=$(ms 0.95); max=$(ms 1.0)
verdict=$(grep -o '"verdict":"[^"]*"' "$WORK/compare.json" | head -1 | cut -d'"' -f4)
pvalue=$(grep -o '"pValue":[^,}]*' "$WORK/compare.json" | head -1 | cut -d: -f2)
change=$(grep -o '"cycleMedianChangePercent":[^,}]*' "$WORK/compare.json" | head -1 | cut -d: -f2)
goal=$(awk -v p="$p95" 'BEGIN { print (p < 300) ? "met" : "NOT met" }')

{
    echo "# GET /api/compare latency"
    echo
    echo "Two experiments of $RUNS runs each, $CYCLES recorded cycles per run (tcp, 64 B, 1 thread,"
    echo "2 connections), run through the real path: engine → agent → ingest of its intervals → each run's histogram (their sum)."
    echo "The compare endpoint pairs the 20 runs by parameters and tests their per-cycle times"
    echo "(Mann–Whitney on the stored histograms). $REPEAT calls after 5 warm-up calls, curl time_total."
    echo
    echo "| runs | cycles stored | calls | p50 [ms] | p95 [ms] | max [ms] | goal p95 < 300 ms |"
    echo "|---:|---:|---:|---:|---:|---:|---|"
    echo "| $((RUNS * 2)) | $cycles | $REPEAT | $p50 | $p95 | $max | $goal |"
    echo
    echo "What the comparison said (same parameters, same host, run back to back): cycle median"
    echo "changed by $(printf '%.2f' "$change") %, Mann–Whitney p = $pvalue, verdict \"$verdict\". With ${RUNS} x ${CYCLES} cycles a side"
    echo "a drift far below the 5 % threshold can already be significant: the verdict needs both."
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r)"
    echo "- regenerate: \`REPEAT=$REPEAT CYCLES=$CYCLES RUNS=$RUNS bench/compare/run.sh\`"
} >"$HERE/results.md"
cat "$HERE/results.md"
