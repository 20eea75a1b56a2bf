package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.NetworkNamespaces;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * Three hosts (network namespaces joined by veth pairs to a bridge), a real agent in each, the
 * controller and PostgreSQL on this host. Pair runs cross the namespaces' links; loopback runs share
 * the same hosts; no host may ever run two benchmarks at once.
 */
class MultiHostIntegrationTests extends ControllerIntegrationTest {

    private static final int HOSTS = 3;
    private static NetworkNamespaces net;
    private static final List<AgentProcess> agents = new ArrayList<>();

    @BeforeAll
    static void hosts() throws Exception {
        NetworkNamespaces.assumeAvailable("multi-host test");
        net = NetworkNamespaces.create(81, HOSTS);
    }

    @AfterAll
    static void down() throws Exception {
        for (AgentProcess agent : agents) {
            agent.close();
        }
        if (net != null) {
            net.close();
        }
    }

    @Test
    void aMatrixAcrossEveryPairOfThreeHostsCompletesAndNoHostEverRunsTwoBenchmarksAtOnce() throws Exception {
        for (int i = 1; i <= HOSTS; i++) {
            agents.add(AgentProcess.start(net.in(i, List.of()), "ws://" + net.hostAddress() + ":" + port + "/agent",
                    "h" + i, TOKEN));
        }
        awaitAgentsConnected(List.of("h1", "h2", "h3"), () -> logsOf(agents));
        assertThat(jdbc.sql("SELECT facts->>'data_address' FROM agent WHERE id IN ('h1','h2','h3') ORDER BY id")
                .query(String.class).list()).as("each agent found its namespace's address")
                .containsExactly(net.address(1), net.address(2), net.address(3));

        long iterations = 3000;
        long pairs = submit("""
                name: every pair
                hosts: {group: [h1, h2, h3]}
                retests: 0 # the pairs of one machine scatter past ClusterKit's rule; this test counts the runs
                base: {provider: tcp, iterations: %d, qps_per_thread: 2}
                dimensions: {msg_size: [4K, 64K], threads: [1, 2]}
                """.formatted(iterations));
        long loopbacks = submit("""
                name: loopback on each
                hosts: {loopback: [h1, h2, h3]}
                base: {provider: tcp, iterations: %d, msg_size: 4K}
                """.formatted(iterations));

        for (long id : List.of(pairs, loopbacks)) {
            Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(4), () -> logsOf(agents));
            assertThat(ended.get("status")).as("experiment %d (%s)", id, logsOf(agents)).isEqualTo("FINISHED");
        }

        List<Map<String, Object>> runs = jdbc.sql("""
                        SELECT r.id, r.want_client, r.want_server, r.agent_id, r.server_agent_id, r.started_at, r.finished_at,
                               (r.params->>'msg_size')::bigint AS msg_size, (r.params->>'threads')::bigint AS threads,
                               (r.params->>'qps_per_thread')::bigint AS qps, s.bytes, s.cycles, s.errors,
                               (r.server_summary->>'bytes')::bigint AS server_bytes,
                               (SELECT sum(i.cycles) FROM run_interval i WHERE i.run_id = r.id) AS stored_cycles,
                               (SELECT h.cycles FROM run_histogram h WHERE h.run_id = r.id) AS histogram_cycles
                        FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id IN (?, ?)""")
                .params(pairs, loopbacks).query().listOfRows();
        assertThat(runs).hasSize(3 * 4 + 3);
        assertThat(runs.stream().filter(r -> r.get("want_server") != null).map(r -> r.get("want_client") + "->" + r.get("want_server")).distinct())
                .containsExactlyInAnyOrder("h1->h2", "h1->h3", "h2->h3");
        for (Map<String, Object> run : runs) {
            String what = "run " + run.get("id") + " " + run.get("want_client") + "->" + run.get("want_server");
            assertThat(run.get("agent_id")).as(what + " ran its sending side where the matrix said").isEqualTo(run.get("want_client"));
            assertThat(run.get("server_agent_id")).as(what + " server").isEqualTo(run.get("want_server"));
            long qps = run.get("qps") == null ? 1 : (Long) run.get("qps");
            long expected = iterations * (Long) run.get("msg_size") * (Long) run.get("threads") * qps;
            assertThat(run.get("bytes")).as(what + " bytes sent").isEqualTo(expected);
            assertThat(run.get("cycles")).as(what + " cycles").isEqualTo(iterations * (Long) run.get("threads"));
            assertThat(run.get("errors")).isEqualTo(0L);
            assertThat(((Number) run.get("stored_cycles")).longValue()).as(what + " cycles its stored intervals count, once")
                    .isEqualTo(run.get("cycles")).isEqualTo(((Number) run.get("histogram_cycles")).longValue());
            if (run.get("want_server") != null) {
                assertThat(run.get("server_bytes")).as(what + " bytes the other host received").isEqualTo(expected);
            }
        }
        assertThat(jdbc.sql("SELECT count(*) FROM run_trace WHERE run_id IN (SELECT id FROM run WHERE experiment_id IN (?, ?))")
                .params(pairs, loopbacks).query(Long.class).single()).as("no trace was asked for").isZero();

        for (String host : List.of("h1", "h2", "h3")) {
            List<Map<String, Object>> on = runs.stream()
                    .filter(r -> host.equals(r.get("agent_id")) || host.equals(r.get("server_agent_id")))
                    .sorted((a, b) -> ((Timestamp) a.get("started_at")).compareTo((Timestamp) b.get("started_at")))
                    .toList();
            assertThat(on).as("runs on " + host).hasSize(2 * 4 + 1);
            for (int i = 1; i < on.size(); i++) {
                Timestamp previousEnd = (Timestamp) on.get(i - 1).get("finished_at");
                Timestamp start = (Timestamp) on.get(i).get("started_at");
                assertThat(start.compareTo(previousEnd)).as("%s: run %s started at %s, before run %s ended at %s", host,
                        on.get(i).get("id"), start, on.get(i - 1).get("id"), previousEnd).isGreaterThanOrEqualTo(0);
            }
        }
    }

    private long submit(String yaml) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(yaml).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }
}
