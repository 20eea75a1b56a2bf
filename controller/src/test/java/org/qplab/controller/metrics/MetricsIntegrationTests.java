package org.qplab.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.PrometheusScrape;
import org.qplab.controller.OwnDatabase;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * The health probes answer, and Prometheus scrapes of /actuator/prometheus see the queue, the agents
 * and the ingest move as an experiment is queued, run by a real agent and stored. Its own controller and
 * database: the counts are exact (no run another class left queued is run by this agent, no counter moved
 * before).
 */
@OwnDatabase
class MetricsIntegrationTests extends ControllerIntegrationTest {

    @Test
    void livenessAndReadinessAreUp() {
        http().get().uri("/actuator/health/liveness").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP");
        http().get().uri("/actuator/health/readiness").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP");
    }

    @Test
    void scrapedCountersFollowTheQueueTheAgentsAndTheIngest() throws Exception {
        // a controller of its own: no agent is connected, nothing was ingested, the queue stays put until ours comes
        String before = awaitScrape(s -> metric(s, "qplab_agents_connected") == 0);
        assertThat(metric(before, "qplab_ingest_cycles_total")).isZero();
        assertThat(metric(before, "qplab_ingest_intervals_total")).isZero();

        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"metrics\",\"base\":{\"msg_size\":256,\"iterations\":100},\"dimensions\":{\"threads\":[1,2,3]}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        long queuedInDb = jdbc.sql("SELECT count(*) FROM run WHERE status = 'QUEUED'").query(Long.class).single();
        assertThat(queuedInDb).as("the experiment's three runs, and no other").isEqualTo(3);
        awaitScrape(s -> metric(s, "qplab_runs{status=\"queued\"}") == 3);

        int healthPort = freePort();
        try (AgentProcess agent = AgentProcess.start("ws://127.0.0.1:" + port + "/agent", "metrics-agent", TOKEN,
                List.of("--health-port", String.valueOf(healthPort)))) {
            awaitExperimentEnd(id, Duration.ofSeconds(60), agent::log);
            // the agent's own probes and metrics: registered, three runs ended, nothing left unacknowledged
            assertThat(agentGet(healthPort, "/health/readiness")).startsWith("200 ").contains("\"status\":\"UP\"")
                    .contains("\"engine\":\"ok\"");
            String agentMetrics = awaitAgent(healthPort, m -> m.contains("\nqplab_agent_spool_entries 0\n"));
            assertThat(agentMetrics).contains("\nqplab_agent_connected 1\n", "\nqplab_agent_runs_total 3\n",
                    "\nqplab_agent_running -1\n", "\nqplab_agent_engine_stuck 0\n");
            String scrape = awaitScrape(s -> metric(s, "qplab_runs{status=\"queued\"}") == 0
                    && metric(s, "qplab_runs{status=\"running\"}") == 0);
            assertThat(metric(scrape, "qplab_agents_connected")).isEqualTo(1);
            String spool = awaitScrape(s -> s.contains("qplab_agents_spooled_entries"));
            assertThat(metric(spool, "qplab_agents_spooled_entries")).as("what the agent's heartbeats report: its "
                    + "spool is empty (its own /metrics said so above)").isZero();
            assertThat(metric(spool, "qplab_agents_spooled_bytes")).isZero();
            long[] stored = jdbc.sql("""
                            SELECT coalesce(sum(i.cycles), 0), count(*) FROM run_interval i JOIN run r ON r.id = i.run_id
                            WHERE r.experiment_id = ?""").param(id).query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)})
                    .single();
            assertThat(stored[0]).as("cycles of 1 + 2 + 3 threads x 100").isEqualTo(600);
            assertThat(metric(scrape, "qplab_ingest_cycles_total"))
                    .as("the counter moved by the cycles stored").isEqualTo(600.0);
            assertThat(metric(scrape, "qplab_ingest_intervals_total"))
                    .as("and by the intervals").isEqualTo((double) stored[1]);
            assertThat(count("run_interval")).as("the intervals stored, all of this experiment's").isEqualTo(stored[1]);
            assertThat(metric(scrape, "qplab_ingest_frames_total")).isPositive();
        }
        awaitScrape(s -> metric(s, "qplab_agents_connected") == 0);
    }

    @Test
    void anAgentThatCannotReachItsControllerIsLiveButNotReady() throws Exception {
        int healthPort = freePort();
        try (AgentProcess agent = AgentProcess.start("ws://127.0.0.1:" + freePort() + "/agent", "unready-agent", TOKEN,
                List.of("--health-port", String.valueOf(healthPort)))) {
            String live = awaitAgent(healthPort, m -> true);
            assertThat(live).as("metrics while unconnected").contains("\nqplab_agent_connected 0\n");
            assertThat(agentGet(healthPort, "/health/liveness")).startsWith("200 ");
            assertThat(agentGet(healthPort, "/health/readiness")).startsWith("503 ").contains("not connected");
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** "STATUS BODY" of a GET to the agent's health server; "000 reason" when it does not answer. */
    private static String agentGet(int healthPort, String path) throws InterruptedException {
        try {
            var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + healthPort + path)).timeout(Duration.ofSeconds(5)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            return response.statusCode() + " " + response.body();
        } catch (java.io.IOException e) {
            return "000 " + e;
        }
    }

    /** The agent's /metrics once it answers and satisfies until (the JVM takes a moment to start). */
    private static String awaitAgent(int healthPort, Predicate<String> until) throws InterruptedException {
        String last = "";
        for (int i = 0; i < 120; i++) {
            last = agentGet(healthPort, "/metrics");
            if (last.startsWith("200 ") && until.test(last)) {
                return last;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the agent's /metrics never showed what was awaited within 30 s: " + last);
    }

    private String scrape() {
        return http().get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
    }

    private String awaitScrape(Predicate<String> until) throws InterruptedException {
        return PrometheusScrape.await(http(), until);
    }

    private static double metric(String scrape, String name) {
        return PrometheusScrape.metric(scrape, name);
    }
}
