#!/usr/bin/env bash
# bench/stats-overhead/run.sh — what the engine's interval statistics cost: qpbench's throughput with
# interval records (--interval 100: every sender closes an interval record every 100 ms, qpbench drains
# and prints each) against statistics reduced to the summary only (no --interval, spec interval_ms 0),
# and the instructions per cycle of the statistics path counted by callgrind.
#
# Part 1 (throughput): loopback tcp (one qpbench process, 127.0.0.1), duration runs, per point
# (size x threads) REPEATS repeats, each running three things in a rotating order (ABC, BCA, CAB):
#   A = interval statistics (--interval INTERVAL_MS), B = summary only, C = summary only again (the control).
# Each repeat gives one pair ratio A/B and one control pair ratio C/B (msg_rate of the engine's JSON
# summary; bw_avg_bps gives the same ratio: every cycle carries the same bytes). The median of pair
# ratios cancels the slow drift of a shared 2-core machine; C/B shows how far two runs of one mode
# scatter here: a difference A/B smaller than that is not resolved by this machine. Goal: A/B >= 0.99.
# Part 2 (callgrind): a copy of the engine built with -g (CFLAGS stay -O2: the same code) runs
# CG_ITERS cycles, 1 thread, per size, with and without --interval; the engine before interval
# statistics (BASE_REV, built from `git archive` into a temporary directory) runs the same for
# context. Instructions (Ir) of the statistics path / cycles. Goal: <= 30 in interval mode.
# Writes results.md next to this script.
#
# Usage: bench/stats-overhead/run.sh
# Knobs (environment): SIZES="64 4096" THREADS="1 2" REPEATS=12 (a multiple of 3: every order runs
#   equally often; many short runs rather than few long ones, because another job's load moves
#   loopback tcp between two rates for seconds at a time) DURATION=2 (seconds per throughput run)
#   INTERVAL_MS=100 CG_ITERS=200000 (cycles per callgrind run) BASE_REV=3e0e043~1 (the engine
#   before interval statistics; "" skips it). The default run takes about 6 minutes on 2 cores
#   (144 runs of 2 s, 6 callgrind runs of ~1.5 s, three builds).
set -euo pipefail
shopt -s inherit_errexit # a die inside $(...) ends the script, not just its subshell

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SIZES=${SIZES:-"64 4096"}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-12}
DURATION=${DURATION:-2}
INTERVAL_MS=${INTERVAL_MS:-100}
CG_ITERS=${CG_ITERS:-200000}
BASE_REV=${BASE_REV-3e0e043~1}
OUT="$ROOT/engine/target/native"     # the release build, as the other benches use it
OUT_G="$ROOT/engine/target/native-g" # the same sources and flags with -g, for callgrind's line attribution
LIMIT=$((DURATION + 60))            # seconds: no single run may hang the script
GOAL_RATIO=0.99
GOAL_IR=30

die() { echo "run.sh: $*" >&2; exit 1; }
for tool in make gcc jq valgrind callgrind_annotate git; do
    command -v "$tool" >/dev/null || die "$tool is needed (apt-get install make gcc jq valgrind git)"
done
START=$(date +%s)

TMP=$(mktemp -d)
cleanup() { rm -rf "$TMP"; } # the old engine's sources and build live in $TMP/base
trap cleanup EXIT

echo "building qpbench (release: $OUT, -g: $OUT_G)..." >&2
make -s -C "$ROOT/engine/src/main/c" OUT="$OUT" >/dev/null || die "building qpbench failed"
make -s -C "$ROOT/engine/src/main/c" OUT="$OUT_G" CC="gcc -g" >/dev/null || die "building qpbench with -g failed"
QPB="$OUT/qpbench"
QPB_G="$OUT_G/qpbench"
QPB_OLD=
if [ -n "$BASE_REV" ]; then
    BASE_DESC=$(git -C "$ROOT" log -1 --format='%h (%ad)' --date=short "$BASE_REV") || die "no commit $BASE_REV"
    echo "building the engine of $BASE_REV with -g..." >&2
    mkdir -p "$TMP/base"
    git -C "$ROOT" archive "$BASE_REV" engine/src/main/c | tar -x -C "$TMP/base" || die "git archive $BASE_REV failed"
    make -s -C "$TMP/base/engine/src/main/c" OUT="$TMP/base/out" CC="gcc -g" >/dev/null ||
        die "building the engine of $BASE_REV failed"
    QPB_OLD="$TMP/base/out/qpbench"
