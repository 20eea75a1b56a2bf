package org.qplab.controller.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.TestIntervals;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.qplab.protocol.StoredHistogram;
import org.qplab.protocol.TraceRecord;
import org.qplab.protocol.IntervalFrame;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

class FrameIngestIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private org.qplab.controller.analysis.RunHistograms histograms;

    @Autowired
    private org.qplab.controller.run.RunIntervals runIntervals;

    @Autowired
    private DataSource dataSource;

    @Autowired
    private org.qplab.controller.metrics.QplabMetrics metrics;

    @Test
    void aWriterLingersForMoreFramesToJoinItsGroupAndNoLonger() throws Exception {
        long runId = queuedRun();
        FrameIngest lingering = new FrameIngest(dataSource, metrics, new IngestProperties(1, 262_144, Duration.ofMillis(400)));
        lingering.start();
        try {
            CompletableFuture<Boolean> first = lingering.submit(oneInterval(runId, 0));
            Thread.sleep(100);
            CompletableFuture<Boolean> second = lingering.submit(oneInterval(runId, 1));
            assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(1000);
            assertThat(lingering.submit(oneInterval(runId, 2)).get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            lingering.stop();
        }
        List<String> transactions = jdbc.sql("SELECT xmin::text FROM run_frame WHERE run_id = ? ORDER BY seq").param(runId)
                .query(String.class).list();
        assertThat(transactions).hasSize(3);
        assertThat(transactions.get(1)).as("a frame 100 ms after the first joins its group: one transaction")
                .isEqualTo(transactions.get(0));
        assertThat(transactions.get(2)).as("one a second after the group was written is in a group of its own")
                .isNotEqualTo(transactions.get(0));
    }

    private static IntervalFrame oneInterval(long runId, long seq) {
        long at = seq * 100_000_000L;
        return new IntervalFrame(runId, seq, TestIntervals.of(List.of(new TestIntervals.Cycle(0, at + 10, at + 20)),
                100_000_000L, 64, 1));
    }

    @Test
    void aReplayedFrameIsRecognisedAndStoresNothingTwice() throws Exception {
        long runId = queuedRun();
        List<Interval> intervals = TestIntervals.of(List.of(new TestIntervals.Cycle(0, 100, 250),
                new TestIntervals.Cycle(0, 200, 1_250, 2), new TestIntervals.Cycle(1, 300, 150_000_000)), 100_000_000L, 4096, 1);
        IntervalFrame frame = IntervalFrame.of(runId, 0, List.of(
                new TraceRecord(0, 0, 0, 100, 250, 4096, 1),
                new TraceRecord(1, 2, 7, Long.MAX_VALUE - 10, Long.MAX_VALUE, 1L << 40, 3)), intervals);

        assertThat(ingest.store(frame)).isTrue();
        assertThat(ingest.store(frame)).as("replay").isFalse();
        assertThat(ingest.store(IntervalFrame.decode(frame.encode()))).as("replay off the wire").isFalse();

        assertThat(jdbc.sql("""
                        SELECT thread, idx, span, cycles, messages, bytes, errors, min_ns, max_ns, first_start_ns, last_end_ns
                        FROM run_interval WHERE run_id = ? ORDER BY thread, idx""").param(runId).query().listOfRows())
                .containsExactly(
                        Map.ofEntries(Map.entry("thread", 0), Map.entry("idx", 0L), Map.entry("span", 1),
                                Map.entry("cycles", 2L), Map.entry("messages", 2L), Map.entry("bytes", 8192L),
                                Map.entry("errors", 2L), Map.entry("min_ns", 150L), Map.entry("max_ns", 1050L),
                                Map.entry("first_start_ns", 100L), Map.entry("last_end_ns", 1250L)),
                        Map.ofEntries(Map.entry("thread", 1), Map.entry("idx", 1L), Map.entry("span", 1),
                                Map.entry("cycles", 1L), Map.entry("messages", 1L), Map.entry("bytes", 4096L),
                                Map.entry("errors", 0L), Map.entry("min_ns", 149_999_700L), Map.entry("max_ns", 149_999_700L),
                                Map.entry("first_start_ns", 300L), Map.entry("last_end_ns", 150_000_000L)));
        List<Map<String, Object>> trace = jdbc.sql("""
                        SELECT thread, cycle, start_ns, end_ns, bytes, messages, errors FROM run_trace
                        WHERE run_id = ? ORDER BY thread""").param(runId).query().listOfRows();
        assertThat(trace).containsExactly(
                Map.of("thread", 0, "cycle", 0L, "start_ns", 100L, "end_ns", 250L, "bytes", 4096L, "messages", 1L, "errors", 0),
                Map.of("thread", 1, "cycle", 7L, "start_ns", Long.MAX_VALUE - 10, "end_ns", Long.MAX_VALUE,
                        "bytes", 1L << 40, "messages", 3L, "errors", 2));
        Map<String, Object> batch = jdbc.sql("""
                        SELECT rows, cycles, intervals, first_end_ns, received_at > now() - interval '1 minute' AS recent,
                               pg_xact_commit_timestamp(xmin) >= received_at AS visible_after
                        FROM run_frame WHERE run_id = ? AND seq = 0""").param(runId).query().singleRow();
        assertThat(batch).as("the batch: its trace rows, its cycles and intervals, its oldest end, when it was claimed, and "
                        + "that it became visible (its transaction's commit, tracked) after that")
                .containsEntry("rows", 2).containsEntry("cycles", 3L).containsEntry("intervals", 2)
                .containsEntry("first_end_ns", 250L).containsEntry("recent", true).containsEntry("visible_after", true);
    }

    @Test
    void theRunHistogramIsTheSumOfItsIntervalsBucketedAsPostgresqlWouldAndAReplayAddsNothing() throws Exception {
        long runId = queuedRun();
        List<TestIntervals.Cycle> first = new ArrayList<>();
        List<TestIntervals.Cycle> second = new ArrayList<>();
        List<Long> all = new ArrayList<>();
        long[] durations = {0, 1, 255, 256, 257, 1023, 1024, 1025, 4096, 65_535, 65_536, 1L << 30, (1L << 31) + 7, 1L << 40};
        for (int i = 0; i < 2000; i++) {
            long d = i < durations.length ? durations[i] : (long) Math.pow(1.013, i % 1500);
            long start = 1000L * i + (i < 1000 ? 0 : 100_000_000L); // the second frame: the next interval
            (i < 1000 ? first : second).add(new TestIntervals.Cycle(i % 3, start, start + d));
            all.add(d);
        }
        ingest.store(new IntervalFrame(runId, 0, TestIntervals.of(first, 100_000_000L, 64, 1)));
        ingest.store(new IntervalFrame(runId, 1, TestIntervals.of(second, 100_000_000L, 64, 1)));
        ingest.store(new IntervalFrame(runId, 1, TestIntervals.of(second, 100_000_000L, 64, 1))); // replay
        histograms.current(List.of(runId));

        String stored = "SELECT b::bigint, n FROM run_histogram, unnest(buckets, counts) AS h(b, n) WHERE run_id = ? ORDER BY b";
        String byPostgres = "SELECT qplab_cycle_bucket(d) AS b, count(*) FROM unnest(?::bigint[]) d GROUP BY b ORDER BY b";
        assertThat(jdbc.sql(stored).param(runId).query().listOfRows().stream().map(Map::values).map(List::copyOf).toList())
                .isEqualTo(jdbc.sql(byPostgres).param(all.toArray(Long[]::new)).query().listOfRows().stream()
                        .map(Map::values).map(List::copyOf).toList());
        assertThat(jdbc.sql("SELECT cycles FROM run_histogram WHERE run_id = ?").param(runId).query(Long.class).single())
                .isEqualTo(2000L);
        assertThat(jdbc.sql("SELECT sum(cycles) FROM run_interval WHERE run_id = ?").param(runId).query(Long.class).single())
                .isEqualTo(2000L);
    }

    @Test
    void histogramsAreStoredInTheRunsFormatAndRowsInThePairFormatStillRead() throws Exception {
        long runId = queuedRun();
        List<TestIntervals.Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < 5000; i++) { // thread 0: a body of consecutive buckets; thread 1: sparse ones
            cycles.add(new TestIntervals.Cycle(0, 1000L * i, 1000L * i + 30_000 + (i * 7919L) % 3000));
            cycles.add(new TestIntervals.Cycle(1, 1000L * i, 1000L * i + 300 + (1L << (i % 20))));
        }
        List<Interval> intervals = TestIntervals.of(cycles, 100_000_000L, 64, 1);
        ingest.store(new IntervalFrame(runId, 0, intervals));

        List<byte[]> stored = jdbc.sql("SELECT buckets FROM run_interval WHERE run_id = ? ORDER BY thread, idx").param(runId)
                .query((rs, i) -> rs.getBytes(1)).list();
        assertThat(stored).hasSize(intervals.size()).allSatisfy(b -> assertThat(b).startsWith(0, 2));
        assertThat(stored.get(0).length).as("%d buckets", intervals.get(0).buckets().length)
                .isLessThan(intervals.get(0).histogramBytes().length / 2);
        assertThat(runIntervals.all(runId)).containsExactlyElementsOf(intervals);

        // a row as the controller stored it before V33: the pair list, read the same
        jdbc.sql("UPDATE run_interval SET buckets = ? WHERE run_id = ? AND thread = 1")
                .params(intervals.get(1).histogramBytes(), runId).update();
        assertThat(runIntervals.all(runId)).containsExactlyElementsOf(intervals);
        histograms.current(List.of(runId));
        assertThat(jdbc.sql("SELECT cycles FROM run_histogram WHERE run_id = ?").param(runId).query(Long.class).single())
                .isEqualTo(10_000L);
    }

    @Test
    void aV3FramesHistogramsAreStoredAsTheFrameCarriedThemAndAV2FramesAreEncodedForIt() throws Exception {
        long runId = queuedRun();
        List<TestIntervals.Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < 2000; i++) { // thread 0: a body of a few hundred buckets; thread 1: one cycle
            cycles.add(new TestIntervals.Cycle(0, 1000L * i, 1000L * i + 30_000 + (i * 7919L) % 3000));
        }
        cycles.add(new TestIntervals.Cycle(1, 0, 5_000));
        List<Interval> intervals = TestIntervals.of(cycles, 100_000_000L, 64, 1);
        List<byte[]> carried = new ArrayList<>();
        for (Interval i : intervals) {
            carried.add(StoredHistogram.encode(i.buckets(), i.counts()));
        }
        // thread 1's single bucket with the line-prediction bit (the bit stream's first, two bytes from the end) set:
        // as valid, though the controller's own encoder writes it clear; stored as it came, it was not re-encoded
        byte[] single = carried.get(1);
        single[single.length - 2] |= (byte) 0x80;
        assertThat(single).isNotEqualTo(StoredHistogram.encode(intervals.get(1).buckets(), intervals.get(1).counts()));
        ByteBuffer wire = new IntervalFrame(runId, 0, ByteBuffer.allocate(0), intervals, carried).encode();

        assertThat(ingest.store(IntervalFrame.decode(wire))).isTrue();
        assertThat(ingest.store(IntervalFrame.decode(new IntervalFrame(runId, 1, List.of(TestIntervals.of(
                List.of(new TestIntervals.Cycle(2, 0, 7_000)), 100_000_000L, 64, 1).get(0))).encode(2)))).isTrue();

        List<byte[]> stored = jdbc.sql("SELECT buckets FROM run_interval WHERE run_id = ? ORDER BY thread").param(runId)
                .query((rs, i) -> rs.getBytes(1)).list();
        assertThat(stored).hasSize(3);
        assertThat(stored.get(0)).isEqualTo(carried.get(0));
        assertThat(stored.get(1)).isEqualTo(single);
        assertThat(stored.get(2)).as("a v2 frame's pair list, encoded by the controller")
                .isEqualTo(StoredHistogram.encode(new int[] {CycleBuckets.of(7_000)}, new long[] {1}));
        assertThat(runIntervals.all(runId)).hasSize(3).startsWith(intervals.toArray(Interval[]::new));
    }

    @Test
    void anIntervalThatArrivesTwiceInAnotherFrameIsRefusedAndStoresNothingOfThatFrame() throws Exception {
        long runId = queuedRun();
        List<Interval> once = TestIntervals.of(List.of(new TestIntervals.Cycle(0, 10, 20)), 100_000_000L, 64, 1);
        ingest.store(new IntervalFrame(runId, 0, once));
        List<Interval> again = new ArrayList<>(once);
        again.addAll(TestIntervals.of(List.of(new TestIntervals.Cycle(1, 10, 30)), 100_000_000L, 64, 1));

        assertThatThrownBy(() -> ingest.store(new IntervalFrame(runId, 1, again))).hasMessageContaining("run_interval_pkey");
        assertThat(jdbc.sql("SELECT count(*) FROM run_interval WHERE run_id = ?").param(runId).query(Long.class).single())
                .isEqualTo(1L);
        assertThat(jdbc.sql("SELECT count(*) FROM run_frame WHERE run_id = ?").param(runId).query(Long.class).single())
                .as("the frame's claim went with it").isEqualTo(1L);
        histograms.current(List.of(runId));
        assertThat(jdbc.sql("SELECT cycles FROM run_histogram WHERE run_id = ?").param(runId).query(Long.class).single())
                .isEqualTo(1L);
    }

    @Test
    void aRunsHistogramFollowsItsIntervalsAsMoreArriveAfterItWasRead() throws Exception {
        long runId = queuedRun();
        ingest.store(new IntervalFrame(runId, 0, TestIntervals.of(List.of(new TestIntervals.Cycle(0, 0, 300)), 100_000_000L, 64, 1)));
        assertThat(histograms.of(runId)).containsExactly(Map.entry(278L, 1L)); // 300 ns: bucket 128 + (300 >> 1)

        // a frame replayed after the run was read (an agent back from a broken link)
        ingest.store(new IntervalFrame(runId, 1, TestIntervals.of(List.of(new TestIntervals.Cycle(0, 100_000_000L,
                100_000_010L), new TestIntervals.Cycle(1, 100_000_000L, 100_000_300L)), 100_000_000L, 64, 1)));

        assertThat(histograms.of(runId)).containsExactly(Map.entry(10L, 1L), Map.entry(278L, 2L));
    }

    @Test
    void aFrameForAnUnknownRunIsRefusedAndLeavesNoRows() {
        long before = count("run_trace") + count("run_interval");
        IntervalFrame orphan = IntervalFrame.of(987_654_321L, 0, List.of(new TraceRecord(0, 0, 0, 1, 2, 3, 4)),
                TestIntervals.of(List.of(new TestIntervals.Cycle(0, 1, 2)), 100_000_000L, 3, 4));

        assertThatThrownBy(() -> ingest.store(orphan)).hasMessageContaining("run_frame_run_id_fkey");
        assertThat(count("run_trace") + count("run_interval")).isEqualTo(before);
    }

    private long queuedRun() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"ingest\",\"base\":{\"msg_size\":64,\"iterations\":1}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        // hold it back from the scheduler: this test plays the agent
        return jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'ingest-test' WHERE experiment_id = ? RETURNING id")
                .param(((Number) created.get("id")).longValue()).query(Long.class).single();
    }
}
