#!/usr/bin/env bash
# bench/compare/run.sh — what GET /api/compare's verdicts are worth on this machine, and what a call costs.
#
# One controller (its embedded PostgreSQL in a temporary directory) and one local agent; tcp on loopback.
#  1. A/A false alarms, the control: one matrix (SIZES x THREADS x QPS points, REPEATS repeats in random order,
#     DURATION_MS per run after WARMUP_CYCLES) submitted twice per pair, PAIRS fresh pairs, each pair compared at
#     alpha ALPHA and threshold THRESHOLD %. Every point's verdict, change, CI, p and both sides' run-to-run CV.
#     Goal: at most 1 % of the points compared called a regression or an improvement.
#  2. A/B power: the same points with rate_limit = RATE_SHARE x the point's free-running cycles per thread per
#     second (geometric mean over the repeats of the last A experiment), compared with that experiment
#     (across=rate_limit). Goal: >= 95 % called a regression with the CI containing the injected change (-50 %).
#  3. Resolution: the smallest change flagged at 80 % power with REPEATS runs a side, from each point's pooled
#     sd of log run values over the A experiments (Welch's t at df 2 (REPEATS - 1), two-sided ALPHA).
#  4. Latency of GET /api/compare on two experiments of RUNS runs x CYCLES cycles (tcp 64 B, 1 thread,
#     2 connections): CALLS calls after 5 warm-up calls. Goal: p95 < 300 ms.
# Writes results.md next to this script (QUICK=1: to OUT, by default under /tmp). A run takes ~0.4 s here
# (300 ms plus the agent's and the controller's share): ~1,100 runs, about 15 min at the defaults; QUICK=1 ~1 min.
#
# Usage: bench/compare/run.sh          QUICK=1 bench/compare/run.sh (a few minutes: checks the script)
# Knobs: PAIRS=5 REPEATS=5 SIZES="64 1024 16384 65536 262144" THREADS="1 2" QPS="1 4" DURATION_MS=300
#   WARMUP_CYCLES=100 ALPHA=0.01 THRESHOLD=5 RATE_SHARE=0.5 RUNS=10 CYCLES=1000000 CALLS=50 PORT (default: a
#   free one) BUILD=1 (0: use the jars as they are) RUN_BUDGET_S=10 (seconds a run may take before its
#   experiment is cancelled) OUT KEEP=0 (1: keep the temporary directory: logs, compare answers, TSV)
set -euo pipefail
shopt -s inherit_errexit # a die inside $(...) ends the script, not just its subshell

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
die() { echo "run.sh: $*" >&2; exit 1; }
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"

QUICK=${QUICK:-0}
quick() { [ "$QUICK" = 1 ] && echo "$1" || echo "$2"; } # quick VALUE FULL_VALUE
PAIRS=${PAIRS:-$(quick 1 5)}
REPEATS=${REPEATS:-$(quick 3 5)}
SIZES=${SIZES:-$(quick "64 65536" "64 1024 16384 65536 262144")}
THREADS=${THREADS:-"1 2"}
QPS=${QPS:-$(quick "1" "1 4")}
DURATION_MS=${DURATION_MS:-300}
WARMUP_CYCLES=${WARMUP_CYCLES:-100}
ALPHA=${ALPHA:-0.01}
THRESHOLD=${THRESHOLD:-5}
RATE_SHARE=${RATE_SHARE:-0.5}
RUNS=${RUNS:-$(quick 3 10)}
CYCLES=${CYCLES:-$(quick 200000 1000000)}
CALLS=${CALLS:-$(quick 10 50)}
BUILD=${BUILD:-1}
RUN_BUDGET_S=${RUN_BUDGET_S:-10}
OUT=${OUT:-$(quick /tmp/qplab-bench-compare-quick.md "$HERE/results.md")}
PORT=${PORT:-$(free_port)}
BASE="http://127.0.0.1:$PORT"