fi

# ---------------------------------------------------------------------------------------------------
# Part 1: throughput

# run_mode size threads mode(a|b|c) -> "MPPS INTERVALS LATE" (msg_rate in Mpps, interval records, late ones)
run_mode() {
    local size=$1 threads=$2 mode=$3 want_ms=0
    local args=(-s "$size" -D "$DURATION" --threads "$threads" --json "$TMP/r.json")
    if [ "$mode" = a ]; then
        args+=(--interval "$INTERVAL_MS")
        want_ms=$INTERVAL_MS
    fi
    rm -f "$TMP/r.json"
    (cd "$TMP" && timeout "$LIMIT" "$QPB" "${args[@]}") >"$TMP/r.out" 2>"$TMP/r.err" ||
        { tail -5 "$TMP/r.err" >&2; die "qpbench ${args[*]} failed"; }
    # the mode must be what it claims: interval records in A only, every run ok and error-free
    jq -e --argjson ms "$want_ms" '.[0] | .status == "ok" and .errors == 0 and .msg_rate > 0 and
        .interval_ms == $ms and (if $ms > 0 then .intervals > 0 else .intervals == 0 end)' "$TMP/r.json" >/dev/null ||
        { jq -c '.[0] | del(.per_thread)' "$TMP/r.json" >&2; die "qpbench ${args[*]}: unexpected summary"; }
    jq -r '.[0] | "\(.msg_rate / 1e6 * 10000 | round / 10000) \(.intervals) \(.intervals_late)"' "$TMP/r.json"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }
range_of() { tr ' ' '\n' | grep . | sort -g | sed -n '1p;$p' | xargs printf '%.3f–%.3f'; }
human() { awk -v b="$1" 'BEGIN { if (b >= 1024 && b % 1024 == 0) printf "%d KiB", b / 1024; else printf "%d B", b }'; }

: >"$TMP/ratios" # every pair: "A/B C/B", for the geometric means
: >"$TMP/a_medians"

# point size threads -> a table row
point() {
    local size=$1 threads=$2 label r k a b c ia la x as="" bs="" cs="" rs="" crs="" ivs="" late=0
    label="$(human "$size"), $threads"
    for ((r = 1; r <= REPEATS; r++)); do
        for k in $(echo "a b c a b" | cut -d' ' -f$(((r - 1) % 3 + 1))-$(((r - 1) % 3 + 3))); do
            case $k in
            a) read -r a ia la <<<"$(run_mode "$size" "$threads" a)" ;;
            b) read -r b x x <<<"$(run_mode "$size" "$threads" b)" ;;
            c) read -r c x x <<<"$(run_mode "$size" "$threads" c)" ;;
            esac
        done
        as+="$a "; bs+="$b "; cs+="$c "; ivs+="$ia "; late=$((late + la))
        rs+="$(ratio "$a" "$b") "; crs+="$(ratio "$c" "$b") "
        echo "$(ratio "$a" "$b") $(ratio "$c" "$b")" >>"$TMP/ratios"
        echo "  $label run $r: interval statistics $a Mpps ($ia records), summary only $b Mpps, summary only again $c Mpps:" \
            "A/B $(ratio "$a" "$b"), C/B $(ratio "$c" "$b")" >&2
    done
    local am bm cm
    am=$(echo "$as" | median); bm=$(echo "$bs" | median); cm=$(echo "$cs" | median)
    echo "$size $threads $am" >>"$TMP/a_medians" # for part 2: how many cycles an interval holds natively
    printf '| %s | %.3f | %.3f | %.3f | %s | %.3f | %s | %.3f | %s | %s | %s | %s| %s| %s|\n' "$label" "$am" "$bm" "$cm" \
        "$(ratio "$am" "$bm")" "$(echo "$rs" | median)" "$(echo "$rs" | range_of)" \
        "$(echo "$crs" | median)" "$(echo "$crs" | range_of)" "$(echo "$ivs" | median | xargs printf '%.0f')" "$late" \
        "$as" "$bs" "$cs"
}

