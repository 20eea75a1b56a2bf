#!/usr/bin/env bash
# bench/nvmeof-vs-fio/run.sh — qplab's nvmeof provider vs fio run by hand, with the same job on the same pair of
# Soft-RoCE VMs (lab/): target in VM 1 (configfs nvmet + a null_blk device), initiator in VM 2.
#   qplab (q): the point submitted to a controller on this host (the packaged jar, its embedded PostgreSQL),
#     agents started in the VMs (vm1, vm2, --data-address = the VM's rxe address, where the target listens);
#     IOPS, BW and clat p99 from the run's stored summary (msg_rate, bw_avg_bps, latency_us.p99).
#   fio by hand (p): the target made by hand in VM 1 (null_blk configfs item of BACKING_MIB MiB, subsystem,
#     namespace, port on VM 1's rxe address, one allowed host), `nvme connect` in VM 2, fio with the job qplab
#     runs (the contract's argument list: json+, status every INTERVAL_MS, percentiles 50:99:99.9, time based),
#     IOPS, BW and clat p99 from fio's final JSON report; then disconnect and teardown, so every run of either
#     tool gets a fresh target.
#   fio again (c): the control, the same as p.
# Points: RW (4 KiB randread) at each IODEPTHS over each TRANSPORTS, RUNTIME_MS each; REPEATS interleaved repeats
# whose order rotates over q, p, c; pairs q/p and c/p, as bench/verbs-vs-perftest does. Writes results.md here.
#
# Usage: bench/nvmeof-vs-fio/run.sh
# Knobs (environment): REPEATS=3 TRANSPORTS="rdma tcp" IODEPTHS="1 16" BS=4096 RW=randread RUNTIME_MS=5000
#   INTERVAL_MS=1000 BACKING_MIB=1024 PORT (the controller's; default a free one) BUILD=1 (0: use the jars as
#   they are) QPLAB_LAB_DIR (the lab's state; default lab/target/bench-lab)
#   WARMUP=3 (0: none): that many qplab runs per transport before the measured ones, not counted (a fresh agent JVM
#   under TCG spends its first minutes interpreting and compiling its code)
#   THREADS=1: also list the initiator agent's threads by the CPU they took while fio ran (reads them once a second
#   in VM 2, a little more load there, for both tools)
#   AGENT_JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1" (the agents' JAVA_TOOL_OPTIONS, as README recommends in a
#   host's agent.env for an NVMe-oF initiator whose fio shares one or two CPUs with the agent: the JIT compiles with
#   C1 only, a fraction of the compiler's CPU time; "" for the JVM's default tiered C1 + C2)
#   AGENT_JAVA_OPTS (more JVM options for the agents in the VMs, e.g. -XX:+PrintCompilation: a diagnostic; their logs
#   are kept in /tmp/nvmeof-vs-fio-agent{1,2}.log)
#   FIO_ONLY=1: only the hand-run half (fio and its control; no controller, no agents), the rows printed, no
#   results.md written: checks the hand-made target and what the lab's noise does to the control
set -euo pipefail
shopt -s inherit_errexit # a die inside $(...) ends the script, not just its subshell

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
REPEATS=${REPEATS:-3}
AGENT_JAVA_OPTS=${AGENT_JAVA_OPTS:-}
AGENT_JAVA_TOOL_OPTIONS=${AGENT_JAVA_TOOL_OPTIONS--XX:TieredStopAtLevel=1}
THREADS=${THREADS:-0}
WARMUP=${WARMUP:-3}
TRANSPORTS=${TRANSPORTS:-"rdma tcp"}
IODEPTHS=${IODEPTHS:-"1 16"}
BS=${BS:-4096}
RW=${RW:-randread}
RUNTIME_MS=${RUNTIME_MS:-5000}
INTERVAL_MS=${INTERVAL_MS:-1000}
BACKING_MIB=${BACKING_MIB:-1024}
BUILD=${BUILD:-1}
FIO_ONLY=${FIO_ONLY:-0}
[ "$FIO_ONLY" = 1 ] && BUILD=0
export QPLAB_LAB_DIR=${QPLAB_LAB_DIR:-$ROOT/lab/target/bench-lab}
LAB="$ROOT/lab/lab"
OUT="$ROOT/engine/target/native"
LIMIT=120 # seconds: no single run (set-up, fio, teardown) may hang the script
MAX_TRIES=3
AGENT_JAR="$ROOT/agent/target/qplab-agent.jar"

