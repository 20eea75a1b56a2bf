package org.qplab.controller.search;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * bench/search: whether AnomalySearch finds an anomaly planted by a rule and reduces it to exactly the planted
 * dimensions, over many seeds. The response is synthetic: a smooth bandwidth over qps_per_thread, msg_size and
 * tx_depth (rising with each, saturating), every run multiplied by a factor drawn within +-3 %, and one combination of
 * two dimensions (qps_per_thread 8 with msg_size 64K, at every tx_depth) rate-limited to 30-50 % of what it would be.
 * Prints the markdown table of bench/search/results.md; bench/search/anomaly-seeds.sh runs it as a single-file source
 * against controller/target/classes. Args: seeds (default 10), then optionally max_runs (60) and repeats (2).
 * AnomalySearchTests drives the same response through {@link #drive}.
 */
public final class AnomalySeeds {

    static final long PLANTED_QPS = 8;
    static final long PLANTED_SIZE = 64 << 10;

    /** A search's domain: each dimension's values and its reset value. */
    public record Domain(String name, List<AnomalySearch.Dimension> dimensions) {
    }

    /** What one seed did: planted found, reduced to exactly the planted dimensions, runs used, other anomalies. */
    public record Outcome(boolean found, boolean exact, int runs, int others, AnomalySearch.Report report) {
    }

    /** qps_per_thread 1-16, msg_size 1K-256K (x4), tx_depth 4-256 (x4): 5 x 5 x 4 = 100 points; reset 1, 4K, 16. */
    public static Domain lists() {
        return new Domain("lists: qps_per_thread [1, 2, 4, 8, 16], msg_size [1K, 4K, 16K, 64K, 256K], tx_depth [4, 16, "
                + "64, 256]", List.of(
                dimension("qps_per_thread", List.of(1L, 2L, 4L, 8L, 16L), 1L),
                dimension("msg_size", List.of(1L << 10, 4L << 10, 16L << 10, 64L << 10, 256L << 10), 4L << 10),
                dimension("tx_depth", List.of(4L, 16L, 64L, 256L), 16L)));
    }

    /** The default ladders of the three dimensions: 8 x 8 x 6 = 384 points. */
    public static Domain ladders() {
        List<Object> qps = new ArrayList<>();
        for (long q = 1; q <= 128; q *= 2) {
            qps.add(q);
        }
        List<Object> sizes = new ArrayList<>();
        for (long m = 64; m <= 1 << 20; m *= 4) {
            sizes.add(m);
        }
        List<Object> depths = new ArrayList<>();
        for (long t = 1; t <= 1024; t *= 4) {
            depths.add(t);
        }
        return new Domain("default ladders: qps_per_thread 1-128 (x2), msg_size 64-1M (x4), tx_depth 1-1024 (x4)",
                List.of(dimension("qps_per_thread", qps, 1L), dimension("msg_size", sizes, 4L << 10),
                        dimension("tx_depth", depths, 16L)));
    }

    private static AnomalySearch.Dimension dimension(String name, List<?> values, long reset) {
        return new AnomalySearch.Dimension(name, List.copyOf(values), values.indexOf(reset), true);
    }

    /** The smooth bandwidth (B/s) at a point, before noise and the planted limit. */
    static double smooth(long qps, long size, long depth) {
        double window = qps * (double) depth;
        return 12.5e9 * (size / (size + 8192.0)) * (1 - Math.exp(-window / 24.0));
    }

    /** What a run measures at a point (each dimension's value), its k-th run there. */
    public interface Response {
        AnomalySearch.RunValue run(List<Object> point, int k);
    }

    /** The smooth bandwidth with noise (seeded by seed, the point and k), the planted combination at fraction of it. */
    public static Response planted(long seed, double noise, double fraction) {
        return (point, k) -> {
            long q = (Long) point.get(0);
            long m = (Long) point.get(1);
            long t = (Long) point.get(2);
            SplittableRandom draw = new SplittableRandom(seed * 1_000_003L + point.hashCode() * 31L + k);
            double value = smooth(q, m, t) * (1 + noise * (2 * draw.nextDouble() - 1));
            return new AnomalySearch.RunValue(q == PLANTED_QPS && m == PLANTED_SIZE ? value * fraction : value, List.of());
        };
    }

    /** Runs one seed's search to its end; the planted combination at 30-50 % of the smooth bandwidth (drawn from seed). */
    public static Outcome drive(Domain domain, long seed, int maxRuns, int repeats, double noise) {
        double fraction = 0.3 + 0.2 * new SplittableRandom(seed * 7919).nextDouble();
        AnomalySearch.Settings settings = new AnomalySearch.Settings(domain.dimensions(), seed, maxRuns, repeats,
                AnomalySearch.Settings.DEFAULT_BELOW);
        return outcome(drive(settings, planted(seed, noise, fraction), p -> true));
    }

    /** Runs a search to its end against a response: its last step, and every run it made by point. */
    public static Driven drive(AnomalySearch.Settings settings, Response response,
                               java.util.function.Predicate<List<Integer>> runnable) {
        Map<List<Integer>, List<AnomalySearch.RunValue>> runs = new LinkedHashMap<>();
        for (int step = 0; step < 10_000; step++) {
            List<AnomalySearch.Observation> seen = runs.entrySet().stream()
                    .map(e -> new AnomalySearch.Observation(e.getKey(), List.copyOf(e.getValue()))).toList();
            AnomalySearch.Step next = AnomalySearch.next(settings, seen, runnable);
            if (next.next().isEmpty()) {
                return new Driven(next.report(), runs);
            }
            for (AnomalySearch.Request request : next.next()) {
                List<AnomalySearch.RunValue> list = runs.computeIfAbsent(request.at(), k -> new ArrayList<>());
                List<Object> point = new ArrayList<>();
                for (int d = 0; d < request.at().size(); d++) {
                    point.add(settings.dimensions().get(d).values().get(request.at().get(d)));
                }
                for (int r = 0; r < request.runs(); r++) {
                    list.add(response.run(point, list.size()));
                }
            }
        }
        throw new IllegalStateException("the search did not end");
    }

    /** A driven search: its report and its runs by point. */
    public record Driven(AnomalySearch.Report report, Map<List<Integer>, List<AnomalySearch.RunValue>> runs) {
        public int runCount() {
            return runs.values().stream().mapToInt(List::size).sum();
        }
    }

    private static Outcome outcome(Driven driven) {
        AnomalySearch.Report report = driven.report();
        int runs = driven.runCount();
        boolean found = false;
        boolean exact = false;
        int others = 0;
        for (AnomalySearch.Anomaly a : report.anomalies()) {
            boolean planted = Long.valueOf(PLANTED_QPS).equals(a.point().get("qps_per_thread"))
                    && Long.valueOf(PLANTED_SIZE).equals(a.point().get("msg_size"));
            if (planted) {
                found = true;
                exact |= a.minimalFeatures().keySet().equals(Set.of("qps_per_thread", "msg_size"));
            } else {
                others++;
            }
        }
        return new Outcome(found, exact, runs, others, report);
    }

    /** One row of the table: seeds 1..seeds over the domain. */
    static String row(Domain domain, int seeds, int maxRuns, int repeats) {
        int found = 0;
        int exact = 0;
        int others = 0;
        List<Integer> used = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            Outcome o = drive(domain, seed, maxRuns, repeats, 0.03);
            found += o.found() ? 1 : 0;
            exact += o.exact() ? 1 : 0;
            others += o.others();
            used.add(o.runs());
        }
        used.sort(null);
        return String.format(Locale.ROOT, "| %s | %d | %d | %d | %d of %d | %d of %d | %d / %d | %d |", domain.name(),
                maxRuns, repeats, seeds, found, seeds, exact, seeds, used.get(used.size() / 2), used.get(used.size() - 1),
                others);
    }

    public static void main(String[] args) {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        System.out.println("| Domain | max_runs | repeats | seeds | found | exact minimal set | runs used (median / max) "
                + "| other anomalies |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        System.out.println(row(lists(), seeds, 60, 2));
        System.out.println(row(lists(), seeds, 100, 2));
        System.out.println(row(ladders(), seeds, 100, 2));
        System.out.println(row(ladders(), seeds, 200, 2));
    }
}
