#!/usr/bin/env bash
# bench/tcp-vs-iperf3/run.sh — qplab's tcp provider against iperf3, side by side.
#
# Both run as two processes on 127.0.0.1 (qpbench --server + qpbench client,
# iperf3 -s + iperf3 -c), 1 thread, 1 connection / 1 stream, the same message
# size (iperf3 -l) and the same duration. Each pair runs REPEATS times,
# interleaved so machine drift hits both alike; the table keeps the medians.
# Writes results.md next to this script.
#
# Usage: bench/tcp-vs-iperf3/run.sh
# Knobs (environment): SIZES="4096 65536 131072 1048576" SECS=3 REPEATS=3
#                      QPB_PORT=18515 IPERF_PORT=5201 OUT=<dir for qpbench>
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SIZES=${SIZES:-"4096 65536 131072 1048576"}
SECS=${SECS:-3}
REPEATS=${REPEATS:-3}
QPB_PORT=${QPB_PORT:-18515}
IPERF_PORT=${IPERF_PORT:-5201}
OUT=${OUT:-$ROOT/engine/target/native}
HOST=127.0.0.1 # never anything else: this bench measures the loopback path

die() { echo "run.sh: $*" >&2; exit 1; }
command -v iperf3 >/dev/null ||
    die "iperf3 is not installed. Install it with: sudo apt-get update && sudo apt-get install -y iperf3"
command -v jq >/dev/null ||
    die "jq is not installed. Install it with: sudo apt-get update && sudo apt-get install -y jq"
command -v make >/dev/null && command -v gcc >/dev/null || die "make and gcc are needed to build qpbench"

make -s -C "$ROOT/engine/src/main/c" OUT="$OUT" >/dev/null || die "building qpbench failed"
QPB="$OUT/qpbench"

TMP=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
LIMIT=$((SECS + 30)) # no single command may hang the script

# Waits (bounded) for the background server to exit; kills it if it does not.
reap() {
    local i
    for ((i = 0; i < 50; i++)); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

qplab_gbps() { # size -> Gbit/s on stdout
    timeout "$LIMIT" "$QPB" --server --bind "$HOST" -p "$QPB_PORT" -s "$1" -D "$SECS" >"$TMP/qs.log" 2>&1 &
    SERVER_PID=$!
    if ! timeout "$LIMIT" "$QPB" "$HOST" -p "$QPB_PORT" -s "$1" -D "$SECS" --json "$TMP/q.json" >"$TMP/qc.log" 2>&1; then
        cat "$TMP/qc.log" "$TMP/qs.log" >&2
        die "qpbench failed at size $1"
    fi
    reap
    jq '.[0].bw_avg_bps * 8 / 1e9' "$TMP/q.json"
}

iperf_gbps() { # size -> Gbit/s on stdout
    timeout "$LIMIT" iperf3 -s -1 -B "$HOST" -p "$IPERF_PORT" >"$TMP/is.log" 2>&1 &
    SERVER_PID=$!
    local i ok=
    for ((i = 0; i < 20; i++)); do # the server needs a moment to listen
        # iperf3 -J may exit 0 with an "error" member: check the number itself.
        timeout "$LIMIT" iperf3 -c "$HOST" -p "$IPERF_PORT" -l "$1" -t "$SECS" -J >"$TMP/i.json" 2>/dev/null || true
        if jq -e '.end.sum_received.bits_per_second' "$TMP/i.json" >/dev/null 2>&1; then
            ok=1
            break
        fi
        sleep 0.2
    done
    [[ -n "$ok" ]] || { cat "$TMP/is.log" "$TMP/i.json" >&2; die "iperf3 failed at size $1"; }
    reap
    jq '.end.sum_received.bits_per_second / 1e9' "$TMP/i.json"
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

human() { # bytes -> 4 KiB / 1 MiB
    local b=$1
    if ((b >= 1048576 && b % 1048576 == 0)); then echo "$((b / 1048576)) MiB"
    elif ((b >= 1024 && b % 1024 == 0)); then echo "$((b / 1024)) KiB"
    else echo "$b B"; fi
}

ROWS=()
for size in $SIZES; do
    q=() p=()
    for ((r = 1; r <= REPEATS; r++)); do
        q+=("$(qplab_gbps "$size")")
        p+=("$(iperf_gbps "$size")")
        echo "size $size run $r: qplab ${q[-1]} Gbit/s, iperf3 ${p[-1]} Gbit/s" >&2
    done
    mq=$(median "${q[@]}")
    mp=$(median "${p[@]}")
    ratio=$(awk -v a="$mq" -v b="$mp" 'BEGIN {printf "%.2f", a / b}')
    ROWS+=("$(printf '| %s | %.2f | %.2f | %s | %s | %s |' "$(human "$size")" "$mq" "$mp" "$ratio" \
        "$(printf '%.1f ' "${q[@]}")" "$(printf '%.1f ' "${p[@]}")")")
done

CPU=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
# Hand-written analysis below the table (e.g. "Where the time goes") survives a rerun.
KEEP=$(awk '/^## / {k = 1} k' "$HERE/results.md" 2>/dev/null || true)
{
    echo "# qplab tcp provider vs iperf3 (127.0.0.1)"
    echo
    echo "Throughput of one TCP connection on the loopback interface, two processes each side"
    echo "(qpbench --server / qpbench client; iperf3 -s / iperf3 -c), 1 thread, 1 connection,"
    echo "message size = iperf3 -l, ${SECS} s per run, median of ${REPEATS} interleaved runs."
    echo "qplab: summary \`bw_avg_bps\` (bytes acknowledged by the receiver / (last ack - first"
    echo "post)); iperf3: \`end.sum_received.bits_per_second\`. Goal: ratio >= 0.9."
    echo
    echo "| size | qplab [Gbit/s] | iperf3 [Gbit/s] | qplab/iperf3 | qplab runs | iperf3 runs |"
    echo "|---:|---:|---:|---:|---|---|"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "Notes: qplab adds a 16-byte cumulative ack per read from the receiver (its completion"
    echo "signal) that iperf3 does not need. It moves a quarter of its in-flight window per"
    echo "send()/recv() (depth x size / 4, 128-512 KiB, at least one message), so messages below"
    echo "512 KiB are batched several per call (like perftest's post list) where iperf3 writes one"
    echo "-l block per call: at those sizes the ratio measures syscall batching as much as TCP."
    echo "At 4 KiB (~1.8 M cycles/s) the per-cycle statistics weigh most: since the BW peak is computed per"
    echo "completion group and the moments in integers, 4 KiB measures ~55–63 Gbit/s (before: ~19 or ~30)."
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) CPUs ($CPU), kernel $(uname -r)"
    echo "- iperf3: $(iperf3 --version 2>/dev/null | head -1)"
    echo "- regenerate: \`SIZES=\"$SIZES\" SECS=$SECS REPEATS=$REPEATS bench/tcp-vs-iperf3/run.sh\`"
    if [[ -n "$KEEP" ]]; then printf '\n%s\n' "$KEEP"; fi
} >"$HERE/results.md"
cat "$HERE/results.md"
