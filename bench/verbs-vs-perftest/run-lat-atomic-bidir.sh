#!/usr/bin/env bash
# bench/verbs-vs-perftest/run-lat-atomic-bidir.sh — the rest of perftest's test set, side by side with
# qplab on the same pair of Soft-RoCE devices, with the same design as run.sh: server in VM 1, client
# in VM 2, RC, REPEATS interleaved repeats whose order rotates over qplab (q), perftest (p) and perftest
# again (c, the control), pairs q/p and c/p.
#   Part 1, latency: ib_{send,write,read}_lat vs qpbench --lat, t_typical (the median, µs), sizes LAT_SIZES,
#     LAT_ITERS iterations, no inline on either side (perftest does not inline on rxe: "Device not recognized
#     to implement inline feature"; qpbench --lat would inline up to the device's max_inline_data).
#   Part 2, atomics: ib_atomic_bw -A FETCH_AND_ADD / CMP_AND_SWAP vs qpbench --op=atomic_fadd / atomic_cswap,
#     message rate (Mpps: 8-byte messages make MB/s too coarse), ATOMIC_ITERS iterations.
#   Part 3, bidirectional: ib_{write,send}_bw -b vs qpbench -b, BW average of both directions summed
#     (what perftest's client prints with -b; qpbench's from both sides' JSON), BIDIR_SIZE bytes (1 KiB: one
#     packet at the lab's MTU; rxe stalls multi-packet messages both ways for both tools), BIDIR_ITERS iterations.
#   Part 4, post path: ib_{write,send}_bw vs qpbench at POST_SIZES, qpbench --post-api=wr (ibv_wr_*) against
#     perftest's default and qpbench --use_old_post_send (ibv_post_send) against perftest --use_old_post_send,
#     BW average [MB/s], POST_BYTES per run (iterations = POST_BYTES / size, at least 2000).
#   Part 5, iWARP: siw0 (lab siw) on both VMs, everything through rdma_cm (-R): ib_write_bw vs qpbench
#     --target-wait=spin at 4 KiB (IWARP_BW_ITERS; with -R perftest's server busy-polls its QP for the end-of-test
#     message, so qpbench's target spins too) and ib_write_lat vs qpbench --lat at 64 B (IWARP_LAT_ITERS).
# Writes results-lat-atomic-bidir.md next to this script.
#
# Usage: bench/verbs-vs-perftest/run-lat-atomic-bidir.sh
# Knobs (environment): REPEATS=5 LAT_OPS="send write read" LAT_SIZES="64 1024 4096" LAT_ITERS=2000
#   ATOMICS="fadd cswap" ATOMIC_ITERS=20000 BIDIR_OPS="write send" BIDIR_SIZE=1024 BIDIR_ITERS=8192
#   POST_OPS="write send" POST_SIZES="64 1024 4096" POST_BYTES=4194304 IWARP_BW_ITERS=8000 IWARP_LAT_ITERS=1000
#   PARTS="lat atomic bidir post iwarp" (the parts to run; the others keep their rows from rows/PART.md)
#   QPLAB_LAB_DIR (the lab's state; default lab/target/bench-lab)
set -euo pipefail
shopt -s inherit_errexit # a die inside $(...) ends the script, not just its subshell

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
REPEATS=${REPEATS:-5}
LAT_OPS=${LAT_OPS:-"send write read"}
LAT_SIZES=${LAT_SIZES:-"64 1024 4096"}
LAT_ITERS=${LAT_ITERS:-2000}
ATOMICS=${ATOMICS:-"fadd cswap"}
ATOMIC_ITERS=${ATOMIC_ITERS:-20000}
BIDIR_OPS=${BIDIR_OPS:-"write send"}
BIDIR_SIZE=${BIDIR_SIZE:-1024}
BIDIR_ITERS=${BIDIR_ITERS:-8192}
POST_OPS=${POST_OPS:-"write send"}
POST_SIZES=${POST_SIZES:-"64 1024 4096"}
POST_BYTES=${POST_BYTES:-4194304}
IWARP_BW_ITERS=${IWARP_BW_ITERS:-8000}
IWARP_LAT_ITERS=${IWARP_LAT_ITERS:-1000}
PARTS=${PARTS:-"lat atomic bidir post iwarp"}
export QPLAB_LAB_DIR=${QPLAB_LAB_DIR:-$ROOT/lab/target/bench-lab}
LAB="$ROOT/lab/lab"
OUT="$ROOT/engine/target/native"
LIMIT=60 # seconds: no single run may hang the script
MAX_TRIES=3
BW_COMMON="-t 128 -Q 100" # the same on both sides (perftest's bw defaults made explicit)

