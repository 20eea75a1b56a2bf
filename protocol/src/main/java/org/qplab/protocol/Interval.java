package org.qplab.protocol;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Function;

/**
 * One interval of one thread of a run: every cycle that ended in it is counted here, and its cycle
 * times are in the histogram (the engine's qpb_interval, engine/src/main/c/qpb.h). Times are ns since
 * the run's t0 on the engine's monotonic clock; the interval holds the cycles that ended from
 * {@code index × interval_ms} for {@code span} intervals (1, more only when the engine could not
 * hand a record over in time). Histogram buckets: {@link CycleBuckets}; {@code buckets} ascend,
 * every count is above 0 and the counts add up to {@code cycles}.
 */
public record Interval(int thread, long index, int span, long cycles, long messages, long bytes, long errors,
                       long minNs, long maxNs, long firstStartNs, long lastEndNs, int[] buckets, long[] counts) {

    /** The most buckets a histogram has (the engine's QPB_HIST_BUCKETS). */
    public static final int MAX_BUCKETS = CycleBuckets.COUNT;

    public Interval {
        if (buckets.length != counts.length) {
            throw new IllegalArgumentException(buckets.length + " buckets but " + counts.length + " counts");
        }
    }

    /** The same interval with that histogram. */
    public Interval withHistogram(int[] buckets, long[] counts) {
        return new Interval(thread, index, span, cycles, messages, bytes, errors, minNs, maxNs, firstStartNs, lastEndNs,
                buckets, counts);
    }

    /** The cycle time at nearest rank ceil(p × cycles), as its bucket's midpoint within [minNs, maxNs]. */
    public long percentileNs(double p) {
        return CycleBuckets.percentile(buckets, counts, cycles, p, minNs, maxNs);
    }

    /**
     * Encodes this interval onto out (unsigned LEB128 varints): thread, index, span, cycles, messages, bytes,
     * errors, minNs, maxNs - minNs, firstStartNs, lastEndNs - firstStartNs, then the histogram
     * ({@link #encodeHistogram}).
     */
    public void encode(ByteBuffer out) {
        encodeFields(out);
        encodeHistogram(out, buckets, counts);
    }

    /** The most bytes {@link #encodeFields} writes. */
    static final int FIELDS_MAX_BYTES = 11 * Varint.MAX_BYTES;

    /** The interval's fields without its histogram: what {@link #encode} writes before it. */
    void encodeFields(ByteBuffer out) {
        Varint.put(out, thread);
        Varint.put(out, index);
        Varint.put(out, span);
        Varint.put(out, cycles);
        Varint.put(out, messages);
        Varint.put(out, bytes);
        Varint.put(out, errors);
        Varint.put(out, minNs);
        Varint.put(out, maxNs - minNs);
        Varint.put(out, firstStartNs);
        Varint.put(out, lastEndNs - firstStartNs);
    }

    /** At most the bytes {@link #encode} writes (a layout v2 frame's interval). */
    public int maxEncodedBytes() {
        return FIELDS_MAX_BYTES + histogramMaxBytes(buckets.length);
    }

    /**
     * The histogram alone, as a layout v2 frame carries it (and the database kept it before V33, {@link StoredHistogram}):
     * its pair count, then per pair (bucket − the previous bucket, count).
     */
    public static void encodeHistogram(ByteBuffer out, int[] buckets, long[] counts) {
        Varint.put(out, buckets.length);
        int previous = 0;
        for (int i = 0; i < buckets.length; i++) {
            Varint.put(out, buckets[i] - previous);
            Varint.put(out, counts[i]);
            previous = buckets[i];
        }
    }

    public static int histogramMaxBytes(int pairs) {
        return Varint.MAX_BYTES + pairs * (5 + Varint.MAX_BYTES);
    }

    /** The histogram bytes of this interval as a layout v2 frame carries them ({@link #encodeHistogram}). */
    public byte[] histogramBytes() {
        ByteBuffer out = ByteBuffer.allocate(histogramMaxBytes(buckets.length));
        encodeHistogram(out, buckets, counts);
        return Arrays.copyOf(out.array(), out.position());
    }

    /**
     * Decodes one interval written by {@link #encode}, checking everything a reader relies on; a malformed
     * one throws IllegalArgumentException saying what is wrong.
     */
    public static Interval decode(ByteBuffer in) {
        return decode(in, Interval::decodeHistogram);
    }

    /**
     * Decodes one interval's fields as {@link #encode} writes them, then its histogram with histogram (a layout v3
     * frame carries it in another format, {@link IntervalFrame}), with the same checks.
     */
    static Interval decode(ByteBuffer in, Function<ByteBuffer, Histogram> histogram) {
        int thread = Varint.getInt(in, "thread");
        long index = Varint.get(in, "index");
        int span = Varint.getInt(in, "span");
        long cycles = Varint.get(in, "cycles");
        long messages = Varint.get(in, "messages");
        long bytes = Varint.get(in, "bytes");
        long errors = Varint.get(in, "errors");
        long minNs = Varint.get(in, "min_ns");
        long maxNs = Math.addExact(minNs, Varint.get(in, "max_ns"));
        long firstStartNs = Varint.get(in, "first_start_ns");
        long lastEndNs = Math.addExact(firstStartNs, Varint.get(in, "last_end_ns"));
        Histogram h = histogram.apply(in);
        if (span < 1 || cycles < 1) {
            throw new IllegalArgumentException("interval " + index + " of thread " + thread + ": span " + span
                    + " and cycles " + cycles + " must be at least 1");
        }
        if (h.total() != cycles) {
            throw new IllegalArgumentException("interval " + index + " of thread " + thread + ": its histogram holds "
                    + h.total() + " cycles, not " + cycles);
        }
        return new Interval(thread, index, span, cycles, messages, bytes, errors, minNs, maxNs, firstStartNs, lastEndNs,
                h.buckets(), h.counts());
    }

    /** A decoded histogram: ascending buckets, their counts (each above 0), and the sum of the counts. */
    public record Histogram(int[] buckets, long[] counts, long total) {}

    /** Decodes a histogram written by {@link #encodeHistogram}. */
    public static Histogram decodeHistogram(ByteBuffer in) {
        int n = Varint.getInt(in, "bucket count");
        if (n > MAX_BUCKETS) {
            throw new IllegalArgumentException("a histogram of " + n + " buckets (at most " + MAX_BUCKETS + ")");
        }
        int[] buckets = new int[n];
        long[] counts = new long[n];
        long total = 0;
        int bucket = 0;
        for (int i = 0; i < n; i++) {
            long delta = Varint.get(in, "bucket");
            if ((i > 0 && delta == 0) || bucket + delta >= MAX_BUCKETS) {
                throw new IllegalArgumentException("histogram bucket " + (bucket + delta) + " after " + bucket
                        + ": buckets ascend and are below " + MAX_BUCKETS);
            }
            bucket += (int) delta;
            buckets[i] = bucket;
            counts[i] = Varint.get(in, "count");
            if (counts[i] == 0) {
                throw new IllegalArgumentException("histogram bucket " + bucket + " has a count of 0");
            }
            total = Math.addExact(total, counts[i]);
        }
        return new Histogram(buckets, counts, total);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Interval x && thread == x.thread && index == x.index && span == x.span && cycles == x.cycles
                && messages == x.messages && bytes == x.bytes && errors == x.errors && minNs == x.minNs && maxNs == x.maxNs
                && firstStartNs == x.firstStartNs && lastEndNs == x.lastEndNs && Arrays.equals(buckets, x.buckets)
                && Arrays.equals(counts, x.counts);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(index) * 31 + thread;
    }

    @Override
    public String toString() {
        return "Interval[thread=" + thread + ", index=" + index + ", span=" + span + ", cycles=" + cycles
                + ", buckets=" + buckets.length + "]";
    }
}
