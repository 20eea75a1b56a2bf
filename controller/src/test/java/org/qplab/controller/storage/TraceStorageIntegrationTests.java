package org.qplab.controller.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.cluster.Leadership;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/** What a run keeps, deleting its trace (by hand and by retention), and that every statistic survives it. */
class TraceStorageIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private Leadership leadership;

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Autowired
    private Jdbc jdbcScheduler;

    @Autowired
    private RunStorage storage;

    @Test
    void aRunsStorageCountsItsRowsAndDeletingItsTraceKeepsEveryStatistic() throws Exception {
        long experimentId = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 61, 1.0, "storage");
        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experimentId).query(Long.class).single();
        Map<String, Object> histogramBefore = get("/api/runs/" + runId + "/histogram");
        Map<String, Object> timelineBefore = get("/api/runs/" + runId + "/timeline?slots=10");

        Map<String, Object> usage = get("/api/runs/" + runId + "/storage");
        assertThat(part(usage, "intervals")).containsEntry("rows", 50);
        assertThat(part(usage, "trace")).containsEntry("rows", StoredExperiments.CYCLES);
        assertThat(((Number) part(usage, "trace").get("bytes")).longValue()).as("about 90 B a row")
                .isBetween(60L * StoredExperiments.CYCLES, 120L * StoredExperiments.CYCLES);
        assertThat(((Number) usage.get("totalBytes")).longValue()).isEqualTo(bytes(usage, "intervals") + bytes(usage, "trace")
                + bytes(usage, "histogram"));
        assertThat(get("/api/runs/" + runId)).containsEntry("traceStored", StoredExperiments.CYCLES)
                .containsEntry("cyclesStored", StoredExperiments.CYCLES);

        assertThat(delete("/api/runs/" + runId + "/trace", 200)).containsEntry("deleted", StoredExperiments.CYCLES)
                .containsEntry("runs", List.of((int) runId));

        assertThat(part(get("/api/runs/" + runId + "/storage"), "trace")).containsEntry("rows", 0);
        Map<String, Object> run = get("/api/runs/" + runId);
        assertThat(run).containsEntry("traceStored", 0).containsEntry("cyclesStored", StoredExperiments.CYCLES);
        assertThat(run.get("traceDeletedAt")).isNotNull();
        assertThat(get("/api/runs/" + runId + "/histogram")).as("the distribution").isEqualTo(histogramBefore);
        assertThat(get("/api/runs/" + runId + "/timeline?slots=10")).as("the timeline").isEqualTo(timelineBefore);
        assertThat(delete("/api/runs/" + runId + "/trace", 200)).as("deleting again").containsEntry("deleted", 0);
    }

    @Test
    void aQueuedOrRunningRunKeepsItsTraceUntilItHasEnded() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"storage-running\",\"base\":{\"msg_size\":64,\"iterations\":1}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long runId = jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'nobody' WHERE experiment_id = ? RETURNING id")
                .param(((Number) created.get("id")).longValue()).query(Long.class).single();

        assertThat(delete("/api/runs/" + runId + "/trace", 409)).containsEntry("error",
                "run " + runId + " is RUNNING: delete its trace once it has ended");
        http().delete().uri("/api/runs/987654/trace").exchange().expectStatus().isNotFound();
        http().delete().uri("/api/experiments/987654/trace").exchange().expectStatus().isNotFound();
    }

    @Test
    void anExperimentsTraceGoesInOneCallAndRetentionDeletesWhatEndedLongerAgo() throws Exception {
        StoredExperiments stored = new StoredExperiments(http(), jdbc, ingest, outcomes);
        long byHand = stored.create("[64, 128]", 62, 1.0, "storage");
        long old = stored.create("[256]", 63, 1.0, "storage");
        long recent = stored.create("[512]", 64, 1.0, "storage");
        jdbc.sql("UPDATE run SET finished_at = now() - interval '2 days' WHERE experiment_id = ?").param(old).update();

        Map<String, Object> deleted = delete("/api/experiments/" + byHand + "/trace", 200);
        assertThat(deleted).containsEntry("deleted", 2 * StoredExperiments.CYCLES);
        assertThat((List<?>) deleted.get("runs")).hasSize(2);

        Await.until("this controller, alone on its database, leads", Duration.ofSeconds(15),
                leadership::leads, () -> "");
        new TraceRetention(jdbcScheduler, storage,
                new RetentionProperties(Duration.ofDays(1), Duration.ofHours(1), Duration.ofMinutes(1)), leadership)
                .expire();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (traceRows(old) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(traceRows(old)).as("ended two days ago, kept one").isZero();
        assertThat(traceRows(recent)).as("ended just now").isEqualTo(StoredExperiments.CYCLES);
        assertThat(jdbc.sql("SELECT sum(cycles) FROM run_interval i JOIN run r ON r.id = i.run_id WHERE r.experiment_id = ?")
                .param(old).query(Long.class).single()).as("its intervals stay").isEqualTo(StoredExperiments.CYCLES);
    }

    private long traceRows(long experimentId) {
        return jdbc.sql("SELECT count(*) FROM run_trace s JOIN run r ON r.id = s.run_id WHERE r.experiment_id = ?")
                .param(experimentId).query(Long.class).single();
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    private Map<String, Object> delete(String uri, int status) {
        return http().delete().uri(uri).exchange().expectStatus().isEqualTo(status).expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> part(Map<String, Object> usage, String name) {
        return (Map<String, Object>) usage.get(name);
    }

    private static long bytes(Map<String, Object> usage, String name) {
        return ((Number) part(usage, name).get("bytes")).longValue();
    }
}
