package org.qplab.controller.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.protocol.Sample;
import org.qplab.protocol.SampleFrame;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

class SampleIngestIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private SampleIngest ingest;

    @Test
    void aReplayedFrameIsRecognisedAndStoresNothingTwice() throws Exception {
        long runId = queuedRun();
        SampleFrame frame = SampleFrame.of(runId, 0, List.of(
                new Sample(0, 0, 0, 100, 250, 4096, 1),
                new Sample(1, 2, 7, Long.MAX_VALUE - 10, Long.MAX_VALUE, 1L << 40, 3)));

        assertThat(ingest.store(frame)).isTrue();
        assertThat(ingest.store(frame)).as("replay").isFalse();
        assertThat(ingest.store(SampleFrame.decode(frame.encode()))).as("replay off the wire").isFalse();

        List<Map<String, Object>> rows = jdbc.sql("""
                        SELECT thread, cycle, start_ns, end_ns, bytes, messages, errors FROM sample
                        WHERE run_id = ? ORDER BY thread""").param(runId).query().listOfRows();
        assertThat(rows).containsExactly(
                Map.of("thread", 0, "cycle", 0L, "start_ns", 100L, "end_ns", 250L, "bytes", 4096L, "messages", 1L, "errors", 0),
                Map.of("thread", 1, "cycle", 7L, "start_ns", Long.MAX_VALUE - 10, "end_ns", Long.MAX_VALUE,
                        "bytes", 1L << 40, "messages", 3L, "errors", 2));
        Map<String, Object> batch = jdbc.sql("""
                        SELECT rows, first_end_ns, received_at > now() - interval '1 minute' AS recent
                        FROM sample_batch WHERE run_id = ? AND seq = 0""").param(runId).query().singleRow();
        assertThat(batch).as("the batch: its rows, its oldest cycle's end, when it became visible")
                .containsEntry("rows", 2).containsEntry("first_end_ns", 250L).containsEntry("recent", true);
    }

    @Test
    void theHistogramGrowsWithEachStoredFrameAsPostgresqlWouldBucketTheStoredRowsAndAReplayAddsNothing() throws Exception {
        long runId = queuedRun();
        List<Sample> first = new ArrayList<>();
        List<Sample> second = new ArrayList<>();
        long[] durations = {0, 1, 255, 256, 257, 1023, 1024, 1025, 4096, 65_535, 65_536, 1L << 30, (1L << 31) + 7, 1L << 40};
        for (int i = 0; i < 2000; i++) {
            long d = i < durations.length ? durations[i] : (long) Math.pow(1.013, i % 1500);
            (i % 2 == 0 ? first : second).add(new Sample(i % 3, 0, i, 1000L * i, 1000L * i + d, 64, 1));
        }
        ingest.store(SampleFrame.of(runId, 0, first));
        ingest.store(SampleFrame.of(runId, 1, second));
        ingest.store(SampleFrame.of(runId, 1, second)); // replay

        String stored = "SELECT bucket, count FROM run_histogram WHERE run_id = ? ORDER BY bucket";
        String fromRows = "SELECT qplab_cycle_bucket(end_ns - start_ns) AS b, count(*) FROM sample WHERE run_id = ? GROUP BY b ORDER BY b";
        assertThat(jdbc.sql(stored).param(runId).query().listOfRows().stream().map(Map::values).map(List::copyOf).toList())
                .isEqualTo(jdbc.sql(fromRows).param(runId).query().listOfRows().stream().map(Map::values).map(List::copyOf).toList());
        assertThat(jdbc.sql("SELECT sum(count) FROM run_histogram WHERE run_id = ?").param(runId).query(Long.class).single())
                .isEqualTo(2000L);
    }

    @Test
    void aFrameForAnUnknownRunIsRefusedAndLeavesNoRows() {
        long before = count("sample");
        SampleFrame orphan = SampleFrame.of(987_654_321L, 0, List.of(new Sample(0, 0, 0, 1, 2, 3, 4)));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ingest.store(orphan))
                .hasMessageContaining("sample_batch_run_id_fkey");
        assertThat(count("sample")).isEqualTo(before);
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
