package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.NetworkNamespaces;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * A host's link goes down for 10 s in the middle of a run (its veth, as a pulled cable would): the agent in
 * that network namespace notices the silence, keeps the run's frames (in its disk spool: its memory share is 0
 * here, so every frame waits on disk until it is acknowledged), reconnects when the link is back and replays
 * them. The run's stored intervals then count every cycle of its summary exactly once.
 */
class LinkFaultIntegrationTests extends ControllerIntegrationTest {

    private static final int HEALTH_PORT = 19181;
    private static NetworkNamespaces net;
    private static AgentProcess agent;

    @BeforeAll
    static void host() throws Exception {
        NetworkNamespaces.assumeAvailable("link fault test");
        net = NetworkNamespaces.create(82, 1);
    }

    @AfterAll
    static void down() throws Exception {
        if (agent != null) {
            agent.close();
        }
        if (net != null) {
            net.close();
        }
    }

    @Test
    void aLinkDownForTenSecondsMidRunLosesNoCycleAndStoresNoneTwice() throws Exception {
        agent = AgentProcess.start(net.in(1, List.of()), "ws://" + net.hostAddress() + ":" + port + "/agent", "cut", TOKEN,
                List.of("--spool-memory-mb", "0", "--health-port", String.valueOf(HEALTH_PORT)));
        await("agent cut registers", Duration.ofSeconds(60),
                () -> jdbc.sql("SELECT count(*) FROM agent WHERE id = 'cut' AND connected").query(Long.class).single() == 1);
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue("""
                        name: link cut
                        hosts: {loopback: [cut]}
                        base: {provider: tcp, duration_ms: 20000, msg_size: 64K}
                        """).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long experiment = ((Number) created.get("id")).longValue();
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        await("intervals arrive", Duration.ofSeconds(60), () -> stored(run) > 0);
        Thread.sleep(2000);

        net.link(1, false);
        long storedAtCut = stored(run);
        Thread.sleep(10_000);
        Map<String, Long> during = agentMetrics();
        long storedDuringCut = stored(run);
        net.link(1, true);

        Map<String, Object> ended = awaitExperimentEnd(experiment, Duration.ofSeconds(120), agent::log);
        assertThat(ended).as(agent.log()).containsEntry("status", "FINISHED");
        assertThat(during.get("qplab_agent_connected")).as("the agent saw the link die").isZero();
        assertThat(during.get("qplab_agent_spool_bytes_disk")).as("frames went to the disk spool meanwhile").isPositive();
        assertThat(during.get("qplab_agent_spooled_frames_total")).isPositive();
        assertThat(storedDuringCut - storedAtCut).as("nothing arrived while the link was down (at most what was in flight)")
                .isLessThan(stored(run) - storedAtCut);
        assertThat(agent.log()).contains("the link is dead").containsPattern("replaying \\d+ unacknowledged");
        assertThat(agent.log().lines().filter(l -> l.contains("registered with"))).as("one reconnect, after the cut: "
                + agent.log()).hasSize(2);

        Map<String, Object> summary = jdbc.sql("SELECT cycles, batches, (summary->>'intervals')::bigint AS intervals "
                + "FROM run_summary WHERE run_id = ?").param(run).query().singleRow();
        Map<String, Object> stored = jdbc.sql("""
                        SELECT (SELECT sum(cycles) FROM run_interval WHERE run_id = :run) AS cycles,
                               (SELECT count(*) FROM run_interval WHERE run_id = :run) AS intervals,
                               (SELECT sum(cycles) FROM run_frame WHERE run_id = :run) AS frame_cycles,
                               (SELECT count(*) FROM run_frame WHERE run_id = :run) AS frames,
                               (SELECT cycles FROM run_histogram WHERE run_id = :run) AS histogram""")
                .param("run", run).query().singleRow();
        long cycles = (Long) summary.get("cycles");
        assertThat(((Number) stored.get("cycles")).longValue()).as("every cycle stored, none twice").isEqualTo(cycles)
                .isEqualTo(((Number) stored.get("frame_cycles")).longValue())
                .isEqualTo(((Number) stored.get("histogram")).longValue());
        assertThat(stored.get("intervals")).as("every interval the engine closed, once").isEqualTo(summary.get("intervals"));
        assertThat(stored.get("frames")).as("every frame the agent numbered").isEqualTo(summary.get("batches"));
        assertThat(((Number) http().get().uri("/api/runs/{id}", run).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody().get("cyclesStored")).longValue()).as("what the API says is stored")
                .isEqualTo(cycles);
        await("the agent's spool is empty again", Duration.ofSeconds(30), () -> {
            Map<String, Long> after = agentMetrics();
            return after.get("qplab_agent_spool_entries") == 0 && after.get("qplab_agent_spool_bytes_disk") == 0;
        });
    }

    /** The agent's Prometheus metrics, scraped inside its namespace (the link may be down). */
    private Map<String, Long> agentMetrics() throws Exception {
        Process curl = new ProcessBuilder(net.in(1, List.of("curl", "-sf", "--max-time", "5",
                "http://127.0.0.1:" + HEALTH_PORT + "/metrics"))).redirectErrorStream(true).start();
        String text = new String(curl.getInputStream().readAllBytes());
        if (!curl.waitFor(10, TimeUnit.SECONDS) || curl.exitValue() != 0) {
            fail("scraping the agent's metrics failed: " + text);
        }
        Map<String, Long> values = new java.util.HashMap<>();
        Matcher m = Pattern.compile("(?m)^(qplab_\\w+)(?:\\{where=\"(\\w+)\"})? (-?\\d+)$").matcher(text);
        while (m.find()) {
            values.put(m.group(1) + (m.group(2) == null ? "" : "_" + m.group(2)), Long.parseLong(m.group(3)));
        }
        return values;
    }

    /** The cycles the run's stored intervals count. */
    private long stored(long run) {
        return jdbc.sql("SELECT coalesce(sum(cycles), 0) FROM run_interval WHERE run_id = ?").param(run)
                .query(Long.class).single();
    }

    private void await(String what, Duration timeout, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        Await.until(what, timeout, condition, () -> agent == null ? "" : agent.log());
    }
}
