package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.NetworkNamespaces;
import org.qplab.controller.database.TestDatabase;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.ControllerProcess;

/**
 * The controller killed with SIGKILL in the middle of a matrix (three hosts in network namespaces, pair runs
 * and loopback runs) and started again on the same data directory: the matrix completes. Runs that were in
 * flight are completed from their agents or failed and tried again; every point ends FINISHED once, and
 * the stored intervals of every run count each of its cycles once (a finished run's: exactly its summary's
 * cycles), though the agents send again whatever the dead controller had not acknowledged — checked in
 * PostgreSQL.
 */
class ControllerRestartIntegrationTests {

    private static final String TOKEN = "restart-test-token";
    /** Runs in flight that have intervals stored: measuring, not being set up. */
    private static final String MEASURING = "SELECT id FROM run r WHERE status = 'RUNNING' "
            + "AND EXISTS (SELECT 1 FROM run_frame b WHERE b.run_id = r.id)";
    private static NetworkNamespaces net;
    private static ControllerProcess controller;
    private static final List<AgentProcess> agents = new ArrayList<>();

    @BeforeAll
    static void hosts() throws Exception {
        NetworkNamespaces.assumeAvailable("controller restart test");
        net = NetworkNamespaces.create(84, 3);
    }

    @AfterAll
    static void down() throws Exception {
        for (AgentProcess agent : agents) {
            agent.close();
        }
        if (controller != null) {
            controller.close();
        }
        if (net != null) {
            net.close();
        }
    }

    @Test
    void aControllerKilledMidMatrixAndRestartedCompletesItWithEveryCycleStoredOnce() throws Exception {
        int port = ControllerProcess.freePort();
        int pgPort = ControllerProcess.freePort();
        Path dataDir = TestDatabase.freshDataDir();
        controller = ControllerIntegrationTest.startProcess("restart", port, dataDir, pgPort, List.of(
                "qplab.agents.token=" + TOKEN, "server.address=0.0.0.0", "qplab.schedule.tick=500ms",
                "qplab.agents.lost-after=30s"));
        for (int i = 1; i <= 3; i++) {
            agents.add(AgentProcess.start(net.in(i, List.of()), "ws://" + net.hostAddress() + ":" + port + "/agent", "r" + i,
                    TOKEN));
        }
        long pairs = submit("""
                name: pairs through a crash
                hosts: {group: [r1, r2, r3]}
                retests: 0 # the pairs of one machine scatter past ClusterKit's rule; this test counts the runs
                base: {provider: tcp, duration_ms: 1500}
                dimensions: {msg_size: [4K, 64K], threads: [1, 2]}
                """);
        long loopbacks = submit("""
                name: loopbacks through a crash
                hosts: {loopback: [r1, r2, r3]}
                base: {provider: tcp, duration_ms: 1500, msg_size: 16K}
                """);

        List<Long> inFlight;
        List<Long> measuring;
        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            await("3 runs finished and one in flight with intervals stored", Duration.ofSeconds(120), () ->
                    count(db, "SELECT count(*) FROM run WHERE status = 'FINISHED'") >= 3
                            && !longs(db, MEASURING).isEmpty());
            controller.kill();
            inFlight = longs(db, "SELECT id FROM run WHERE status = 'RUNNING'");
            measuring = longs(db, MEASURING);
            Thread.sleep(3000);
        }
        assertThat(inFlight).as("runs in flight when the controller died").isNotEmpty();
        controller.restart();

        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            await("both experiments end", Duration.ofMinutes(4), () ->
                    count(db, "SELECT count(*) FROM experiment WHERE status IN ('QUEUED', 'RUNNING')") == 0);
            assertThat(controller.log()).as("the restart found the killed controller's PostgreSQL still running")
                    .contains("Stopping a PostgreSQL server left running");
            assertThat(strings(db, "SELECT name || ': ' || status FROM experiment ORDER BY id")).as(logs())
                    .containsExactly("pairs through a crash: FINISHED", "loopbacks through a crash: FINISHED");
            assertThat(count(db, "SELECT count(*) FROM run WHERE superseded_by IS NULL")).isEqualTo(3 * 4 + 3);
            assertThat(count(db, "SELECT count(*) FROM run WHERE superseded_by IS NULL AND status <> 'FINISHED'"))
                    .as("every point of both matrices finished").isZero();
            assertThat(count(db, "SELECT count(*) FROM run WHERE superseded_by IS NOT NULL AND status <> 'FAILED'"))
                    .as("a try that was replaced failed, with its reason").isZero();
            assertThat(count(db, "SELECT count(*) FROM run WHERE status = 'RUNNING'")).as("nothing left running").isZero();
            for (long run : inFlight) {
                assertThat(strings(db, "SELECT status || CASE WHEN superseded_by IS NULL THEN '' ELSE ' and tried again' END"
                        + " FROM run WHERE id = " + run)).as("run %d, in flight at the crash, was completed from its agents "
                        + "or failed and tried again", run).containsAnyOf("FINISHED", "FAILED and tried again");
            }

