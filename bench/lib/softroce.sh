# bench/lib/softroce.sh — sourced by the benchmarks that compare qplab with a tool in the Soft-RoCE lab
# (bench/verbs-vs-perftest). Needs ROOT, LAB, OUT, LIMIT, MAX_TRIES and die(). Checks what is needed, builds
# qpbench (QPB), boots two VMs (stopped on exit), and sets GID1, GID2, ADDR1 and TMP (a scratch directory,
# removed on exit; TMP/failures collects the runs that were run again, TMP/up.log the lab's boot).

"$LAB" check >/dev/null || die "the Soft-RoCE lab cannot run here: $("$LAB" check)"
command -v make >/dev/null && command -v gcc >/dev/null || die "make and gcc are needed to build qpbench"
command -v jq >/dev/null || die "jq is needed to read qpbench's JSON summary (apt-get install jq)"
make -s -C "$ROOT/engine/src/main/c" OUT="$OUT" >/dev/null || die "building qpbench failed"
QPB="$OUT/qpbench"

TMP=$(mktemp -d)
cleanup() { "$LAB" down >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
echo "booting the lab (2 VMs)..." >&2
"$LAB" up 2 >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" >&2; die "lab up failed"; }
GID1=$("$LAB" gid 1)
GID2=$("$LAB" gid 2)
ADDR1=$("$LAB" addr 1)
echo 20000 >"$TMP/port"
: >"$TMP/failures"

await_listening() { # ports... (in VM 1)
    local checks="" p
    for p in "$@"; do checks+="ss -Hltn 'sport = :$p' | grep -q . && "; done
    "$LAB" ssh 1 "for i in \$(seq 100); do ${checks}exit 0; sleep 0.2; done; exit 1" ||
        { echo "servers on ports $* did not start in VM 1" >&2; return 1; }
}

next_ports() { # n -> the first of n ports no run has used (a file: the runs are in subshells)
    local p
    p=$(cat "$TMP/port")
    echo $((p + $1)) >"$TMP/port"
    echo "$p"
}

# Whether a VM's RDMA segment stopped sending: QEMU's virtio-net now and then stops taking packets from
# the guest under this load (the guest logs NETDEV WATCHDOG ... transmit queue 0 timed out; nothing
# crosses eth1 after that). Only a restart of the VMs has been seen to recover it.
lab_stuck() {
    local i
    for i in 1 2; do
        timeout 30 "$LAB" ssh "$i" "dmesg | grep -q 'transmit queue 0 timed out'" 2>/dev/null && return 0
    done
    return 1
}

# try_run FUNCTION ARGS... -> its output; a run that fails is run again, up to MAX_TRIES, each failure noted
try_run() {
    local t out
    for ((t = 1; t <= MAX_TRIES; t++)); do
        if out=$("$@" 2>"$TMP/err"); then
            echo "$out"
            return 0
        fi
        echo "- \`${*:2}\` (${1%_mbps}, try $t): $(grep -m1 -iE 'error|fail|refused|timed? ?out|did not' "$TMP/err" || echo "no result within ${LIMIT} s")" >>"$TMP/failures"
        echo "  ${1%_mbps} ${*:2} failed (try $t of $MAX_TRIES):" >&2
        tail -5 "$TMP/err" | sed 's/^/    /' >&2
        if lab_stuck; then
            echo "- the lab restarted after that: a VM's eth1 transmit queue was stuck (NETDEV WATCHDOG)" >>"$TMP/failures"
            echo "  a VM's eth1 transmit queue is stuck (NETDEV WATCHDOG in dmesg): restarting the lab..." >&2
            "$LAB" down >/dev/null 2>&1 || true
            "$LAB" up 2 >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" >&2; die "lab up failed"; }
            [ -z "${AFTER_RESTART:-}" ] || $AFTER_RESTART >>"$TMP/up.log" 2>&1 || die "$AFTER_RESTART failed after the restart"
            [ "$("$LAB" gid 1) $("$LAB" gid 2) $("$LAB" addr 1)" = "$GID1 $GID2 $ADDR1" ] ||
                die "the restarted lab has other GIDs or addresses"
        fi
    done
    die "${1%_mbps} ${*:2} failed $MAX_TRIES times"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }
range_of() { tr ' ' '\n' | grep . | sort -g | sed -n '1p;$p' | xargs printf '%.2f–%.2f'; }

human() { awk -v b="$1" 'BEGIN { if (b >= 1024) printf "%d KiB", b / 1024; else printf "%d B", b }'; }
