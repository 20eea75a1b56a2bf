#!/usr/bin/env bash
# bench/verbs-vs-perftest/run.sh — qplab's verbs provider against perftest, side by side,
# on the same pair of Soft-RoCE devices (lab/lab: two qemu VMs with rdma_rxe on one segment).
#
# Per point both tools run with the same parameters — server in VM 1, client in VM 2, RC,
# TX depth 128, CQ moderation 100, no inline, 128 outstanding reads (perftest's defaults
# on rxe), the same message size and iteration count — REPEATS times, interleaved (the
# order rotates) so the machine's drift hits both alike. The table keeps the median
# BW average (perftest's definition: bytes / (last completion - first post), MB = 2^20 B).
# Each repeat also runs perftest a second time (the control): perftest against itself, paired
# the same way, shows how far two runs of one tool scatter here; a difference between the
# tools smaller than that scatter is not resolved by this machine.
# Part 1: send, write and read, 1 QP, sizes 64 B .. 64 KiB. Part 2: T threads of qpbench
# (one QP each) vs T perftest processes (one QP each, summed), send.
# Writes results.md next to this script.
#
# Usage: bench/verbs-vs-perftest/run.sh
# Knobs (environment): OPS="send write read" SIZES="64 256 1024 4096 16384 65536"
#   THREADS="1 2 4" THREAD_SIZE=4096 REPEATS=5 BYTES=33554432 (per run; iterations =
#   BYTES / size within MIN_ITERS..MAX_ITERS) MIN_ITERS=1000 MAX_ITERS=100000
#   (runs of 2-11 s each: shorter ones, 8 MiB, scattered by +-15 % from run to run)
#   QPLAB_LAB_DIR (the lab's state; default lab/target/bench-lab)
set -euo pipefail
shopt -s inherit_errexit # a die inside $(...) ends the script, not just its subshell

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OPS=${OPS:-"send write read"}
SIZES=${SIZES:-"64 256 1024 4096 16384 65536"}
THREADS=${THREADS:-"1 2 4"}
THREAD_SIZE=${THREAD_SIZE:-4096}
REPEATS=${REPEATS:-5}
BYTES=${BYTES:-33554432}
MIN_ITERS=${MIN_ITERS:-1000}
MAX_ITERS=${MAX_ITERS:-100000}
export QPLAB_LAB_DIR=${QPLAB_LAB_DIR:-$ROOT/lab/target/bench-lab}
LAB="$ROOT/lab/lab"
OUT="$ROOT/engine/target/native"
LIMIT=60 # seconds: no single run may hang the script (the longest takes ~15 s)
MAX_TRIES=3 # a run that fails or hangs (rxe across the TCG lab loses packets now and then) is run again
COMMON="-t 128 -Q 100" # the same on both sides of the comparison (perftest's defaults made explicit)

die() { echo "run.sh: $*" >&2; exit 1; }
. "$ROOT/bench/lib/softroce.sh" # checks, builds qpbench, boots the lab; await_listening, try_run, median, ...

iters_for() { # size -> iterations
    local n=$((BYTES / $1))
    ((n < MIN_ITERS)) && n=$MIN_ITERS
    ((n > MAX_ITERS)) && n=$MAX_ITERS
    echo "$n"
}

bw_lines() { # size file -> the result lines for that size
    awk -v s="$1" '$1 == s && NF >= 5' "$2"
}

bw_of() { # size file -> the BW average column of the result line (MB/s), summed over lines
    awk -v s="$1" '$1 == s && NF >= 5 { sum += $4; n++ } END { if (n == 0) exit 1; printf "%.2f", sum }' "$2"
}

perftest_mbps() { # op size iterations processes
    local op=$1 size=$2 n=$3 procs=$4 first i servers="" clients=""
    first=$(next_ports "$procs")
    for ((i = 0; i < procs; i++)); do
        servers+="timeout $LIMIT ib_${op}_bw -d rxe0 -x $GID1 -F -s $size -n $n -p $((first + i)) $COMMON >/dev/null 2>&1 & "
        clients+="timeout $LIMIT ib_${op}_bw -d rxe0 -x $GID2 -F -s $size -n $n -p $((first + i)) $COMMON $ADDR1 & "
    done
    timeout $((LIMIT + 30)) "$LAB" ssh 1 "${servers}wait" >/dev/null 2>&1 &
    local server=$!
    await_listening $(seq "$first" $((first + procs - 1))) || { kill "$server" 2>/dev/null; return 1; }
    timeout $((LIMIT + 30)) "$LAB" ssh 2 "${clients}wait" >"$TMP/p.log" 2>&1 || true
    wait "$server" || true
    # every process must report, and report something: perftest prints 0.00 when it measured nothing
    [ "$(bw_lines "$size" "$TMP/p.log" | awk '$4 > 0' | grep -c .)" = "$procs" ] || { cat "$TMP/p.log" >&2; return 1; }
    bw_of "$size" "$TMP/p.log"
}

