package org.qplab.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StoredHistogramTests {

    /** Encodes, checks the format's marker, decodes and checks every bucket and count. */
    private static byte[] roundTrip(int[] buckets, long[] counts) {
        byte[] stored = StoredHistogram.encode(buckets, counts);
        assertThat(stored[0]).isZero();
        assertThat(stored[1]).isEqualTo((byte) StoredHistogram.RUNS);
        Interval.Histogram h = StoredHistogram.decode(stored);
        assertThat(h.buckets()).containsExactly(buckets);
        assertThat(h.counts()).containsExactly(counts);
        long total = 0;
        for (long c : counts) {
            total = Math.addExact(total, c);
        }
        assertThat(h.total()).isEqualTo(total);
        assertThat(StoredHistogram.checkRuns(stored)).isEqualTo(total);
        return stored;
    }

    private static byte[] pairs(int[] buckets, long[] counts) {
        ByteBuffer out = ByteBuffer.allocate(Interval.histogramMaxBytes(buckets.length));
        Interval.encodeHistogram(out, buckets, counts);
        return Arrays.copyOf(out.array(), out.position());
    }

    /** Cycle times drawn one by one (Poisson noise in every count, as an engine counts them): log-normal, a sparse tail. */
    private static TreeMap<Integer, Long> drawn(long cycles, double medianNs, double sigma, Random random) {
        TreeMap<Integer, Long> h = new TreeMap<>();
        for (long i = 0; i < cycles; i++) {
            double ns = i % 10_000 == 0 ? medianNs * 2 * Math.pow(15, random.nextDouble())
                    : medianNs * Math.exp(sigma * random.nextGaussian());
            h.merge(CycleBuckets.of((long) ns), 1L, Long::sum);
        }
        return h;
    }

    @Test
    void roundTripsAnEmptyHistogramAndOneBucket() {
        roundTrip(new int[0], new long[0]);
        roundTrip(new int[] {0}, new long[] {1});
        roundTrip(new int[] {CycleBuckets.COUNT - 1}, new long[] {Long.MAX_VALUE});
        roundTrip(new int[] {4000}, new long[] {1L << 40});
    }

    @Test
    void roundTripsTheTopBucketsAndHugeCountsExactly() {
        int top = CycleBuckets.COUNT - 1;
        roundTrip(new int[] {0, 1, 2, top - 2, top - 1, top},
                new long[] {Long.MAX_VALUE / 8, 1, Long.MAX_VALUE / 8, 1, Long.MAX_VALUE / 8, 7});
        // a count that jumps from 1 to the largest and back: differences of nearly 2^63 either way (the escape)
        roundTrip(new int[] {10, 11, 12, 13}, new long[] {1, Long.MAX_VALUE - 3, 1, 1});
        // the line through two counts overshoots 2^63 and below 0
        roundTrip(new int[] {20, 21, 22, 23, 24}, new long[] {1, Long.MAX_VALUE / 2 + 1, 1, Long.MAX_VALUE / 4, 1});
    }

    @Test
    void roundTripsEveryShapeOfRunsAtRandom() {
        Random random = new Random(38);
        for (int trial = 0; trial < 2000; trial++) {
            int n = random.nextInt(trial % 10 == 0 ? CycleBuckets.COUNT : 60) + 1;
            TreeMap<Integer, Long> h = new TreeMap<>();
            int bucket = random.nextInt(300);
            while (h.size() < n && bucket < CycleBuckets.COUNT) {
                long count = switch (random.nextInt(4)) {
                    case 0 -> 1;
                    case 1 -> 1 + random.nextInt(100);
                    case 2 -> 1 + (random.nextLong() >>> (1 + random.nextInt(62)));
                    default -> 1 + random.nextInt(5000);
                };
                h.put(bucket, count);
                bucket += random.nextInt(3) == 0 ? 1 + random.nextInt(40) : 1;
            }
            int[] buckets = h.keySet().stream().mapToInt(Integer::intValue).toArray();
            long[] counts = h.values().stream().mapToLong(Long::longValue).toArray();
            if (Arrays.stream(counts).mapToObj(java.math.BigInteger::valueOf).reduce(java.math.BigInteger.ZERO,
                    java.math.BigInteger::add).bitLength() < 64) {
                roundTrip(buckets, counts);
            } else {
                assertThatThrownBy(() -> StoredHistogram.decode(StoredHistogram.encode(buckets, counts)))
                        .hasMessageContaining("more than 63 bits");
            }
        }
    }

    @Test
    void takesAboutOneByteABucketWhereAnEngineCountedEveryCycle() {
        Random random = new Random(1);
        TreeMap<Integer, Long> h = drawn(400_000, 32_000, 0.2, random);
        int[] buckets = h.keySet().stream().mapToInt(Integer::intValue).toArray();
        long[] counts = h.values().stream().mapToLong(Long::longValue).toArray();

        byte[] stored = roundTrip(buckets, counts);

        assertThat(buckets.length).isBetween(250, 450);
        assertThat(stored.length).as("%d buckets", buckets.length).isLessThan(buckets.length + 60)
                .isLessThan(pairs(buckets, counts).length / 2);
    }

    @Test
    void readsThePairListOfRowsStoredBeforeIt() {
        int[] buckets = {0, 5, 300, 301, CycleBuckets.COUNT - 1};
        long[] counts = {1, 128, 3, Long.MAX_VALUE / 4, 9};
        Interval.Histogram h = StoredHistogram.decode(pairs(buckets, counts));
        assertThat(h.buckets()).containsExactly(buckets);
        assertThat(h.counts()).containsExactly(counts);

        assertThat(StoredHistogram.decode(new byte[] {0}).buckets()).isEmpty(); // the empty pair list
        assertThat(StoredHistogram.decode(pairs(new int[] {200}, new long[] {1})).counts()).containsExactly(1);
    }

    /**
     * Every bit of a few histograms flipped, one at a time, and random bytes after a valid head: what decodes is a
     * histogram (buckets ascend below the top, counts above 0, their sum the total), and checking without the arrays
     * gives the same total or the same refusal.
     */
    @Test
    void corruptedBytesDecodeToAHistogramOrAreRefusedAlikeWithOrWithoutArrays() {
        Random random = new Random(7);
        TreeMap<Integer, Long> drawn = drawn(20_000, 32_000, 0.2, random);
        java.util.List<byte[]> samples = new java.util.ArrayList<>(java.util.List.of(
                StoredHistogram.encode(drawn.keySet().stream().mapToInt(Integer::intValue).toArray(),
                        drawn.values().stream().mapToLong(Long::longValue).toArray()),
                StoredHistogram.encode(new int[] {10, 11, 12, 13, 90, 4000}, new long[] {1, Long.MAX_VALUE / 4, 1, 2, 5, 1})));
        for (int trial = 0; trial < 300; trial++) {
            byte[] noise = new byte[4 + random.nextInt(40)];
            random.nextBytes(noise);
            noise[0] = 0;
            noise[1] = (byte) StoredHistogram.RUNS;
            noise[2] = (byte) random.nextInt(100); // a bucket count that fits
            noise[3] = (byte) random.nextInt(100);
            samples.add(noise);
        }
        int decoded = 0;
        int refused = 0;
        for (byte[] sample : samples) {
            for (int bit = -1; bit < (sample.length > 60 ? 8 * sample.length : 0); bit++) {
                byte[] b = sample.clone();
                if (bit >= 0) {
                    b[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
                }
                if (b.length < 2 || b[0] != 0 || b[1] != StoredHistogram.RUNS) {
                    continue;
                }
                String decodeFailure = null;
                Interval.Histogram h = null;
                try {
                    h = StoredHistogram.decode(b);
                } catch (IllegalArgumentException e) {
                    decodeFailure = e.getMessage();
                }
                String checkFailure = null;
                long total = -1;
                try {
                    total = StoredHistogram.checkRuns(b);
                } catch (IllegalArgumentException e) {
                    checkFailure = e.getMessage();
                }
                assertThat(checkFailure).as("bit %d", bit).isEqualTo(decodeFailure);
                if (h == null) {
                    refused++;
                    continue;
                }
                decoded++;
                long sum = 0;
                for (int k = 0; k < h.buckets().length; k++) {
                    assertThat(h.buckets()[k]).isBetween(k == 0 ? 0 : h.buckets()[k - 1] + 1, CycleBuckets.COUNT - 1);
                    assertThat(h.counts()[k]).isPositive();
                    sum = Math.addExact(sum, h.counts()[k]);
                }
                assertThat(total).isEqualTo(sum).isEqualTo(h.total());
            }
        }
        assertThat(decoded).isPositive();
        assertThat(refused).isPositive();
    }

    @Test
    void refusesWhatItCannotHaveWritten() {
        byte[] stored = StoredHistogram.encode(new int[] {100, 101, 102, 500}, new long[] {3, 4, 5, 1});
        assertThatThrownBy(() -> StoredHistogram.decode(Arrays.copyOf(stored, stored.length - 1)))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] longer = Arrays.copyOf(stored, stored.length + 1);
        longer[stored.length] = 1;
        assertThatThrownBy(() -> StoredHistogram.decode(longer)).hasMessageContaining("after its last bucket");
        assertThatThrownBy(() -> StoredHistogram.decode(new byte[] {0, 9, 1})).hasMessageContaining("unknown format 9");
        assertThatThrownBy(() -> StoredHistogram.encode(new int[] {5, 5}, new long[] {1, 1}))
                .hasMessageContaining("ascend");
        assertThatThrownBy(() -> StoredHistogram.encode(new int[] {CycleBuckets.COUNT}, new long[] {1}))
                .hasMessageContaining("below");
        // a run reaching past the last bucket: the first bucket is the top one, the run says two
        assertThatThrownBy(() -> StoredHistogram.decode(new byte[] {0, 2, 2, (byte) 0xFF, 0x39, 0b0000_0100}))
                .hasMessageContaining("beyond the histogram");
        // two runs of one bucket from 100, the gap between them escaped as 2^64 - 2: read as a signed -2, the second run
        // would start at the first's bucket
        String bits = "0" + "00000" + "00000" + "1".repeat(32) + "1".repeat(63) + "0" + "0000" + "0000";
        byte[] backwards = new byte[4 + (bits.length() + 7) / 8];
        backwards[0] = 0;
        backwards[1] = (byte) StoredHistogram.RUNS;
        backwards[2] = 2;
        backwards[3] = 100;
        for (int i = 0; i < bits.length(); i++) {
            backwards[4 + i / 8] |= (byte) (bits.charAt(i) == '1' ? 0x80 >>> (i % 8) : 0);
        }
        assertThatThrownBy(() -> StoredHistogram.decode(backwards)).hasMessageContaining("beyond the histogram");
        assertThatThrownBy(() -> StoredHistogram.checkRuns(backwards)).hasMessageContaining("beyond the histogram");
        byte[] pairsThenMore = Arrays.copyOf(pairs(new int[] {7}, new long[] {2}), 4);
        assertThatThrownBy(() -> StoredHistogram.decode(pairsThenMore)).hasMessageContaining("after its pairs");
    }
}