            assertThat(strings(db, "SELECT id || ': ' || status || CASE WHEN superseded_by IS NULL THEN '' ELSE ' and "
                    + "tried again' END FROM run WHERE id IN (" + String.join(", ", measuring.stream().map(String::valueOf)
                    .toList()) + ")")).as("a run measuring at the crash went on and was completed from its agents")
                    .anyMatch(s -> s.endsWith(": FINISHED"));

            // every cycle stored once: per run, its intervals count the cycles its stored frames carried and its
            // histogram holds (a frame stored twice would count twice there); finished runs: the summary's cycles,
            // and every frame the agent numbered is there
            try (ResultSet rs = db.createStatement().executeQuery("""
                    SELECT r.id, r.status, s.cycles, s.batches,
                           (SELECT coalesce(sum(cycles), 0) FROM run_interval i WHERE i.run_id = r.id) AS interval_cycles,
                           (SELECT coalesce(sum(cycles), 0) FROM run_frame b WHERE b.run_id = r.id) AS frame_cycles,
                           coalesce((SELECT h.cycles FROM run_histogram h WHERE h.run_id = r.id), 0) AS histogram_cycles,
                           (SELECT count(*) FROM run_frame b WHERE b.run_id = r.id) AS frames,
                           (SELECT count(*) FROM run_trace x WHERE x.run_id = r.id) AS traced
                    FROM run r LEFT JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id IN (%d, %d)"""
                    .formatted(pairs, loopbacks))) {
                while (rs.next()) {
                    String run = "run " + rs.getLong("id") + " (" + rs.getString("status") + ")";
                    assertThat(rs.getLong("interval_cycles")).as(run + ": no interval twice")
                            .isEqualTo(rs.getLong("frame_cycles")).isEqualTo(rs.getLong("histogram_cycles"));
                    assertThat(rs.getLong("traced")).as(run + ": no trace was asked for").isZero();
                    if (rs.getString("status").equals("FINISHED")) {
                        assertThat(rs.getLong("interval_cycles")).as(run + ": every cycle").isEqualTo(rs.getLong("cycles"))
                                .isPositive();
                        assertThat(rs.getLong("frames")).as(run + ": every frame").isEqualTo(rs.getLong("batches"));
                    }
                }
            }
            noHostRanTwoBenchmarksAtOnce(db);
        }
    }

    private static void noHostRanTwoBenchmarksAtOnce(Connection db) throws SQLException {
        Map<String, List<Timestamp[]>> byHost = new HashMap<>();
        try (ResultSet rs = db.createStatement().executeQuery("""
                SELECT agent_id, server_agent_id, started_at, finished_at FROM run WHERE status = 'FINISHED'
                ORDER BY started_at""")) {
            while (rs.next()) {
                Timestamp[] span = {rs.getTimestamp(3), rs.getTimestamp(4)};
                for (String host : new String[] {rs.getString(1), rs.getString(2)}) {
                    if (host != null) {
                        byHost.computeIfAbsent(host, h -> new ArrayList<>()).add(span);
                    }
                }
            }
        }
        byHost.forEach((host, spans) -> {
            for (int i = 1; i < spans.size(); i++) {
                assertThat(spans.get(i)[0]).as("%s: a run started at %s, before the one before it ended at %s", host,
                        spans.get(i)[0], spans.get(i - 1)[1]).isAfterOrEqualTo(spans.get(i - 1)[1]);
            }
        });
    }

    private static long submit(String yaml) throws Exception {
        return controller.create("/api/experiments", "application/yaml", yaml);
    }

    private static long count(Connection db, String sql) throws SQLException {
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<Long> longs(Connection db, String sql) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private static List<String> strings(Connection db, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static void await(String what, Duration timeout, Callable<Boolean> condition) throws Exception {
        Await.until(what, timeout, condition, ControllerRestartIntegrationTests::logs);
    }

    private static String logs() {
        StringBuilder all = new StringBuilder(controller.log()).append("\n====\n");
        agents.forEach(a -> all.append(a.log()).append("\n----\n"));
        return all.toString();
    }
}
