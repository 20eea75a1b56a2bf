package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.provider.Providers;

/**
 * How long a matrix's runs would take one after another. Each distinct point, in this order of preference:
 * <ol>
 * <li>finished runs of exactly its parameters (on any host): their median time from start to end;</li>
 * <li>a run by time: its planned length, as its provider says ({@code ProviderSpec.timing}: duration_ms, nvmeof's
 * runtime_ms), plus the overhead;</li>
 * <li>a run by count ({@code ProviderSpec.plannedCycles}: the engine's iterations): those cycles at the rate (cycles
 * per second of measured time) of finished runs alike but for their length keys ({@code ProviderSpec.lengthKeys}),
 * plus their overhead;</li>
 * <li>else unknown.</li>
 * </ol>
 * The overhead of a run is what its start to end takes beyond its measured time (prepare, connect, warmup, collect):
 * the similar runs' mean, else the mean over the provider's recent finished runs, else none (and said so).
 */
final class DurationEstimate {

    /** Finished runs of exactly a point's parameters: how many, and their median seconds from start to end. */
    record Same(long runs, double seconds) {
    }

    /** Finished runs alike but for their length: how many, their cycles per measured second, their mean overhead. */
    record Similar(long runs, double cyclesPerSecond, double overheadSeconds) {
    }

    /** A provider's recent finished runs: how many, and their mean overhead in seconds. */
    record Overhead(long runs, double seconds) {
    }

    /** What finished runs say, by the index of a point in the list asked about; {@link RunHistory} reads them. */
    interface History {
        Map<Integer, Same> same(List<Map<String, Object>> points);

        /** points without lengthKeys, as asked. */
        Map<Integer, Similar> similar(List<Map<String, Object>> points, List<String> lengthKeys);

        /** By the value of the provider key. */
        Map<String, Overhead> overhead();
    }

    /** No history: time-based runs by their planned length alone, runs by count unknown. */
    static final History NONE = new History() {
        @Override
        public Map<Integer, Same> same(List<Map<String, Object>> points) {
            return Map.of();
        }

        @Override
        public Map<Integer, Similar> similar(List<Map<String, Object>> points, List<String> lengthKeys) {
            return Map.of();
        }

        @Override
        public Map<String, Overhead> overhead() {
            return Map.of();
        }
    };

    private DurationEstimate() {
    }

    static RunsEstimate of(Matrix matrix, History history) {
        Map<Map<String, Object>, Integer> runsOf = new LinkedHashMap<>();
        matrix.runs().forEach(run -> runsOf.merge(run.params(), 1, Integer::sum));
        List<Map<String, Object>> points = new ArrayList<>(runsOf.keySet());
        List<String> lengthKeys = lengthKeys();
        List<Map<String, Object>> alike = points.stream().map(p -> without(p, lengthKeys)).toList();
        Map<Integer, Same> same = history.same(points);
        Map<Integer, Similar> similar = history.similar(alike, lengthKeys);
        Map<String, Overhead> overheads = history.overhead();

        double seconds = 0;
        int byHistory = 0, byTime = 0, byRate = 0, unknown = 0;
        long sameRuns = 0, similarRuns = 0, overheadRuns = 0;
        boolean overheadMissing = false;
        Set<String> timeKeys = new LinkedHashSet<>();
        for (int i = 0; i < points.size(); i++) {
            Map<String, Object> point = points.get(i);
            int n = runsOf.get(point);
            ProviderSpec provider = Providers.of(point);
            Overhead overhead = overheads.get(String.valueOf(point.get("provider")));
            ProviderSpec.Timing timing = provider.timing(point);
            Long cycles = provider.plannedCycles(point);
            Similar like = similar.get(i);
            if (same.get(i) != null) {
                seconds += n * same.get(i).seconds();
                byHistory += n;
                sameRuns += same.get(i).runs();
            } else if (timing.planned() != null) {
                seconds += n * (timing.planned().toMillis() / 1000.0
                        + (like != null ? like.overheadSeconds() : overhead != null ? overhead.seconds() : 0));
                byTime += n;
                timeKeys.add(timing.durationKey());
                if (like != null) {
                    similarRuns += like.runs();
                } else if (overhead != null) {
                    overheadRuns = Math.max(overheadRuns, overhead.runs());
                } else {
                    overheadMissing = true;
                }
            } else if (cycles != null && like != null && like.cyclesPerSecond() > 0) {
                seconds += n * (cycles / like.cyclesPerSecond() + like.overheadSeconds());
                byRate += n;
                similarRuns += like.runs();
            } else {
                unknown += n;
            }
        }
        int estimated = byHistory + byTime + byRate;
        List<String> parts = new ArrayList<>();
        if (byTime > 0) {
            parts.add(runs(byTime) + " by " + String.join(" or ", timeKeys));
        }
        if (byHistory > 0) {
            parts.add(runs(byHistory) + " from " + runs(sameRuns) + " finished here with the same parameters");
        }
        if (byRate > 0) {
            parts.add(runs(byRate) + " from the cycle rate of similar finished runs");
        }
        if (unknown > 0) {
            parts.add(runs(unknown) + " unknown: they end by count and no similar run has finished here");
        }
        String basis = "one after another; " + String.join("; ", parts);
        if (byTime + byRate > 0) {
            List<String> overhead = new ArrayList<>();
            if (similarRuns > 0) {
                overhead.add("over " + runs(similarRuns) + " alike but for their length");
            }
            if (overheadRuns > 0) {
                overhead.add("over the last " + runs(overheadRuns) + " of the provider");
            }
            basis += overhead.isEmpty() ? "; no overhead added (no run has finished here)"
                    : "; plus each run's overhead (start to end beyond its measured time), measured "
                    + String.join(" and ", overhead) + (overheadMissing ? "; none known for the rest" : "");
        }
        return new RunsEstimate(estimated == 0 ? null : Math.round(seconds * 10) / 10.0, estimated, unknown, basis);
    }

    /** Every provider's length keys: points alike but for these are similar. */
    static List<String> lengthKeys() {
        Set<String> keys = new LinkedHashSet<>();
        Providers.all().forEach(p -> keys.addAll(p.lengthKeys()));
        return List.copyOf(keys);
    }

    private static Map<String, Object> without(Map<String, Object> point, List<String> keys) {
        Map<String, Object> kept = new LinkedHashMap<>(point);
        keys.forEach(kept::remove);
        return kept;
    }

    private static String runs(long n) {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? "run" : "runs");
    }
}