rows=""
for size in $SIZES; do
    for t in $THREADS; do
        echo "point $(human "$size"), $t thread(s): $REPEATS repeats of 3 runs of $DURATION s..." >&2
        rows+="$(point "$size" "$t")"$'\n'
    done
done

verdict() { # from the table: per point the median of pair ratios A/B (col 7), C/B (col 9) and its range (col 10)
    echo "$rows" | awk -F'|' -v goal="$GOAL_RATIO" 'NF > 14 {
            a = $7 + 0; c = $9 + 0; split($10, cr, "–"); n++
            if (a >= goal) k++; if (c >= goal) ck++
            if (a >= cr[1] + 0 && a <= cr[2] + 0) within++; else if (a < cr[1] + 0) below++
            if (n == 1 || a < lo) lo = a; if (n == 1 || a > hi) hi = a
            if (n == 1 || c < clo) clo = c; if (n == 1 || c > chi) chi = c }
        END { printf "interval statistics against the summary only: the median of pair ratios is %.3f–%.3f, >= %s at %d of %d points: the goal (>= %s at every point) is %s. ",
                  lo, hi, goal, k, n, goal, (k == n) ? "met" : "**not met**"
              printf "At %d of %d points it lies within the control'"'"'s range of pair ratios (summary only against itself), at %d below its lowest pair. ", within, n, below
              printf "Control: the median of pair ratios is %.3f–%.3f, >= %s at %d of %d points.", clo, chi, goal, ck, n }'
    awk '{ la += log($1); lc += log($2); n++ } END { if (n) printf " Over all %d pairs, the geometric mean of A/B is %.3f, of C/B %.3f.", n, exp(la / n), exp(lc / n) }' "$TMP/ratios"
}

# ---------------------------------------------------------------------------------------------------
# Part 2: callgrind

# The statistics path. New engine: the lines of qpb_stats.h and qpb_record.h inlined into the provider's
# sender_loop, plus the self cost (any source file: inlined helpers count to their caller) of the
# out-of-line slow paths. Old engine (BASE_REV): the per-cycle functions, all out of line.
NEW_INLINE="qpb_stats.h qpb_record.h"
NEW_FNS="qpb_peak_group_started qpb_peak_group_ended windows_to_latest qpb_stats_close qpb_stats_record_bytes qpb_stats_open
qpb_record_slow trace_keep qpb_interval_tick_slow qpb_interval_finish close_interval roll
qpb_bytes_ring_put qpb_bytes_ring_room ring_copy"
OLD_FNS="qpb_record_cycle qpb_stats_add qpb_moments_add qpb_hist_add qpb_peak_add windows_to_latest"