die() { echo "run-lat-atomic-bidir.sh: $*" >&2; exit 1; }
. "$ROOT/bench/lib/softroce.sh" # checks, builds qpbench, boots the lab; await_listening, try_run, median, ...

# A result line of perftest's (and qpbench's perftest-style) output: the first column is the size.
column_of() { # size column file -> that column of the size's result line
    awk -v s="$1" -v c="$2" '$1 == s && NF >= 5 && $2 ~ /^[0-9]+$/ { v = $c } END { if (v == "") exit 1; print v }' "$3"
}

# A figure is a result only when it is a positive finite number (perftest now and then prints "inf" as t_typical).
finite_positive() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }

# The device both tools run on: rxe0 (RoCE, GIDs given to perftest), or siw0 in part iwarp (rdma_cm, its own address)
DEV=rxe0 SERVER_ADDR=$ADDR1 P_SERVER="-x $GID1" P_CLIENT="-x $GID2" Q_EXTRA=""

# perftest NAME SIZE COLUMN ARGS... -> the column of the client's result line; server in VM 1, client in VM 2
perftest_run() {
    local tool=$1 size=$2 col=$3 port
    shift 3
    port=$(next_ports 1)
    timeout $((LIMIT + 30)) "$LAB" ssh 1 "timeout $LIMIT $tool -d $DEV $P_SERVER -F -p $port $*" >/dev/null 2>&1 &
    local server=$!
    await_listening "$port" || { kill "$server" 2>/dev/null; return 1; }
    timeout $((LIMIT + 30)) "$LAB" ssh 2 "timeout $LIMIT $tool -d $DEV $P_CLIENT -F -p $port $* $SERVER_ADDR" >"$TMP/p.log" 2>&1 || true
    wait "$server" || true
    local v
    v=$(column_of "$size" "$col" "$TMP/p.log") || { cat "$TMP/p.log" >&2; return 1; }
    finite_positive "$v" || { cat "$TMP/p.log" >&2; return 1; }
    echo "$v"
}

# qplab SIZE COLUMN ARGS... -> the column of qpbench's perftest-style result line, the same way round
qplab_run() {
    local size=$1 col=$2 port
    shift 2
    port=$(next_ports 1)
    timeout $((LIMIT + 30)) "$LAB" ssh 1 "timeout $LIMIT $QPB --provider=verbs -d $DEV $Q_EXTRA -p $port $* --server --bind=$SERVER_ADDR" >/dev/null 2>&1 &
    local server=$!
    await_listening "$port" || { kill "$server" 2>/dev/null; return 1; }
    timeout $((LIMIT + 30)) "$LAB" ssh 2 "timeout $LIMIT $QPB --provider=verbs -d $DEV $Q_EXTRA -p $port $* $SERVER_ADDR" >"$TMP/q.log" 2>&1 || true
    wait "$server" || true
    local v
    v=$(column_of "$size" "$col" "$TMP/q.log") || { cat "$TMP/q.log" >&2; return 1; }
    finite_positive "$v" || { cat "$TMP/q.log" >&2; return 1; }
    echo "$v"
}

# The functions try_run retries, one per tool and part (try_run names a failed run by its function).
no_inline() { [ "$1" = read ] || echo "-I 0"; } # reads carry no inline data (ib_read_lat refuses -I)
lat_perftest() { perftest_run "ib_$1_lat" "$2" 5 -s "$2" -n "$3" $(no_inline "$1"); }  # column 5: t_typical [usec]
lat_qplab() { qplab_run "$2" 5 --lat --op="$1" -s "$2" -n "$3" $(no_inline "$1"); }
atomic_perftest() { perftest_run ib_atomic_bw 8 5 -A "$([ "$1" = fadd ] && echo FETCH_AND_ADD || echo CMP_AND_SWAP)" -n "$2" $BW_COMMON; } # column 5: MsgRate [Mpps]
atomic_qplab() { qplab_run 8 5 --op="atomic_$1" -s 8 -n "$2" $BW_COMMON; }
bidir_perftest() { perftest_run "ib_$1_bw" "$2" 4 -b -s "$2" -n "$3" $BW_COMMON; } # column 4: BW average [MB/s]
# qpbench -b prints each side's own line (the client does not learn the server's BW average): the sum is taken
# from both sides' JSON summaries, bw_avg_bps each over its own span, as perftest's client adds the server's report
bidir_qplab() {
    local op=$1 size=$2 n=$3 port
    port=$(next_ports 1)
    local args="--provider=verbs -d rxe0 -p $port -b --op=$op -s $size -n $n $BW_COMMON --json=/tmp/qpb-$port.json"
    timeout $((LIMIT + 30)) "$LAB" ssh 1 "timeout $LIMIT $QPB $args --server --bind=$ADDR1" >/dev/null 2>&1 &
    local server=$!
    await_listening "$port" || { kill "$server" 2>/dev/null; return 1; }
    timeout $((LIMIT + 30)) "$LAB" ssh 2 "timeout $LIMIT $QPB $args $ADDR1" >"$TMP/q.log" 2>&1 || true
    wait "$server" || true
    { timeout 30 "$LAB" ssh 1 "cat /tmp/qpb-$port.json" && timeout 30 "$LAB" ssh 2 "cat /tmp/qpb-$port.json"; } >"$TMP/q.json" 2>>"$TMP/q.log" ||
        { cat "$TMP/q.log" >&2; return 1; }
    local v
    v=$(jq -s '[.[][0].bw_avg_bps] | select(length == 2) | add / 1048576 | . * 100 | round / 100' "$TMP/q.json") ||
        { cat "$TMP/q.log" "$TMP/q.json" >&2; return 1; }
    finite_positive "$v" || { cat "$TMP/q.log" "$TMP/q.json" >&2; return 1; }
    echo "$v"
}

