package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.qplab.controller.schedule.StoredRunChecks.count;
import static org.qplab.controller.schedule.StoredRunChecks.everyCycleOnce;
import static org.qplab.controller.schedule.StoredRunChecks.longs;
import static org.qplab.controller.schedule.StoredRunChecks.noHostRanTwoBenchmarksAtOnce;
import static org.qplab.controller.schedule.StoredRunChecks.strings;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

            // every cycle stored once (a frame stored twice would count twice), every frame of a finished run
            everyCycleOnce(db, "r.experiment_id IN (%d, %d)".formatted(pairs, loopbacks));
            noHostRanTwoBenchmarksAtOnce(db);
        }
    }

    private static long submit(String yaml) throws Exception {
        return controller.create("/api/experiments", "application/yaml", yaml);
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
