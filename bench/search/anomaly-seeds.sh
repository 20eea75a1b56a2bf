#!/usr/bin/env bash
# bench/search/anomaly-seeds.sh — whether search: anomalies (controller/.../search/AnomalySearch.java) finds an anomaly
# planted by a rule and reduces it to exactly the planted dimensions, over seeds 1..10 and 1..SEEDS. The response is
# synthetic (AnomalySeeds.java): a smooth bandwidth over qps_per_thread, msg_size and tx_depth, ±3 % noise on every
# run, and qps_per_thread 8 with msg_size 64K (at every tx_depth) rate-limited to 30-50 % of it. Replaces the section
# "# search: anomalies" at the end of results.md (knee-counts.sh keeps it). Pure computation: no controller, agent or
# engine runs.
#
# Usage: bench/search/anomaly-seeds.sh      Knobs: SEEDS=100 OUT=results.md (relative to this directory; OUT=- prints
#   the tables only)
# Needs: java 17+. Runs controller/src/test/java/org/qplab/controller/search/AnomalySeeds.java as a single-file source
# against controller/target/classes (AnomalySearchTests drives the same response); compiles the controller when its
# classes are missing or older than AnomalySearch.java.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SEEDS=${SEEDS:-100}
OUT=${OUT:-results.md}

CLASSES=$ROOT/controller/target/classes
SOURCE=$ROOT/controller/src/main/java/org/qplab/controller/search/AnomalySearch.java
SEEDER=$ROOT/controller/src/test/java/org/qplab/controller/search/AnomalySeeds.java
if [ ! -f "$CLASSES/org/qplab/controller/search/AnomalySearch.class" ] \
        || [ "$SOURCE" -nt "$CLASSES/org/qplab/controller/search/AnomalySearch.class" ]; then
    echo "compiling the controller..." >&2
    (cd "$ROOT" && nice -n 19 ./mvnw -B -o -q -pl controller -am test-compile -Dqplab.no-lab >&2)
fi
seeds() {
    nice -n 19 java -cp "$CLASSES" "$SEEDER" "$@"
}

COMMAND="bench/search/anomaly-seeds.sh   # SEEDS=$SEEDS"
TABLES=$(
    echo "## Seeds 1 to 10"
    echo
    seeds 10
    echo
    echo "## Seeds 1 to $SEEDS"
    echo
    seeds "$SEEDS"
)

if [ "$OUT" = - ]; then
    echo "$TABLES"
    exit 0
fi
SECTION=$(
    echo "# search: anomalies: the planted anomaly, found and reduced, by seed"
    echo
    echo "Regenerate: \`$COMMAND\`"
    echo
    echo "Host: $(nproc) cores, $(uname -r), $(java -version 2>&1 | head -1); $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    cat <<'NOTES'
What each search is: `AnomalySearch.next` from seed s until it plans nothing more, below 0.7, repeats 2; each run of a
point is the smooth bandwidth `12.5e9 x m/(m + 8K) x (1 - exp(-q t / 24))` (qps_per_thread q, msg_size m, tx_depth t:
it rises with each and saturates, as a link does) times a factor drawn within ±3 % (seeded by the seed, the point and
the run), and qps_per_thread 8 with msg_size 64K, at every tx_depth, times 0.3-0.5 (drawn from the seed): one
combination of two dimensions rate-limited, as an override `{when: {qps_per_thread: 8, msg_size: 64K}, set:
{rate_limit: ...}}` plants it. Reset values (base): qps_per_thread 1, msg_size 4K, tx_depth 16.

"Found": an anomaly is reported at qps_per_thread 8 and msg_size 64K. "Exact": its minimal feature set is exactly
{qps_per_thread, msg_size} (tx_depth's reset leaves it anomalous; each of the other two removes it). "Runs used" counts
every run, repeats included. "Other anomalies": anomalies reported anywhere else (false alarms of the noise).

What it shows:
- With the matrix's own lists (5 x 5 x 4 = 100 points, 25 pairs of qps_per_thread and msg_size) and max_runs 60, the
  issue's goal (at least 9 of 10 seeds) holds: the planted anomaly is found and reduced exactly in 10 of 10 seeds and
  100 of 100, with no false alarm, in 49 runs (58 at most: the walk stops with 11 runs kept to examine what it found
  last). Before a point judged only from above (on the scaled-down expectation of a neighbour with more of a
  dimension) was tested against a neighbour a step down, 96 of 100; with two such tests instead of one, 97.
- The walk is not a gradient search: a combination that is bad alone has no slope leading to it, so finding it is a
  matter of covering the pairs of values (the walk prefers the neighbour that covers most new pairs). Over the default
  ladders (8 x 8 x 6 = 384 points, 64 pairs) max_runs 100 is not enough in a quarter of the seeds; 200 is.
NOTES
    echo
    echo "$TABLES"
)
FILE=$HERE/$OUT
if [ -f "$FILE" ] && grep -q '^# search: anomalies' "$FILE"; then
    KEEP=$(sed '/^# search: anomalies/,$d' "$FILE")
else
    KEEP=$(cat "$FILE" 2>/dev/null || true)
fi
{
    printf '%s\n\n' "$KEEP"
    echo "$SECTION"
} >"$FILE"
echo "wrote $FILE" >&2
