package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.agent.AgentReady;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.agent.AgentRepository;
import org.qplab.controller.cluster.ControllerNode;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import tools.jackson.databind.ObjectMapper;

/**
 * What {@link PairRelay} leaves behind when a pair's driver dies, in the real database: a relay of the test's own (the
 * context's scheduler sweeps its own relay meanwhile), on this controller's node. A host held busy for a pair run driven
 * elsewhere is freed once the run has ended and its driver is gone (the release will never come), not while the run
 * runs or while a live driver may still send it; messages for gone controllers about ended runs are deleted after
 * an hour, not before, and never while the run runs; and a run its driver claimed just before it died, that no agent
 * ever got, fails (and is tried again) once that driver is gone, not before.
 */
class PairRelayIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private DataSource dataSource;
    @Autowired
    private ObjectMapper json;
    @Autowired
    private AgentRegistry registry;
    @Autowired
    private AgentRepository agents;
    @Autowired
    private ControllerNode node;
    @Autowired
    private RunRecovery recovery;

    private final List<Object> published = new CopyOnWriteArrayList<>();

    private PairRelay relay() {
        return new PairRelay(jdbc, dataSource, json, registry, agents, node, published::add);
    }

    /** A run of an experiment of its own, in status, driven by driver. */
    private long run(String status, String driver) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"relay\",\"base\":{\"msg_size\":64,\"iterations\":1}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long experiment = ((Number) created.get("id")).longValue();
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        // the run is on agents this test plays, so no real agent may take it
        jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'relay-client', server_agent_id = 'relay-server', "
                + "attempt = 1, controller_id = ? WHERE id = ?").params(driver, run).update();
        if (!status.equals("RUNNING")) {
            jdbc.sql("UPDATE run SET status = ?, finished_at = now() WHERE id = ?").params(status, run).update();
        }
        return run;
    }

    private void driverDies(String driver) {
        jdbc.sql("UPDATE controller SET last_seen = now() - interval '1 hour', stopped_at = now() WHERE id = ?")
                .param(driver).update();
    }

    private String otherController() {
        String id = "relay-test-" + System.nanoTime();
        jdbc.sql("INSERT INTO controller (id, name) VALUES (?, ?)").params(id, id).update();
        return id;
    }

    @Test
    void aHostHeldForAPairDrivenElsewhereIsFreedOnceTheRunEndedAndItsDriverIsGone() {
        PairRelay relay = relay();
        String driver = otherController();
        long run = run("RUNNING", driver);
        relay.hold("relay-server", run);

        relay.sweep();
        assertThat(published).as("the run runs, its driver alive: held").isEmpty();

        driverDies(driver);
        relay.sweep();
        assertThat(published).as("the run still RUNNING, its driver gone: the takeover's to settle, not the sweep's")
                .isEmpty();

        jdbc.sql("UPDATE run SET status = 'FINISHED', finished_at = now() WHERE id = ?").param(run).update();
        relay.sweep();
        assertThat(published).as("the run ended and its driver is gone: no release will come, the host is free")
                .containsExactly(new AgentReady("relay-server"));
        relay.sweep();
        assertThat(published).as("freed once").hasSize(1);
    }

    @Test
    void aHostHeldForAPairWhoseLiveDriverEndedItWaitsForTheRelease() {
        PairRelay relay = relay();
        String driver = otherController();
        long run = run("FINISHED", driver);
        relay.hold("relay-server", run);
        relay.sweep();
        assertThat(published).as("ended a moment ago by a live driver: its release is on its way").isEmpty();

        jdbc.sql("UPDATE run SET finished_at = now() - make_interval(secs => ?) WHERE id = ?")
                .params(PairRelay.RELEASE_GRACE_SECONDS + 5, run).update();
        relay.sweep();
        assertThat(published).as("the release overdue: freed").containsExactly(new AgentReady("relay-server"));
    }

    @Test
    void aHostTheRunWasSettledForHereIsNoLongerTheSweepsToFree() {
        PairRelay relay = relay();
        String driver = otherController();
        long run = run("FINISHED", driver);
        relay.hold("relay-server", run);
        relay.unhold("relay-server", run);
        driverDies(driver);
        relay.sweep();
        assertThat(published).isEmpty();
    }

    @Test
    void aRunItsDyingDriverClaimedButNeverPreparedFailsHereOnceTheDriverIsGone() {
        String driver = otherController();
        long run = run("RUNNING", driver);
        long experiment = jdbc.sql("SELECT experiment_id FROM run WHERE id = ?").param(run).query(Long.class).single();
        try {
            // bench/controllers: the client came back here without the run (its driver, alive by its heartbeat but
            // killed, had claimed it and never sent the prepare); the failure went to the driver, which never took it
            var returned = recovery.agentReturned("relay-client", null, null, List.of());
            assertThat(returned.busyWith()).as("the client holds nothing").isNull();
            assertThat(jdbc.sql("SELECT count(*) FROM controller_message WHERE to_controller = ? AND run_id = ? "
                    + "AND kind = 'from_agent'").params(driver, run).query(Long.class).single())
                    .as("its failure relayed to the driver").isEqualTo(1);
            recovery.recheck();
            assertThat(status(run)).as("the driver alive: the failure is its to record").isEqualTo("RUNNING");

            driverDies(driver);
            recovery.recheck();
            assertThat(status(run)).as("the driver gone: failed here, not left RUNNING for good").isEqualTo("FAILED");
            assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ? AND status = 'QUEUED'").param(experiment)
                    .query(Long.class).single()).as("and tried again").isEqualTo(1);
        } finally {
            http().post().uri("/api/experiments/{id}/cancel", experiment).exchange();
            jdbc.sql("DELETE FROM controller_message WHERE run_id = ?").param(run).update();
        }
    }

    private String status(long run) {
        return jdbc.sql("SELECT status FROM run WHERE id = ?").param(run).query(String.class).single();
    }

    @Test
    void messagesForGoneControllersAboutEndedRunsAreDeletedAfterAnHour() {
        PairRelay relay = relay();
        String driver = otherController();
        long ended = run("FINISHED", driver);
        long running = run("RUNNING", driver);
        String sql = "INSERT INTO controller_message (to_controller, agent_id, run_id, kind, sent_at) "
                + "VALUES (?, 'relay-never-back', ?, 'release', now() - make_interval(mins => ?))";
        jdbc.sql(sql).params(driver, ended, 90).update();
        jdbc.sql(sql).params(driver, running, 90).update();
        jdbc.sql(sql).params(driver, ended, 30).update();
        String alive = otherController(); // not this context's: its relay would take its rows
        jdbc.sql(sql).params(alive, ended, 90).update();

        assertThat(relay.forgetStale()).as("the driver is alive: its messages wait for it").isZero();
        driverDies(driver);
        assertThat(relay.forgetStale()).as("gone, and the message about the ended run 90 min old").isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM controller_message WHERE run_id IN (?, ?) AND to_controller = ?")
                .params(ended, running, driver).query(Long.class).single())
                .as("kept: the one about the running run (its takeover moves it) and the one 30 min old").isEqualTo(2);
        assertThat(jdbc.sql("SELECT count(*) FROM controller_message WHERE to_controller = ?").param(alive)
                .query(Long.class).single()).as("a live controller's messages are its own to take").isEqualTo(1);
        jdbc.sql("DELETE FROM controller_message WHERE run_id IN (?, ?)").params(ended, running).update();
        driverDies(alive);
    }
}
