package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

class CancelIntegrationTests extends ControllerIntegrationTest {

    @Test
    void cancellingStopsTheRunningRunKeepsItsCyclesAndDropsTheQueuedOnes() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "cancel-agent", TOKEN)) {
            Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"name\":\"long\",\"base\":{\"msg_size\":4096,\"duration_ms\":600000},\"dimensions\":{\"threads\":[1,2,3]}}")
                    .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            long id = ((Number) created.get("id")).longValue();
            long running = awaitRunningRun(id, agent);
            Thread.sleep(500); // let it measure something

            http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.status").isEqualTo("CANCELLED");

            String runStatus = awaitRunEnd(running, Duration.ofSeconds(30), agent);
            assertThat(runStatus).isEqualTo("CANCELLED");
            // the stopped engine's summary counts the cycles until the stop; its intervals all arrived before its end
            long summaryCycles = jdbc.sql("SELECT cycles FROM run_summary WHERE run_id = ?").param(running)
                    .query(Long.class).single();
            assertThat(jdbc.sql("SELECT coalesce(sum(cycles), 0) FROM run_interval WHERE run_id = ?").param(running)
                    .query(Long.class).single()).as("cycles measured before the cancel, kept").isEqualTo(summaryCycles)
                    .isPositive();
            http().get().uri("/api/runs/{id}", running).exchange().expectStatus().isOk().expectBody()
                    .jsonPath("$.partial").isEqualTo(true).jsonPath("$.cyclesStored").isEqualTo(summaryCycles);
            // the engine stopped when told, not at the end of its 600 s (however long the stop took to travel)
            Map<String, Object> run = http().get().uri("/api/runs/{id}", running).exchange().expectStatus().isOk()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat(((Number) ((Map<?, ?>) run.get("summary")).get("duration_ns")).longValue())
                    .as("the stopped run's duration, ns").isPositive().isLessThan(Duration.ofSeconds(60).toNanos());
            assertThat(jdbc.sql("SELECT status FROM run WHERE experiment_id = ? AND id <> ?").params(id, running)
                    .query(String.class).list()).containsOnly("CANCELLED");
            assertThat(jdbc.sql("SELECT status FROM experiment WHERE id = ?").param(id).query(String.class).single())
                    .isEqualTo("CANCELLED");

            http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().isEqualTo(409)
                    .expectBody().jsonPath("$.error").isEqualTo("experiment " + id + " already ended (CANCELLED)");
        }
        http().post().uri("/api/experiments/987654/cancel").exchange().expectStatus().isNotFound();
    }

    private long awaitRunningRun(long experimentId, AgentProcess agent) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            var run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? AND status = 'RUNNING'").param(experimentId)
                    .query(Long.class).optional();
            if (run.isPresent()) {
                return run.get();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no run started within 30 s; agent log:\n" + agent.log());
    }

    private String awaitRunEnd(long runId, Duration timeout, AgentProcess agent) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = jdbc.sql("SELECT status FROM run WHERE id = ?").param(runId).query(String.class).single();
            if (!status.equals("RUNNING")) {
                return status;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("run " + runId + " still " + status + " after " + timeout + "; agent log:\n" + agent.log());
    }
}