# -> "SUM FULL SPAN": the threads' own BW averages summed (what T perftest processes report, each over
# its own span), the share of the threads' time with the whole window in flight and nothing completing
# (%, window_full_share) and qpbench's result line (all threads' bytes over one span, first post to
# last completion)
qplab_mbps() { # op size iterations threads
    local op=$1 size=$2 n=$3 threads=$4 port span sum
    port=$(next_ports 1)
    local args="--provider=verbs --op=$op -d rxe0 -s $size -n $n --threads=$threads -p $port $COMMON"
    timeout $((LIMIT + 30)) "$LAB" ssh 1 "timeout $LIMIT $QPB $args --server --bind=$ADDR1" >/dev/null 2>&1 &
    local server=$!
    await_listening "$port" || { kill "$server" 2>/dev/null; return 1; }
    timeout $((LIMIT + 30)) "$LAB" ssh 2 "timeout $LIMIT $QPB $args --json=/tmp/qpb-$port.json $ADDR1 && echo '--- json' && cat /tmp/qpb-$port.json" \
        >"$TMP/q.log" 2>&1 || true
    wait "$server" || true
    span=$(sed '/^--- json$/,$d' "$TMP/q.log" | bw_of "$size" /dev/stdin) || { cat "$TMP/q.log" >&2; return 1; }
    awk -v b="$span" 'BEGIN { exit !(b > 0) }' || { cat "$TMP/q.log" >&2; return 1; }
    sum=$(sed '1,/^--- json$/d' "$TMP/q.log" | jq -r '.[0] | ([.per_thread[].bw_avg_bps] | add / 1048576 | . * 100 | round / 100),
        (.window_full_share * 1000 | round / 10)' | xargs) || { cat "$TMP/q.log" >&2; return 1; }
    echo "$sum $span"
}

# point LABEL op size iterations parallelism -> a table row
# Each repeat runs qplab (q), perftest (p) and perftest again (c, the control) in a rotating order;
# the pairs are q/p and c/p.
point() {
    local label=$1 op=$2 size=$3 n=$4 par=$5 r k q w u c p qs="" us="" ws="" ps="" cs="" rs="" crs=""
    for ((r = 1; r <= REPEATS; r++)); do
        for k in $(echo "q p c q p" | cut -d' ' -f$(((r - 1) % 3 + 1))-$(((r - 1) % 3 + 3))); do
            case $k in
            q) read -r q w u <<<"$(try_run qplab_mbps "$op" "$size" "$n" "$par")" ;;
            p) p=$(try_run perftest_mbps "$op" "$size" "$n" "$par") ;;
            c) c=$(try_run perftest_mbps "$op" "$size" "$n" "$par") ;;
            esac
        done
        qs+="$q "; us+="$u "; ws+="$w "; ps+="$p "; cs+="$c "; rs+="$(ratio "$q" "$p") "; crs+="$(ratio "$c" "$p") "
        echo "  $label run $r: qplab $q MB/s (one span: $u, window full $w %), perftest $p MB/s, perftest again $c MB/s" >&2
    done
    local qm pm span=""
    qm=$(echo "$qs" | median); pm=$(echo "$ps" | median)
    [ "$label" = "${label%,*}" ] || span=" $(echo "$us" | median | xargs printf '%.2f') |" # part 2 ("op size, T") has the column
    printf '| %s | %s | %.2f |%s %.2f | %.2f | %.2f | %s | %.2f | %s | %.0f | %s| %s| %s|\n' "$label" "$n" "$qm" "$span" "$pm" \
        "$(awk -v a="$qm" -v b="$pm" 'BEGIN { print (b > 0) ? a / b : 0 }')" "$(echo "$rs" | median)" \
        "$(echo "$rs" | range_of)" "$(echo "$crs" | median)" "$(echo "$crs" | range_of)" "$(echo "$ws" | median)" "$qs" "$ps" "$cs"
}


rows1=""
for op in $OPS; do
    for size in $SIZES; do
        rows1+="$(point "$op $(human "$size")" "$op" "$size" "$(iters_for "$size")" 1)"$'\n'
    done
done
rows2=""
for t in $THREADS; do
    rows2+="$(point "send $(human "$THREAD_SIZE"), $t" send "$THREAD_SIZE" "$(iters_for "$THREAD_SIZE")" "$t")"$'\n'
done

