package org.qplab.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class IntervalFrameTests {

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
        ByteBuffer encoded = new IntervalFrame(1, 0, List.of(interval(0, 1, 10, 5, 20, 6))).encode();
        ByteBuffer truncated = encoded.slice(0, encoded.remaining() - 1);

        assertThatThrownBy(() -> IntervalFrame.decode(truncated))
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
                .hasMessage("frame layout v1 is not supported here (reads v2): run the agent of the controller's "
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
