package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Change points in a fingerprint's run-level series (one value per finished run, oldest first) by E-Divisive means,
 * as Apache Otava (formerly Hunter; Daly et al., ICPE 2020) does it on top of Matteson &amp; James (2014):
 * <ol>
 * <li>Windows of {@link Settings#window()} points, each overlapping the one before by half, left to right; the next
 *     window starts at the last change point found, or half a window on when none was.</li>
 * <li>In a window, E-Divisive: the split that maximises the energy divergence of the two sides (Q̂ with exponent 1,
 *     MongoDB's signal-processing formulation Otava uses), recursively on the segments it leaves, as long as the best
 *     split is significant by a t-test between its neighbouring change points at 10 × p (Otava's first pass).</li>
 * <li>Then Otava's merge: the weakest change point (largest p; when all pass, the smallest change) is dropped and its
 *     neighbours re-tested, until every one left has p &lt; {@link Settings#pValue()} and a change of at least
 *     {@link Settings#minMagnitudePercent()}.</li>
 * </ol>
 *
 * <p><b>One departure: p counts where the split was looked for.</b> Otava tests the split E-Divisive chose as if its
 * place had been fixed in advance; but it is the place, of some 40 in a window, where the two sides differ most,
 * so noise alone passes p 0.001 far more often than once in a thousand (bench/changepoints: ~5 false change points
 * per 100 flat 60-run series). With {@link Settings#selectionCorrected()} (the default) a change point's p is
 * Welch's p times the number of places the split could have taken between its neighbours (Bonferroni), which holds
 * flat series to ≤ 1 per 100 at the price of some power; false gives Otava's p.
 *
 * <p><b>Logs.</b> The series is judged on the natural logs of the values, as {@link RunLevelTest} judges a comparison
 * ("What a number means": run-level values, changes in %): performance numbers are positive and move by ratios, so a
 * 10 % step is the same step at 10 MB/s and at 10 GB/s, the divergence and the t-test do not depend on the unit,
 * and a latency p99's right skew is tamed. Means are geometric, the change their ratio in %. Welch's t (not Otava's
 * pooled-variance t): the two sides' spreads need not be equal (a rate-limited run scatters less).
 *
 * <p><b>Incremental.</b> A window that ends before the series does holds the same points whatever comes later, so what
 * it found is settled; only the last window, which reaches the series' end, can change when runs arrive.
 * {@link #resume} starts again at that window (kept in {@link Scan#resumeAt()}) and needs only the points from there
 * on, so a new run costs one or two windows of work however long the history is, and gives exactly what
 * {@link #scan} of the whole series gives. A
 * series restarted at a confirmed change point is a scan from there: {@link Scan#from(int)}.
 *
 * <p><b>What it assumes.</b> Runs are taken as independent. Runs of one experiment share the machine's state of that
 * moment, and experiments of one configuration drift apart beyond their runs' scatter (bench/compare/notes.md: 2–40 %
 * on a busy host); a jump between experiments can then be flagged when it passes the minimum magnitude.
 */
public final class EDivisive {

    /**
     * Points each side of a change point needs. Two would do for a variance, but a split is chosen where the sides
     * differ most, and among many candidate pairs some scatter by chance far less than the series does: with 2 or 3
     * points a side Welch's t then calls noise a change (seen: p 4e-4 on a flat series at CV 5 %).
     */
    static final int MIN_SIDE = 5;

    /** Otava's first pass splits at 10 × p; the merge then holds every change point to p. */
    private static final double SPLIT_P_FACTOR = 10;

    /**
     * @param pValue              a change point's t-test must give p below this (Otava's default 0.001)
     * @param window              points per window (Otava's default 50); windows overlap by half
     * @param minMagnitudePercent the least change of the geometric means, in %, that counts as a change point
     * @param selectionCorrected  whether p counts the places the split could have taken (see the class)
     */
    public record Settings(double pValue, int window, double minMagnitudePercent, boolean selectionCorrected) {

        /** Otava's p and window; 5 %, compare's default threshold, as the least change; p corrected. */
        public static final Settings DEFAULT = new Settings(0.001, 50, 5, true);

        public Settings {
            if (!(pValue > 0 && pValue < 1)) {
                throw new IllegalArgumentException("pValue must be in (0, 1), got " + pValue);
            }
            if (window < 4 * MIN_SIDE) {
                throw new IllegalArgumentException("window must be at least " + 4 * MIN_SIDE + " points, got " + window);
            }
            if (!(minMagnitudePercent >= 0)) {
                throw new IllegalArgumentException("minMagnitudePercent must be >= 0, got " + minMagnitudePercent);
            }
        }
    }

    /**
     * What a scan found.
     *
     * @param settled  change points found in windows that end before the series does: later runs cannot change them
     * @param tail     change points found in the last window: they may move or vanish as runs arrive
     * @param resumeAt where the last window starts: {@link #resume} goes on from there
     * @param length   how many points were scanned
     */
    public record Scan(List<ChangePoint> settled, List<ChangePoint> tail, int resumeAt, int length) {

        /** Nothing scanned yet; the series starts at {@code start} (0, or a confirmed change point). */
        public static Scan from(int start) {
            return new Scan(List.of(), List.of(), start, start);
        }

        /** Settled and tail change points, in order. */
        public List<ChangePoint> all() {
            List<ChangePoint> all = new ArrayList<>(settled);
            all.addAll(tail);
            return all;
        }
    }

    private final Settings settings;

    public EDivisive(Settings settings) {
        this.settings = settings;
    }

    /** Every change point of the series. */
    public Scan scan(double[] values) {
        return resume(values, Scan.from(0));
    }

    /**
     * The change points of the series that {@code previous} scanned a prefix of (the same values, more may follow),
     * re-examining only what lies from {@code previous.resumeAt()} on.
     */
    public Scan resume(double[] values, Scan previous) {
        return resume(values, 0, previous);
    }

    /**
     * As {@link #resume(double[], Scan)}, given only the series' tail: {@code tail[i]} is point {@code offset + i},
     * and no point before {@code previous.resumeAt()} is read, so the caller loads the runs from there on, not the
     * whole history.
     */
    public Scan resume(double[] tail, int offset, Scan previous) {
        int n = offset + tail.length;
        if (n < previous.length()) {
            throw new IllegalArgumentException("the series has " + n + " points, fewer than the "
                    + previous.length() + " scanned before");
        }
        if (offset < 0 || offset > previous.resumeAt()) {
            throw new IllegalArgumentException("the tail starts at point " + offset + ", after point "
                    + previous.resumeAt() + " where the scan resumes");
        }
        List<ChangePoint> settled = new ArrayList<>(previous.settled());
        int step = settings.window() / 2;
        int start = previous.resumeAt();
        while (true) {
            int end = Math.min(start + settings.window(), n);
            List<ChangePoint> found = window(tail, offset, start, end);
            if (end == n) {
                return new Scan(List.copyOf(settled), found, start, n);
            }
            settled.addAll(found);
            int last = found.isEmpty() ? start : found.get(found.size() - 1).index();
            start = Math.max(last, start + step);
        }
    }

    /** The change points among points [start, end) of the series (tail[i] is point offset + i), judged on those alone. */
    private List<ChangePoint> window(double[] tail, int offset, int start, int end) {
        double[] x = new double[Math.max(0, end - start)];
        for (int i = 0; i < x.length; i++) {
            double v = tail[start - offset + i];
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("point " + (start + i) + " is " + v
                        + ": a run-level value must be positive and finite");
            }
            x[i] = Math.log(v);
        }
        List<ChangePoint> found = merge(x, split(x));
        return found.stream().map(c -> new ChangePoint(c.index() + start, c.meanBefore(), c.meanAfter(),
                c.changePercent(), c.pValue(), c.pointsBefore(), c.pointsAfter())).toList();
    }

    /** E-Divisive: the best split of any segment, while it is significant at the first pass's p. */
    private List<Integer> split(double[] x) {
        List<Integer> cuts = new ArrayList<>();
        while (true) {
            int best = -1;
            double bestQ = Double.NEGATIVE_INFINITY;
            int from = 0;
            for (int k = 0; k <= cuts.size(); k++) {
                int to = k < cuts.size() ? cuts.get(k) : x.length;
                double[] candidate = bestSplit(x, from, to);
                if (candidate != null && candidate[1] > bestQ) {
                    best = (int) candidate[0];
                    bestQ = candidate[1];
                }
                from = to;
            }
            if (best < 0) {
                return cuts;
            }
            int at = insertionPoint(cuts, best);
            int before = at == 0 ? 0 : cuts.get(at - 1);
            int after = at == cuts.size() ? x.length : cuts.get(at);
            if (!(judge(x, before, best, after).pValue() < settings.pValue() * SPLIT_P_FACTOR)) {
                return cuts;
            }
            cuts.add(at, best);
        }
    }

    /**
     * Otava's merge: drop the weakest change point (the largest p; once all pass, the smallest change) until every
     * one left passes both p and the minimum magnitude; each is judged between its neighbours.
     */
    private List<ChangePoint> merge(double[] x, List<Integer> split) {
        List<Integer> cuts = new ArrayList<>(split);
        while (!cuts.isEmpty()) {
            List<ChangePoint> judged = new ArrayList<>();
            for (int k = 0; k < cuts.size(); k++) {
                judged.add(judge(x, k == 0 ? 0 : cuts.get(k - 1), cuts.get(k),
                        k + 1 == cuts.size() ? x.length : cuts.get(k + 1)));
            }
            ChangePoint weakest = judged.stream().max(Comparator.comparingDouble(ChangePoint::pValue)).orElseThrow();
            if (weakest.pValue() < settings.pValue()) {
                weakest = judged.stream().min(Comparator.comparingDouble(c -> Math.abs(c.changePercent()))).orElseThrow();
                if (Math.abs(weakest.changePercent()) >= settings.minMagnitudePercent()) {
                    return judged;
                }
            }
            cuts.remove(judged.indexOf(weakest));
        }
        return List.of();
    }

    private ChangePoint judge(double[] x, int before, int at, int after) {
        double[] t = welch(x, before, at, after);
        double places = settings.selectionCorrected() ? Math.max(1, after - before - 2 * MIN_SIDE + 1) : 1;
        return new ChangePoint(at, Math.exp(t[0]), Math.exp(t[1]), Math.expm1(t[1] - t[0]) * 100,
                Math.min(1, t[3] * places), at - before, after - at);
    }

    /**
     * The split of x[from, to) with the largest Q̂ (Matteson &amp; James' divergence, exponent 1, scaled by
     * m·r / (m + r)), each side at least {@link #MIN_SIDE} points: {index, Q̂}, or null when the segment is too short.
     * O(n²): the pairwise distances between and within the sides are updated as one point moves from right to left.
     */
    static double[] bestSplit(double[] x, int from, int to) {
        int length = to - from;
        if (length < 2 * MIN_SIDE) {
            return null;
        }
        double between = 0;
        double withinLeft = 0;
        double withinRight = 0;
        for (int j = from; j < to; j++) {
            for (int k = j + 1; k < to; k++) {
                withinRight += Math.abs(x[j] - x[k]);
            }
        }
        double[] best = null;
        for (int tau = from + 1; tau < to; tau++) {
            int moved = tau - 1; // from the right side to the left
            double toLeft = 0;
            for (int i = from; i < moved; i++) {
                toLeft += Math.abs(x[i] - x[moved]);
            }
            double toRight = 0;
            for (int j = moved + 1; j < to; j++) {
                toRight += Math.abs(x[moved] - x[j]);
            }
            withinLeft += toLeft;
            withinRight -= toRight;
            between += toRight - toLeft;
            int m = tau - from;
            int r = to - tau;
            if (m < MIN_SIDE || r < MIN_SIDE) {
                continue;
            }
            double q = (double) m * r / length * (2 * between / ((double) m * r) - 2 * withinLeft / ((double) m * (m - 1))
                    - 2 * withinRight / ((double) r * (r - 1)));
            if (best == null || q > best[1]) {
                best = new double[] {tau, q};
            }
        }
        return best;
    }

    /** Welch's t-test of x[before, at) against x[at, after): {mean before, mean after, t, two-sided p}. */
    static double[] welch(double[] x, int before, int at, int after) {
        double[] left = Arrays.copyOfRange(x, before, at);
        double[] right = Arrays.copyOfRange(x, at, after);
        double meanLeft = RunLevelTest.mean(left);
        double meanRight = RunLevelTest.mean(right);
        if (left.length < MIN_SIDE || right.length < MIN_SIDE) {
            return new double[] {meanLeft, meanRight, 0, 1};
        }
        double vl = RunLevelTest.variance(left) / left.length;
        double vr = RunLevelTest.variance(right) / right.length;
        double difference = meanRight - meanLeft;
        if (vl + vr == 0) { // both sides constant: nothing to weigh a difference against
            return new double[] {meanLeft, meanRight, 0, difference == 0 ? 1 : 0};
        }
        double t = difference / Math.sqrt(vl + vr);
        double df = (vl + vr) * (vl + vr) / (vl * vl / (left.length - 1) + vr * vr / (right.length - 1));
        return new double[] {meanLeft, meanRight, t, StudentT.twoSidedP(t, df)};
    }

    private static int insertionPoint(List<Integer> sorted, int value) {
        int at = 0;
        while (at < sorted.size() && sorted.get(at) < value) {
            at++;
        }
        return at;
    }
}