REV=$(git -C "$ROOT" describe --always --dirty --exclude '*' 2>/dev/null || echo unknown) # before results.md changes
command -v curl >/dev/null || die "curl is needed (apt-get install -y curl)"
command -v jq >/dev/null || die "jq is needed (apt-get install -y jq)"
WORK=$(mktemp -d /tmp/qplab-bench-compare.XXXXXX)
chmod 755 "$WORK" # the embedded PostgreSQL runs as nobody when this runs as root
AGENT_PID=
cleanup() {
    [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null || true
    stop_controller
    if [ "${KEEP:-0}" = 1 ]; then echo "run.sh: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
list() { jq -cn --arg s "$1" '$s | split(" ") | map(select(. != "") | tonumber)'; } # "1 2" -> [1,2]
npoints=$(($(wc -w <<<"$SIZES") * $(wc -w <<<"$THREADS") * $(wc -w <<<"$QPS")))
EXPS_TOTAL=$((2 * PAIRS + 3))
RUNS_TOTAL=$(((2 * PAIRS + 1) * npoints * REPEATS + 2 * RUNS))
EXPS_DONE=0
RUNS_DONE=0

if [ "$BUILD" = 1 ]; then
    log "building the controller and the agent..."
    (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl controller -am package >"$WORK/build.log" 2>&1) \
        || die "build failed: $(tail -20 "$WORK/build.log")"
fi
log "starting the controller on $BASE and one agent..."
start_controller "$WORK" "$PORT" 0
QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN java -jar "$ROOT/agent/target/qplab-agent.jar" --controller "ws://127.0.0.1:$PORT/agent" \
    --id bench-agent --spool-dir "$WORK/spool" --state-dir "$WORK/agent-state" >"$WORK/agent.log" 2>&1 &
AGENT_PID=$!
STARTED=$SECONDS

# GET PATH -> the body; dies with the answer's body on an error status
get() { api -sS --fail-with-body "$BASE$1" || die "GET $1 failed"; }
submit() { # matrix JSON -> the experiment's id
    local answer
    answer=$(api -sS --fail-with-body -H 'Content-Type: application/json' --data-binary "$1" "$BASE/api/experiments") \
        || die "submitting the matrix failed: $answer"
    jq -r .id <<<"$answer"
}

# await ID LABEL: until the experiment has ended (FINISHED, or die), with progress every 15 s; an experiment past
# 120 s + RUN_BUDGET_S per run is cancelled
await() {
    local id=$1 label=$2 j status done failed total ended start=$SECONDS said=-15 last=-1
    while :; do
        j=$(get "/api/experiments/$id")
        read -r status done failed total < <(jq -r '[.status, .runsDone, .runsFailed, .runsTotal] | @tsv' <<<"$j")
        case "$status" in QUEUED | RUNNING) ended=0 ;; *) ended=1 ;; esac
        if [ "$done" != "$last" ] && { ((SECONDS - said >= 15)) || [ "$ended" = 1 ]; }; then
            log "$label (experiment $id): $done/$total runs, $failed failed | experiments finished $EXPS_DONE/$EXPS_TOTAL, runs done $((RUNS_DONE + done))/$RUNS_TOTAL"
            said=$SECONDS last=$done
        fi
        case "$status" in
            FINISHED) break ;;
            FAILED | CANCELLED) die "experiment $id ($label) ended $status: $(tail -5 "$WORK/agent.log")" ;;
        esac
        if ((SECONDS - start > 120 + total * RUN_BUDGET_S)); then
            api -sf -o /dev/null -X POST "$BASE/api/experiments/$id/cancel" || true
            die "experiment $id ($label) took over $((120 + total * RUN_BUDGET_S)) s: cancelled"
        fi
        sleep 2
    done
    EXPS_DONE=$((EXPS_DONE + 1))
    RUNS_DONE=$((RUNS_DONE + total))
    [ "$failed" = 0 ] || log "warning: $failed runs of experiment $id failed"
    FAILED_RUNS=$((${FAILED_RUNS:-0} + failed))
}

compare() { # BASELINE CANDIDATE [extra query] -> the compare answer
    get "/api/compare?baseline=$1&candidate=$2&alpha=$ALPHA&threshold=$THRESHOLD${3:-}"
}

