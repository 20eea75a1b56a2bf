package org.qplab.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;

/**
 * What the engine would report for given cycles: their intervals, as qpb_stats.c closes them (by end time,
 * interval_ns apart from t0), so tests that play an agent store the statistics a real one would.
 */
public final class TestIntervals {

    /** One cycle of one thread: its start and end (ns since t0) and its errors. */
    public record Cycle(int thread, long startNs, long endNs, long errors) {
        public Cycle(int thread, long startNs, long endNs) {
            this(thread, startNs, endNs, 0);
        }
    }

    private TestIntervals() {
    }

    /** The cycles' intervals, per thread in order; every cycle carries bytesPerCycle and messagesPerCycle. */
    public static List<Interval> of(List<Cycle> cycles, long intervalNs, long bytesPerCycle, long messagesPerCycle) {
        Map<List<Long>, List<Cycle>> byInterval = new TreeMap<>((a, b) -> a.get(0).equals(b.get(0))
                ? Long.compare(a.get(1), b.get(1)) : Long.compare(a.get(0), b.get(0)));
        for (Cycle c : cycles) {
            byInterval.computeIfAbsent(List.of((long) c.thread(), c.endNs() / intervalNs), k -> new ArrayList<>()).add(c);
        }
        List<Interval> out = new ArrayList<>();
        byInterval.forEach((key, in) -> {
            TreeMap<Integer, Long> histogram = new TreeMap<>();
            long min = Long.MAX_VALUE, max = Long.MIN_VALUE, first = Long.MAX_VALUE, last = Long.MIN_VALUE, errors = 0;
            for (Cycle c : in) {
                long d = c.endNs() - c.startNs();
                histogram.merge(CycleBuckets.of(d), 1L, Long::sum);
                min = Math.min(min, d);
                max = Math.max(max, d);
                first = Math.min(first, c.startNs());
                last = Math.max(last, c.endNs());
                errors += c.errors();
            }
            int[] buckets = histogram.keySet().stream().mapToInt(Integer::intValue).toArray();
            long[] counts = histogram.values().stream().mapToLong(Long::longValue).toArray();
            long n = in.size();
            out.add(new Interval((int) (long) key.get(0), key.get(1), 1, n, n * messagesPerCycle, n * bytesPerCycle, errors,
                    min, max, first, last, buckets, counts));
        });
        return out;
    }
}
