package org.qplab.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An interval's histogram as the database keeps it (run_interval.buckets), in one of two formats, told apart by
 * the first byte:
 * <ul>
 *   <li><b>pairs</b> (V14, the wire's {@link Interval#encodeHistogram}): varint pair count, then per pair (bucket −
 *       the previous bucket, count). About 3 bytes a bucket: a byte for the bucket step, two for the count.</li>
 *   <li><b>runs</b> (V33): the bytes {@code 0x00 0x02}, varints of the bucket count and of the first bucket, then a
 *       bit stream (most significant bit first, zero-padded to a byte). The buckets come as runs of consecutive
 *       ones: per run the empty buckets since the previous run (− 1: there is at least one; none for the first
 *       run) and its length (− 1); per count of a run, its first as count − 1, every next one as the difference
 *       from a prediction by the run's previous counts (the previous count, or the line through the previous two:
 *       a bit in the stream says which; the encoder takes the one with the smaller differences). Each of these four kinds of number is an adaptive
 *       Rice code of its own (JPEG-LS's rule: the parameter follows the kind's recent mean), zigzag for the signed
 *       differences, and a value too large for it is written whole after an escape. Same buckets, exact counts:
 *       a body of a few hundred buckets takes about one byte a bucket, less where its counts change smoothly;
 *       the sparse tail a byte or two per run.</li>
 * </ul>
 * A pair list starts with byte 0 only when it is empty, a single byte: a longer value starting with 0 is the runs
 * format, whose second byte names it (other values are left for later formats). Rows stored before V33 stay as
 * they are and read as before. Why: the pair list was 903 of the 1,304 bytes an interval took to store (issue 38).
 */
public final class StoredHistogram {

    /** The second byte of the runs format. */
    static final int RUNS = 2;

    /** Unary quotients at least this long are an escape: the value follows whole, in 64 bits. */
    private static final int ESCAPE = 32;

    private StoredHistogram() {
    }

    /** The histogram (ascending buckets below {@link CycleBuckets#COUNT}, counts above 0) in the runs format. */
    public static byte[] encode(int[] buckets, long[] counts) {
        if (buckets.length != counts.length) {
            throw new IllegalArgumentException(buckets.length + " buckets but " + counts.length + " counts");
        }
        int n = buckets.length;
        ByteBuffer head = ByteBuffer.allocate(2 + 2 * Varint.MAX_BYTES);
        head.put((byte) 0).put((byte) RUNS);
        Varint.put(head, n);
        Varint.put(head, n == 0 ? 0 : buckets[0]);
        BitWriter out = new BitWriter(head.array(), head.position(), head.position() + 1 + n * 2);
        if (n == 0) {
            return out.finish();
        }
        boolean line = lineFits(buckets, counts);
        out.bit(line ? 1 : 0);
        Rice gaps = new Rice(4);
        Rice lengths = new Rice(16);
        Rice firsts = new Rice(16);
        Rice steps = new Rice(16);
        for (int start = 0; start < n; ) {
            int end = start + 1;
            while (end < n && buckets[end] == buckets[end - 1] + 1) {
                end++;
            }
            if (start > 0) {
                gaps.put(out, buckets[start] - buckets[start - 1] - 2L);
            }
            lengths.put(out, end - start - 1L);
            firsts.put(out, counts[start] - 1);
            for (int i = start + 1; i < end; i++) {
                steps.put(out, zigzag(counts[i] - predict(counts, start, i, line)));
            }
            start = end;
        }
        return out.finish();
    }

