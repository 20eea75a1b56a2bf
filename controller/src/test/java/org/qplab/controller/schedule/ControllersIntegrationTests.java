package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.qplab.controller.schedule.StoredRunChecks.count;
import static org.qplab.controller.schedule.StoredRunChecks.everyCycleOnce;
import static org.qplab.controller.schedule.StoredRunChecks.longs;
import static org.qplab.controller.schedule.StoredRunChecks.noHostRanTwoBenchmarksAtOnce;
import static org.qplab.controller.schedule.StoredRunChecks.strings;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
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
 * Two controllers on one PostgreSQL (README "Scaling out"), four hosts in network namespaces, two agents on each
 * controller, each agent given both controllers (its own first). A matrix of every pair of the four runs pairs on one
 * controller and pairs across the two (driven by the client's controller, the server's messages relayed through the
 * database); every run FINISHED with every cycle stored once. Then one controller is killed (SIGKILL) in the middle of a
 * second matrix: its agents go on to the other within 10 s, replay what the dead one had not acknowledged, and their
 * runs are recovered there as after a restart: the matrix completes, and every cycle is stored once (checked in
 * PostgreSQL). Last, the other controller is killed too while pairs run: with no controller to reach, the agents keep
 * their spools and go round their lists until the first comes back, and the pairs finish, every cycle stored once.
 */
class ControllersIntegrationTests {

    private static final String TOKEN = "controllers-test-token";
    private static final String MEASURING = "SELECT id FROM run r WHERE status = 'RUNNING' AND controller_id = '%s' "
            + "AND EXISTS (SELECT 1 FROM run_frame b WHERE b.run_id = r.id)";
    private static NetworkNamespaces net;
    private static ControllerProcess first;
    private static ControllerProcess second;
    private static final List<AgentProcess> agents = new ArrayList<>();

    @BeforeAll
    static void hosts() throws Exception {
        NetworkNamespaces.assumeAvailable("two-controller test");
        net = NetworkNamespaces.create(88, 4);
    }

    @AfterAll
    static void down() throws Exception {
        for (AgentProcess agent : agents) {
            agent.close();
        }
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
        if (net != null) {
            net.close();
        }
    }

    @Test
    void twoControllersRunPairsAcrossThemAndOneKilledLosesNothing() throws Exception {
        int pgPort = ControllerProcess.freePort();
        Path dataDir = TestDatabase.freshDataDir();
        List<String> common = List.of("qplab.agents.token=" + TOKEN, "server.address=0.0.0.0", "qplab.schedule.tick=500ms",
                "qplab.agents.lost-after=30s", "qplab.cluster.heartbeat=1s", "qplab.cluster.dead-after=4s");
        first = ControllerIntegrationTest.startProcess("controllers-1", ControllerProcess.freePort(), dataDir, pgPort, common);
        List<String> external = new ArrayList<>(common);
        external.addAll(TestDatabase.externalSettings(dataDir, pgPort));
        second = ControllerIntegrationTest.startProcess("controllers-2", ControllerProcess.freePort(),
                TestDatabase.freshDataDir(), 0, external);
        String one = "ws://" + net.hostAddress() + ":" + first.port() + "/agent";
        String two = "ws://" + net.hostAddress() + ":" + second.port() + "/agent";
        for (int i = 1; i <= 4; i++) {
            agents.add(AgentProcess.start(net.in(i, List.of()), i <= 2 ? one + "," + two : two + "," + one, "c" + i, TOKEN));
        }

        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            String firstId = controllerOn(db, first.port());
            String secondId = controllerOn(db, second.port());
            await(db, "c1 and c2 on the first controller, c3 and c4 on the second", Duration.ofSeconds(60), () ->
                    strings(db, "SELECT id || '@' || controller_id FROM agent WHERE connected ORDER BY id").equals(List.of(
                            "c1@" + firstId, "c2@" + firstId, "c3@" + secondId, "c4@" + secondId)));

            // every pair of the four: c1-c2 on the first, c3-c4 on the second, the other four across
            long across = first.create("/api/experiments", "application/yaml", """
                    name: pairs across two controllers
                    hosts: {group: [c1, c2, c3, c4]}
                    retests: 0
                    base: {provider: tcp, duration_ms: 1000, msg_size: 16K}
                    """);
            await(db, "the first experiment ends", Duration.ofMinutes(2), () -> ended(db, across));
            assertThat(strings(db, "SELECT status FROM experiment WHERE id = " + across)).containsExactly("FINISHED");
            assertThat(strings(db, "SELECT agent_id || '>' || server_agent_id || ': ' || status || ' by '"
                    + " || CASE controller_id WHEN '" + firstId + "' THEN 'first' ELSE 'second' END"
                    + " FROM run WHERE experiment_id = " + across + " ORDER BY agent_id, server_agent_id"))
                    .as("each pair FINISHED once, driven by its client's controller")
                    .hasSize(6).allMatch(r -> r.contains(": FINISHED by ")
                            && r.endsWith(r.startsWith("c1") || r.startsWith("c2") ? "first" : "second"));
            assertThat(count(db, "SELECT count(*) FROM run r JOIN agent c ON c.id = r.agent_id JOIN agent s "
                    + "ON s.id = r.server_agent_id WHERE r.experiment_id = " + across + " AND c.controller_id <> s.controller_id"))
                    .as("pairs whose hosts are on different controllers").isEqualTo(4);
            assertThat(first.log() + second.log()).contains("(on another controller), preparing");
            everyCycleOnce(db, "r.experiment_id = " + across);

            // the first controller dies in the middle of a matrix; its agents go on to the second
            long through = second.create("/api/experiments", "application/yaml", """
                    name: through a controller's death
                    hosts: {group: [c1, c2, c3, c4]}
                    retests: 0
                    base: {provider: tcp, duration_ms: 2000}
                    dimensions: {msg_size: [4K, 64K]}
                    """);
            await(db, "a run measuring on the first controller", Duration.ofMinutes(2), () ->
                    !longs(db, MEASURING.formatted(firstId)).isEmpty());
            first.kill();
            long killedAt = System.nanoTime();
            List<Long> inFlight = longs(db, "SELECT id FROM run WHERE status = 'RUNNING' AND controller_id = '" + firstId + "'");
            List<Long> measuring = longs(db, MEASURING.formatted(firstId));
            await(db, "c1 and c2 registered with the second controller", Duration.ofSeconds(30), () ->
                    count(db, "SELECT count(*) FROM agent WHERE connected AND controller_id = '" + secondId + "'") == 4);
            Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);
            assertThat(failover).as("the dead controller's agents reached the other").isLessThan(Duration.ofSeconds(10));

