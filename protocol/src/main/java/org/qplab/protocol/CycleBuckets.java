package org.qplab.protocol;

/**
 * The cycle-time histogram's buckets, the same in the engine (qpb_stats.h), on the wire and in the
 * database (V3__run_histogram.sql's qplab_cycle_bucket): a time below 256 ns is its own bucket; above,
 * with e = floor(log2 ns) - 7, it falls in bucket e × 128 + (ns &gt;&gt; e): 128 buckets per power of
 * two, each at most 1/128 of its lower bound wide, up to 2^64.
 */
public final class CycleBuckets {

    /** Buckets in all (the engine's QPB_HIST_BUCKETS). */
    public static final int COUNT = (64 - 7 + 1) * 128;

    private CycleBuckets() {
    }

    public static int of(long ns) {
        if (ns < 256) {
            return (int) Math.max(ns, 0);
        }
        int e = 63 - Long.numberOfLeadingZeros(ns) - 7;
        return e * 128 + (int) (ns >>> e);
    }

    /** The smallest time in the bucket. */
    public static long lowNs(int bucket) {
        if (bucket < 256) {
            return bucket;
        }
        int e = bucket / 128 - 1;
        return (long) (bucket - e * 128) << e;
    }

    /** The time just past the bucket (its high end, exclusive). */
    public static long highNs(int bucket) {
        return bucket < 256 ? bucket + 1 : lowNs(bucket) + (1L << (bucket / 128 - 1));
    }

    /** The midpoint of the integer times in the bucket, as the engine reports a percentile. */
    public static long midNs(int bucket) {
        return bucket < 256 ? bucket : lowNs(bucket) + ((1L << (bucket / 128 - 1)) - 1) / 2;
    }

    /**
     * perftest's nearest-rank percentile (the ceil(p × total)-th smallest time) of a histogram with ascending
     * buckets, as its bucket's midpoint clamped to [minNs, maxNs]; 0 when it is empty.
     */
    public static long percentile(int[] buckets, long[] counts, long total, double p, long minNs, long maxNs) {
        if (total <= 0 || buckets.length == 0) {
            return 0;
        }
        long rank = Math.max(1, Math.min(total, (long) Math.ceil(p * total)));
        long seen = 0;
        int i = 0;
        for (; i < buckets.length - 1; i++) {
            seen += counts[i];
            if (seen >= rank) {
                break;
            }
        }
        return Math.max(minNs, Math.min(maxNs, midNs(buckets[i])));
    }
}
