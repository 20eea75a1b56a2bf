package org.qplab.controller.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's cycle-time distribution as the API shows it: the stored log-linear buckets of
 * V3__run_histogram.sql (128 per power of two, {@link org.qplab.protocol.CycleBuckets}) merged into
 * binsPerOctave bins per power of two.
 * The coarse bins use the same scheme with fewer sub-bins, so every stored bucket lies inside
 * exactly one of them and the counts add up to the run's cycles.
 */
public record CycleHistogram(long runId, long cycles, int binsPerOctave, List<Bin> bins) {

    /** Cycles whose time t satisfies lowNs ≤ t &lt; highNs. */
    public record Bin(long lowNs, long highNs, long count) {}

    static final int STORED_BINS_PER_OCTAVE = 128;

    /** storedCounts: stored bucket → count. binsPerOctave: a power of two from 1 to 128. */
    static CycleHistogram of(long runId, Map<Long, Long> storedCounts, int binsPerOctave) {
        Map<Long, Long> merged = new TreeMap<>();
        storedCounts.forEach((bucket, count) ->
                merged.merge(bin(lowNs(bucket, STORED_BINS_PER_OCTAVE), binsPerOctave), count, Long::sum));
        List<Bin> bins = new ArrayList<>(merged.size());
        merged.forEach((bin, count) -> bins.add(new Bin(lowNs(bin, binsPerOctave), highNs(bin, binsPerOctave), count)));
        return new CycleHistogram(runId, bins.stream().mapToLong(Bin::count).sum(), binsPerOctave, bins);
    }

    static boolean validBinsPerOctave(int k) {
        return k >= 1 && k <= STORED_BINS_PER_OCTAVE && Integer.bitCount(k) == 1;
    }

    /** The bin of a time: exact below 2k ns, then k bins per power of two (k = 128: qplab_cycle_bucket). */
    static long bin(long ns, int k) {
        if (ns < 2L * k) {
            return Math.max(ns, 0);
        }
        int e = 63 - Long.numberOfLeadingZeros(ns) - Integer.numberOfTrailingZeros(k);
        return (long) e * k + (ns >> e);
    }

    static long lowNs(long bin, int k) {
        if (bin < 2L * k) {
            return bin;
        }
        long e = bin / k - 1;
        return (bin - e * k) << e;
    }

    static long highNs(long bin, int k) {
        if (bin < 2L * k) {
            return bin + 1;
        }
        long e = bin / k - 1;
        return (bin - e * k + 1) << e;
    }
}