# post path: ARGS = op size iterations path (wr: qpbench's ibv_wr_* against perftest's default post path; legacy:
# both with --use_old_post_send)
post_perftest() { perftest_run "ib_$1_bw" "$2" 4 -s "$2" -n "$3" $BW_COMMON $([ "$4" = legacy ] && echo --use_old_post_send); }
post_qplab() { qplab_run "$2" 4 --op="$1" -s "$2" -n "$3" $BW_COMMON $([ "$4" = legacy ] && echo --use_old_post_send || echo --post-api=wr); }
post_iters() { local n=$((POST_BYTES / $1)); echo $((n < 2000 ? 2000 : n)); }
# iWARP: ARGS = bw|lat size iterations (everything over siw0 through rdma_cm)
iwarp_perftest() {
    if [ "$1" = bw ]; then perftest_run ib_write_bw "$2" 4 -s "$2" -n "$3" $BW_COMMON
    else perftest_run ib_write_lat "$2" 5 -s "$2" -n "$3" -I 0; fi
}
iwarp_qplab() {
    if [ "$1" = bw ]; then qplab_run "$2" 4 --op=write -s "$2" -n "$3" $BW_COMMON --target-wait=spin
    else qplab_run "$2" 5 --lat --op=write -s "$2" -n "$3" -I 0; fi
}

# point LABEL PART ARGS... -> a table row; ratios are qplab / perftest and perftest again / perftest
point() {
    local label=$1 part=$2 r k q c p qs="" ps="" cs="" rs="" crs=""
    shift 2
    for ((r = 1; r <= REPEATS; r++)); do
        for k in $(echo "q p c q p" | cut -d' ' -f$(((r - 1) % 3 + 1))-$(((r - 1) % 3 + 3))); do
            case $k in
            q) q=$(try_run "${part}_qplab" "$@") || return 1 ;;
            p) p=$(try_run "${part}_perftest" "$@") || return 1 ;;
            c) c=$(try_run "${part}_perftest" "$@") || return 1 ;;
            esac
        done
        qs+="$q "; ps+="$p "; cs+="$c "; rs+="$(ratio "$q" "$p") "; crs+="$(ratio "$c" "$p") "
        echo "  $label run $r: qplab $q, perftest $p, perftest again $c" >&2
    done
    local qm pm
    qm=$(echo "$qs" | median); pm=$(echo "$ps" | median)
    printf '| %s | %s | %s | %.3f | %s | %.3f | %s | %s | %s| %s| %s|\n' "$label" "$qm" "$pm" \
        "$(echo "$rs" | median)" "$(echo "$rs" | range_of)" "$(echo "$crs" | median)" "$(echo "$crs" | range_of)" \
        "$(inside "$(echo "$rs" | median)" "$crs")" "$qs" "$ps" "$cs"
}

# inside MEDIAN "CONTROL RATIOS" -> whether qplab's median pair ratio lies within the control's min–max
inside() {
    echo "$2" | tr ' ' '\n' | grep . | sort -g | sed -n '1p;$p' | xargs | awk -v m="$1" '{ print (m >= $1 && m <= $2) ? "yes" : "**no**" }'
}