# callgrind_case binary size engine(new|old) [qpbench args...] -> "TOTAL STATS CYCLES INTERVALS DETAIL"
# TOTAL: Ir of the whole process; STATS: Ir of the statistics path; DETAIL: its entries, "name=Ir,..."
callgrind_case() {
    local bin=$1 size=$2 engine=$3 f="$TMP/cg.out" j="$TMP/cg.json"
    shift 3
    rm -f "$f" "$j"
    (cd "$TMP" && timeout 600 valgrind --tool=callgrind --callgrind-out-file="$f" \
        "$bin" -s "$size" -n "$CG_ITERS" "$@" --json "$j") >"$TMP/cg.stdout" 2>"$TMP/cg.err" ||
        { tail -5 "$TMP/cg.err" >&2; die "valgrind $bin -s $size -n $CG_ITERS $* failed"; }
    local cycles intervals
    cycles=$(jq -r '.[0].cycles' "$j")
    intervals=$(jq -r '.[0].intervals // 0' "$j")
    [ "$cycles" -gt 0 ] || die "no cycles in $bin's summary"
    callgrind_annotate --threshold=100 --auto=no "$f" >"$TMP/cg.txt" 2>/dev/null || die "callgrind_annotate failed"
    awk -v engine="$engine" -v inline="$NEW_INLINE" -v newfns="$NEW_FNS" -v oldfns="$OLD_FNS" \
        -v cycles="$cycles" -v intervals="$intervals" '
        BEGIN { split(inline, a, " "); for (i in a) inl[a[i]] = 1
                n = split(engine == "new" ? newfns : oldfns, b, /[ \n]+/); for (i = 1; i <= n; i++) if (b[i] != "") fns[b[i]] = 1 }
        /PROGRAM TOTALS/ { t = $1; gsub(",", "", t); total = t; next }
        match($0, /^ *[0-9,]+ +\( *[0-9.]+%\) +/) {
            ir = $1; gsub(",", "", ir)
            rest = substr($0, RLENGTH + 1); sub(/ \[.*\]$/, "", rest)
            c = 0; for (i = length(rest); i > 0; i--) if (substr(rest, i, 1) == ":") { c = i; break }
            if (c == 0) next
            file = substr(rest, 1, c - 1); fn = substr(rest, c + 1); sub(/.*\//, "", file)
            sub(/\..*$/, "", fn) # gcc clones: fn.part.0, fn.isra.0, fn.constprop.0
            key = ""
            if (engine == "new" && fn == "sender_loop" && (file in inl)) key = file ":sender_loop"
            else if (fn in fns) key = fn
            if (key == "") next
            if (!(key in sum)) order[++m] = key
            sum[key] += ir; stats += ir }
        END { d = ""; for (i = 1; i <= m; i++) d = d (i > 1 ? "," : "") order[i] "=" sum[order[i]]
              printf "%d %d %d %d %s\n", total, stats, cycles, intervals, (d == "" ? "-" : d) }' "$TMP/cg.txt"
}

per_cycle() { awk -v a="$1" -v n="$2" 'BEGIN { printf "%.2f", a / n }'; }
detail_md() { # DETAIL CYCLES -> "`name` 24.06, ..." (Ir per cycle, largest first)
    echo "$1" | tr ',' '\n' | awk -F= -v n="$2" '$2 > 0 { printf "%d %s %.2f\n", $2, $1, $2 / n }' | sort -rn |
        awk '{ printf "%s`%s` %s", (NR > 1 ? ", " : ""), $2, $3 }'
}

cg_rows=""
cg_details=""
cg_slow=""
goal_ir_ok=0
goal_ir_n=0
declare -A IRPC
for size in $SIZES; do
    label=$(human "$size")
    for mode in interval summary old; do
        case $mode in
        interval) bin=$QPB_G; engine=new; extra=(--interval "$INTERVAL_MS"); name="interval statistics (--interval $INTERVAL_MS)" ;;
        summary) bin=$QPB_G; engine=new; extra=(); name="summary only" ;;
        old) [ -n "$QPB_OLD" ] || continue; bin=$QPB_OLD; engine=old; extra=(); name="before: $BASE_REV, summary only" ;;
        esac
        echo "callgrind: $label, $name..." >&2
        read -r total stats cycles intervals detail <<<"$(callgrind_case "$bin" "$size" "$engine" "${extra[@]}")"
        IRPC[$size.$mode]=$(per_cycle "$stats" "$cycles")
        echo "  ${IRPC[$size.$mode]} Ir per cycle (statistics), $(per_cycle "$total" "$cycles") (process)" >&2
        cg_rows+="| $label | $name | $cycles | $intervals | $total | $(per_cycle "$total" "$cycles") | $stats | **${IRPC[$size.$mode]}** |"$'\n'
        cg_details+="- $label, $name: $(detail_md "$detail" "$cycles")"$'\n'
        if [ "$mode" = interval ]; then
            native=$(awk -v s="$size" '$1 == s && $2 == 1 { print $3 }' "$TMP/a_medians")
            [ -z "$native" ] || [ "$intervals" -eq 0 ] || cg_slow+="$label: $((cycles / intervals)) cycles per record under valgrind, $(awk -v m="$native" -v ms="$INTERVAL_MS" 'BEGIN { printf "%.0f", m * 1e6 * ms / 1e3 }') natively (A, 1 thread); "
            goal_ir_n=$((goal_ir_n + 1))
            awk -v x="${IRPC[$size.$mode]}" -v g="$GOAL_IR" 'BEGIN { exit !(x <= g) }' && goal_ir_ok=$((goal_ir_ok + 1))
        fi
    done