# One compare answer's points as TSV: tag size threads qps metric verdict change ciLow ciHigh p cvBaseline
# cvCandidate logsBaseline logsCandidate (the verdict metric's per-run values, as natural logs, comma-separated)
# method noiseExperiments.
points_tsv() {
    jq -r --arg tag "$1" '.points[] | . as $p
        | ([$p.judgments // [] | .[] | select(.metric == $p.metric)] | first) as $j
        | [$tag, $p.params.msg_size, $p.params.threads, $p.params.qps_per_thread, $p.metric, $p.verdict,
           $p.changePercent, $p.ciLowPercent, $p.ciHighPercent, $p.pValue, $j.baseline.cvPercent, $j.candidate.cvPercent,
           ($j.baseline.values // [] | map(log) | join(",")), ($j.candidate.values // [] | map(log) | join(",")),
           $p.method, $p.noiseExperiments]
        | map(. // "") | @tsv'
}

# An experiment's rate per point: size threads qps geomean(cycles per thread per second) n. The geometric mean, as
# compare's change is the ratio of the geometric means: a limit at RATE_SHARE of it injects exactly that change.
rates_tsv() {
    get "/api/experiments/$1/runs" | jq -r '
        def geomean: (map(log) | add / length | exp);
        [.[] | select(.status == "FINISHED" and .summary != null)]
        | group_by([.params.msg_size, .params.threads, .params.qps_per_thread])[]
        | [.[0].params.msg_size, .[0].params.threads, .[0].params.qps_per_thread,
           (map(.summary.cycles / .summary.threads / (.summary.duration_ns / 1e9)) | geomean), length] | @tsv'
}

# ---- 1. A/A: PAIRS fresh pairs of the same matrix --------------------------------------------------------------
MATRIX_A=$(jq -cn --argjson sizes "$(list "$SIZES")" --argjson threads "$(list "$THREADS")" --argjson qps "$(list "$QPS")" \
    --argjson d "$DURATION_MS" --argjson w "$WARMUP_CYCLES" --argjson r "$REPEATS" '{name: "compare-bench A",
    base: {provider: "tcp", duration_ms: $d, warmup_cycles: $w},
    dimensions: {msg_size: $sizes, threads: $threads, qps_per_thread: $qps}, repeats: $r, order: {random: true}}')
log "A/A: $PAIRS pairs of $npoints points x $REPEATS repeats, ${DURATION_MS} ms per run"
: >"$WORK/aa.tsv"
A_IDS=()
for pair in $(seq 1 "$PAIRS"); do
    a=$(submit "$MATRIX_A")
    await "$a" "A/A pair $pair/$PAIRS baseline"
    b=$(submit "$MATRIX_A")
    await "$b" "A/A pair $pair/$PAIRS candidate"
    A_IDS+=("$a" "$b")
    compare "$a" "$b" >"$WORK/aa-$pair.json"
    points_tsv "$pair" <"$WORK/aa-$pair.json" >>"$WORK/aa.tsv"
    log "A/A pair $pair: $(cut -f6 "$WORK/aa.tsv" | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%s x%s", s, $0, n; s = "," }')"
done

# ---- 2. A/B: the same points, rate-limited to RATE_SHARE of the rate of the A experiment compared with ----------
# (the last one, run just before B: the machine drifts between experiments, by up to a third here)
last_a=${A_IDS[${#A_IDS[@]} - 1]}
rates_tsv "$last_a" | awk -F'\t' -v share="$RATE_SHARE" -v OFS='\t' '{ l = int($4 * share + 0.5); if (l < 1) l = 1; print $1, $2, $3, $4, l }' \
    >"$WORK/limits.tsv"
[ -s "$WORK/limits.tsv" ] || die "no finished run of experiment $last_a to take the rates from"
MATRIX_B=$(jq -cRn --argjson d "$DURATION_MS" --argjson w "$WARMUP_CYCLES" --argjson r "$REPEATS" '
    [inputs | split("\t") | map(tonumber)] as $rows | {name: "compare-bench B (rate-limited)",
    base: {provider: "tcp", duration_ms: $d, warmup_cycles: $w},
    zips: {point: {msg_size: ($rows | map(.[0])), threads: ($rows | map(.[1])), qps_per_thread: ($rows | map(.[2])),
                   rate_limit: ($rows | map(.[4]))}}, repeats: $r, order: {random: true}}' <"$WORK/limits.tsv")
limited=$(submit "$MATRIX_B")
await "$limited" "A/B rate-limited candidate"
compare "$last_a" "$limited" "&across=rate_limit" >"$WORK/ab.json"
points_tsv ab <"$WORK/ab.json" >"$WORK/ab.tsv"
rates_tsv "$limited" >"$WORK/achieved.tsv"
[ -s "$WORK/ab.tsv" ] || log "warning: the A/B compare paired no point: $(jq -c '{baselineOnly: (.baselineOnly | length),
    candidateOnly: (.candidateOnly | length), suggestAcross, paramMismatches}' "$WORK/ab.json")"

# ---- 4. compare's latency on two experiments of RUNS x CYCLES cycles --------------------------------------------
MATRIX_L=$(jq -cn --argjson n "$CYCLES" --argjson r "$RUNS" '{name: "compare-bench latency",
    base: {provider: "tcp", msg_size: 64, threads: 1, qps_per_thread: 2, iterations: $n}, repeats: $r}')
lat_a=$(submit "$MATRIX_L")
await "$lat_a" "latency baseline"
lat_b=$(submit "$MATRIX_L")
await "$lat_b" "latency candidate"
lat_query="/api/compare?baseline=$lat_a&candidate=$lat_b"
get "$lat_query" >"$WORK/lat.json"
cycles=$(jq '[.points[] | .baseline.cycles + .candidate.cycles] | add' "$WORK/lat.json")
for _ in 1 2 3 4 5; do api -sf -o /dev/null "$BASE$lat_query"; done # warm-up
for _ in $(seq 1 "$CALLS"); do api -sf -o /dev/null -w '%{time_total}\n' "$BASE$lat_query"; done | sort -n >"$WORK/times"
ms() { awk -v q="$1" '{ t[NR] = $1 } END { i = int(q * NR + 0.999999); if (i < 1) i = 1; printf "%.1f", t[i] * 1000 }' "$WORK/times"; }
p50=$(ms 0.50) p95=$(ms 0.95) max=$(ms 1.0)
lat_goal=$(awk -v p="$p95" 'BEGIN { print (p < 300) ? "met" : "NOT met" }')
elapsed=$(((SECONDS - STARTED + 30) / 60))
log "done: $EXPS_DONE experiments, $RUNS_DONE runs in $elapsed min; writing $OUT"

# ---- the report -------------------------------------------------------------------------------------------------
. "$HERE/report.sh"
report >"$OUT"
cat "$OUT"
