package org.qplab.controller.analysis;

import java.util.Arrays;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;

/**
 * Intervals added up: their cycle-time histograms bucket by bucket, their cycles, bytes, and the shortest
 * and longest cycle, so that the percentiles of any set of intervals (a thread's slot of a timeline, every
 * thread at one time) come from every cycle in them, exactly as the engine's would.
 */
public final class MergedHistogram {

    private final long[] counts = new long[CycleBuckets.COUNT];
    private int lowest = Integer.MAX_VALUE;
    private int highest = -1;
    private long cycles;
    private long bytes;
    private long minNs = Long.MAX_VALUE;
    private long maxNs = Long.MIN_VALUE;
    private long firstStartNs = Long.MAX_VALUE;
    private long lastEndNs = Long.MIN_VALUE;

    public void add(Interval i) {
        for (int k = 0; k < i.buckets().length; k++) {
            int b = i.buckets()[k];
            counts[b] += i.counts()[k];
            lowest = Math.min(lowest, b);
            highest = Math.max(highest, b);
        }
        cycles += i.cycles();
        bytes += i.bytes();
        minNs = Math.min(minNs, i.minNs());
        maxNs = Math.max(maxNs, i.maxNs());
        firstStartNs = Math.min(firstStartNs, i.firstStartNs());
        lastEndNs = Math.max(lastEndNs, i.lastEndNs());
    }

    /** perftest's nearest-rank percentile, as the engine reports it (its bucket's midpoint within min..max). */
    public long percentileNs(double p) {
        if (cycles == 0) {
            return 0;
        }
        long rank = Math.max(1, Math.min(cycles, (long) Math.ceil(p * cycles)));
        long seen = 0;
        for (int b = lowest; b <= highest; b++) {
            seen += counts[b];
            if (seen >= rank) {
                return Math.max(minNs, Math.min(maxNs, CycleBuckets.midNs(b)));
            }
        }
        return maxNs;
    }

    public long cycles() {
        return cycles;
    }

    public long bytes() {
        return bytes;
    }

    public long minNs() {
        return cycles == 0 ? 0 : minNs;
    }

    public long maxNs() {
        return cycles == 0 ? 0 : maxNs;
    }

    public long firstStartNs() {
        return cycles == 0 ? 0 : firstStartNs;
    }

    public long lastEndNs() {
        return cycles == 0 ? 0 : lastEndNs;
    }

    /** Empties it for reuse. */
    public void clear() {
        if (highest >= 0) {
            Arrays.fill(counts, lowest, highest + 1, 0);
        }
        lowest = Integer.MAX_VALUE;
        highest = -1;
        cycles = bytes = 0;
        minNs = firstStartNs = Long.MAX_VALUE;
        maxNs = lastEndNs = Long.MIN_VALUE;
    }
}