    /** Decodes either format (a malformed value throws IllegalArgumentException saying what is wrong). */
    public static Interval.Histogram decode(byte[] stored) {
        if (runs(stored)) {
            return decodeRuns(stored, true);
        }
        ByteBuffer in = ByteBuffer.wrap(stored);
        Interval.Histogram h = Interval.decodeHistogram(in);
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("a stored histogram with " + in.remaining() + " bytes after its pairs");
        }
        return h;
    }

    /**
     * Checks a histogram in the runs format as {@link #decode} does, without keeping its buckets: its total (the cycles
     * it counts). What a controller needs of a frame's histogram to store it (issue 38): less CPU than decode (in
     * bench/ingest's HistogramCost 3.6-3.8 µs against 4.4-4.6 for ~350 buckets), and none of its arrays.
     */
    public static long checkRuns(byte[] stored) {
        if (!runs(stored)) {
            throw new IllegalArgumentException("a histogram not in the runs format");
        }
        return decodeRuns(stored, false).total();
    }

    /** Whether the value is in the runs format (a pair list otherwise); another format after byte 0 is refused. */
    private static boolean runs(byte[] stored) {
        if (stored.length > 1 && stored[0] == 0) {
            if (stored[1] != RUNS) {
                throw new IllegalArgumentException("a stored histogram of unknown format " + (stored[1] & 0xFF));
            }
            return true;
        }
        return false;
    }

    private static final int[] NO_BUCKETS = {};
    private static final long[] NO_COUNTS = {};

    /** keep: the buckets and counts in arrays; otherwise only checked and added up (the histogram's arrays empty). */
    private static Interval.Histogram decodeRuns(byte[] stored, boolean keep) {
        ByteBuffer head = ByteBuffer.wrap(stored, 2, stored.length - 2);
        int n = Varint.getInt(head, "bucket count");
        int first = Varint.getInt(head, "first bucket");
        if (n > CycleBuckets.COUNT || first >= CycleBuckets.COUNT) {
            throw new IllegalArgumentException("a histogram of " + n + " buckets from bucket " + first + " (at most "
                    + CycleBuckets.COUNT + " buckets, below " + CycleBuckets.COUNT + ")");
        }
        BitReader in = new BitReader(stored, head.position());
        int[] buckets = keep ? new int[n] : NO_BUCKETS;
        long[] counts = keep ? new long[n] : NO_COUNTS;
        long total = 0;
        if (n > 0) {
            boolean line = in.bit() == 1;
            Rice gaps = new Rice(4);
            Rice lengths = new Rice(16);
            Rice firsts = new Rice(16);
            Rice steps = new Rice(16);
            long bucket = first;
            for (int start = 0; start < n; ) {
                if (start > 0) { // bucket: the previous run's last one
                    long gap = gaps.get(in);
                    bucket = gap < 0 ? -1 : bucket + 2 + gap; // a gap of 2^63 or more: refused below
                }
                long length = lengths.get(in) + 1;
                if (length <= 0 || length > n - start || bucket < 0 || bucket + length > CycleBuckets.COUNT) {
                    throw new IllegalArgumentException("a run of " + length + " buckets from bucket " + bucket + " after "
                            + start + " of " + n + " buckets: beyond the histogram");
                }
                int end = start + (int) length;
                long c = firsts.get(in) + 1; // wraps to Long.MIN_VALUE when it overflows; below, c and the one before it
                                             // are the predictions' input
                long before = 0;
                for (int i = start; ; ) {
                    if (c <= 0) {
                        throw new IllegalArgumentException("histogram bucket " + (bucket + i - start)
                                + (c == Long.MIN_VALUE ? ": its count overflows" : " has a count of " + c));
                    }
                    total += c;
                    if (total < 0) {
                        throw new IllegalArgumentException("a histogram whose counts add up to more than 63 bits");
                    }
                    if (keep) {
                        buckets[i] = (int) bucket + (i - start);
                        counts[i] = c;
                    }
                    if (++i == end) {
                        break;
                    }
                    long predicted = line && i - 2 >= start ? line(c, before) : c;
                    long step = unzigzag(steps.get(in));
                    before = c;
                    c = predicted + step;
                    if (((predicted ^ c) & (step ^ c)) < 0) { // overflowed: the sum's sign is neither's
                        c = Long.MIN_VALUE;
                    }
                }
                bucket += length - 1;
                start = end;
            }
        }
        in.end();
        return new Interval.Histogram(buckets, counts, total);
    }

    /** Count i's prediction from its run's (from start) previous counts: the previous one, or the line through two. */
    private static long predict(long[] counts, int start, int i, boolean line) {
        return line && i - 2 >= start ? line(counts[i - 1], counts[i - 2]) : counts[i - 1];
    }

    /** The line through the previous count b and the last one a, at the next bucket (never below 0). */
    private static long line(long a, long b) {
        if (a > Long.MAX_VALUE / 2) {
            return a; // 2a would not fit
        }
        return Math.max(0, 2 * a - b);
    }

    /**
     * Checks the histogram (ascending buckets below {@link CycleBuckets#COUNT}, counts above 0) and says whether the
     * line through each run's previous two counts predicts the counts better than the previous count: its differences
     * take fewer bits in all (their bit lengths summed, about what a Rice code spends).
     */
    private static boolean lineFits(int[] buckets, long[] counts) {
        long flat = 0;
        long line = 0;
        int start = 0;
        for (int i = 0; i < buckets.length; i++) {
            int b = buckets[i];
            if (b < 0 || b >= CycleBuckets.COUNT || (i > 0 && b <= buckets[i - 1])) {
                throw new IllegalArgumentException("histogram bucket " + b + (i > 0 ? " after " + buckets[i - 1] : "")
                        + ": buckets ascend and are below " + CycleBuckets.COUNT);
            }
            if (counts[i] <= 0) {
                throw new IllegalArgumentException("histogram bucket " + b + " has a count of " + counts[i]);
            }
            if (i == 0 || b != buckets[i - 1] + 1) {
                start = i;
                continue;
            }
            flat += 64 - Long.numberOfLeadingZeros(zigzag(counts[i] - counts[i - 1]));
            line += 64 - Long.numberOfLeadingZeros(zigzag(counts[i] - predict(counts, start, i, true)));
        }
        return line < flat;
    }

    /** A signed difference as an unsigned value: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... (counts are below 2^63: exact). */
    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /**
     * An adaptive Rice code (Golomb with a power of two): a value v as v &gt;&gt; k in unary (ones, then a zero) and
     * its low k bits; k the smallest with count × 2^k ≥ the sum of the recent values (JPEG-LS), both halved every
     * 32 values so that it follows a changing mean. Values are unsigned 64-bit; a quotient of {@link #ESCAPE} or more
     * is the escape, then the value in 64 bits.
     */
    private static final class Rice {
        private long sum;
        private long count = 1;

        Rice(long initialMean) {
            sum = initialMean;
        }

        /** The smallest k with count × 2^k ≥ sum: the bit lengths' difference, or one more (sum &lt; 2^61: no overflow). */
        private int k() {
            int k = Math.max(0, Long.numberOfLeadingZeros(count) - Long.numberOfLeadingZeros(sum));
            return (count << k) < sum ? k + 1 : k;
        }

        private void seen(long v) { // v unsigned
            long room = Long.MAX_VALUE / 4 - sum; // saturating: only k depends on the sum
            sum += (v < 0 || v > room) ? room : v;
            if (++count == 32) {
                sum >>>= 1;
                count >>>= 1;
            }
        }

        void put(BitWriter out, long v) {
            int k = k();
            long q = v >>> k;
            if (Long.compareUnsigned(q, ESCAPE) < 0 && q + 1 + k <= 64) { // q ones, a zero, the low k bits: one write
                out.bits((((1L << q) - 1) << 1 << k) | (v & ((1L << k) - 1)), (int) q + 1 + k);
            } else if (Long.compareUnsigned(q, ESCAPE) < 0) {
                out.ones((int) q);
                out.bit(0);
                out.bits(v, k);
            } else {
                out.ones(ESCAPE);
                out.bits(v, 64);
            }
            seen(v);
        }

        long get(BitReader in) {
            long v = in.rice(k()); // unsigned: the caller checks it
            seen(v);
            return v;
        }
    }

    /** Writes a bit stream after a head of whole bytes, most significant bit first, zero-padded to a byte. */
    private static final class BitWriter {
        private byte[] buf;
        private int bytes;   // whole bytes written
        private long acc;    // bits not yet in buf, the last written lowest
        private int pending; // how many (0-31 between calls)

        BitWriter(byte[] head, int length, int capacity) {
            buf = Arrays.copyOf(head, Math.max(length + 16, capacity));
            bytes = length;
        }

        void bit(int b) {
            bits(b, 1);
        }

        void ones(int n) {
            bits(-1L, n);
        }

        /** The low n (at most 64) bits of v, the highest first; 32 bits go to buf at a time. */
        void bits(long v, int n) {
            if (n > 32) {
                bits(v >>> 32, n - 32);
                n = 32;
            }
            if (n == 0) {
                return;
            }
            acc = (acc << n) | (v & (-1L >>> (64 - n)));
            pending += n;
            if (pending >= 32) {
                pending -= 32;
                if (bytes + 4 > buf.length) {
                    buf = Arrays.copyOf(buf, buf.length * 2 + 4);
                }
                int w = (int) (acc >>> pending);
                buf[bytes] = (byte) (w >>> 24);
                buf[bytes + 1] = (byte) (w >>> 16);
                buf[bytes + 2] = (byte) (w >>> 8);
                buf[bytes + 3] = (byte) w;
                bytes += 4;
            }
        }

        byte[] finish() {
            bits(0, (8 - pending % 8) % 8);
            byte[] out = Arrays.copyOf(buf, bytes + pending / 8);
            for (int i = 0; i < pending / 8; i++) {
                out[bytes + i] = (byte) (acc >>> (pending - 8 * (i + 1)));
            }
            return out;
        }
    }

    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** Reads a bit stream written by {@link BitWriter}, up to 64 bits at a time. */
    private static final class BitReader {
        private final byte[] buf;
        private int next;    // the next byte to load
        private long window; // the next bits, the first at bit 63, zeros after the last loaded
        private int avail;   // how many bits of window are loaded

        BitReader(byte[] stored, int from) {
            buf = stored;
            next = from;
        }

        private void refill() {
            if (avail <= 56 && next + 8 <= buf.length) { // as many whole bytes as fit, in one read
                int take = (64 - avail) >>> 3;
                window |= ((long) BIG_ENDIAN_LONG.get(buf, next) >>> avail) & (-1L << (64 - avail - 8 * take));
                next += take;
                avail += 8 * take;
                return;
            }
            refillSlowly();
        }

        /** The last 7 bytes, one at a time. */
        private void refillSlowly() {
            while (avail <= 56 && next < buf.length) {
                window |= (long) (buf[next++] & 0xFF) << (56 - avail);
                avail += 8;
            }
        }

        private void need(int n) {
            if (avail < n) {
                refill();
                if (avail < n) {
                    throw new IllegalArgumentException("a stored histogram ends inside its bit stream");
                }
            }
        }

        int bit() {
            need(1);
            int b = (int) (window >>> 63);
            window <<= 1;
            avail--;
            return b;
        }

        /** n (at most 64) bits as a value, the first the highest. */
        long bits(int n) {
            if (n > 32) {
                long high = bits(n - 32);
                return (high << 32) | bits(32);
            }
            if (n == 0) {
                return 0;
            }
            need(n);
            long v = window >>> (64 - n);
            window <<= n;
            avail -= n;
            return v;
        }

        /**
         * A Rice-coded value with parameter k (below 64): the quotient in unary, the low k bits; a quotient of
         * {@link #ESCAPE} ones is followed by the value in 64 bits. One read of the window when it holds the whole code.
         */
        long rice(int k) {
            if (avail < 32) {
                refill();
            }
            int q = Long.numberOfLeadingZeros(~window); // the ones; the unloaded bits are zeros, so at most avail
            int used = q + 1 + k;
            if (q < ESCAPE && used <= avail) {
                long rest = window << (q + 1); // q + 1 at most 32
                window = rest << k;
                avail -= used;
                return ((long) q << k) | ((rest >>> 1) >>> (63 - k)); // the low bits: none when k is 0
            }
            return riceSlowly(k);
        }

        /** {@link #rice} when the code is longer than the window holds, or escaped: apart, so that rice is inlined. */
        private long riceSlowly(int k) {
            int q = unary(ESCAPE);
            return q == ESCAPE ? bits(64) : ((long) q << k) | bits(k);
        }

        /** The ones before the next zero (which it reads too), or limit when that many ones come first. */
        int unary(int limit) {
            int q = 0;
            while (true) {
                need(1);
                int ones = Math.min(Long.numberOfLeadingZeros(~window), avail);
                if (q + ones >= limit) {
                    int take = limit - q;
                    window <<= take;
                    avail -= take;
                    return limit;
                }
                if (ones < avail) {
                    window <<= ones; // two shifts: one by 64 would shift nothing
                    window <<= 1;
                    avail -= ones + 1;
                    return q + ones;
                }
                q += ones;
                window = 0;
                avail = 0;
            }
        }

        /** Checks that only the last byte's zero padding is left. */
        void end() {
            refill();
            if (next != buf.length || avail >= 8 || window != 0) {
                throw new IllegalArgumentException("a stored histogram with bits after its last bucket");
            }
        }
    }
}
