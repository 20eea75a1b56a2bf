package org.qplab.controller.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The planner of {@code search: knee} (issue 37): where, over one numeric dimension with the others fixed, a metric
 * stops paying for more of that dimension. SMART (ASPLOS'24) and Collie (NSDI'22) show that RDMA performance has such
 * points (QP counts past the NIC's cache, outstanding WQEs, MTT misses), and that they are found by search: a fixed
 * grid leaves them somewhere between two points far apart, or spends most of its runs where nothing happens.
 *
 * <p><b>Knee.</b> The metric grows with x, then flattens. The gain of a step between two neighbouring measured values is
 * the change of the metric per doubling of x, {@code (y[i+1] - y[i]) / log2(x[i+1] / x[i])}; a step pays when its gain
 * is at least {@code kneeGain} x the best gain. The knee is the first point {@code x[j]} where a paying step is followed
 * by one that does not. Where exactly the gain crosses the bar is not known from the two steps' averages: it may lie
 * inside the paying step (its average hides a flat end) or inside the failing one (its average hides a rising start).
 * So the knee is bracketed by both steps, {@code [x[j-1], x[j+1]]}, and the search splits the wider of the two (in log
 * x) at its geometric midpoint, recomputing everything from the results each time, until the whole bracket is within
 * the resolution (or holds no integer left to plan). On {@code y = min(x, K)} the bracket always holds K: the step that
 * holds K either still pays (it ends the paying steps) or does not (it starts the failing ones). The value reported is
 * {@code x[j]}, the last x the search saw still paying; the bracket's ends are the points either side of it, except
 * when every integer around x[j] was measured (x[j-1] = x[j] - 1, x[j+1] = x[j] + 1) and the two steps together are
 * still wider than the resolution: then the bracket is {@code [x[j], x[j] + 1]}, two adjacent integers, since the
 * dimension has no value between x[j-1] and x[j] that could be the knee.
 *
 * <p><b>The best gain</b> is the largest gain over any two measured points (not only neighbours), each counted net of
 * the noise: the larger relative spread of the two points' repeats times the metric. A short step between two noisy
 * points would otherwise set the bar at whatever the noise made of it; over a longer span the noise matters less.
 * Without noise the best chord is always a step between neighbours, so this is the plain best step. When the best gain
 * comes from a step wider than the resolution, that step is split too before the knee is declared: a coarse best step
 * averages its steep part with flatter ones and sets the bar too low, and the knee of a smooth curve then comes late.
 *
 * <p><b>Cliff.</b> The metric falls: a step whose value drops by more than the noise, that is by more than twice the
 * larger relative spread of its two points and by at least 5 %, and stays down: a fall that a later point climbs back
 * from to within the noise of where it fell from is a dip (one noisy short run, say), not a cliff. The first cliff
 * wins over a knee (a curve that falls has stopped paying): its step is split at the geometric midpoint until it is
 * within the resolution; the value is the last x before the fall.
 *
 * <p><b>None.</b> The metric never moves by more than the noise (no two points differ by more than twice the larger
 * spread of the two, at least 5 %) from low to high, or never rises by more than it; or the last step still pays. A
 * last step that pays is split until it is within the resolution before "still rising at high" is said: its average
 * may hide a knee (min(x, 40000) over [64, 65536] looks like it is still rising from the four first points).
 *
 * <p><b>Noise.</b> With repeats whose values spread by s (relative), the two points of a step of ratio r differ by up
 * to s x y from noise alone, a gain error of up to s x y / log2(r). Near a knee of min(x, K) the bar is about 0.35 K per
 * doubling at kneeGain 0.5, so with s = 0.06 (+-3 %) a step must span about 1.13x before the noise cannot flip its
 * verdict: a bracket within 10 % is at the edge of what such noise lets any planner resolve. bench/search/results.md
 * measures how often the bracket still holds the truth.
 *
 * <p>Times (higherIsBetter false) are negated first, so that "grows" means "gets better". The first points are the ends
 * of the range and log-spaced points between; every later call plans one point. At most maxPoints distinct values are
 * ever planned: when they run out the result is the best bracket so far, with bracketed false. Pure and deterministic:
 * the integration stores the observations and calls {@link #next} after each point's repeats.
 */
public final class KneeSearch {

    /**
     * Whether a later point than the fall from x[i] comes back to within the noise of v[i]: a dip, not a cliff (a
     * cliff stops paying for good, as a NIC's QP cache does once the QPs outgrow it).
     */
    private static boolean recovers(double[] v, int i, double noise) {
        for (int j = i + 2; j < v.length; j++) {
            if (v[j] >= v[i] - noise) {
                return true;
            }
        }
        return false;
    }

    /** The least relative fall that is a cliff, whatever the noise. */
    static final double CLIFF_MIN_FALL = 0.05;
    /** A cliff falls by more than this many times the larger spread of its two points. */
    static final double CLIFF_NOISE_FACTOR = 2.0;

    private KneeSearch() {
    }

    /** dimension: the swept parameter (threads, qps_per_thread, msg_size, tx_depth); low/high: its range, inclusive, integers >= 1;
     *  resolution: the bracket is fine enough when high/low of the bracket <= 1 + resolution, or the two are adjacent integers (default 0.10);
     *  kneeGain: a step is past the knee when its marginal gain per doubling of x is below kneeGain x the best step's gain (default 0.5);
     *  maxPoints: at most this many distinct x values are ever planned (the integration multiplies by repeats for runs);
     *  higherIsBetter: true for bandwidth/rates (the metric grows, then flattens or falls), false for times (it is then negated internally). */
    public record Settings(String dimension, long low, long high, double resolution, double kneeGain, int maxPoints, boolean higherIsBetter) {

        public static final double DEFAULT_RESOLUTION = 0.10;
        public static final double DEFAULT_KNEE_GAIN = 0.5;

        public Settings {
            if (low < 1 || high < low) {
                throw new IllegalArgumentException("the range of " + dimension + " must be integers with 1 <= low <= high, not ["
                        + low + ", " + high + "]");
            }
            if (!(resolution > 0) || !Double.isFinite(resolution)) {
                throw new IllegalArgumentException("resolution must be > 0, not " + resolution);
            }
            if (!(kneeGain > 0 && kneeGain < 1)) {
                throw new IllegalArgumentException("knee_gain must be between 0 and 1, not " + kneeGain);
            }
            if (maxPoints < 2) {
                throw new IllegalArgumentException("max points must be at least 2 (low and high), not " + maxPoints);
            }
        }

        /** The defaults for the rest: resolution 0.10, kneeGain 0.5. */
        public static Settings of(String dimension, long low, long high, int maxPoints, boolean higherIsBetter) {
            return new Settings(dimension, low, high, DEFAULT_RESOLUTION, DEFAULT_KNEE_GAIN, maxPoints, higherIsBetter);
        }
    }

    /** One planned x value with the run-level value of the metric there (the median over its repeats) and their relative spread (max-min)/median, 0 when one repeat. */
    public record Observation(long x, double y, double spread) {
    }

    /** kind: "knee" (the gain flattens), "cliff" (the metric falls by more than the noise), or "none" (still rising at high, or flat from low);
     *  value: the estimate (for a knee the last x that still pays: the middle point of the bracket [x before it, x after it], or its lower end when the bracket is two adjacent integers;
     *  for a cliff the last x before the fall, the bracket's lower end); bracketLow/High: where it lies;
     *  bracketed: whether the bracket met the resolution (false when maxPoints ran out first); why: one sentence a lab engineer can read, with the numbers. */
    public record Result(String kind, long value, long bracketLow, long bracketHigh, boolean bracketed, String why) {
    }

    /** next: the x values to run now, in ascending order, none already seen (empty when the search is over); result: non-null exactly when next is empty. */
    public record Step(List<Long> next, Result result) {

        public Step {
            next = List.copyOf(next);
            if (next.isEmpty() != (result != null)) {
                throw new IllegalArgumentException("a step plans points or has a result, not both or neither");
            }
        }

        static Step run(List<Long> xs) {
            return new Step(xs, null);
        }

        static Step done(Result result) {
            return new Step(List.of(), result);
        }
    }

    /** The first x values: low, high and a few log-spaced points between (e.g. 4 in all when the range spans > 8x), deduplicated and clamped. */
    public static List<Long> initial(Settings s) {
        double ratio = (double) s.high() / s.low();
        int count = s.low() == s.high() ? 1 : ratio > 8 ? 4 : ratio > 2 ? 3 : 2;
        count = Math.min(count, s.maxPoints());
        TreeSet<Long> xs = new TreeSet<>();
        xs.add(s.low());
        xs.add(s.high());
        for (int k = 1; k < count - 1; k++) {
            long x = Math.round(s.low() * Math.pow(ratio, (double) k / (count - 1)));
            xs.add(Math.max(s.low(), Math.min(s.high(), x)));
        }
        return List.copyOf(xs);
    }

    /** From everything seen so far (any order, no duplicates of x), what to run next, or the result. Deterministic. */
    public static Step next(Settings s, List<Observation> seen) {
        List<Observation> points = new ArrayList<>(seen);
        points.sort(Comparator.comparingLong(Observation::x));
        Set<Long> xs = new HashSet<>();
        for (Observation o : points) {
            if (o.x() < s.low() || o.x() > s.high()) {
                throw new IllegalArgumentException(s.dimension() + " " + o.x() + " is outside [" + s.low() + ", " + s.high() + "]");
            }
            if (!xs.add(o.x())) {
                throw new IllegalArgumentException(s.dimension() + " " + o.x() + " was seen twice: pass one observation per value");
            }
            if (!Double.isFinite(o.y()) || !(o.spread() >= 0)) {
                throw new IllegalArgumentException(s.dimension() + " " + o.x() + ": the metric " + o.y() + " or its spread "
                        + o.spread() + " is not a number");
            }
        }
        if (points.size() < 2) {
            List<Long> missing = initial(s).stream().filter(x -> !xs.contains(x)).toList();
            if (!missing.isEmpty() && points.size() < s.maxPoints()) {
                return Step.run(missing.subList(0, Math.min(missing.size(), s.maxPoints() - points.size())));
            }
            long x = points.isEmpty() ? s.low() : points.get(0).x();
            return Step.done(new Result("none", x, x, x, false, points.isEmpty()
                    ? "No point of " + s.dimension() + " was measured."
                    : "Only " + s.dimension() + " " + x + " was measured: a knee needs at least two points."));
        }
        int n = points.size();
        long[] x = new long[n];
        double[] v = new double[n];
        double[] spread = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = points.get(i).x();
            v[i] = s.higherIsBetter() ? points.get(i).y() : -points.get(i).y();
            spread[i] = points.get(i).spread();
        }
        boolean budgetLeft = n < s.maxPoints();

        // A cliff: the first step that falls by more than the noise, and stays down.
        for (int i = 0; i + 1 < n; i++) {
            double scale = Math.max(Math.abs(v[i]), Math.abs(v[i + 1]));
            double noise = Math.max(CLIFF_NOISE_FACTOR * Math.max(spread[i], spread[i + 1]), CLIFF_MIN_FALL) * scale;
            double fall = v[i] - v[i + 1];
            if (fall > noise && fall > 0 && !recovers(v, i, noise)) {
                boolean fine = fine(s, x[i], x[i + 1]);
                if (!fine && budgetLeft) {
                    return Step.run(List.of(midpoint(x[i], x[i + 1])));
                }
                double percent = 100 * fall / Math.abs(v[i]);
                return Step.done(new Result("cliff", x[i], x[i], x[i + 1], fine, String.format(Locale.ROOT,
                        "The metric falls by %.0f %% from %s %d (%s) to %d (%s), more than the noise (%.0f %%)%s.",
                        percent, s.dimension(), x[i], num(points.get(i).y()), x[i + 1], num(points.get(i + 1).y()),
                        100 * noise / scale, unbracketed(s, fine, n, x[i], x[i + 1]))));
            }
        }

        // Flat: no two points differ by more than their own noise (twice the larger spread of the two, at least 5 %):
        // one noisy point must not make a curve that rises 3x from its quiet ends look flat. The message names the
        // pair that comes closest to its band.
        double nearest = -1;
        double nearestMove = 0;
        double nearestBand = 0;
        for (int i = 0; i < n; i++) {
            for (int k = i + 1; k < n; k++) {
                double scale = Math.max(Math.abs(v[i]), Math.abs(v[k]));
                double band = Math.max(CLIFF_NOISE_FACTOR * Math.max(spread[i], spread[k]), CLIFF_MIN_FALL) * scale;
                double move = Math.abs(v[k] - v[i]);
                double share = band == 0 ? (move == 0 ? 0 : Double.POSITIVE_INFINITY) : move / band;
                if (share > nearest) {
                    nearest = share;
                    nearestMove = scale == 0 ? 0 : 100 * move / scale;
                    nearestBand = scale == 0 ? 0 : 100 * band / scale;
                }
            }
        }
        if (nearest <= 1) {
            return Step.done(new Result("none", x[0], x[0], x[n - 1], true, String.format(Locale.ROOT,
                    "The metric is flat from %s %d to %d: no two values differ by more than their own noise (the "
                            + "closest: %.1f %% against %.0f %%); no knee in the range.", s.dimension(), x[0], x[n - 1],
                    nearestMove, nearestBand)));
        }

        // The knee: the first paying step followed by one that does not pay.
        // The best step's gain is counted net of the noise (a rise by less than the spread of its points proves
        // nothing), so that a short step between two noisy points does not raise the bar for every other step.
        double[] gain = new double[n - 1];
        double best = Double.NEGATIVE_INFINITY;
        int bestStep = 0;
        int bestEnd = 1;
        for (int i = 0; i + 1 < n; i++) {
            gain[i] = (v[i + 1] - v[i]) / log2((double) x[i + 1] / x[i]);
            for (int k = i + 1; k < n; k++) {
                double noise = Math.max(spread[i], spread[k]) * Math.max(Math.abs(v[i]), Math.abs(v[k]));
                double net = (v[k] - v[i] - noise) / log2((double) x[k] / x[i]);
                if (net > best) {
                    best = net;
                    bestStep = i;
                    bestEnd = k;
                }
            }
        }
        if (!(best > 0)) {
            return Step.done(new Result("none", x[0], x[0], x[n - 1], true, String.format(Locale.ROOT,
                    "The metric never rises by more than the noise from %s %d to %d; no knee in the range.",
                    s.dimension(), x[0], x[n - 1])));
        }
        double threshold = s.kneeGain() * best;
        for (int j = 1; j + 1 < n; j++) {
            if (gain[j - 1] >= threshold && gain[j] < threshold) {
                long a = x[j - 1];
                long b = x[j];
                long c = x[j + 1];
                boolean adjacent = b - a <= 1 && c - b <= 1;
                boolean fine = fine(s, a, c) || adjacent;
                if (!fine && budgetLeft) {
                    boolean lowerSplittable = b - a > 1;
                    boolean upperSplittable = c - b > 1;
                    boolean lower = lowerSplittable && (!upperSplittable || (double) b / a >= (double) c / b);
                    return Step.run(List.of(lower ? midpoint(a, b) : midpoint(b, c)));
                }
                // The bar is kneeGain x the best step's gain: a coarse best step averages its steep part with flatter
                // ones and sets the bar too low (the knee of a smooth curve then comes late). Split it too.
                if (fine && budgetLeft && bestEnd == bestStep + 1 && !fine(s, x[bestStep], x[bestStep + 1])
                        && v[bestStep + 1] - v[bestStep] > 2 * band(v, spread, bestStep)) {
                    return Step.run(List.of(midpoint(x[bestStep], x[bestStep + 1])));
                }
                // Every integer around b measured: b is the last value that pays and c the first past the knee, so
                // the bracket is [b, c], two adjacent integers (the dimension has no value between a and b).
                long low = adjacent && !fine(s, a, c) ? b : a;
                return Step.done(new Result("knee", b, low, c, fine, String.format(Locale.ROOT,
                        "The metric stops paying at %s %d: from %d to %d it moves by %s per doubling, from %d to %d by "
                                + "%s, below %.2f x the best gain, %s (%d to %d); the knee lies in [%d, %d]%s.",
                        s.dimension(), b, a, b, num(signed(s, gain[j - 1])), b, c, num(signed(s, gain[j])),
                        s.kneeGain(), num(signed(s, best)), x[bestStep], x[bestEnd], low, c,
                        unbracketed(s, fine, n, a, c))));
            }
        }
        // Still paying at high: the last step's average may hide a knee inside it, so it is split until fine.
        if (!fine(s, x[n - 2], x[n - 1]) && budgetLeft) {
            return Step.run(List.of(midpoint(x[n - 2], x[n - 1])));
        }
        boolean lastFine = fine(s, x[n - 2], x[n - 1]);
        return Step.done(new Result("none", x[n - 1], x[n - 2], x[n - 1], lastFine, String.format(Locale.ROOT,
                "The metric is still rising at %s %d, the top of the range: from %d it moves by %s per doubling, "
                        + "%.2f x the best gain, %s; no knee up to %d%s.",
                s.dimension(), x[n - 1], x[n - 2], num(signed(s, gain[n - 2])), gain[n - 2] / best,
                num(signed(s, best)), s.high(), unbracketed(s, lastFine, n, x[n - 2], x[n - 1]))));
    }

    /** The noise of step i: the larger relative spread of its two points, times the larger of their values. */
    static double band(double[] v, double[] spread, int i) {
        return Math.max(spread[i], spread[i + 1]) * Math.max(Math.abs(v[i]), Math.abs(v[i + 1]));
    }

    /** Whether [a, b] is within the resolution, or holds no integer that could still be planned. */
    static boolean fine(Settings s, long a, long b) {
        return (double) b / a <= 1 + s.resolution() + 1e-12 || b - a <= 1;
    }

    /** The geometric midpoint of a and b rounded to an integer strictly between them (b - a >= 2). */
    static long midpoint(long a, long b) {
        long m = Math.round(Math.sqrt((double) a * b));
        return Math.max(a + 1, Math.min(b - 1, m));
    }

    private static double log2(double r) {
        return Math.log(r) / Math.log(2);
    }

    private static double signed(Settings s, double gain) {
        return s.higherIsBetter() ? gain : -gain;
    }

    private static String unbracketed(Settings s, boolean fine, int n, long a, long b) {
        return fine ? "" : String.format(Locale.ROOT, " (not bracketed within %.0f %%: the %d points allowed ran out at "
                + "[%d, %d], %.2fx wide)", 100 * s.resolution(), n, a, b, (double) b / a);
    }

    private static String num(double value) {
        double abs = Math.abs(value);
        if (abs != 0 && (abs >= 1e6 || abs < 1e-2)) {
            return String.format(Locale.ROOT, "%.3g", value);
        }
        return String.format(Locale.ROOT, abs >= 100 ? "%.0f" : "%.3g", value);
    }
}