            await(db, "the second experiment ends", Duration.ofMinutes(4), () -> ended(db, through));
            assertThat(strings(db, "SELECT status FROM experiment WHERE id = " + through)).containsExactly("FINISHED");
            assertThat(count(db, "SELECT count(*) FROM run WHERE experiment_id = " + through + " AND superseded_by IS NULL"))
                    .isEqualTo(12);
            assertThat(count(db, "SELECT count(*) FROM run WHERE experiment_id = " + through
                    + " AND superseded_by IS NULL AND status <> 'FINISHED'")).as("every point finished").isZero();
            assertThat(count(db, "SELECT count(*) FROM run WHERE superseded_by IS NOT NULL AND status <> 'FAILED'"))
                    .as("a try that was replaced failed, with its reason").isZero();
            for (long run : inFlight) {
                assertThat(strings(db, "SELECT status || CASE WHEN superseded_by IS NULL THEN '' ELSE ' and tried again' END"
                        + " FROM run WHERE id = " + run)).as("run %d, in flight on the killed controller", run)
                        .containsAnyOf("FINISHED", "FAILED and tried again");
            }
            assertThat(strings(db, "SELECT status FROM run WHERE id IN (" + String.join(", ",
                    measuring.stream().map(String::valueOf).toList()) + ")"))
                    .as("a run measuring when its controller died went on and was completed from its agents")
                    .contains("FINISHED");
            assertThat(second.log()).contains("which drove it, is gone");
            everyCycleOnce(db, "r.experiment_id = " + through);
        }

        // no controller at all for a while: the agents keep what they hold and go round their list until one is back
        long without = second.create("/api/experiments", "application/yaml", """
                name: with no controller for a while
                hosts: {pairs: [[c1, c3], [c4, c2]]}
                base: {provider: tcp, duration_ms: 3000, msg_size: 16K}
                """);
        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            String secondId = controllerOn(db, second.port());
            await(db, "both pairs measuring", Duration.ofMinutes(1), () ->
                    longs(db, MEASURING.formatted(secondId)).size() == 2);
        }
        second.kill();
        Thread.sleep(6000);
        for (AgentProcess agent : agents) {
            assertThat(agent.log()).as("an agent with no controller to reach goes round its list")
                    .contains("cannot reach the controller at " + one).contains("cannot reach the controller at " + two);
        }
        first.restart(); // its PostgreSQL is still running: the restart stops it and starts its own again
        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            await(db, "the third experiment ends", Duration.ofMinutes(3), () -> ended(db, without));
            assertThat(strings(db, "SELECT status FROM experiment WHERE id = " + without)).containsExactly("FINISHED");
            assertThat(count(db, "SELECT count(*) FROM run WHERE experiment_id = " + without + " AND superseded_by IS NULL "
                    + "AND status = 'FINISHED'")).isEqualTo(2);
            everyCycleOnce(db, "r.experiment_id = " + without);
            noHostRanTwoBenchmarksAtOnce(db);
        }
    }

    private static String controllerOn(Connection db, int port) throws SQLException {
        List<String> ids = strings(db, "SELECT id FROM controller WHERE url LIKE '%:" + port + "' AND stopped_at IS NULL");
        assertThat(ids).as("the controller on port %d", port).hasSize(1);
        return ids.get(0);
    }

    private static boolean ended(Connection db, long experiment) throws SQLException {
        return count(db, "SELECT count(*) FROM experiment WHERE id = " + experiment + " AND status IN ('QUEUED', 'RUNNING')") == 0;
    }

    private static void await(Connection db, String what, Duration timeout, Callable<Boolean> condition) throws Exception {
        Await.until(what, timeout, condition, ControllersIntegrationTests::logs);
    }

    private static String logs() {
        StringBuilder all = new StringBuilder();
        for (ControllerProcess controller : new ControllerProcess[] {first, second}) {
            if (controller != null) {
                all.append(controller.log()).append("\n====\n");
            }
        }
        agents.forEach(a -> all.append(a.log()).append("\n----\n"));
        return all.toString();
    }
}
