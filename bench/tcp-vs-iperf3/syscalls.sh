#!/usr/bin/env bash
# bench/tcp-vs-iperf3/syscalls.sh — where the time goes at one message size:
# the system calls of qpbench and iperf3, per MiB moved, each side counted.
#
# Runs the same pairs as run.sh (127.0.0.1, 1 thread, 1 connection, iperf3 -l
# SIZE) once each, with every process under a syscall counter, and prints a
# markdown table: calls per MiB, how many of them failed (EAGAIN: the
# non-blocking call found the socket full or empty), KiB per successful data
# call, and CPU ms per MiB (task-clock; perf only). Counts do not depend on
# machine load the way Gbit/s does; CPU time does a little.
#
# COUNTER=perf (default) counts with the kernel's syscall tracepoints
# (perf stat -e syscalls:sys_enter_*): the programs run at full speed. It
# needs root or kernel.perf_event_paranoid <= -1 and tracefs.
# COUNTER=strace uses strace -f -c: any user, but ptrace stops every call,
# which slows both programs several-fold and changes how much each call finds.
#
# Usage: bench/tcp-vs-iperf3/syscalls.sh
# Knobs: SIZE=1048576 SECS=3 COUNTER=perf|strace QPB=<qpbench binary, e.g. an
#        older build for a before/after> QPB_PORT=18525 IPERF_PORT=5211
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SIZE=${SIZE:-1048576}
SECS=${SECS:-3}
COUNTER=${COUNTER:-perf}
QPB_PORT=${QPB_PORT:-18525}
IPERF_PORT=${IPERF_PORT:-5211}
HOST=127.0.0.1 # never anything else: this measures the loopback path
CALLS="sendto recvfrom write read sendmsg recvmsg splice epoll_wait pselect6 select poll ppoll"

die() { echo "syscalls.sh: $*" >&2; exit 1; }
for t in iperf3 jq "$COUNTER"; do
    command -v "$t" >/dev/null || die "$t is not installed (apt-get install -y ${t/perf/linux-perf})"
done
if [[ -z "${QPB:-}" ]]; then
    make -s -C "$ROOT/engine/src/main/c" >/dev/null || die "building qpbench failed"
    QPB=$ROOT/engine/target/native/qpbench
fi
if [[ "$COUNTER" == perf ]]; then
    perf stat -e syscalls:sys_enter_write -o /dev/null true 2>/dev/null ||
        die "perf cannot read syscall tracepoints here (run as root, or COUNTER=strace)"
fi

TMP=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
LIMIT=$((SECS + 30))

# counted OUTFILE CMD...: runs CMD under the counter, writing "name calls failed"
# lines (and "cpu_ms N" with perf) to OUTFILE.
counted() {
    local out=$1 raw=$1.raw
    shift
    if [[ "$COUNTER" == perf ]]; then
        local ev=() c
        for c in $CALLS; do
            ev+=(-e "syscalls:sys_enter_$c" -e "syscalls:sys_exit_$c" --filter 'ret < 0')
        done
        timeout "$LIMIT" perf stat -x, -o "$raw" "${ev[@]}" -e task-clock -- "$@" || return 1
        awk -F, '
            $3 ~ /sys_enter_/ { sub(/.*sys_enter_/, "", $3); calls[$3] = $1 + 0 }
            $3 ~ /sys_exit_/ { sub(/.*sys_exit_/, "", $3); failed[$3] = $1 + 0 }
            $3 == "task-clock" { cpu = $1 }
            END { for (c in calls) print c, calls[c], failed[c] + 0; print "cpu_ms", cpu }' "$raw" >"$out"
    else
        timeout "$LIMIT" strace -f -c -o "$raw" -- "$@" || return 1
        # rows: % seconds usecs/call calls [errors] syscall
        awk '$NF ~ /^[a-z_0-9]+$/ && $1 ~ /^[0-9.]+$/ && NF >= 5 {
                 print $NF, $4, (NF == 6 ? $5 : 0) }' "$raw" >"$out"
    fi
}

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