header='| point | qplab | perftest | median of pair ratios (qplab / perftest) | pair ratios (min–max) | perftest vs itself: median of pair ratios | perftest vs itself (min–max) | qplab inside the control'"'"'s range | qplab runs | perftest runs | perftest again (control) |
|---|---:|---:|---:|---|---:|---|---|---|---|---|'
# Each part's rows are kept in rows/PART.md (committed), so PARTS can rerun one part and keep the others'
# last rows; each file ends with the date and machine of its run.
ROWS="$HERE/rows"
mkdir -p "$ROWS"
rows_lat="" rows_atomic="" rows_bidir="" rows_post="" rows_iwarp=""
# row LABEL PART ARGS... -> point's row, or a row saying the point failed (the other points still run)
row() { point "$@" || echo "| $1 | failed $MAX_TRIES times (see below) | | | | | | **no** | | | |"; }
# keep PART ROWS: writes the part's rows with the run's date and failures into rows/PART.md
keep() {
    { printf '%s' "$2"
      echo
      echo "Runs of this part that failed or hung and were run again (up to $MAX_TRIES tries): $(grep -c '^- `' "$TMP/failures" || true)"
      cat "$TMP/failures"
      echo
      echo "This part ran on $(date -u '+%Y-%m-%d %H:%M UTC'): $REPEATS repeats, machine $(nproc) CPUs, host kernel $(uname -r)."
    } >"$ROWS/$1.md"
    : >"$TMP/failures"
}
rows_of() { [ -f "$ROWS/$1.md" ] && cat "$ROWS/$1.md" || echo "(not run yet: PARTS=$1 $0)"; }
case " $PARTS " in *" lat "*)
    for op in $LAT_OPS; do for size in $LAT_SIZES; do
        rows_lat+="$(row "$op $(human "$size") [µs]" lat "$op" "$size" "$LAT_ITERS")"$'\n'
    done; done
    keep lat "$rows_lat" ;;
esac
case " $PARTS " in *" atomic "*)
    for a in $ATOMICS; do rows_atomic+="$(row "atomic_$a 8 B [Mpps]" atomic "$a" "$ATOMIC_ITERS")"$'\n'; done
    keep atomic "$rows_atomic" ;;
esac
case " $PARTS " in *" bidir "*)
    for op in $BIDIR_OPS; do
        rows_bidir+="$(row "$op -b $(human "$BIDIR_SIZE") [MB/s]" bidir "$op" "$BIDIR_SIZE" "$BIDIR_ITERS")"$'\n'
    done
    keep bidir "$rows_bidir" ;;
esac

case " $PARTS " in *" post "*)
    for path in wr legacy; do for op in $POST_OPS; do for size in $POST_SIZES; do
        label="$op $(human "$size"), qplab $([ $path = wr ] && echo "wr vs perftest default" || echo "legacy vs perftest --use_old_post_send") [MB/s]"
        rows_post+="$(row "$label" post "$op" "$size" "$(post_iters "$size")" "$path")"$'\n'
    done; done; done
    keep post "$rows_post" ;;
esac
case " $PARTS " in *" iwarp "*)
    "$LAB" siw >"$TMP/siw.log" 2>&1 || { cat "$TMP/siw.log" >&2; die "lab siw failed (lab siw check: $("$LAB" siw check))"; }
    DEV=siw0 SERVER_ADDR=$("$LAB" siw-addr 1) P_SERVER="-R" P_CLIENT="-R" Q_EXTRA="-R"
    AFTER_RESTART="$LAB siw" # a lab restarted by try_run (a stuck eth1) gets its siw0 back
    rows_iwarp+="$(row "write 4 KiB [MB/s]" iwarp bw 4096 "$IWARP_BW_ITERS")"$'\n'
    rows_iwarp+="$(row "write latency 64 B [µs]" iwarp lat 64 "$IWARP_LAT_ITERS")"$'\n'
    keep iwarp "$rows_iwarp" ;;
esac

verdict() { # rows -> how many points lie inside the control's range
    echo "$1" | awk -F'|' 'NF > 10 { n++; if ($9 ~ /yes/) k++ } END { printf "qplab inside the control'"'"'s range at %d of %d points", k, n }'
}

cat >"$HERE/results-lat-atomic-bidir.md" <<EOF
# qplab vs perftest: latency, atomics, bidirectional (Soft-RoCE, rdma_rxe across two qemu VMs)

The same design as [results.md](results.md): both tools on the same pair of rxe devices (server in VM 1,
client in VM 2, one vde segment, RoCE v2, active MTU 1024, RC), the same size and iteration count,
$REPEATS interleaved repeats whose order rotates over qplab, perftest and perftest again. Each qplab
run is paired with the perftest run of its repeat; the control pairs perftest's second run with the
same first run: what this machine alone does to a ratio between two runs of one tool. The goal: the
median of qplab's pair ratios lies within the control's range (min–max) at every point.

