package org.qplab.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IntervalFrameTests {

    /** The most trace records the agent puts in a frame (its FrameBatcher.MAX_RECORDS). */
    private static final int AGENT_RECORDS = 8192;

    static Interval interval(int thread, long index, long... bucketCounts) {
        int[] buckets = new int[bucketCounts.length / 2];
        long[] counts = new long[buckets.length];
        long cycles = 0;
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = (int) bucketCounts[2 * i];
            counts[i] = bucketCounts[2 * i + 1];
            cycles += counts[i];
        }
        long min = CycleBuckets.lowNs(buckets[0]), max = CycleBuckets.lowNs(buckets[buckets.length - 1]);
        return new Interval(thread, index, 1, cycles, cycles * 2, cycles * 8192, 1, min, max, index * 100_000_000L + 5,
                index * 100_000_000L + 99_000_000L, buckets, counts);
    }

    @Test
    void roundTripsEveryFieldOfIntervalsAndTraceRecords() {
        var trace = List.of(
                new TraceRecord(0, 0, 0, 10, 2_000, 4096, 1),
                new TraceRecord(3, 2, 1L << 40, Long.MAX_VALUE - 1, Long.MAX_VALUE, 1L << 33, 1000));
        var intervals = List.of(
                interval(0, 7, 20, 3, 300, 1_000_000, CycleBuckets.of(1L << 50), 1),
                new Interval(1023, Long.MAX_VALUE / 2, 3, 1L << 40, 1L << 41, Long.MAX_VALUE / 4, 0, 0,
                        Long.MAX_VALUE / 8, 1, Long.MAX_VALUE / 2, new int[] {0}, new long[] {1L << 40}));
        ByteBuffer encoded = IntervalFrame.of(42, 7, trace, intervals).encode();

        IntervalFrame decoded = IntervalFrame.decode(encoded);
        assertThat(decoded.runId()).isEqualTo(42);
        assertThat(decoded.seq()).isEqualTo(7);
        assertThat(decoded.traceRecords()).containsExactlyElementsOf(trace);
        assertThat(decoded.intervals()).containsExactlyElementsOf(intervals);
        assertThat(decoded.cycles()).isEqualTo(1_000_004L + (1L << 40));
    }

    @Test
    void writesLayoutV3CarryingEachHistogramInTheRunsFormatAsTheDatabaseStoresIt() {
        var intervals = List.of(interval(0, 7, 20, 3, 21, 4, 22, 6, 300, 1), interval(1, 7, 5000, 2));
        ByteBuffer encoded = new IntervalFrame(42, 7, intervals).encode();

        assertThat(encoded.order(ByteOrder.LITTLE_ENDIAN).getShort(4)).isEqualTo((short) 3);
        IntervalFrame decoded = IntervalFrame.decode(encoded);
        // what storing reads: the fields, the histograms' bytes; the buckets are not built into arrays until asked for
        assertThat(decoded.intervalCount()).isEqualTo(2);
        assertThat(decoded.cycles()).isEqualTo(intervals.get(0).cycles() + intervals.get(1).cycles());
        for (int k = 0; k < intervals.size(); k++) {
            Interval fields = decoded.intervalFields().get(k);
            assertThat(fields.buckets()).isEmpty();
            assertThat(fields.withHistogram(intervals.get(k).buckets(), intervals.get(k).counts())).isEqualTo(intervals.get(k));
            assertThat(decoded.storedHistogram(k))
                    .isEqualTo(StoredHistogram.encode(intervals.get(k).buckets(), intervals.get(k).counts()));
        }
        assertThat(decoded.intervals()).containsExactlyElementsOf(intervals);
        assertThat(decoded.intervals()).isSameAs(decoded.intervals()); // decoded once
        // a frame built here, or read from v2, has its intervals whole in both
        IntervalFrame v2 = IntervalFrame.decode(new IntervalFrame(42, 7, intervals).encode(2));
        assertThat(v2.intervalFields()).containsExactlyElementsOf(intervals);
    }

    @Test
    void keepsTheHistogramBytesAFrameCarriedAsTheyAre() {
        // one bucket (100, count 5) with the line-prediction bit (the bit stream's first) set: valid, though the
        // encoder writes it clear (a run of one count predicts nothing)
        byte[] canonical = StoredHistogram.encode(new int[] {100}, new long[] {5});
        byte[] carried = canonical.clone();
        carried[4] |= (byte) 0x80;
        assertThat(carried).isNotEqualTo(canonical);

        IntervalFrame decoded = IntervalFrame.decode(v3(9, 3, interval(0, 1, 100, 5), carried));

        assertThat(decoded.intervals()).containsExactly(interval(0, 0, 10, 1), interval(0, 1, 100, 5));
        assertThat(decoded.storedHistogram(1)).isEqualTo(carried);
    }

    @Test
    void stillReadsLayoutV2TheEarlierReleasesAgentsSend() {
        var trace = List.of(new TraceRecord(0, 0, 0, 10, 2_000, 4096, 1));
        var intervals = List.of(interval(0, 7, 20, 3, 300, 1_000_000), interval(3, 8, 100, 1));
        ByteBuffer v2 = IntervalFrame.of(42, 7, trace, intervals).encode(2);

        assertThat(v2.order(ByteOrder.LITTLE_ENDIAN).getShort(4)).isEqualTo((short) 2);
        IntervalFrame decoded = IntervalFrame.decode(v2);
        assertThat(decoded.traceRecords()).containsExactlyElementsOf(trace);
        assertThat(decoded.intervals()).containsExactlyElementsOf(intervals);
        assertThat(decoded.storedHistogram(1)).as("encoded when asked for")
                .isEqualTo(StoredHistogram.encode(new int[] {100}, new long[] {1}));
    }

    @Test
    void refusesAV3FrameWhoseHistogramIsMalformedNamingTheInterval() {
        Interval i = interval(0, 1, 100, 3, 101, 4, 102, 5, 500, 1);
        byte[] good = StoredHistogram.encode(i.buckets(), i.counts());
        byte[] longer = Arrays.copyOf(good, good.length + 1);
        longer[good.length] = (byte) 0x80;
        byte[] moreBuckets = good.clone();
        moreBuckets[2] = 5; // says 5 buckets, carries 4
        ByteBuffer pairs = ByteBuffer.allocate(Interval.histogramMaxBytes(4));
        Interval.encodeHistogram(pairs, i.buckets(), i.counts());
        String interval1 = "frame 3 of run 9, interval 1 of 2: ";

        assertThatThrownBy(() -> IntervalFrame.decode(v3(9, 3, i, longer)))
                .hasMessage(interval1 + "a stored histogram with bits after its last bucket");
        assertThatThrownBy(() -> IntervalFrame.decode(v3(9, 3, i, moreBuckets)))
                .hasMessageStartingWith(interval1);
        assertThatThrownBy(() -> IntervalFrame.decode(v3(9, 3, i, Arrays.copyOf(good, good.length - 1))))
                .hasMessage(interval1 + "a stored histogram ends inside its bit stream");
        Interval moreCycles = new Interval(0, 1, 1, 14, 0, 0, 0, 100, 500, 0, 1, i.buckets(), i.counts());
        assertThatThrownBy(() -> IntervalFrame.decode(v3(9, 3, moreCycles, good)))
                .hasMessage(interval1 + "interval 1 of thread 0: its histogram holds 13 cycles, not 14");
        assertThatThrownBy(() -> IntervalFrame.decode(v3(9, 3, i, Arrays.copyOf(pairs.array(), pairs.position()))))
                .hasMessage(interval1 + "a histogram not in the runs format (v3 frames carry only that)");
        assertThatThrownBy(() -> IntervalFrame.decode(v3(9, 3, i, new byte[] {0, 9, 1})))
                .hasMessage(interval1 + "a histogram not in the runs format (v3 frames carry only that)");

        ByteBuffer whole = v3(9, 3, i, good);
        assertThatThrownBy(() -> IntervalFrame.decode(whole.slice(0, whole.remaining() - 1)))
                .hasMessage(interval1 + "a histogram of " + good.length + " bytes, but the frame ends after "
                        + (good.length - 1));
    }

    @Test
    void framesSizedByTheirHistogramsStayWithinTheLimitEvenForTheWorstHistograms() {
        Random random = new Random(38);
        List<Interval> worst = new ArrayList<>();
        for (int shape = 0; shape < 4; shape++) {
            // every bucket, or every other (a run each); counts below 2^49 (7,424 of them add up within 63 bits):
            // random, alternating 1 and huge, or 1 with a huge one now and then (an escape once the mean is low)
            int step = shape % 2 + 1;
            int[] buckets = new int[CycleBuckets.COUNT / step];
            long[] counts = new long[buckets.length];
            for (int b = 0; b < buckets.length; b++) {
                buckets[b] = b * step;
                counts[b] = switch (shape) {
                    case 0, 1 -> 1 + (random.nextLong() >>> 15);
                    case 2 -> b % 2 == 0 ? 1 : (1L << 49) - b;
                    default -> b % 50 == 49 ? (1L << 49) - b : 1;
                };
            }
            long cycles = Arrays.stream(counts).sum();
            worst.add(new Interval(shape, Long.MAX_VALUE / 2, Integer.MAX_VALUE, cycles, Long.MAX_VALUE, Long.MAX_VALUE,
                    Long.MAX_VALUE, 0, Long.MAX_VALUE, 0, Long.MAX_VALUE, buckets, counts));
        }
        // the agent's batcher: adds an interval while the frame's bound stays within the limit
        List<Interval> batch = new ArrayList<>();
        List<byte[]> histograms = new ArrayList<>();
        int bound = 0;
        for (int n = 0; ; n++) {
            Interval i = worst.get(n % worst.size());
            byte[] h = StoredHistogram.encode(i.buckets(), i.counts());
            assertThat(h.length).as("3 numbers of at most 12 bytes a bucket").isLessThanOrEqualTo(16 + 36 * i.buckets().length);
            int bytes = IntervalFrame.maxIntervalBytes(h.length);
            if (IntervalFrame.maxBytes(AGENT_RECORDS, bound + bytes) > IntervalFrame.MAX_BYTES) {
                break;
            }
            batch.add(i);
            histograms.add(h);
            bound += bytes;
        }
        IntervalFrame frame = new IntervalFrame(1, 0, ByteBuffer.allocate(AGENT_RECORDS * TraceRecord.BYTES),
                batch, histograms);

        assertThat(batch).hasSizeGreaterThanOrEqualTo(1);
        assertThat(frame.encodedBytes()).isLessThanOrEqualTo(IntervalFrame.MAX_BYTES);
        assertThat(IntervalFrame.decode(frame.encode()).intervals()).containsExactlyElementsOf(batch);
    }

    /** A v3 frame of run 9 whose second interval is i with histogram as its bytes (the first: a plain one). */
    private static ByteBuffer v3(long runId, long seq, Interval i, byte[] histogram) {
        Interval first = interval(0, 0, 10, 1);
        ByteBuffer buf = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(IntervalFrame.MAGIC).putShort((short) 3).putShort((short) 0).putLong(runId).putLong(seq)
                .putInt(0).putInt(2);
        byte[] firstHistogram = StoredHistogram.encode(first.buckets(), first.counts());
        first.encodeFields(buf);
        Varint.put(buf, firstHistogram.length);
        buf.put(firstHistogram);
        i.encodeFields(buf);
        Varint.put(buf, histogram.length);
        buf.put(histogram);
        return buf.flip();
    }

    @Test
    void anIntervalTakesAFewBytesPerBucket() {
        long[] pairs = new long[2 * 400];
        for (int i = 0; i < 400; i++) {
            pairs[2 * i] = 1000 + i;
            pairs[2 * i + 1] = 1 + i % 300; // counts up to 300: two bytes, buckets one apart: one
        }
        int bytes = new IntervalFrame(1, 0, List.of(interval(0, 1, pairs))).encodedBytes();

        assertThat(bytes).isLessThan(IntervalFrame.HEADER_BYTES + 40 + 400 * 3);
    }

    @Test
    void encodesAsABigEndianViewSoTheJdkWebSocketMasksItIntact() {
        ByteBuffer encoded = IntervalFrame.of(1, 0, List.of(new TraceRecord(0, 0, 0, 1, 2, 3, 4)), List.of()).encode();

        assertThat(encoded.order()).isEqualTo(ByteOrder.BIG_ENDIAN);
        assertThat(encoded.get(0)).isEqualTo((byte) 'Q');
        assertThat(encoded.get(3)).isEqualTo((byte) 'S');
    }

    @Test
    void refusesATruncatedFrame() {
        IntervalFrame frame = new IntervalFrame(1, 0, List.of(interval(0, 1, 10, 5, 20, 6)));
        ByteBuffer v3 = frame.encode();
        ByteBuffer v2 = frame.encode(2);

        assertThatThrownBy(() -> IntervalFrame.decode(v3.slice(0, v3.remaining() - 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interval 0 of 1: a histogram of 8 bytes, but the frame ends after 7");
        assertThatThrownBy(() -> IntervalFrame.decode(v2.slice(0, v2.remaining() - 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interval 0 of 1: the frame ends inside count");
    }

    @Test
    void refusesAnIntervalWhoseHistogramDoesNotAddUp() {
        Interval wrong = new Interval(0, 1, 1, 12, 12, 12, 0, 10, 20, 0, 5, new int[] {10, 20}, new long[] {5, 6});
        ByteBuffer encoded = new IntervalFrame(9, 3, List.of(wrong)).encode();

        assertThatThrownBy(() -> IntervalFrame.decode(encoded))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("frame 3 of run 9, interval 0 of 1: interval 1 of thread 0: its histogram holds 11 "
                        + "cycles, not 12");
    }

    @Test
    void refusesBytesAfterTheLastInterval() {
        ByteBuffer encoded = new IntervalFrame(1, 0, List.of(interval(0, 1, 10, 5))).encode();
        ByteBuffer longer = ByteBuffer.allocate(encoded.remaining() + 1).put(encoded).put((byte) 0).flip();

        assertThatThrownBy(() -> IntervalFrame.decode(longer))
                .hasMessageContaining("has 1 bytes after its 1 intervals");
    }

    @Test
    void refusesAnotherLayoutVersionNamingIt() {
        ByteBuffer v1 = ByteBuffer.allocate(IntervalFrame.HEADER_BYTES + TraceRecord.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(IntervalFrame.MAGIC).putShort((short) 1).putShort((short) 0).putLong(1).putLong(0).putInt(1)
                .putInt(0).flip();

        assertThatThrownBy(() -> IntervalFrame.decode(v1))
                .isInstanceOf(IntervalFrame.UnsupportedLayoutException.class)
                .hasMessage("frame layout v1 is not supported here (reads v2 and v3): run the agent of the controller's "
                        + "release")
                .satisfies(e -> assertThat(e.getMessage().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                        .as("fits a WebSocket close reason").isLessThanOrEqualTo(123));
    }

    @Test
    void refusesForeignFrame() {
        ByteBuffer junk = ByteBuffer.wrap(new byte[64]);

        assertThatThrownBy(() -> IntervalFrame.decode(junk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a qplab frame");
    }

    @Test
    void percentilesComeFromTheBucketsLikeTheEngines() {
        // 90 cycles of 100 ns, 9 of 1,000 ns (bucket 2 × 128 + 250 = 506: 1,000..1,003), 1 of 5,000 ns
        Interval i = interval(0, 0, 100, 90, CycleBuckets.of(1000), 9, CycleBuckets.of(5000), 1);

        assertThat(i.percentileNs(0.5)).isEqualTo(100);
        assertThat(i.percentileNs(0.99)).isEqualTo(1001);
        assertThat(i.percentileNs(0.999)).isEqualTo(CycleBuckets.lowNs(CycleBuckets.of(5000)));
        assertThat(CycleBuckets.of(1000)).isEqualTo(506);
        assertThat(CycleBuckets.lowNs(506)).isEqualTo(1000);
        assertThat(CycleBuckets.highNs(506)).isEqualTo(1004);
    }
}
