package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * Bidirectional pair runs (perftest -b) through the controller with two real agents and the tcp provider: both
 * sides send the whole run at once, the client's summary is the run's summary and the server's its serverSummary
 * (each what that side sent), and the curve metric bw_sum_bps adds them up. What cannot run is refused at submit,
 * naming the field.
 */
class BidirectionalIntegrationTests extends ControllerIntegrationTest {

    private final List<AgentProcess> agents = new ArrayList<>();

    @AfterEach
    void stopAgents() throws Exception {
        for (AgentProcess agent : agents) {
            agent.close();
        }
        agents.clear();
    }

    @Test
    void bothSidesSendTheWholeRunAndTheCurveAddsThemUp() throws Exception {
        agent("bidi-client");
        agent("bidi-server");
        long iterations = 2000;
        long experiment = submit("""
                name: both ways
                hosts: {pairs: [[bidi-client, bidi-server]]}
                base: {provider: tcp, iterations: %d, msg_size: 16K, qps_per_thread: 2}
                dimensions: {bidirectional: [true, false]}
                """.formatted(iterations));
        Map<String, Object> ended = awaitExperimentEnd(experiment, Duration.ofMinutes(3), this::logs);
        assertThat(ended.get("status")).as(logs()).isEqualTo("FINISHED");

        List<Map<String, Object>> runs = http().get().uri("/api/experiments/{id}/runs", experiment).exchange()
                .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(runs).hasSize(2);
        long sent = iterations * 16384 * 2;
        double sum = 0;
        for (Map<String, Object> run : runs) {
            boolean both = Boolean.TRUE.equals(((Map<?, ?>) run.get("params")).get("bidirectional"));
            Map<?, ?> client = (Map<?, ?>) run.get("summary");
            Map<?, ?> server = (Map<?, ?>) run.get("serverSummary");
            assertThat(client.get("role")).isEqualTo("client");
            assertThat(client.get("side")).isEqualTo("sender");
            assertThat(client.get("bidirectional")).isEqualTo(both);
            assertThat(((Number) client.get("bytes")).longValue()).as("bytes the client sent").isEqualTo(sent);
            assertThat(server.get("role")).isEqualTo("server");
            assertThat(((Number) server.get("bytes")).longValue()).as("bytes the server sent (or received)").isEqualTo(sent);
            if (both) {
                assertThat(server.get("side")).as("a bidirectional server sends").isEqualTo("sender");
                assertThat(((Number) server.get("cycles")).longValue()).isEqualTo(iterations);
                assertThat(((Number) ((Map<?, ?>) server.get("received")).get("bytes")).longValue())
                        .as("what the server received of the client's").isEqualTo(sent);
                assertThat(((Number) ((Map<?, ?>) client.get("received")).get("bytes")).longValue())
                        .as("what the client received of the server's").isEqualTo(sent);
                sum = ((Number) client.get("bw_avg_bps")).doubleValue() + ((Number) server.get("bw_avg_bps")).doubleValue();
            } else {
                assertThat(server.get("side")).isEqualTo("receiver");
                assertThat(client.containsKey("received")).as("a one-way client receives nothing").isFalse();
            }
        }

        Map<String, Object> curve = http().get()
                .uri("/api/experiments/{id}/curve?x=msg_size&y=bw_sum_bps&series=bidirectional", experiment).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        @SuppressWarnings("unchecked")
        List<Map<?, ?>> points = (List<Map<?, ?>>) curve.get("points");
        assertThat(points).hasSize(2);
        Map<?, ?> bidirectional = points.stream().filter(p -> "true".equals(String.valueOf(p.get("series")))).findFirst()
                .orElseThrow();
        assertThat(((Number) bidirectional.get("y")).doubleValue()).as("client + server bytes per second")
                .isCloseTo(sum, org.assertj.core.data.Percentage.withPercentage(1e-6));
        Map<?, ?> oneWay = points.stream().filter(p -> "false".equals(String.valueOf(p.get("series")))).findFirst()
                .orElseThrow();
        Map<?, ?> oneWayClient = (Map<?, ?>) runs.stream()
                .filter(r -> Boolean.FALSE.equals(((Map<?, ?>) r.get("params")).get("bidirectional"))).findFirst()
                .orElseThrow().get("summary");
        assertThat(((Number) oneWay.get("y")).doubleValue()).as("one way: only the client sent")
                .isCloseTo(((Number) oneWayClient.get("bw_avg_bps")).doubleValue(),
                        org.assertj.core.data.Percentage.withPercentage(1e-6));
    }

    @Test
    void whatCannotRunBothWaysIsRefusedNamingTheField() {
        Map<String, Object> read = rejected("""
                hosts: {pairs: [[a, b]]}
                base: {provider: verbs, op: read, msg_size: 4K, bidirectional: true}
                """);
        assertThat(violations(read)).anySatisfy(v -> {
            assertThat((String) v.get("field")).contains("bidirectional");
            assertThat((String) v.get("message")).contains("bidirectional: op read");
        });
        Map<String, Object> loopback = rejected("""
                base: {provider: tcp, msg_size: 4K, bidirectional: true}
                """);
        assertThat(violations(loopback)).anySatisfy(v -> {
            assertThat(v.get("field")).isEqualTo("bidirectional");
            assertThat((String) v.get("message")).contains("client/server pairs");
        });
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> violations(Map<String, Object> body) {
        return (List<Map<String, Object>>) body.get("violations");
    }

    private Map<String, Object> rejected(String yaml) {
        return http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(yaml).exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }

    private void agent(String id) throws Exception {
        agents.add(AgentProcess.start("ws://127.0.0.1:" + port + "/agent", id, TOKEN, List.of()));
        Await.until("agent " + id + " registers", Duration.ofSeconds(60),
                () -> jdbc.sql("SELECT count(*) FROM agent WHERE id = ? AND connected").param(id).query(Long.class)
                        .single() == 1, this::logs);
    }

    private long submit(String yaml) {
        Map<String, Object> created = http().post().uri("/api/experiments")
                .contentType(MediaType.parseMediaType("application/yaml")).bodyValue(yaml).exchange().expectStatus()
                .isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private String logs() {
        StringBuilder all = new StringBuilder();
        agents.forEach(a -> all.append(a.log()).append("\n----\n"));
        return all.toString();
    }
}
