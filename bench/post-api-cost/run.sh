#!/usr/bin/env bash
# bench/post-api-cost/run.sh — instructions per message of the verbs sender's two post paths (engine key
# post_api, issue 35): legacy (ibv_post_send with a chain of ibv_send_wr) against wr (ibv_wr_start,
# ibv_wr_<op> and its setters per request, ibv_wr_complete), counted by callgrind on a fake device.
#
# fake_post.c drives qpb_verbs_run_sender (the bw loop as qpbench runs it: one thread, tx_depth 128,
# signal_every = post_list) against a fake context and ibv_qp_ex whose functions read each request's
# fields once and complete every signaled one at the next poll. The engine is built with -O2 -g (the
# release flags plus line attribution) into a temporary directory. Counted inside qpb_verbs_run_sender
# (--toggle-collect), per message posted:
#   post path  the engine's posting: self Ir of start_cycles and post_* (post_cycles_legacy, post_cycles_wr,
#              post_wr and the engine before post_api's post_cycles), with what is
#              inlined into them (ibv_post_send's and ibv_wr_*'s inline wrappers from verbs.h included)
#   device     the fake provider's side of the post (fake_post_send, or the fake ibv_wr_* functions):
#              what it costs to be handed the requests, not what a real NIC's provider does with them
#   thread     everything the sending thread ran (polling, completions, statistics: the same for both)
# Goal (issue 35): post path with wr <= with legacy, in every case. For context, legacy also runs on the
# engine before post_api (BASE_REV, built from `git archive` into the temporary directory; "" skips it):
# the split of the post into post_cycles_legacy and post_cycles_wr must not have made legacy dearer per message.
# Writes results.md next to this script.
# Usage: bench/post-api-cost/run.sh  (ITERS=100000 per run, BASE_REV=cbaa761; about 2 minutes on 2 cores)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ITERS=${ITERS:-100000}
BASE_REV=${BASE_REV-cbaa761}
die() { echo "run.sh: $*" >&2; exit 1; }
for tool in make gcc valgrind callgrind_annotate; do
    command -v "$tool" >/dev/null || die "$tool is needed (apt-get install make gcc valgrind)"
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "building the engine with -g into $TMP..." >&2
make -s -C "$ROOT/engine/src/main/c" OUT="$TMP" CC="gcc -g" >/dev/null || die "building the engine failed"
gcc -g -O2 -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra -Werror -I "$ROOT/engine/src/main/c" -o "$TMP/fake_post" \
    "$HERE/fake_post.c" $(ls "$TMP"/obj/*.o | grep -v '/qpbench_') -lm -ldl || die "building fake_post failed"
BASE_BIN=
if [ -n "$BASE_REV" ]; then
    echo "building the engine at $BASE_REV (before post_api)..." >&2
    mkdir -p "$TMP/base"
    git -C "$ROOT" archive "$BASE_REV" engine/src/main/c | tar -x -C "$TMP/base" || die "git archive $BASE_REV failed"
    make -s -C "$TMP/base/engine/src/main/c" OUT="$TMP/base/out" CC="gcc -g" >/dev/null || die "building $BASE_REV failed"
    gcc -g -O2 -std=c11 -D_GNU_SOURCE -DBEFORE_POST_API -pthread -Wall -Wextra -Werror -I "$TMP/base/engine/src/main/c" \
        -o "$TMP/fake_post_base" "$HERE/fake_post.c" $(ls "$TMP"/base/out/obj/*.o | grep -v '/qpbench_') -lm -ldl ||
        die "building fake_post against $BASE_REV failed"
    BASE_BIN="$TMP/fake_post_base"
fi

# case: name op post_list inline transport qps
CASES=(
    "rc write 64 B, post_list 1|write 1 0 rc 1"
    "rc write 64 B, post_list 8|write 8 0 rc 1"
    "rc write 64 B inline, post_list 1|write 1 1 rc 1"
    "rc send 64 B inline, post_list 1|send 1 1 rc 1"
    "rc send 64 B, post_list 4, 4 QPs|send 4 0 rc 4"
    "rc read 64 B, post_list 1|read 1 0 rc 1"
    "ud send 64 B inline, post_list 4|send 4 1 ud 1"
)
# measure [binary] api op post_list inline transport qps -> "POST DEVICE THREAD MESSAGES"
measure() {
    local bin="$TMP/fake_post"
    [ "$1" != "${1#/}" ] && { bin=$1; shift; }
    local api=$1 f="$TMP/cg.out"
    shift
    rm -f "$f"
    local msgs
    msgs=$(valgrind --tool=callgrind --toggle-collect=qpb_verbs_run_sender --callgrind-out-file="$f" \
        "$bin" "$api" "$1" "$2" "$3" "$4" "$ITERS" "$5" 2>"$TMP/cg.err" | awk '{ print $2 }') ||
        { tail -5 "$TMP/cg.err" >&2; die "valgrind fake_post $api $* failed"; }
    callgrind_annotate --threshold=100 --auto=no "$f" 2>/dev/null | awk -v msgs="$msgs" '
        /PROGRAM TOTALS/ { t = $1; gsub(",", "", t); total = t; next }
        match($0, /^ *[0-9,]+ +\( *[0-9.]+%\) +/) {
            ir = $1; gsub(",", "", ir)
            rest = substr($0, RLENGTH + 1); sub(/ \[.*\]$/, "", rest)
            c = 0; for (i = length(rest); i > 0; i--) if (substr(rest, i, 1) == ":") { c = i; break }
            if (c == 0) next
            file = substr(rest, 1, c - 1); fn = substr(rest, c + 1); sub(/.*\//, "", file); sub(/\..*$/, "", fn)
            if (fn ~ /^post_(cycles|wr|legacy)/ || fn == "start_cycles") post += ir
            else if (file == "fake_post.c" && fn != "fake_poll_cq") device += ir }
        END { printf "%.1f %.1f %.1f %d\n", post / msgs, device / msgs, total / msgs, msgs }'
}

rows=""
ok=0
n=0
for c in "${CASES[@]}"; do
    name=${c%%|*}
    read -r op pl inl tr qps <<<"${c#*|}"
    echo "callgrind: $name..." >&2
    read -r lp ld lt lm <<<"$(measure legacy "$op" "$pl" "$inl" "$tr" "$qps")"
    read -r wp wd wt wm <<<"$(measure wr "$op" "$pl" "$inl" "$tr" "$qps")"
    bp=-
    [ -z "$BASE_BIN" ] || read -r bp _ _ _ <<<"$(measure "$BASE_BIN" legacy "$op" "$pl" "$inl" "$tr" "$qps")"
    echo "  post path: legacy $lp (before post_api: $bp), wr $wp Ir per message" >&2
    n=$((n + 1))
    awk -v w="$wp" -v l="$lp" 'BEGIN { exit !(w <= l) }' && ok=$((ok + 1))
    rows+="| $name | $lm | $bp | $lp | **$wp** | $ld | $wd | $lt | $wt |"$'\n'
done

{
    echo "# post_api: instructions per message, wr against legacy (callgrind, fake device)"
    echo
    echo "Made by \`bench/post-api-cost/run.sh\` ($(date -u +%Y-%m-%d), $(git -C "$ROOT" rev-parse --short HEAD),"
    echo "$(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion) -O2 -g, $(valgrind --version), ITERS=$ITERS per run)."
    echo "The sending thread of a bw run (qpb_verbs_run_sender, 1 thread, tx_depth 128, signal_every = post_list)"
    echo "on the fake device of \`fake_post.c\`; Ir per message posted. *post path*: the engine's posting"
    echo "(start_cycles and post_*: post_cycles_legacy, post_cycles_wr, post_wr, and what is inlined into them);"
    echo "*device*: the fake provider being"
    echo "handed the requests (ibv_post_send's list walk, or the ibv_wr_* calls); *thread*: all the sending"
    echo "thread ran (polling, completions and statistics included; on the fake every cycle ends at once, so"
    echo "the statistics' peak tracking is most of it)."
    echo
    echo "| case | messages | post path legacy before post_api ($BASE_REV) | post path legacy | post path wr | device legacy | device wr | thread legacy | thread wr |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s' "$rows"
    echo
    echo "Goal (issue 35): the post path with wr costs no more than with legacy: met in $ok of $n cases."
    echo
    echo "The first two columns are legacy before and after post_api: the same loop, now its own function"
    echo "(post_cycles_legacy) behind one branch per post on the path; what they differ by is per post, not per"
    echo "message (compare post_list 1 with 8)."
    echo
    echo "*thread* moves by more than the post path between two runs of one case (the statistics depend on"
    echo "when completions are polled); the post path is what the two APIs change."
    echo
    echo "What this does not say: what a real provider does with each request (mlx5 writes the WQE in"
    echo "ibv_wr_<op> and its setters, and parses an ibv_send_wr in ibv_post_send), nor the doorbell; those"
    echo "are the lab's (bench/verbs-vs-perftest, wr against perftest's default and legacy against"
    echo "--use_old_post_send)."
} >"$HERE/results.md"
echo "wrote $HERE/results.md" >&2
