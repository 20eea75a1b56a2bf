#!/usr/bin/env bash
# bench/changepoints/real-runs.sh — issue 36's "real runs" goal: a nightly-style recurring experiment (cron every
# 3 s) between two network-namespace hosts over tcp, 12 occurrences, its link slowed from 200 to 150 Mbit/s (tc tbf,
# changed in place) after the 6th. Runs FabricChangeIntegrationTests REPEAT times (each asserts exactly one change
# point per watched series, between the 6th and 7th nights) and appends each run's series and change to
# real-runs.md. Needs root (ip netns, tc), as the multi-host tests do.
#
# Usage: bench/changepoints/real-runs.sh      Knobs: REPEAT=3 OUT=real-runs.md (relative to this directory)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
REPEAT=${REPEAT:-3}
OUT=$HERE/${OUT:-real-runs.md}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

{
    echo "# Change points on real runs: a link slowed after the 6th of 12 nights"
    echo
    echo "Regenerate: \`bench/changepoints/real-runs.sh   # REPEAT=$REPEAT\` (root: network namespaces and tc)."
    echo
    echo "Host: $(nproc) cores, $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    echo "Each repeat is one FabricChangeIntegrationTests run: a schedule (cron \`*/3 * * * * *\`) of a 700 ms tcp"
    echo "pair run f1 → f2 (64 KiB messages, 1 thread, 1 connection), the link of f2 shaped to 200 Mbit/s by a token"
    echo "bucket both ways; when 6 nights have finished the schedule pauses, the bucket is changed in place to 150 Mbit/s (−25 %), and the"
    echo "schedule runs on to 12 nights. The matrix never changes, so the 12 runs are one fingerprint's series, scanned"
    echo "by E-Divisive as each run ends (p 0.001, window 50, minimum 5 %). The test passes only when the bandwidth"
    echo "series has exactly one change point, at index 6 (between the 6th and 7th runs), and /api/changes has one open"
    echo "change each for bandwidth and message rate there."
    echo
    echo "| repeat | result | bandwidth per night, Mbit/s | change point |"
    echo "|---:|---|---|---|"
} > "$OUT"

for i in $(seq 1 "$REPEAT"); do
    echo "repeat $i of $REPEAT..." >&2
    if (cd "$ROOT" && ./mvnw -B -o verify -pl controller -am -Dqplab.no-lab -Dtest=NONE \
            -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=FabricChangeIntegrationTests \
            -Dfailsafe.failIfNoSpecifiedTests=false) > "$LOG" 2>&1; then
        result=passed
    else
        result=FAILED
    fi
    line=$(grep -h '^fabric-change:' "$ROOT"/controller/target/failsafe-reports/*FabricChange*-output.txt "$LOG" 2>/dev/null \
        | tail -1 || true)
    series=$(sed -n 's/.*series Mbit\/s \[\(.*\)\]; change.*/\1/p' <<< "$line")
    change=$(sed -n 's/.*; change \[{\(.*\)}\]$/\1/p' <<< "$line" | tr ',' '\n' \
        | grep -E '^ ?(index|changePercent|pValue)=' | tr -d ' ' \
        | awk -F= '$1 == "changePercent" { printf "change %+.1f %%\n", $2; next }
                   $1 == "pValue" { printf "p %.1e\n", $2; next } { print $1 " " $2 }' | paste -sd ' ')
    echo "| $i | $result | ${series:-?} | ${change:-none} |" >> "$OUT"
done
echo >> "$OUT"
cat "$OUT"