qpbench_pair() { # -> bytes moved on stdout; counts in $TMP/qpbench.{client,server}
    counted "$TMP/qpbench.server" "$QPB" --server --bind "$HOST" -p "$QPB_PORT" -s "$SIZE" -D "$SECS" \
        >"$TMP/qs.log" 2>&1 &
    SERVER_PID=$!
    sleep 0.5
    counted "$TMP/qpbench.client" "$QPB" "$HOST" -p "$QPB_PORT" -s "$SIZE" -D "$SECS" --json "$TMP/q.json" \
        >"$TMP/qc.log" 2>&1 || { cat "$TMP/qc.log" "$TMP/qs.log" >&2; die "qpbench failed"; }
    reap
    jq '.[0].bytes' "$TMP/q.json"
}

iperf3_pair() { # -> bytes moved on stdout; counts in $TMP/iperf3.{client,server}
    counted "$TMP/iperf3.server" iperf3 -s -1 -B "$HOST" -p "$IPERF_PORT" >"$TMP/is.log" 2>&1 &
    SERVER_PID=$!
    sleep 0.5
    counted "$TMP/iperf3.client" iperf3 -c "$HOST" -p "$IPERF_PORT" -l "$SIZE" -t "$SECS" -J \
        >"$TMP/i.json" 2>/dev/null || true
    jq -e '.end.sum_received.bytes' "$TMP/i.json" >/dev/null 2>&1 ||
        { cat "$TMP/is.log" "$TMP/i.json" >&2; die "iperf3 failed"; }
    reap
    jq '.end.sum_received.bytes' "$TMP/i.json"
}

# The call that moves the payload on each side (qpbench's other one carries
# its 16-byte acks).
payload_call() {
    case $1.$2 in
    qpbench.client) echo sendto ;; qpbench.server) echo recvfrom ;;
    iperf3.client) echo write ;; iperf3.server) echo read ;;
    esac
}

# table_rows TOOL BYTES: one row per side and syscall made at least once per
# 100 MiB (set-up calls such as the hello or the log line are left out).
table_rows() {
    local tool=$1 bytes=$2 side
    for side in client server; do
        awk -v tool="$tool" -v side="$side" -v bytes="$bytes" -v calls="$CALLS" \
            -v payload="$(payload_call "$tool" "$side")" '
            { n[$1] = $2; f[$1] = $3 }
            END {
                mib = bytes / 1048576
                split(calls, order, " ")
                total = 0
                for (i = 1; i in order; i++) {
                    c = order[i]
                    if (!(c in n) || n[c] < mib / 100) continue
                    total += n[c]
                    ok = n[c] - f[c]
                    kib = (c == payload && ok > 0) ? sprintf("%.0f", bytes / ok / 1024) : ""
                    name = c == payload ? c " (payload)" : c
                    printf "| %s | %s | %s | %.2f | %.2f | %s |\n", tool, side, name, n[c] / mib, f[c] / mib, kib
                }
                printf "| %s | %s | **all of the above** | **%.2f** | | |\n", tool, side, total / mib
                if ("cpu_ms" in n) printf "| %s | %s | CPU ms per MiB (task-clock) | %.3f | | |\n", tool, side, n["cpu_ms"] / mib
            }' "$TMP/$tool.$side"
    done
}

qb=$(qpbench_pair)
ib=$(iperf3_pair)
echo "size $SIZE B, $SECS s, counter $COUNTER; qpbench moved $((qb / 1048576)) MiB, iperf3 $((ib / 1048576)) MiB"
echo "(qpbench: $QPB)"
echo
echo "| tool | side | syscall | calls per MiB | failed (EAGAIN) per MiB | KiB per successful payload call |"
echo "|---|---|---|---:|---:|---:|"
table_rows qpbench "$qb"
table_rows iperf3 "$ib"
