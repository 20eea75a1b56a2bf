#!/usr/bin/env bash
# bench/changepoints/run.sh — change points by E-Divisive means (controller/.../history/EDivisive.java) on seeded
# synthetic run-level series: how often a 10 % step is found where it happens, how many change points a series
# without one gets, and what one new run costs on a 10,000-run series. Writes results.md next to this script.
#
# Usage: bench/changepoints/run.sh      Knobs: SEED=36 SERIES=200 POINTS=60 CVS=3.8,5,8,11.2,16.3 COST_RUNS=2000
#   OUT=results.md (relative to this directory; OUT=- prints the tables only)
# The CVs are run-to-run CVs of bw_avg_bps measured in bench/compare/results.md's A/A section (200 per-side CVs,
# 5 runs each, tcp on loopback): 3.8 % the quietest point, 11.2 % the lower quartile, 16.3 % the median; 5 and 8 %
# fill in where the goal stops being met.
# Needs: java 17+ (runs ChangePointBench.java as a single-file source against controller/target/classes); compiles
# the controller (./mvnw -o -q compile) when its classes are missing or older than EDivisive.java.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SEED=${SEED:-36}
SERIES=${SERIES:-200}
POINTS=${POINTS:-60}
CVS=${CVS:-3.8,5,8,11.2,16.3}
COST_RUNS=${COST_RUNS:-2000}
OUT=${OUT:-results.md}

CLASSES=$ROOT/controller/target/classes
SOURCE=$ROOT/controller/src/main/java/org/qplab/controller/history/EDivisive.java
if [ ! -f "$CLASSES/org/qplab/controller/history/EDivisive.class" ] \
        || [ "$SOURCE" -nt "$CLASSES/org/qplab/controller/history/EDivisive.class" ]; then
    echo "compiling the controller..." >&2
    (cd "$ROOT" && ./mvnw -B -o -q -pl controller -am compile -Dqplab.no-lab >&2)
fi

COMMAND="bench/changepoints/run.sh   # SEED=$SEED SERIES=$SERIES POINTS=$POINTS CVS=$CVS COST_RUNS=$COST_RUNS"
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
TABLES=$(java -cp "$CLASSES" "$HERE/ChangePointBench.java" "$SEED" "$SERIES" "$POINTS" "$CVS" "$COST_RUNS")
LOAD_AT_END=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$OUT" = - ]; then
    echo "$TABLES"
    exit 0
fi
{
    echo "# Change points: what E-Divisive means finds on synthetic series, and what a new run costs"
    echo
    echo "Regenerate: \`$COMMAND\`"
    echo
    echo "Host: $(nproc) cores, $(uname -r), $(java -version 2>&1 | head -1); $(date -u '+%Y-%m-%d %H:%M UTC');"
    echo "load average at start $LOAD_AT_START, at end $LOAD_AT_END (a shared machine: the cost figures move with it)."
    echo
    echo "$TABLES"
} >"$HERE/$OUT"
echo "wrote $HERE/$OUT" >&2
