package org.qplab.controller.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/** Placeholder planning of a knee search (replaced by the full algorithm): the ends and log-spaced points, then bisection. */
public final class KneeSearch {

    public record Settings(String dimension, long low, long high, double resolution, double kneeGain, int maxPoints,
                           boolean higherIsBetter) {}

    public record Observation(long x, double y, double spread) {}

    public record Result(String kind, long value, long bracketLow, long bracketHigh, boolean bracketed, String why) {}

    public record Step(List<Long> next, Result result) {}

    private KneeSearch() {
    }

    public static List<Long> initial(Settings s) {
        TreeSet<Long> xs = new TreeSet<>();
        xs.add(s.low());
        xs.add(s.high());
        double ratio = Math.pow((double) s.high() / s.low(), 1.0 / 3);
        xs.add(Math.max(s.low(), Math.min(s.high(), Math.round(s.low() * ratio))));
        xs.add(Math.max(s.low(), Math.min(s.high(), Math.round(s.low() * ratio * ratio))));
        return List.copyOf(xs);
    }

    public static Step next(Settings s, List<Observation> seen) {
        List<Observation> o = new ArrayList<>(seen);
        o.sort(Comparator.comparingLong(Observation::x));
        int n = o.size();
        double sign = s.higherIsBetter() ? 1 : -1;
        double best = 0;
        double[] gain = new double[Math.max(0, n - 1)];
        for (int i = 0; i + 1 < n; i++) {
            gain[i] = sign * (o.get(i + 1).y() - o.get(i).y()) / (Math.log((double) o.get(i + 1).x() / o.get(i).x()) / Math.log(2));
            best = Math.max(best, gain[i]);
        }
        int step = -1;
        for (int i = 0; i < gain.length; i++) {
            if (gain[i] < s.kneeGain() * best) {
                step = i;
                break;
            }
        }
        if (step < 0) {
            return new Step(List.of(), new Result("none", s.high(), s.high(), s.high(), true, "still rising at " + s.high()));
        }
        long a = o.get(step).x();
        long b = o.get(step + 1).x();
        boolean fine = b - a <= 1 || (double) b / a <= 1 + s.resolution();
        if (fine || n >= s.maxPoints()) {
            return new Step(List.of(), new Result("knee", a, a, b, fine, "the gain per doubling falls below "
                    + s.kneeGain() + " of the best between " + a + " and " + b));
        }
        long mid = Math.round(Math.sqrt((double) a * b));
        mid = Math.max(a + 1, Math.min(b - 1, mid));
        return new Step(List.of(mid), null);
    }
}