die() { echo "nvmeof-vs-fio/run.sh: $*" >&2; exit 1; }
command -v curl >/dev/null || die "curl is needed (apt-get install -y curl)"
command -v fio >/dev/null && command -v nvme >/dev/null || die "fio and nvme-cli are needed: they run inside the VMs (apt-get install -y fio nvme-cli)"
if [ "$BUILD" = 1 ]; then
    echo "building the controller and the agent..." >&2
    (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl controller -am package) >/tmp/nvmeof-vs-fio-build.log 2>&1 ||
        die "build failed: $(tail -20 /tmp/nvmeof-vs-fio-build.log)"
fi
# shellcheck source=../lib/controller.sh
. "$ROOT/bench/lib/controller.sh"
if [ "$FIO_ONLY" != 1 ]; then
    [ -f "$AGENT_JAR" ] || die "no $AGENT_JAR (BUILD=1 builds it)"
    [ -f "$BENCH_CJAR" ] || die "no $BENCH_CJAR (BUILD=1 builds it)"
fi
. "$ROOT/bench/lib/softroce.sh" # checks, boots the lab (down on exit), TMP; try_run, median, ratio, range_of
chmod 755 "$TMP" # the embedded PostgreSQL runs as nobody when this runs as root
ADDR1=$("$LAB" addr 1)
ADDR2=$("$LAB" addr 2)
cleanup_all() {
    if [ -n "$AGENT_JAVA_OPTS" ]; then # a diagnostic run: keep the agents' logs (the VMs' /tmp goes with them)
        for i in 1 2; do "$LAB" ssh "$i" "cat /tmp/qplab-bench-agent.log" >"/tmp/nvmeof-vs-fio-agent$i.log" 2>&1 || true; done
        echo "the agents' logs: /tmp/nvmeof-vs-fio-agent1.log, /tmp/nvmeof-vs-fio-agent2.log" >&2
    fi
    stop_controller
    cleanup
}
trap cleanup_all EXIT

PORT=${PORT:-$(free_port)}
if [ "$FIO_ONLY" != 1 ]; then
    echo "starting the controller on 127.0.0.1:$PORT..." >&2
    start_controller "$TMP" "$PORT" 0
fi
BASE="http://127.0.0.1:$PORT"

# Agents vm1 and vm2 connected to the controller; (re)started when not (first call, or after the lab restarted).
ensure_agents() {
    local i state
    connected() { api -sf "$BASE/api/agents" | jq -e --arg id "$1" 'map(select(.id == $id and .connected)) | length == 1' >/dev/null; }
    connected vm1 && connected vm2 && return 0
    local where
    where=$("$LAB" forward "$PORT") || return 1
    for i in 1 2; do
        connected "vm$i" && continue
        echo "starting the agent in VM $i..." >&2
        # the agent probes fio and nvme-cli once at start (30 s each): warm, the probe is the agent's, not 9p's
        "$LAB" ssh "$i" "fio --version && nvme version" >/dev/null || return 1
        # a token of its own, issued anew at each (re)start: a VM's state does not survive the lab's restart, so the
        # token it enrolled with would be gone, and the enrolment secret never registers its id again
        api -sf -X POST "$BASE/api/agents/vm$i/token" | jq -r .token \
            | "$LAB" ssh "$i" "umask 077; cat >/run/qplab-bench-agent.token" || return 1
        "$LAB" ssh "$i" "pkill -f '[q]plab-agent.jar --controller ws://$where' ; cd /tmp && (JAVA_TOOL_OPTIONS='$AGENT_JAVA_TOOL_OPTIONS' setsid nohup java $AGENT_JAVA_OPTS -jar $AGENT_JAR \
            --controller ws://$where/agent --id vm$i --data-address $("$LAB" addr "$i") --token-file /run/qplab-bench-agent.token \
            >/tmp/qplab-bench-agent.log 2>&1 </dev/null &)" || return 1
    done
    for _ in $(seq 180); do # a JVM takes about a minute to start under TCG
        connected vm1 && connected vm2 && return 0
        sleep 1
    done
    for i in 1 2; do echo "--- vm$i agent log:" >&2; "$LAB" ssh "$i" "tail -20 /tmp/qplab-bench-agent.log" >&2 || true; done
    return 1
}

