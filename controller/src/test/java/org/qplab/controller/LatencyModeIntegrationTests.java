package org.qplab.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * Latency mode through the controller: a tcp latency matrix runs on a real agent, its latency curves (µs)
 * are each run's own latency_us, a bandwidth run adds no latency point, two latency runs compare by their
 * typical latency (one run a side: inconclusive), and the engine's rule against several QPs per thread is a 400 naming
 * qps_per_thread.
 */
class LatencyModeIntegrationTests extends ControllerIntegrationTest {

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");
    private static final long ITERATIONS = 2000;
    private static final List<String> STATISTICS = List.of("min", "typical", "avg", "p99", "p999", "max");
    private AgentProcess agent;

    @Test
    @SuppressWarnings("unchecked")
    void aTcpLatencyMatrixDrawsLatencyCurvesFromEachRunsLatency() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "latency-agent", TOKEN)) {
            this.agent = agent;
            long id = submit("""
                    name: tcp latency
                    base: {provider: tcp, mode: latency, iterations: %d}
                    dimensions:
                      msg_size: [64, 1K]
                      threads: [1, 2]
                    """.formatted(ITERATIONS));
            Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(3), () -> "agent log:\n" + agent.log());
            assertThat(ended).as("agent log:\n%s", agent.log()).containsEntry("status", "FINISHED")
                    .containsEntry("runsDone", 4).containsEntry("runsFailed", 0);

            List<Map<String, Object>> runs = jdbc.sql("""
                            SELECT r.id, (r.params->>'msg_size')::bigint AS msg_size, (r.params->>'threads')::bigint AS threads,
                                   s.cycles, s.summary->>'mode' AS mode, s.cycle_median_ns,
                                   (s.summary->'latency_us'->>'min')::float8 AS min,
                                   (s.summary->'latency_us'->>'typical')::float8 AS typical,
                                   (s.summary->'latency_us'->>'avg')::float8 AS avg,
                                   (s.summary->'latency_us'->>'p99')::float8 AS p99,
                                   (s.summary->'latency_us'->>'p999')::float8 AS p999,
                                   (s.summary->'latency_us'->>'max')::float8 AS max
                            FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ? ORDER BY r.idx""")
                    .param(id).query().listOfRows();
            assertThat(runs).hasSize(4);
            for (Map<String, Object> run : runs) {
                String what = "run " + run.get("id") + " (" + run.get("msg_size") + " B x " + run.get("threads") + " threads)";
                assertThat(run.get("mode")).as(what + " summary mode").isEqualTo("latency");
                assertThat(run.get("cycles")).as(what + " cycles: one per iteration per thread")
                        .isEqualTo(ITERATIONS * (Long) run.get("threads"));
                assertThat((Double) run.get("min")).as(what + " t_min").isPositive();
                assertThat((Double) run.get("typical")).as(what + " typical >= min").isGreaterThanOrEqualTo((Double) run.get("min"));
                assertThat((Double) run.get("p99")).as(what + " p99 >= typical").isGreaterThanOrEqualTo((Double) run.get("typical"));
                assertThat((Double) run.get("max")).as(what + " max >= p99").isGreaterThanOrEqualTo((Double) run.get("p99"));

                // the curves: one run at each point, so each point is that run's own number, in µs
                for (String statistic : STATISTICS) {
                    Map<String, Object> point = point(id, "latency_" + statistic + "_us", (Long) run.get("msg_size"),
                            (Long) run.get("threads"));
                    assertThat(((Number) point.get("y")).doubleValue()).as(what + " latency_%s_us", statistic)
                            .isCloseTo((Double) run.get(statistic), within(1e-9));
                    assertThat(point.get("n")).isEqualTo(1);
                }
            }
            List<Map<String, Object>> typical = curve(id, "latency_typical_us");
            List<Map<String, Object>> p99 = curve(id, "latency_p99_us");
            List<Map<String, Object>> max = curve(id, "latency_max_us");
            assertThat(typical).hasSize(4);
            for (int i = 0; i < typical.size(); i++) {
                double t = y(typical.get(i));
                assertThat(t).as("typical at %s", typical.get(i)).isPositive().isLessThanOrEqualTo(y(p99.get(i)));
                assertThat(y(p99.get(i))).as("p99 at %s", p99.get(i)).isLessThanOrEqualTo(y(max.get(i)));
            }

            // series by several parameters: one per combination, named by the values
            Map<String, Object> combined = http().get()
                    .uri("/api/experiments/{id}/curve?x=msg_size&y=latency_typical_us&series=provider,threads", id)
                    .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat((List<?>) combined.get("points")).extracting(p -> ((Map<?, ?>) p).get("series") + " @ " + ((Map<?, ?>) p).get("x"))
                    .containsExactly("tcp 1 @ 64.0", "tcp 1 @ 1024.0", "tcp 2 @ 64.0", "tcp 2 @ 1024.0");
            http().get().uri("/api/experiments/{id}/curve?x=msg_size&y=latency_typical_us&series=op,nope", id).exchange()
                    .expectStatus().isBadRequest().expectBody().jsonPath("$.violations[0].field").isEqualTo("series");

            // two latency runs compare on their typical latency; one run a side (and no history) decides nothing
            long a = (Long) runs.get(0).get("id");
            long b = (Long) runs.get(1).get("id");
            Map<String, Object> compared = http().get().uri("/api/compare/runs?baseline={a}&candidate={b}", a, b).exchange()
                    .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            Map<String, Object> point = (Map<String, Object>) ((List<?>) compared.get("points")).get(0);
            assertThat(point.get("metric")).isEqualTo("latency_typical_us");
            assertThat(point.get("verdict")).isEqualTo("inconclusive: 1 run per side");
            assertThat(point).doesNotContainKey("pValue");
            double typicalA = (Double) runs.get(0).get("typical");
            double typicalB = (Double) runs.get(1).get("typical");
            assertThat(((Number) ((Map<?, ?>) point.get("baseline")).get("latencyTypicalUs")).doubleValue())
                    .isCloseTo(typicalA, within(typicalA * 1e-12));
            assertThat(((Number) point.get("changePercent")).doubleValue())
                    .isCloseTo((typicalB / typicalA - 1) * 100, within(1e-9));
        }
    }

    @Test
    void aBandwidthRunAddsNoPointToTheLatencyCurves() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "bandwidth-agent", TOKEN)) {
            this.agent = agent;
            long id = submit("name: tcp bandwidth\nbase: {provider: tcp, msg_size: 64, iterations: 500}\n");
            Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(3), () -> "agent log:\n" + agent.log());
            assertThat(ended).containsEntry("status", "FINISHED");
            assertThat(jdbc.sql("SELECT s.summary->>'mode' FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ?")
                    .param(id).query(String.class).single()).isEqualTo("bw");
            assertThat(curve(id, "cycle_median_ns")).as("its cycle time").hasSize(1);
            for (String statistic : STATISTICS) {
                assertThat(curve(id, "latency_" + statistic + "_us")).as("latency_%s_us of a bandwidth run", statistic).isEmpty();
            }
        }
    }

    @Test
    void aLatencyRunWithSeveralQpsPerThreadIsRefusedNamingQpsPerThread() {
        long experiments = count("experiment");
        Map<String, Object> body = http().post().uri("/api/experiments").contentType(YAML)
                .bodyValue("name: lat\nbase: {provider: tcp, mode: latency, qps_per_thread: 2, msg_size: 64}\n")
                .exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        List<?> violations = (List<?>) body.get("violations");
        assertThat(violations).as("%s", body).singleElement().satisfies(v -> {
            Map<?, ?> violation = (Map<?, ?>) v;
            assertThat(violation.get("field")).isEqualTo("base.qps_per_thread");
            assertThat((String) violation.get("message")).contains("latency");
        });
        assertThat(count("experiment")).as("experiments stored").isEqualTo(experiments);

        // in a dimension, the value that breaks the rule is named
        Map<String, Object> dimension = http().post().uri("/api/experiments/validate").contentType(YAML)
                .bodyValue("name: lat\nbase: {provider: tcp, mode: latency, msg_size: 64}\ndimensions: {qps_per_thread: [1, 2]}\n")
                .exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(((List<?>) dimension.get("violations")).stream().map(v -> String.valueOf(((Map<?, ?>) v).get("field"))).toList())
                .containsExactly("dimensions.qps_per_thread[1]");
    }

    private long submit(String matrix) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(YAML).bodyValue(matrix)
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> curve(long id, String y) {
        Map<String, Object> curve = http().get().uri("/api/experiments/{id}/curve?x=msg_size&y={y}&series=threads", id, y)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return (List<Map<String, Object>>) curve.get("points");
    }

    private Map<String, Object> point(long id, String y, long msgSize, long threads) {
        return curve(id, y).stream()
                .filter(p -> ((Number) p.get("x")).longValue() == msgSize && ((Number) p.get("series")).longValue() == threads)
                .findFirst().orElseGet(() -> fail("no %s point at %d B, %d threads; agent log:\n%s", y, msgSize, threads,
                        agent.log()));
    }

    private static double y(Map<String, Object> point) {
        return ((Number) point.get("y")).doubleValue();
    }
}