verdict() { # from the tables: qplab's median of pair ratios at every point, beside the control's (perftest against itself)
    { echo "$rows1" | awk -F'|' 'NF > 13 { print $7, $8, $9, $10 }'; echo "$rows2" | awk -F'|' 'NF > 14 { print $8, $9, $10, $11 }'; } |
        awk '{ n++; if ($1 + 0 >= 1.0) k++; if (n == 1 || $1 < lo) lo = $1; if (n == 1 || $1 > hi) hi = $1
               split($2, r, "–"); if (r[1] + 0 <= 1.0 && r[2] + 0 >= 1.0) in_range++
               if ($3 + 0 >= 1.0) ck++; if (n == 1 || $3 < clo) clo = $3; if (n == 1 || $3 > chi) chi = $3
               split($4, c, "–"); if ($1 + 0 < c[1] + 0) below++ }
             END { printf "qplab against perftest: the median of pair ratios is %.2f–%.2f, >= 1.0 at %d of %d points: the goal (>= 1.0 at every point) is %s. ",
                   lo, hi, k, n, (k == n) ? "met" : "**not met**"
                   printf "At %d of %d points the pair ratios range over 1.0 (some pairs go each way). ", in_range, n
                   printf "Control, perftest against itself paired the same way: the median of pair ratios is %.2f–%.2f, >= 1.0 at %d of %d points ", clo, chi, ck, n
                   printf "(the same goal, applied to perftest against itself, is %s). ", (ck == n) ? "met" : "not met"
                   printf "At %d of %d points qplab'"'"'s median pair ratio lies below the lowest pair ratio of perftest against itself, ", below, n
                   printf "i.e. differs from perftest by more than perftest differs from itself here." }'
}

cat >"$HERE/results.md" <<EOF
# qplab verbs provider vs perftest (Soft-RoCE, rdma_rxe across two qemu VMs)

Both tools on the same pair of rxe devices (server in VM 1, client in VM 2, one vde segment,
RoCE v2, active MTU 1024), RC, TX depth 128, CQ moderation 100 (signal every 100th request),
no inline, 128 outstanding reads, the same size and iteration count; qpbench as its CLI runs,
with the summary only (no per-cycle record stream: that is the agent's, and perftest has none). BW average =
bytes / (last completion − first post) in MB/s (2^20 B), perftest's definition on both sides;
median of $REPEATS interleaved repeats (the order rotates). Each qplab run has a partner: the
perftest run of the same repeat; "median of pair ratios" is the median of those per-pair ratios,
which cancels the slow drift of a shared 2-core machine that the ratio of medians still carries.
Goal: ratio ≥ 1.0 at every point.

The control: every repeat runs perftest a second time, paired with the same perftest run as
qplab is. "perftest vs itself" is that pair ratio: what the machine alone does to a ratio between
two runs of one tool. "window full" is the share of qplab's sending time with the whole TX depth
in flight and nothing completing (\`window_full_share\`, median over the runs).

## send, write, read — 1 thread, 1 QP

| point | iterations | qplab [MB/s] | perftest [MB/s] | ratio of medians | median of pair ratios | pair ratios (min–max) | perftest vs itself: median of pair ratios | perftest vs itself (min–max) | qplab window full [%] | qplab runs | perftest runs | perftest again (control) |
|---|---:|---:|---:|---:|---:|---|---:|---|---:|---|---|---|
$rows1
## T threads of qpbench (1 QP each) vs T perftest processes (1 QP each, BW averages summed)

T perftest processes each report their own BW average (their bytes over their own span); the
sum of those is compared with the sum of qpbench's per-thread BW averages (\`per_thread[].bw_avg_bps\`
of its JSON summary), the same definition. qpbench's own result line, all threads' bytes over one
span from the first post of any thread to the last completion of any, is shown beside it: it is
lower whenever the threads do not start and end together, and perftest has no such number.

| point (send, size, T) | iterations | qplab, threads summed [MB/s] | qplab, one span [MB/s] | perftest, processes summed [MB/s] | ratio of medians | median of pair ratios | pair ratios (min–max) | perftest vs itself: median of pair ratios | perftest vs itself (min–max) | qplab window full [%] | qplab runs (summed) | perftest runs | perftest again (control) |
|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---|---|---|
$rows2
Under TCG (no KVM here) the VMs' kernels do rxe's packet work in emulated code: absolute numbers
are a few MB/s and mean nothing outside this lab; the ratios compare the two user-space engines
on identical kernels and devices.

Runs that failed or hung (past ${LIMIT} s) and were run again (up to $MAX_TRIES tries; rxe across the TCG
lab loses packets now and then, lab/README.md): $(grep -c '^- `' "$TMP/failures" || true)
$(cat "$TMP/failures")

Verdict: $(verdict)

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), host kernel $(uname -r)
- VMs: kernel $("$LAB" kernel), $(sed -n 's/.*booting [0-9]* VM(s): kernel [^,]*, \([a-z]*\),.*/\1/p' "$TMP/up.log" | head -1), 1 vCPU and ${QPLAB_LAB_MEM:-1024} MiB each
- perftest: $(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo unknown); rdma-core: $(dpkg-query -W -f='${Version}' rdma-core 2>/dev/null || echo unknown)
- regenerate: \`REPEATS=$REPEATS bench/verbs-vs-perftest/run.sh\`
EOF
cat "$HERE/results.md"
