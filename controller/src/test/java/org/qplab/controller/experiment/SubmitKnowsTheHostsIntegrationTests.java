package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/**
 * Issue 34's "A verbs matrix got ✓ 36 runs while the only agent has no RDMA device. Submitted, it FAILED", with real
 * agents on this machine (no RDMA device): a verbs matrix on any agent is refused at validate and at submit, naming
 * the agent and why, and nothing is stored; a tcp one on the same agent is accepted, with how long it would take, from
 * the runs that finished here once there are some. A host whose agent has gone is a warning, with what its last hello
 * says it lacks; a host never seen is one too.
 */
class SubmitKnowsTheHostsIntegrationTests extends ControllerIntegrationTest {

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");
    private static final String VERBS_36 = """
            name: verbs on any agent
            base: {provider: verbs, op: write}
            dimensions: {msg_size: [64, 256, 1K, 4K, 16K, 64K], threads: [1, 2, 4]}
            repeats: 2
            """;
    private static final String TCP = """
            name: tcp on any agent
            base: {provider: tcp, msg_size: 1234, iterations: %d}
            """;

    @Autowired
    private AgentRegistry registry;

    @Test
    @SuppressWarnings("unchecked")
    void aVerbsMatrixIsRefusedWhenNoConnectedAgentHasAnRdmaDeviceAndTcpGetsAnEstimate() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "no-rdma-host", TOKEN)) {
            awaitConnected(agent, "no-rdma-host");
            long experiments = count("experiment");
            for (String uri : List.of("/api/experiments/validate", "/api/experiments")) {
                Map<String, Object> refused = post(uri, VERBS_36, 400);
                assertThat((List<Map<String, Object>>) refused.get("violations")).as(uri).singleElement()
                        .satisfies(v -> assertThat(v).containsEntry("field", "hosts"))
                        .satisfies(v -> assertThat((String) v.get("message")).startsWith("no connected agent can run it "
                                + "(hosts: any agent): host no-rdma-host cannot run provider verbs: "));
            }
            assertThat(count("experiment")).as("nothing stored").isEqualTo(experiments);

            Map<String, Object> check = post("/api/experiments/validate", TCP.formatted(20_000), 200);
            assertThat(check).containsEntry("runs", 1).containsEntry("warnings", List.of());
            Map<String, Object> estimate = (Map<String, Object>) check.get("estimate");
            assertThat(estimate).containsEntry("unknownRuns", 1).containsEntry("estimatedRuns", 0)
                    .doesNotContainKey("seconds");

            Map<String, Object> created = post("/api/experiments", TCP.formatted(20_000), 201);
            assertThat(created).containsEntry("warnings", List.of());
            long id = ((Number) created.get("id")).longValue();
            assertThat(awaitExperimentEnd(id, Duration.ofSeconds(120), agent::log)).containsEntry("status", "FINISHED");

            estimate = (Map<String, Object>) post("/api/experiments/validate", TCP.formatted(20_000), 200).get("estimate");
            assertThat(estimate).containsEntry("estimatedRuns", 1).containsEntry("unknownRuns", 0);
            assertThat(((Number) estimate.get("seconds")).doubleValue()).isPositive();
            assertThat((String) estimate.get("basis")).contains("1 run from 1 run finished here with the same parameters");

            estimate = (Map<String, Object>) post("/api/experiments/validate", TCP.formatted(40_000), 200).get("estimate");
            assertThat(estimate).containsEntry("estimatedRuns", 1);
            assertThat((String) estimate.get("basis")).contains("1 run from the cycle rate of similar finished runs")
                    .contains("measured over 1 run alike but for their length");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aHostWhoseAgentHasGoneIsAWarningWithWhatItsLastHelloLacks() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "gone-host", TOKEN)) {
            awaitConnected(agent, "gone-host");
        }
        Await.until("gone-host is disconnected", Duration.ofSeconds(30),
                () -> registry.connectedFacts("gone-host") == null, () -> "");

        Map<String, Object> check = post("/api/experiments/validate", """
                name: verbs on a gone host
                base: {provider: verbs, msg_size: 4096}
                hosts: {pairs: [[never-seen-host, gone-host]]}
                """, 200);
        List<Map<String, Object>> warnings = (List<Map<String, Object>>) check.get("warnings");
        assertThat(warnings).extracting(w -> w.get("field")).containsOnly("hosts");
        assertThat(warnings).extracting(w -> (String) w.get("message"))
                .anySatisfy(m -> assertThat(m).startsWith("host gone-host is offline (its agent was last heard at ")
                        .endsWith("): its runs wait until it reconnects"))
                .anySatisfy(m -> assertThat(m).startsWith("host never-seen-host is unknown: no agent of that name"))
                .anySatisfy(m -> assertThat(m).startsWith("by its last hello, server gone-host cannot run provider "
                        + "verbs: "))
                .hasSize(3);

        Map<String, Object> created = post("/api/experiments", """
                name: tcp on a gone host
                base: {provider: tcp, msg_size: 64}
                hosts: {loopback: [gone-host]}
                """, 201);
        assertThat((List<Map<String, Object>>) created.get("warnings")).singleElement()
                .satisfies(w -> assertThat((String) w.get("message")).startsWith("host gone-host is offline"));
        http().post().uri("/api/experiments/{id}/cancel", created.get("id")).exchange().expectStatus().isOk();
    }

    /**
     * A verbs run queued for any agent while none was connected (a warning then, not a refusal) is not handed to an
     * agent whose host has no RDMA device: it waits for one that can, and a tcp run queued behind it runs meanwhile.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aRunOnAnyAgentWaitsForOneThatCanRunItAndDoesNotHoldUpTheRunsBehindIt() throws Exception {
        Await.until("no agent connected", Duration.ofSeconds(30), () -> registry.connectedCount() == 0, () -> "");
        Map<String, Object> verbs = post("/api/experiments", """
                name: verbs waiting for an RDMA host
                base: {provider: verbs, op: write, msg_size: 64, iterations: 10}
                """, 201);
        assertThat((List<String>) verbs.get("warnings")).as("nobody to check it with: a warning").isNotEmpty();
        long verbsRun = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(((Number) verbs.get("id")).longValue())
                .query(Long.class).single();
        long tcp = ((Number) post("/api/experiments", TCP.formatted(2_000), 201).get("id")).longValue();
        try (AgentProcess agent = AgentProcess.start(port, "no-rdma-waiter", TOKEN)) {
            assertThat(awaitExperimentEnd(tcp, Duration.ofSeconds(120), agent::log)).containsEntry("status", "FINISHED");
            assertThat(jdbc.sql("SELECT status || ' ' || attempt FROM run WHERE id = ?").param(verbsRun).query(String.class)
                    .single()).as("never tried on a host without an RDMA device").isEqualTo("QUEUED 0");
        } finally {
            http().post().uri("/api/experiments/{id}/cancel", verbs.get("id")).exchange(); // 409 if it ended: the assertion says why
        }
    }

    private void awaitConnected(AgentProcess agent, String id) throws Exception {
        Await.until(id + " is connected", Duration.ofSeconds(90), () -> {
            assertThat(agent.process().isAlive()).as("agent running; log:\n%s", agent.log()).isTrue();
            return registry.connectedFacts(id) != null;
        }, agent::log);
    }

    private Map<String, Object> post(String uri, String matrix, int status) {
        return http().post().uri(uri).contentType(YAML).bodyValue(matrix).exchange().expectStatus().isEqualTo(status)
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }
}
