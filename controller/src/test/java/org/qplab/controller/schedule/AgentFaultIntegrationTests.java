package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.qplab.controller.AgentProcess;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/**
 * Agents killed with SIGKILL in the middle of a run: the run is FAILED with the reason once the agent has
 * been gone for lost-after, the cycles that reached the controller are kept (the run is partial) and none
 * is stored twice, the hosts are free again, and the point of the matrix is tried again. Checked in
 * PostgreSQL and through the API, as a lab engineer would look.
 */
@TestPropertySource(properties = {"qplab.agents.lost-after=3s", "qplab.schedule.max-attempts=2"})
class AgentFaultIntegrationTests extends ControllerIntegrationTest {

    private final List<AgentProcess> agents = new ArrayList<>();

    @AfterEach
    void stopAgents() throws InterruptedException {
        for (AgentProcess agent : agents) {
            agent.close();
        }
    }

    @Test
    void aKilledAgentsRunFailsWithTheReasonKeepsItsPartialSamplesAndIsTriedAgainWhenTheHostIsBack() throws Exception {
        AgentProcess victim = agent("victim");
        long experiment = submit("""
                name: killed mid-run
                hosts: {loopback: [victim]}
                base: {provider: tcp, duration_ms: 3000, msg_size: 4K, rate_limit: 100000}
                """);
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        await("samples of run " + run + " are stored", Duration.ofSeconds(60), () -> stored(run) > 0);

        victim.kill();
        try (var left = Files.list(AgentProcess.tmpOf("victim"))) {
            assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("qplab-engine-")))
                    .as("the engine library it copied out of its jar (removed once loaded, not at exit)").isEmpty();
        }

        await("run " + run + " is failed", Duration.ofSeconds(30), () -> "FAILED".equals(status(run)));
        Map<String, Object> failed = runJson(run);
        assertThat(failed.get("error")).isEqualTo("agent victim disconnected during the run and did not come back within 3 s "
                + "(qplab.agents.lost-after)");
        long kept = stored(run);
        assertThat(failed).containsEntry("partial", true);
        assertThat(((Number) failed.get("samplesStored")).longValue()).as("what the API says is kept").isEqualTo(kept)
                .isPositive();
        assertThat(distinctCycles(run)).as("no cycle stored twice").isEqualTo(kept);
        long retry = ((Number) failed.get("supersededBy")).longValue();
        assertThat(status(retry)).as("the point is queued again").isEqualTo("QUEUED");

        agents.add(victim.restart());
        Map<String, Object> ended = awaitExperimentEnd(experiment, Duration.ofSeconds(90), this::logs);

        assertThat(ended).containsEntry("status", "FINISHED").containsEntry("runsTotal", 1).containsEntry("runsDone", 1)
                .containsEntry("runsFailed", 0).containsEntry("runsRetried", 1);
        Map<String, Object> second = runJson(retry);
        assertThat(second).containsEntry("status", "FINISHED").containsEntry("agentId", "victim")
                .containsEntry("attempt", 2).containsEntry("retryOf", (int) run).containsEntry("partial", false);
        long cycles = ((Number) ((Map<?, ?>) second.get("summary")).get("cycles")).longValue();
        // paced: unpaced (3.3 M cycles in 3 s), a restarted agent's cold JVM on this shared machine once fell
        // 136 k records behind and its engine's rings dropped them, which is no loss of the link's or the ingest's
        assertThat(((Number) ((Map<?, ?>) second.get("summary")).get("dropped")).longValue())
                .as("records the engine's rings dropped").isZero();
        assertThat(stored(retry)).as("every cycle of the second try stored once").isEqualTo(cycles)
                .isEqualTo(distinctCycles(retry));
        assertThat(stored(run)).as("the first try's samples are still there").isEqualTo(kept);
    }

    @Test
    void aPairRunWhoseServerIsKilledFailsAndFreesTheClientsHostAtOnce() throws Exception {
        AgentProcess client = agent("pair-client");
        AgentProcess server = agent("pair-server");
        long experiment = submit("""
                name: server killed
                hosts: {pairs: [[pair-client, pair-server]]}
                base: {provider: tcp, duration_ms: 4000, msg_size: 4K}
                """);
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        await("samples of run " + run + " are stored", Duration.ofSeconds(60), () -> stored(run) > 0);

        server.kill();

        await("run " + run + " is failed", Duration.ofSeconds(30), () -> "FAILED".equals(status(run)));
        assertThat((String) runJson(run).get("error")).as("the reason names the side and what it saw")
                .containsAnyOf("pair-server disconnected during the run", "client pair-client:");
        assertThat(distinctCycles(run)).as("no cycle stored twice").isEqualTo(stored(run));
        // the client's host is free: a loopback run there goes through while the server is still gone
        long other = submit("""
                name: on the surviving host
                hosts: {loopback: [pair-client]}
                base: {provider: tcp, iterations: 200, msg_size: 4K}
                """);
        assertThat(awaitExperimentEnd(other, Duration.ofSeconds(60), this::logs)).containsEntry("status", "FINISHED");
        long retry = ((Number) runJson(run).get("supersededBy")).longValue();
        assertThat(status(retry)).as("the pair's second try waits for its server to come back").isEqualTo("QUEUED");
        assertThat(client.process().isAlive()).isTrue();
        http().post().uri("/api/experiments/{id}/cancel", experiment).exchange().expectStatus().isOk();
    }

    private AgentProcess agent(String id) throws Exception {
        AgentProcess agent = AgentProcess.start(port, id, TOKEN);
        agents.add(agent);
        await("agent " + id + " registers", Duration.ofSeconds(60),
                () -> jdbc.sql("SELECT count(*) FROM agent WHERE id = ? AND connected").param(id).query(Long.class).single() == 1);
        return agent;
    }

    private long submit(String yaml) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(yaml).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private Map<String, Object> runJson(long run) {
        return http().get().uri("/api/runs/{id}", run).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    private String status(long run) {
        return jdbc.sql("SELECT status FROM run WHERE id = ?").param(run).query(String.class).single();
    }

    private long stored(long run) {
        return jdbc.sql("SELECT count(*) FROM sample WHERE run_id = ?").param(run).query(Long.class).single();
    }

    private long distinctCycles(long run) {
        return jdbc.sql("SELECT count(DISTINCT (thread, cycle)) FROM sample WHERE run_id = ?").param(run)
                .query(Long.class).single();
    }

    private void await(String what, Duration timeout, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        Await.until(what, timeout, condition, this::logs);
    }

    private String logs() {
        StringBuilder all = new StringBuilder();
        agents.forEach(a -> all.append(a.log()).append("\n----\n"));
        return all.toString();
    }
}