# What the orchestration costs the VM that runs fio: the initiator agent's CPU time (user + system, ms) from fio's
# start to its end in VM 2, for every run of either tool (during fio by hand the agent is idle). Started before the
# run, in the background; it looks for fio every 0.2 s until fio starts (the job, not the agent's `fio --version`
# probe at prepare: a command line with --status-interval), then checks once a second for its end.
# And what it costs this host over the same span (the VMs' vCPUs are threads here, on 2 CPUs): the CPU time of VM 2's
# and VM 1's qemu, and of everything else (the controller, its PostgreSQL, this script), read when the watcher in
# VM 2 reports fio's start and end.
host_cpu_now() { # -> "ALL_BUSY VM1_QEMU VM2_QEMU" in clock ticks
    local all q1 q2
    all=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat)
    q1=$(awk '{ print $14 + $15 }' "/proc/$(cat "$QPLAB_LAB_DIR/run/vm1.pid")/stat" 2>/dev/null || echo 0)
    q2=$(awk '{ print $14 + $15 }' "/proc/$(cat "$QPLAB_LAB_DIR/run/vm2.pid")/stat" 2>/dev/null || echo 0)
    echo "$all $q1 $q2"
}
watch_agent_cpu() { # FILE
    { timeout $((LIMIT + 30)) "$LAB" ssh 2 'a=$(pgrep -f "[q]plab-agent.jar" | head -1); [ -n "$a" ] || exit 1
        for i in $(seq 600); do f=$(pgrep -f "^fio .*--status-interval" | head -1); [ -n "$f" ] && break; sleep 0.2; done; [ -n "$f" ] || exit 1
        threads() { [ '"$THREADS"' = 1 ] || return 0; awk "{ n = \$0; sub(/^[^(]*\\(/, \"\", n); sub(/\\) .*/, \"\", n); gsub(/ /, \"_\", n); s = \$0
            sub(/.*\\) /, \"\", s); split(s, f, \" \"); print f[12] + f[13], n }" /proc/$a/task/*/stat 2>/dev/null; }
        t0=$(awk "{ print \$14 + \$15 }" /proc/$a/stat); threads >/tmp/qplab-bench-threads0; echo start
        while [ -d /proc/$f ]; do # the last reading while fio still runs
            t1=$(awk "{ print \$14 + \$15 }" /proc/$a/stat); threads >/tmp/qplab-bench-threads1; sleep 1
        done
        echo threads $(awk "NR == FNR { b[\$2] += \$1; next } { a[\$2] += \$1 } END { for (n in a) if (a[n] - b[n] > 0) print int((a[n] - b[n]) * 1000 / $(getconf CLK_TCK)) \"ms:\" n }" \
            /tmp/qplab-bench-threads0 /tmp/qplab-bench-threads1 | sort -t m -k1 -rn | head -8)
        echo end $(( (t1 - t0) * 1000 / $(getconf CLK_TCK) ))' 2>/dev/null |
        while read -r what value; do
            case $what in
            start) host_cpu_now >"$1.host0" ;;
            end) host_cpu_now >"$1.host1"; echo "$value" >"$1" ;;
            threads) [ -z "$value" ] || echo "$1: $value" >>"$TMP/threads.log" ;;
            esac
        done; } >/dev/null & # not the caller's stdout: a run's $(...) would wait for the watcher's end
    WATCHER=$!
}
agent_cpu_of() { # FILE KIND TRANSPORT IODEPTH: the watcher's figures into TMP/{agent,host}-cpu.KIND.TRANSPORT.IODEPTH
    wait "$WATCHER" 2>/dev/null || true
    [[ $(cat "$1" 2>/dev/null) =~ ^[0-9]+$ ]] && cat "$1" >>"$TMP/agent-cpu.$2.$3.$4" || true
    if [ -s "$1.host0" ] && [ -s "$1.host1" ]; then # ms: VM 2's qemu, VM 1's qemu, the rest of the host
        paste -d' ' "$1.host0" "$1.host1" | awk -v hz="$(getconf CLK_TCK)" '{ k = 1000 / hz
            printf "%d %d %d\n", ($6 - $3) * k, ($5 - $2) * k, (($4 - $1) - ($5 - $2) - ($6 - $3)) * k }' >>"$TMP/host-cpu.$2.$3.$4"
    fi
    rm -f "$1" "$1.host0" "$1.host1"
}

# qplab_run TRANSPORT IODEPTH -> "IOPS BW_BYTES_PER_S P99_US" of one run of the point through the controller
qplab_run() {
    local transport=$1 depth=$2 id state runs run summary
    ensure_agents || { echo "the agents did not connect" >&2; return 1; }
    local matrix
    matrix=$(jq -nc --arg t "$transport" --arg rw "$RW" --argjson bs "$BS" --argjson d "$depth" --argjson rt "$RUNTIME_MS" \
        --argjson iv "$INTERVAL_MS" --argjson mib "$BACKING_MIB" \
        '{name: "nvmeof-vs-fio \($rw) \($bs) B qd \($d) \($t)", hosts: {pairs: [["vm2", "vm1"]]},
          base: {provider: "nvmeof", transport: $t, backing: "null_blk", backing_size: ($mib * 1048576), rw: $rw, bs: $bs,
                 iodepth: $d, numjobs: 1, ioengine: "io_uring", direct: true, runtime_ms: $rt, interval_ms: $iv}}')
    rm -f "$TMP/cpu.q" "$TMP/cpu.q.host0" "$TMP/cpu.q.host1" # a failed run's
    watch_agent_cpu "$TMP/cpu.q"
    id=$(api -sS -H 'Content-Type: application/json' -d "$matrix" "$BASE/api/experiments" | jq -er .id) ||
        { echo "submitting $matrix failed" >&2; return 1; }
    for ((i = 0; i < LIMIT; i++)); do
        # no request to the controller while fio runs (the watcher saw it start, not yet end): this script's curl
        # and jq would take this host's CPU from the VMs' vCPU threads, which qplab does not do
        if [ -e "$TMP/cpu.q.host0" ] && [ ! -e "$TMP/cpu.q" ] && kill -0 "$WATCHER" 2>/dev/null; then
            sleep 1
            continue
        fi
        state=$(api -sf "$BASE/api/experiments/$id" | jq -r .status)
        case $state in FINISHED | FAILED | CANCELLED) break ;; esac
        sleep 1
    done
    runs=$(api -sf "$BASE/api/experiments/$id/runs")
    if [ "$state" != FINISHED ]; then
        kill "$WATCHER" 2>/dev/null || true
        echo "experiment $id: $state: $(jq -c '[.[] | {status, error}]' <<<"$runs")" >&2
        [ "$state" = FINISHED ] || api -sf -X POST -o /dev/null "$BASE/api/experiments/$id/cancel" || true
        return 1
    fi
    agent_cpu_of "$TMP/cpu.q" q "$transport" "$depth"
    run=$(jq -er '.[0].id' <<<"$runs")
    summary=$(api -sf "$BASE/api/runs/$run/summary")
    echo "$summary" >"$TMP/q-$run.json"
    # the job qplab ran is this script's job: the summary says what fio ran
    jq -e --arg rw "$RW" --argjson bs "$BS" --argjson d "$depth" \
        '.fio.rw == $rw and .fio.bs == $bs and .fio.iodepth == $d and .fio.numjobs == 1 and .fio.ioengine == "io_uring"' \
        <<<"$summary" >/dev/null || { echo "run $run did not run this job: $(jq -c .fio <<<"$summary")" >&2; return 1; }
    jq -r '"\(.msg_rate) \(.bw_avg_bps) \(.latency_us.p99)"' <<<"$summary"
}

# The hand-made target and initiator (names that qplab's own never take: qplab's start with qplab-).
NQN=nqn.2014-08.org.qplab:bench-hand
HNQN=nqn.2014-08.org.qplab:bench-hand-host
NULLB=bench-hand
CFG=/sys/kernel/config
hand_target_up() { # TRANSPORT
    "$LAB" ssh 1 "set -e; mountpoint -q $CFG || mount -t configfs none $CFG; modprobe nvmet; modprobe nvmet-$1
        modprobe null_blk nr_devices=0
        mkdir $CFG/nullb/$NULLB; echo $BACKING_MIB > $CFG/nullb/$NULLB/size; echo 1 > $CFG/nullb/$NULLB/power
        test -b /dev/$NULLB
        S=$CFG/nvmet/subsystems/$NQN; mkdir \$S; echo 0 > \$S/attr_allow_any_host
        mkdir \$S/namespaces/1; echo -n /dev/$NULLB > \$S/namespaces/1/device_path; echo 1 > \$S/namespaces/1/enable
        mkdir $CFG/nvmet/hosts/$HNQN; ln -s $CFG/nvmet/hosts/$HNQN \$S/allowed_hosts/
        P=$CFG/nvmet/ports/4420; mkdir \$P; echo $1 > \$P/addr_trtype; echo ipv4 > \$P/addr_adrfam
        echo $ADDR1 > \$P/addr_traddr; echo 4420 > \$P/addr_trsvcid; ln -s \$S \$P/subsystems/"
}
hand_target_down() { # every step idempotent: also after a failed set-up
    "$LAB" ssh 1 "S=$CFG/nvmet/subsystems/$NQN; P=$CFG/nvmet/ports/4420
        rm -f \$P/subsystems/$NQN; [ -d \$P ] && rmdir \$P; rm -f \$S/allowed_hosts/$HNQN
        [ -d $CFG/nvmet/hosts/$HNQN ] && rmdir $CFG/nvmet/hosts/$HNQN
        if [ -d \$S/namespaces/1 ]; then echo 0 > \$S/namespaces/1/enable; rmdir \$S/namespaces/1; fi
        [ -d \$S ] && rmdir \$S
        if [ -d $CFG/nullb/$NULLB ]; then echo 0 > $CFG/nullb/$NULLB/power; rmdir $CFG/nullb/$NULLB; fi; true"
}
hand_connect() { # TRANSPORT -> the namespace's block device in VM 2
    "$LAB" ssh 2 "modprobe nvme-$1 && nvme connect -t $1 -a $ADDR1 -s 4420 -n $NQN --hostnqn=$HNQN --ctrl-loss-tmo=5 \
        --reconnect-delay=1 >/dev/null && for i in \$(seq 50); do for s in /sys/class/nvme-subsystem/*; do
        [ \"\$(cat \$s/subsysnqn 2>/dev/null)\" = $NQN ] && ls \$s | grep -E '^nvme[0-9]+n[0-9]+\$' && exit 0; done; sleep 0.2; done; exit 1"
}
hand_disconnect() { "$LAB" ssh 2 "nvme disconnect -n $NQN >/dev/null 2>&1; true"; }

# The job: the contract's fio argument list (NvmeofSpec.fioArguments), the same for both tools.
fio_job() { # DEVICE IODEPTH
    echo "--name=bench-hand --filename=/dev/$1 --rw=$RW --bs=$BS --ioengine=io_uring --iodepth=$2 --numjobs=1 --direct=1" \
        "--group_reporting --output-format=json+ --status-interval=${INTERVAL_MS}ms --percentile_list=50:99:99.9" \
        "--time_based --runtime=${RUNTIME_MS}ms"
}

# fio_run TRANSPORT IODEPTH -> "IOPS BW_BYTES_PER_S P99_US" of fio by hand, from its final JSON report
fio_run() {
    local transport=$1 depth=$2 dev rc=0
    hand_disconnect
    hand_target_down
    if hand_target_up "$transport" >&2 && dev=$(hand_connect "$transport") && [ -n "$dev" ]; then
        [ "$FIO_ONLY" = 1 ] || watch_agent_cpu "$TMP/cpu.p"
        timeout $LIMIT "$LAB" ssh 2 "fio $(fio_job "$dev" "$depth")" >"$TMP/p.json" || rc=1
        [ "$FIO_ONLY" = 1 ] || agent_cpu_of "$TMP/cpu.p" p "$transport" "$depth"
    else
        echo "setting up the hand-made target or connecting to it failed" >&2
        rc=1
    fi
    hand_disconnect
    hand_target_down
    [ $rc = 0 ] || return 1
    # a concatenation of status reports, the last one fio's final report; read (and write) directions summed
    jq -s -r '.[-1].jobs[0] as $j | [$j.read, $j.write] as $d
        | "\($d | map(.iops) | add) \($d | map(.bw_bytes) | add) \(([$j.read.clat_ns, $j.write.clat_ns]
            | map(select(.N > 0) | .percentile["99.000000"]) | max) / 1000)"' "$TMP/p.json" ||
        { head -c 2000 "$TMP/p.json" >&2; return 1; }
}

# One figure per tool and run is three: IOPS, BW and p99. Pairs and the control as in bench/verbs-vs-perftest.
finite_positive() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$ ]] && awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }
checked() { # FUNCTION ARGS... -> its three figures, failing when one is not a positive number
    local out f
    out=$("$@") || return 1
    for f in $out; do finite_positive "$f" || { echo "not a result: '$out'" >&2; return 1; }; done
    [ "$(wc -w <<<"$out")" = 3 ] || { echo "not three figures: '$out'" >&2; return 1; }
    echo "$out"
}
qplab_checked() { checked qplab_run "$@"; }
fio_checked() { checked fio_run "$@"; }

inside() { # MEDIAN "CONTROL RATIOS" -> whether the median lies within the control's min–max
    echo "$2" | tr ' ' '\n' | grep . | sort -g | sed -n '1p;$p' | xargs | awk -v m="$1" '{ print (m >= $1 && m <= $2) ? "yes" : "**no**" }'
}
fmt() { awk -v v="$1" -v s="$2" 'BEGIN { printf "%.*f", s, v }'; }

# point TRANSPORT IODEPTH -> three table rows (IOPS, BW, p99)
point() {
    local transport=$1 depth=$2 r k q p c
    local -a qs=("" "" "") ps=("" "" "") cs=("" "" "") rs=("" "" "") crs=("" "" "")
    for ((r = 1; r <= REPEATS; r++)); do
        for k in $(echo "q p c q p" | cut -d' ' -f$(((r - 1) % 3 + 1))-$(((r - 1) % 3 + 3))); do
            case $k in
            q) if [ "$FIO_ONLY" = 1 ]; then q="0 0 0"; else q=$(try_run qplab_checked "$transport" "$depth") || return 1; fi ;;
            p) p=$(try_run fio_checked "$transport" "$depth") || return 1 ;;
            c) c=$(try_run fio_checked "$transport" "$depth") || return 1 ;;
            esac
        done
        local -a qa=($q) pa=($p) ca=($c)
        for m in 0 1 2; do
            qs[m]+="${qa[m]} "; ps[m]+="${pa[m]} "; cs[m]+="${ca[m]} "
            rs[m]+="$(ratio "${qa[m]}" "${pa[m]}") "; crs[m]+="$(ratio "${ca[m]}" "${pa[m]}") "
        done
        echo "  $transport iodepth $depth run $r: qplab $q, fio $p, fio again $c (IOPS, B/s, p99 µs)" >&2
    done
    local -a names=("IOPS" "BW [MB/s]" "clat p99 [µs]") scale=(1 1048576 1) digits=(0 2 0)
    for m in 0 1 2; do
        local sq="" sp="" sc="" v
        for v in ${qs[m]}; do sq+="$(fmt "$(awk -v v="$v" -v s="${scale[m]}" 'BEGIN { print v / s }')" "${digits[m]}") "; done
        for v in ${ps[m]}; do sp+="$(fmt "$(awk -v v="$v" -v s="${scale[m]}" 'BEGIN { print v / s }')" "${digits[m]}") "; done
        for v in ${cs[m]}; do sc+="$(fmt "$(awk -v v="$v" -v s="${scale[m]}" 'BEGIN { print v / s }')" "${digits[m]}") "; done
        printf '| %s, iodepth %s: %s | %s | %s | %.3f | %s | %.3f | %s | %s | %s| %s| %s|\n' "$transport" "$depth" "${names[m]}" \
            "$(echo "$sq" | median)" "$(echo "$sp" | median)" "$(echo "${rs[m]}" | median)" "$(echo "${rs[m]}" | range_of)" \
            "$(echo "${crs[m]}" | median)" "$(echo "${crs[m]}" | range_of)" "$(inside "$(echo "${rs[m]}" | median)" "${crs[m]}")" \
            "$sq" "$sp" "$sc"
    done
}

if [ "$FIO_ONLY" != 1 ] && [ "$WARMUP" -gt 0 ]; then
    # A fresh agent JVM under TCG interprets and compiles its code for minutes: its first runs measure that, not
    # what a lab's long-running agent costs. WARMUP qplab runs per transport, not counted, before the measured ones.
    for ((w = 1; w <= WARMUP; w++)); do
        for transport in $TRANSPORTS; do
            echo "warming up the agents: qplab run $w of $WARMUP over $transport (not counted)..." >&2
            try_run qplab_checked "$transport" "${IODEPTHS%% *}" >/dev/null || die "the warm-up run over $transport failed"
        done
    done
    rm -f "$TMP"/agent-cpu.* "$TMP"/host-cpu.* "$TMP/threads.log"
fi

rows=""
for transport in $TRANSPORTS; do
    for depth in $IODEPTHS; do
        echo "point: $RW $BS B, iodepth $depth, $transport" >&2
        rows+="$(point "$transport" "$depth" || echo "| $transport, iodepth $depth | failed $MAX_TRIES times (see below) | | | | | | **no** | | | |")"$'\n'
    done
done
verdict=$(echo "$rows" | awk -F'|' 'NF > 10 { n++; if ($9 ~ /yes/) k++ } END { printf "qplab inside the control'"'"'s range at %d of %d rows", k, n }')
if [ "$FIO_ONLY" = 1 ]; then
    echo "FIO_ONLY: the hand-run half only (qplab's columns are zeros); per row: fio median, fio again / fio median and range" >&2
    echo "$rows" | awk -F'|' 'NF > 10 { printf "%s| fio %s| control %s (%s)| fio runs %s| again %s\n", $2, $4, $7, $8, $11, $12 }'
    exit 0
fi
iops_verdict=$(echo "$rows" | awk -F'|' 'NF > 10 && $2 ~ /IOPS/ { n++; if ($9 ~ /yes/) k++ } END { printf "%d of %d IOPS rows", k, n }')
failures=$(grep -c '^- `' "$TMP/failures" || true)

cat >"$HERE/results.md" <<EOF
# qplab's nvmeof provider vs fio by hand (NVMe-oF over Soft-RoCE and TCP, two qemu VMs)

Does the orchestration change what fio measures? The same fio job on the same two lab VMs
(\`lab/\`: rdma_rxe on one vde segment, RoCE v2, MTU 1024), the NVMe-oF target in VM 1 on a
${BACKING_MIB} MiB null_blk device, the initiator in VM 2:

- **qplab**: the point submitted to a controller on this host (packaged jar, embedded PostgreSQL)
  whose agents run in the VMs as vm1 (target) and vm2 (initiator); the provider sets up the target
  through configfs, \`nvme connect\`s, runs fio, tears it all down. Figures from the run's stored
  summary: msg_rate (IOPS), bw_avg_bps, latency_us.p99.
- **fio by hand**: the target made by hand in VM 1 with the same configfs steps (null_blk item,
  subsystem, namespace, port on ${ADDR1}:4420, one allowed host), \`nvme connect\` in VM 2,
  \`fio $(fio_job nvmeXnY '<iodepth>')\`
  — the argument list the provider uses (NvmeofSpec.fioArguments) — and its final JSON report's
  read.iops, read.bw_bytes, read.clat_ns.percentile[99]. Set-up and teardown for every run, as qplab does.
- **fio again**: the control, the same as fio by hand.

$REPEATS interleaved repeats per point whose order rotates over qplab, fio and fio again. Each qplab
run is paired with the fio run of its repeat; the control pairs fio's second run with the same
first run: what this machine alone does to a ratio between two runs of one tool. The goal: the median
of qplab's pair ratios lies within the control's range (min–max). BW is IOPS × ${BS} B for both
tools (MB = 2^20 B); it is listed because it is what each stores, not as a third independent test.
$([ "$WARMUP" -gt 0 ] && echo "Before them, $WARMUP qplab run(s) per transport that are not counted (WARMUP=$WARMUP): a fresh agent JVM under TCG" && echo "interprets and compiles its code for minutes after its start.")
$([ -n "$AGENT_JAVA_TOOL_OPTIONS" ] && echo "The agents run with JAVA_TOOL_OPTIONS=$AGENT_JAVA_TOOL_OPTIONS, as README recommends in agent.env for an NVMe-oF" && echo "initiator whose fio shares its CPU with the agent (notes.md: the same bench with the JVM's default JIT).")

| point | qplab | fio | median of pair ratios (qplab / fio) | pair ratios (min–max) | fio vs itself: median of pair ratios | fio vs itself (min–max) | qplab inside the control's range | qplab runs | fio runs | fio again (control) |
|---|---:|---:|---:|---|---:|---|---|---|---|---|
$rows
Verdict: $verdict ($iops_verdict).

What the orchestration costs the VM that runs fio: the initiator agent's CPU time (user + system) from
fio's start to its end in VM 2 (a ${RUNTIME_MS} ms run; read from /proc once a second, so ±1 s at the end),
for each run (fio by hand: both its runs; the agent is idle then). VM 2 has one vCPU, which also does
fio, nvme-$([ "$TRANSPORTS" = tcp ] && echo tcp || echo rdma) and rxe's packet work.

| point | agent CPU during qplab's runs [ms] | median | agent CPU during fio by hand [ms] | median |
|---|---|---:|---|---:|
$(for transport in $TRANSPORTS; do for depth in $IODEPTHS; do
    q=$(xargs <"$TMP/agent-cpu.q.$transport.$depth" 2>/dev/null || true); p=$(xargs <"$TMP/agent-cpu.p.$transport.$depth" 2>/dev/null || true)
    echo "| $transport, iodepth $depth | ${q:-–} | $([ -n "$q" ] && echo "$q" | median || echo –) | ${p:-–} | $([ -n "$p" ] && echo "$p" | median || echo –) |"
done; done)

What it costs this host (2 CPUs, on which each VM's one vCPU is a qemu thread) over the same span, in ms of
CPU time: VM 2's qemu (the initiator: fio, nvme-$([ "$TRANSPORTS" = tcp ] && echo tcp || echo rdma), the agent), VM 1's qemu (the target), and
everything else on the host (the controller and its PostgreSQL during qplab's runs, this script, ssh); medians
over the runs (fio by hand: both its runs).

| point | qplab: VM 2 / VM 1 / rest of the host [ms] | fio by hand: VM 2 / VM 1 / rest of the host [ms] |
|---|---|---|
$(for transport in $TRANSPORTS; do for depth in $IODEPTHS; do
    cell() { [ -s "$1" ] || { echo –; return; }; echo "$(cut -d' ' -f1 "$1" | median) / $(cut -d' ' -f2 "$1" | median) / $(cut -d' ' -f3 "$1" | median)"; }
    echo "| $transport, iodepth $depth | $(cell "$TMP/host-cpu.q.$transport.$depth") | $(cell "$TMP/host-cpu.p.$transport.$depth") |"
done; done)

Runs that failed or hung and were run again (up to $MAX_TRIES tries): $failures
$(cat "$TMP/failures")

$(cat "$HERE/notes.md" 2>/dev/null)

Under TCG (no KVM here) each VM's one vCPU does the NVMe-oF target's or initiator's work, rxe's
packet work and fio in emulated code: absolute figures mean nothing outside this lab; the ratios
compare two ways of running one fio job on identical kernels and devices.

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), host kernel $(uname -r)
- VMs: kernel $("$LAB" kernel), $(sed -n 's/.*booting [0-9]* VM(s): kernel [^,]*, \([a-z]*\),.*/\1/p' "$TMP/up.log" | head -1), 1 vCPU and ${QPLAB_LAB_MEM:-1024} MiB each
- fio: $(fio --version); nvme-cli: $(nvme version | head -1)
- job: $RW, bs $BS B, io_uring, direct, numjobs 1, iodepth $IODEPTHS, runtime ${RUNTIME_MS} ms, status every ${INTERVAL_MS} ms; transports $TRANSPORTS
- code: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- agent controller || echo ' (with uncommitted changes)')
- agents: $([ -n "$AGENT_JAVA_TOOL_OPTIONS" ] && echo "JAVA_TOOL_OPTIONS=$AGENT_JAVA_TOOL_OPTIONS" || echo "the default JIT (no JAVA_TOOL_OPTIONS)")$([ -n "$AGENT_JAVA_OPTS" ] && echo "; java $AGENT_JAVA_OPTS")
- regenerate: \`AGENT_JAVA_TOOL_OPTIONS="$AGENT_JAVA_TOOL_OPTIONS" WARMUP=$WARMUP REPEATS=$REPEATS TRANSPORTS="$TRANSPORTS" IODEPTHS="$IODEPTHS" RUNTIME_MS=$RUNTIME_MS bench/nvmeof-vs-fio/run.sh\`
EOF
cat "$HERE/results.md"
if [ -s "$TMP/threads.log" ]; then
    { echo "the initiator agent's threads while fio ran (ms of CPU, top 8):"; cat "$TMP/threads.log"; } >&2
fi