## Latency — ib_{send,write,read}_lat vs qpbench --lat, t_typical [µs] (lower is better)

No inline on either side (\`-I 0\`: perftest does not inline on rxe by default, "Device not recognized to
implement inline feature", while qpbench --lat inlines up to the device's max_inline_data unless told), half
the round trip for send and write, the whole round trip for read; $LAT_ITERS iterations; t_typical is the
median iteration.

$header
$(rows_of lat)
## Atomics — ib_atomic_bw vs qpbench, message rate [Mpps] (higher is better)

8-byte fetch-and-add / compare-and-swap, TX depth 128, CQ moderation 100, $ATOMIC_ITERS iterations.

$header
$(rows_of atomic)
## Bidirectional — ib_{write,send}_bw -b vs qpbench -b, BW average of both directions [MB/s] (higher is better)

Both sides send at once. perftest's client prints the sum of its own and the server's BW average; qpbench
prints each side's own line (its client does not learn the server's figure), so qplab's sum is taken from
both sides' JSON summaries: bw_avg_bps of each over its own span, perftest's definition per side (bytes /
(last completion − first post), MB = 2^20 B). $(human "$BIDIR_SIZE") messages (one packet at the lab's MTU 1024:
with multi-packet messages in both directions rxe stalls or answers "remote invalid request" for either
tool), TX depth 128, CQ moderation 100, $BIDIR_ITERS iterations.

$header
$(rows_of bidir)

## Post path — ib_{write,send}_bw vs qpbench, ibv_wr_* and ibv_post_send, BW average [MB/s] (higher is better)

qpbench \`--post-api=wr\` (\`ibv_wr_start\` … \`ibv_wr_complete\`, one per post list) against perftest's default, and
qpbench \`--use_old_post_send\` (\`ibv_post_send\`) against perftest \`--use_old_post_send\`. perftest takes its new post
path only on the devices it names (mlx5 family, EFA, HNS): on rxe its default prints \`ibv_wr* API : OFF\` and posts
with \`ibv_post_send\` too, so the first half pits qpbench's wr path against perftest's old one (rxe has the API;
qpbench uses it when told). TX depth 128, CQ moderation 100, $((POST_BYTES / 1048576)) MiB per run (iterations = that / size, at least 2000).

$header
$(rows_of post)
## iWARP — siw0 (Soft-iWARP, \`lab siw\`), everything through rdma_cm (-R)

Both tools over siw0 on the VMs' eth2: ib_write_bw vs qpbench --op=write --target-wait=spin at 4 KiB (BW average
[MB/s], higher is better, TX depth 128, CQ moderation 100, $IWARP_BW_ITERS iterations; with -R perftest's server
busy-polls its QP for the end-of-test message, and qpbench's target spins likewise: see the notes below) and ib_write_lat vs qpbench --lat --op=write at 64 B
(t_typical [µs], lower is better, no inline, $IWARP_LAT_ITERS iterations).

$header
$(rows_of iwarp)
$(cat "$ROWS/notes.md" 2>/dev/null)

Under TCG (no KVM here) the VMs' kernels do rxe's packet work in emulated code: absolute numbers
mean nothing outside this lab; the ratios compare the two user-space engines on identical kernels
and devices.

Verdict: latency: $(verdict "$(rows_of lat)"); atomics: $(verdict "$(rows_of atomic)"); bidirectional: $(verdict "$(rows_of bidir)"); post path: $(verdict "$(rows_of post)"); iWARP: $(verdict "$(rows_of iwarp)").

- date of this file: $(date -u '+%Y-%m-%d %H:%M UTC') (each part's own run: under its table)
- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), host kernel $(uname -r)
- VMs: kernel $("$LAB" kernel), $(sed -n 's/.*booting [0-9]* VM(s): kernel [^,]*, \([a-z]*\),.*/\1/p' "$TMP/up.log" | head -1), 1 vCPU and ${QPLAB_LAB_MEM:-1024} MiB each
- perftest: $(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo unknown); rdma-core: $(dpkg-query -W -f='${Version}' rdma-core 2>/dev/null || echo unknown)
- regenerate: \`REPEATS=$REPEATS LAT_ITERS=$LAT_ITERS bench/verbs-vs-perftest/run-lat-atomic-bidir.sh\` (\`PARTS=lat\`, \`atomic\`, \`bidir\`, \`post\` or \`iwarp\` for one part)
EOF
cat "$HERE/results-lat-atomic-bidir.md"
