package org.qplab.controller.search;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.LongToDoubleFunction;

/**
 * bench/search: how many points KneeSearch runs on synthetic curves, against a geometric grid of the same resolution.
 * Prints the markdown table of bench/search/results.md; bench/search/knee-counts.sh runs it as a single-file source
 * against controller/target/classes. Args: noise (relative half-width, default 0.03), seeds (10), resolution (0.10),
 * "points" to list the points of each noise-free search. KneeSearchTests drives the same curves through {@link #drive}, and checks the
 * table's goal (at most 40 % of the grid's points) with {@link #curves}.
 */
public final class KneeCounts {

    /**
     * A synthetic curve over [low, high], the x its knee or cliff truly lies at, and how near (relative) a bracket must
     * come to it: 0 for a sharp knee or cliff, which the bracket must hold; the resolution for a smooth curve, whose
     * knee the search places against the best gain it measured, not the derivative's maximum.
     */
    public record Curve(String name, long low, long high, LongToDoubleFunction y, double truth, String kind,
            double tolerance) {
    }

    /** What one search did: the x values it planned, in the order planned, and its result. */
    public record Run(List<Long> planned, KneeSearch.Result result) {
    }

    /** y = min(x, k): a rate limit that flattens at k. */
    public static Curve rateLimit(long low, long high, long k) {
        return new Curve("min(x, " + k + ")", low, high, x -> Math.min(x, k), k, "knee", 0);
    }

    /**
     * y = x / (1 + x/k), smooth. Its gain per doubling, ln2 x y'(x) = ln2 k u/(1+u)^2 with u = x/k, is largest at u = 1;
     * it falls below half of that at u = 3 + 2 sqrt 2: the knee at the default knee_gain is 5.83 k.
     */
    public static Curve saturating(long low, long high, long k) {
        return new Curve("x / (1 + x/" + k + ")", low, high, x -> x / (1.0 + (double) x / k), (3 + 2 * Math.sqrt(2)) * k,
                "knee", KneeSearch.Settings.DEFAULT_RESOLUTION);
    }

    /** y = x up to c, then c/2: rises, then falls by half past c and stays there. */
    public static Curve cliff(long low, long high, long c) {
        return new Curve("x, c/2 past c = " + c, low, high, x -> x <= c ? x : c / 2.0, c, "cliff", 0);
    }

    /** The curves of the table. */
    public static List<Curve> curves() {
        List<Curve> curves = new ArrayList<>();
        for (long k : new long[] {3, 10, 27, 50}) {
            curves.add(rateLimit(1, 64, k));
        }
        for (long k : new long[] {100, 1000, 5000, 40000}) {
            curves.add(rateLimit(64, 65536, k));
        }
        curves.add(rateLimit(1, 1L << 30, 12345));
        curves.add(saturating(1, 64, 4));
        curves.add(saturating(64, 65536, 500));
        curves.add(cliff(1, 64, 20));
        curves.add(cliff(64, 65536, 3000));
        return curves;
    }

    /**
     * Runs a search to its end: the planned points are measured on the curve, each multiplied by a factor drawn
     * uniformly within +-noise (seeded per x, 0: exact), with the spread 2 x noise.
     */
    public static Run drive(KneeSearch.Settings s, LongToDoubleFunction curve, double noise, long seed) {
        List<KneeSearch.Observation> seen = new ArrayList<>();
        List<Long> planned = new ArrayList<>();
        List<Long> next = KneeSearch.initial(s);
        for (int guard = 0; guard < 10_000; guard++) {
            for (long x : next) {
                planned.add(x);
                double factor = noise == 0 ? 1 : 1 + new SplittableRandom(seed * 1_000_003L + x).nextDouble(-noise, noise);
                seen.add(new KneeSearch.Observation(x, curve.applyAsDouble(x) * factor, 2 * noise));
            }
            KneeSearch.Step step = KneeSearch.next(s, seen);
            if (step.result() != null) {
                return new Run(planned, step.result());
            }
            next = step.next();
        }
        throw new IllegalStateException("the search did not end");
    }

    /**
     * Points of a grid of the search's resolution from low to high over integers (every dimension a search sweeps is
     * one): each next value the largest within 1 + resolution of the one before, or the next integer where there is
     * none, as a bracket is fine enough when its ends are within the resolution or adjacent. Below 10 / resolution
     * that is every integer, so a real-valued geometric grid (ln(high/low) / ln(1 + resolution) + 1) would overcount.
     */
    public static long gridPoints(long low, long high, double resolution) {
        long count = 1;
        for (long x = low; x < high; count++) {
            long next = (long) Math.floor(x * (1 + resolution));
            x = Math.min(high, Math.max(next, x + 1));
        }
        return count;
    }

    /** Whether the result is of the curve's kind and its bracket holds the truth (within the curve's tolerance). */
    public static boolean holds(Curve c, KneeSearch.Result r) {
        return r.kind().equals(c.kind()) && r.bracketLow() <= c.truth() * (1 + c.tolerance())
                && c.truth() / (1 + c.tolerance()) <= r.bracketHigh();
    }

    public static void main(String[] args) {
        double noise = args.length > 0 ? Double.parseDouble(args[0]) : 0.03;
        int seeds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        double resolution = args.length > 2 ? Double.parseDouble(args[2]) : KneeSearch.Settings.DEFAULT_RESOLUTION;
        System.out.println("| curve | range | true knee/cliff | found | bracket | points run | grid points (ratio " + fmt(1 + resolution) + ") | "
                + "ratio | holds the truth | with ±" + fmt(100 * noise) + " % noise: holds, bracketed (of " + seeds
                + " seeds) | points run, median (max) |");
        System.out.println("|---|---|---:|---|---|---:|---:|---:|---|---:|---:|");
        List<String> order = new ArrayList<>();
        for (Curve c : curves()) {
            KneeSearch.Settings s = new KneeSearch.Settings("x", c.low(), c.high(), resolution,
                    KneeSearch.Settings.DEFAULT_KNEE_GAIN, 64, true);
            Run run = drive(s, c.y(), 0, 0);
            long grid = gridPoints(c.low(), c.high(), s.resolution());
            int holds = 0;
            int bracketed = 0;
            List<Integer> counts = new ArrayList<>();
            for (int seed = 1; seed <= seeds; seed++) {
                Run noisy = drive(s, c.y(), noise, seed);
                holds += holds(c, noisy.result()) ? 1 : 0;
                bracketed += noisy.result().bracketed() ? 1 : 0;
                counts.add(noisy.planned().size());
            }
            counts.sort(null);
            KneeSearch.Result r = run.result();
            System.out.printf(Locale.ROOT, "| %s | [%d, %d] | %s %s | %s %d | [%d, %d]%s | %d | %d | %.0f %% | %s | %d, %d | %d (%d) |%n",
                    c.name(), c.low(), c.high(), c.kind(), fmt(c.truth()), r.kind(), r.value(), r.bracketLow(),
                    r.bracketHigh(), r.bracketed() ? "" : " (not bracketed)", run.planned().size(), grid,
                    100.0 * run.planned().size() / grid, holds(c, r) ? "yes" : "NO",
                    holds, bracketed, counts.get(counts.size() / 2), counts.get(counts.size() - 1));
            order.add("- " + c.name() + " over [" + c.low() + ", " + c.high() + "]: " + run.planned() + " → "
                    + r.why());
        }
        if (args.length > 3 && args[3].equals("points")) {
            System.out.println();
            System.out.println("The points each noise-free search ran, in the order planned (the first four at once), "
                    + "and what it said:");
            System.out.println();
            order.forEach(System.out::println);
        }
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }
}