done

cg_summary=""
for size in $SIZES; do
    cg_summary+="$(human "$size"): interval statistics ${IRPC[$size.interval]}, summary only ${IRPC[$size.summary]}"
    cg_summary+=" (the interval records add $(awk -v a="${IRPC[$size.interval]}" -v b="${IRPC[$size.summary]}" 'BEGIN { printf "%+.2f", a - b }'))"
    [ -z "$QPB_OLD" ] || cg_summary+=", before ${IRPC[$size.old]}"
    cg_summary+="; "
done
cg_verdict="${cg_summary%; }. Interval mode is <= $GOAL_IR instructions per cycle at $goal_ir_ok of $goal_ir_n sizes: the goal is $([ "$goal_ir_ok" = "$goal_ir_n" ] && echo met || echo '**not met**')."

ELAPSED=$(($(date +%s) - START))
REGEN="SIZES=\"$SIZES\" THREADS=\"$THREADS\" REPEATS=$REPEATS DURATION=$DURATION INTERVAL_MS=$INTERVAL_MS CG_ITERS=$CG_ITERS BASE_REV=$BASE_REV bench/stats-overhead/run.sh"

cat >"$HERE/results.md" <<EOF
# Statistics overhead: interval statistics vs the summary only (tcp loopback)

The engine keeps its statistics as intervals: every \`interval_ms\` each sender thread closes an interval
record (sparse cycle-time histogram, cycles, bytes, min/max, ...) into a per-thread ring that the caller
drains. With \`interval_ms\` 0 it keeps one interval for the whole run, closed at the end: the summary only.
This bench measures what the interval records cost against that.

## Throughput

qpbench loopback (one process, tcp on 127.0.0.1), ${DURATION} s duration runs, release build (\`-O2\`).
Per point (message size, T threads) $REPEATS repeats, each running three modes in a rotating order
(ABC, BCA, CAB): **A** interval statistics (\`--interval $INTERVAL_MS\`: a record per thread every $INTERVAL_MS ms,
drained and printed by qpbench to a file), **B** summary only (no \`--interval\`), **C** summary only again
(the control). Message rate = \`msg_rate\` of the JSON summary (messages / (last completion − first post)),
in Mpps (10^6 msg/s); \`bw_avg_bps\` gives the same ratios. Each A run's partner is the B run of its
repeat: "median of pair ratios" is the median of the $REPEATS per-repeat ratios A/B, which cancels the
slow drift of a shared 2-core machine that the ratio of medians still carries. The control C/B is the
same pair ratio between two runs of one mode: what the machine alone does to a ratio. Goal: A/B ≥ $GOAL_RATIO.

| point (size, T) | A: interval stats [Mpps] | B: summary only [Mpps] | C: summary only again [Mpps] | ratio of medians A/B | median of pair ratios A/B | A/B (min–max) | control: median of pair ratios C/B | C/B (min–max) | interval records per A run (median) | late records (all A runs) | A runs | B runs | C runs |
|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---|---|---|
$rows
"Late records" counts intervals that grew past their boundary because the ring had no room
(\`intervals_late\`): 0 means the drain kept up and every record closed on time.

Verdict: $(verdict)

## Instructions per cycle of the statistics path (callgrind)

\`valgrind --tool=callgrind\`, 1 thread, \`-n $CG_ITERS\` cycles, the engine built with \`CC="gcc -g"\`
(CFLAGS stay \`-O2\`: the same code as the release build, with line information). Callgrind counts
instructions (Ir), which do not depend on the machine's load; valgrind runs the threads one at a
time, so its throughput means nothing and is not shown. Statistics path = the Ir of the lines of
\`qpb_stats.h\` and \`qpb_record.h\` inlined into the provider's \`sender_loop\` (the per-cycle path and
the per-turn interval tick) plus the self Ir of the out-of-line slow paths (qpb_stats.c:
qpb_peak_group_started, qpb_peak_group_ended, windows_to_latest, qpb_stats_close,
qpb_stats_record_bytes, qpb_stats_open; qpb_session.c: qpb_record_new_end, qpb_interval_tick_slow,
qpb_trace_keep, qpb_interval_finish, close_interval, roll; qpb_ring.c: qpb_bytes_ring_put,
qpb_bytes_ring_room, ring_copy, wherever they were not inlined), divided by the run's cycles
(\`cycles\` of its JSON summary). Not counted: the summary's work after the run (qpb_hist_percentile,
qpb_hist_merge, qpb_moments_*), libc (the memcpy of a record), the reader's drain. ring_copy also
carries the drain's copy out of the ring (qpb_bytes_ring_take): a few hundred Ir per run.
$( [ -z "$QPB_OLD" ] || echo "The engine before interval statistics ($BASE_REV = $BASE_DESC; its CLI kept the summary only, records:false)
had an out-of-line per-cycle path: the self Ir of qpb_record_cycle, qpb_stats_add, qpb_moments_add,
qpb_hist_add, qpb_peak_add and windows_to_latest (the call's argument setup in sender_loop, ~4 Ir, is not counted there)." )
windows_to_latest (the BW peak) runs once per group of cycles with one completion end (on tcp, one ack
covers several cycles): its share per cycle depends on how many cycles a group holds, which depends on
timing, so it varies between sizes (at 4 KiB the groups are smaller) and a little between runs; it is
the same in both modes. Valgrind slows the engine down, so an interval of $INTERVAL_MS ms holds fewer cycles under it than at full
speed${cg_slow:+ (${cg_slow%; })}: the cost of closing the records, per cycle, is overstated here by that factor.

| size | engine, mode | cycles | interval records | Ir, whole process | Ir per cycle, whole process | Ir, statistics path | Ir per cycle, statistics path |
|---|---|---:|---:|---:|---:|---:|---:|
$cg_rows
Where the statistics path's Ir per cycle go:

$cg_details
Verdict: $cg_verdict

- date: $(date -u '+%Y-%m-%d %H:%M UTC'); the whole run took $((ELAPSED / 60)) min $((ELAPSED % 60)) s
- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), kernel $(uname -r)
- engine: $(git -C "$ROOT" log -1 --format='%h' HEAD)$(git -C "$ROOT" diff --quiet HEAD -- engine/src/main/c || echo ' (with uncommitted changes in engine/src/main/c)'); $(gcc --version | head -1); $(valgrind --version)
- regenerate: \`$REGEN\`
EOF
cat "$HERE/results.md"
echo >&2
echo "wrote $HERE/results.md in $((ELAPSED / 60)) min $((ELAPSED % 60)) s; regenerate with:" >&2
echo "  $REGEN" >&2
