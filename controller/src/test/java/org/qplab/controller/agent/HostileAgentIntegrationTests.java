package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.reactive.socket.CloseStatus;

/**
 * A fake agent against the real controller, replaying what issues 18 and 31 found: it took another agent's id (with
 * another token, and with the enrolment secret), ended another agent's run (the real summary was lost), stored a
 * frame of a run not its own, kept sending after its token was revoked, named others' runs in heartbeats, and neither
 * silence, a browser's Origin nor a guessed token met any limit, while the limit on guesses locked valid agents out.
 * Each is now refused with a close code that says why, and nothing of it is stored.
 */
// every test starts with no failed hellos counted (noAddressIsThrottled), whatever ran before it
@TestPropertySource(properties = {"qplab.agents.hello-timeout=1s", "qplab.agents.failed-hello-limit=20",
        "qplab.agents.failed-hello-block=3s"})
class HostileAgentIntegrationTests extends ControllerIntegrationTest {

    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Where RawAgent's links come from, as the controller sees them. */
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Autowired
    private HelloThrottle throttle;

    @BeforeEach
    void noAddressIsThrottled() {
        throttle.forgetAll();
    }

    @Test
    void aRevokedAgentsLinkIsClosedAtOnceNothingItSendsIsStoredAndTheSecretDoesNotTakeItsIdAgain() throws Exception {
        String id = "hostile-revoked";
        long own = RawAgent.storedRun(jdbc, "RUNNING", id);
        try (RawAgent agent = RawAgent.connect(port).hello(id, TOKEN)) {
            String token = agent.await(AgentMessage.Welcome.class, WAIT).token();
            assertThat(token).as("its own token, issued at enrolment").matches("[0-9a-f]{64}");

            http().delete().uri("/api/agents/{id}/token", id).exchange().expectStatus().isNoContent();
            // whatever it still sends (if the close has not reached it yet) is neither read nor stored
            agent.send(RawAgent.frame(own, 0));
            agent.send(new AgentMessage.RunFinished(own, Map.of("cycles", 1, "bw_avg_bps", 1.23e15), 1));
            // closed with its reason, or (when those sends raced the close and the connection's reset dropped the
            // close frame) ended with an error: the audit row below says why it was closed either way
            CloseStatus closed = agent.awaitEnd(WAIT);
            if (closed != null) {
                assertThat(closed.getCode()).isEqualTo(LinkClose.TOKEN_REVOKED.code());
                assertThat(closed.getReason()).isEqualTo("agent token revoked by an admin");
            }

            try (RawAgent secret = RawAgent.connect(port).hello(id, TOKEN);
                 RawAgent revoked = RawAgent.connect(port).hello(id, token)) {
                CloseStatus refused = secret.awaitClose(WAIT);
                assertThat(refused.getCode()).isEqualTo(LinkClose.ENROLMENT_CLOSED.code());
                assertThat(refused.getReason()).isEqualTo("agent '" + id + "' has, or had, a token of its own: the "
                        + "enrolment secret does not register it");
                CloseStatus wrong = revoked.awaitClose(WAIT);
                assertThat(wrong.getCode()).isEqualTo(LinkClose.TOKEN_REFUSED.code());
                assertThat(wrong.getReason()).isEqualTo("agent token refused for agent '" + id + "'");
            }
        }
        assertThat(rowsOf("run_frame", own) + rowsOf("run_interval", own) + rowsOf("run_summary", own))
                .as("nothing of what it sent after its revocation").isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM agent_token WHERE agent_id = ?").param(id).query(Long.class).single()).isZero();
        long deadline = System.nanoTime() + WAIT.toNanos(); // its row and the audit row are written after the close
        while ((connected(id) || audit(id).isEmpty()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(connected(id)).isFalse();
        assertThat(audit(id)).containsExactly(Map.of("actor", "admin", "action",
                "agent link closed: agent token revoked by an admin", "status", LinkClose.TOKEN_REVOKED.code()));
    }

    @Test
    void aHeartbeatNamingAnotherAgentsRunIsRefusedAndOneNamingItsOwnIsTaken() throws Exception {
        long others = RawAgent.storedRun(jdbc, "RUNNING", "hostile-busy");
        long own = RawAgent.storedRun(jdbc, "RUNNING", "hostile-beater");
        try (RawAgent fake = RawAgent.connect(port)) {
            fake.hello("hostile-beater", TOKEN).await(AgentMessage.Welcome.class, WAIT);
            fake.send(new AgentMessage.Heartbeat(own, 0, 0L));
            fake.send(RawAgent.frame(own, 0)); // handled after the heartbeat: its ack says the link is still up
            assertThat(fake.await(AgentMessage.BatchAck.class, WAIT).runId()).isEqualTo(own);

            fake.send(new AgentMessage.Heartbeat(others, 0, 0L));
            CloseStatus refused = fake.awaitClose(WAIT);
            assertThat(refused.getCode()).isEqualTo(LinkClose.NOT_ITS_RUN.code());
            assertThat(refused.getReason()).isEqualTo("run " + others + " is not assigned to agent 'hostile-beater'");
        }
        assertThat(rowsOf("run_frame", others) + rowsOf("run_interval", others)).isZero();
        assertThat(jdbc.sql("SELECT agent_id FROM run WHERE id = ?").param(others).query(String.class).single())
                .isEqualTo("hostile-busy");
    }

    @Test
    void theSecretUnderALiveAgentsIdAndARunEndForAnotherAgentsRunAreRefusedAndTheRealSummaryIsStored() throws Exception {
        try (AgentProcess real = AgentProcess.start(port, "hostile-real", TOKEN)) {
            awaitConnected("hostile-real", real);
            // issue 31: the enrolment secret under the live agent's id took over its link, and its next run
            try (RawAgent impostor = RawAgent.connect(port).hello("hostile-real", TOKEN)) {
                CloseStatus refused = impostor.awaitClose(WAIT);
                assertThat(refused.getCode()).isEqualTo(LinkClose.ENROLMENT_CLOSED.code());
                assertThat(refused.getReason()).isEqualTo("agent 'hostile-real' has, or had, a token of its own: the "
                        + "enrolment secret does not register it");
            }
            assertThat(connected("hostile-real")).isTrue();
            long experimentId = ((Number) http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                    .bodyValue("""
                            name: hostile-run-end
                            base: {provider: tcp, msg_size: 64, duration_ms: 4000, interval_ms: 10}
                            dimensions: {threads: [1]}
                            """)
                    .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody()
                    .get("id")).longValue();
            long runId = awaitRunning(experimentId, "hostile-real", real);

            CloseStatus refused;
            try (RawAgent fake = RawAgent.connect(port).hello("hostile-fake", TOKEN)) {
                fake.await(AgentMessage.Welcome.class, WAIT);
                fake.send(new AgentMessage.RunFinished(runId, Map.of("cycles", 1, "bw_avg_bps", 9.99e15), 0));
                refused = fake.awaitClose(WAIT);
            }
            assertThat(refused.getCode()).isEqualTo(LinkClose.NOT_ITS_RUN.code());
            assertThat(refused.getReason()).isEqualTo("run " + runId + " is not assigned to agent 'hostile-fake'");
            assertThat(jdbc.sql("SELECT status FROM run WHERE id = ?").param(runId).query(String.class).single())
                    .as("the run goes on").isEqualTo("RUNNING");
            assertThat(jdbc.sql("SELECT count(*) FROM run_summary WHERE run_id = ?").param(runId).query(Long.class).single())
                    .as("no summary stored from the fake").isZero();

            Map<String, Object> ended = awaitExperimentEnd(experimentId, Duration.ofMinutes(2), real::log);
            assertThat(ended.get("status")).as("agent log: %s", real.log()).isEqualTo("FINISHED");
            Map<String, Object> summary = jdbc.sql("""
                            SELECT s.cycles, s.bw_avg_bps, s.batches, r.agent_id,
                                   (SELECT count(*) FROM run_frame b WHERE b.run_id = s.run_id) AS stored,
                                   (SELECT sum(cycles) FROM run_interval i WHERE i.run_id = s.run_id) AS interval_cycles
                            FROM run_summary s JOIN run r ON r.id = s.run_id WHERE s.run_id = ?""")
                    .param(runId).query().singleRow();
            assertThat(summary.get("agent_id")).isEqualTo("hostile-real");
            assertThat(real.log()).as("the real agent was never displaced").doesNotContain("refused");
            assertThat((Long) summary.get("cycles")).as("the real agent's summary").isGreaterThan(1);
            assertThat((Double) summary.get("bw_avg_bps")).as("a loopback tcp rate, not the fake's 9.99e15 B/s")
                    .isLessThan(1e12);
            assertThat(summary.get("stored")).isEqualTo(summary.get("batches"));
            assertThat(((Number) summary.get("interval_cycles")).longValue()).isEqualTo((Long) summary.get("cycles"));
        }
    }

    @Test
    void aFrameForARunNotItsOwnIsStoredNowhereWhileItsOwnRunsFramesAreStored() throws Exception {
        long others = RawAgent.storedRun(jdbc, "FINISHED", "hostile-owner");
        long own = RawAgent.storedRun(jdbc, "RUNNING", "hostile-framer");
        try (RawAgent fake = RawAgent.connect(port)) {
            fake.hello("hostile-framer", TOKEN).await(AgentMessage.Welcome.class, WAIT);

            fake.send(RawAgent.frame(own, 0));
            AgentMessage.BatchAck ack = fake.await(AgentMessage.BatchAck.class, WAIT);
            assertThat(List.of(ack.runId(), ack.seq())).as("its own run's frame is stored").isEqualTo(List.of(own, 0L));

            // a run that no longer exists (its experiment deleted while the agent held its frame): acknowledged, so
            // the agent drops it, stored nowhere, and the link stays up
            long gone = own + 1_000_000;
            fake.send(RawAgent.frame(gone, 3));
            AgentMessage.BatchAck dropped = fake.await(AgentMessage.BatchAck.class, WAIT);
            assertThat(List.of(dropped.runId(), dropped.seq())).isEqualTo(List.of(gone, 3L));
            assertThat(fake.isOpen()).isTrue();
            assertThat(rowsOf("run_frame", gone) + rowsOf("run_interval", gone)).isZero();

            fake.send(RawAgent.frame(others, 7));
            CloseStatus refused = fake.awaitClose(WAIT);
            assertThat(refused.getCode()).isEqualTo(LinkClose.NOT_ITS_RUN.code());
            assertThat(refused.getReason()).isEqualTo("run " + others + " is not assigned to agent 'hostile-framer'");
        }
        assertThat(rowsOf("run_frame", own)).isEqualTo(1);
        assertThat(rowsOf("run_interval", own)).isPositive();
        assertThat(rowsOf("run_frame", others)).as("batches of the other agent's run").isZero();
        assertThat(rowsOf("run_interval", others)).as("intervals of the other agent's run").isZero();
        assertThat(rowsOf("run_trace", others)).as("trace records of the other agent's run").isZero();
    }

    @Test
    void anAgentOfThePreviousReleaseIsAdmittedWithItsLayoutV2FramesAndAMalformedV3HistogramStoresNothing() throws Exception {
        long own = RawAgent.storedRun(jdbc, "RUNNING", "hostile-v2");
        try (RawAgent old = RawAgent.connect(port)) {
            old.send(new AgentMessage.Hello("hostile-v2", TOKEN, Map.of("hostname", "hostile-v2"), own, List.of(own), null, 2))
                    .await(AgentMessage.Welcome.class, WAIT);

            old.sendRaw(RawAgent.frame(own, 0).encode(2));
            AgentMessage.BatchAck ack = old.await(AgentMessage.BatchAck.class, WAIT);
            assertThat(List.of(ack.runId(), ack.seq())).as("a v2 frame is stored").isEqualTo(List.of(own, 0L));

            // a v3 frame whose one interval says a cycle more than its histogram holds: refused whole
            Interval i = RawAgent.frame(own, 1).intervals().get(0);
            Interval wrong = new Interval(i.thread(), i.index(), i.span(), i.cycles() + 1, i.messages(), i.bytes(),
                    i.errors(), i.minNs(), i.maxNs(), i.firstStartNs(), i.lastEndNs(), i.buckets(), i.counts());
            old.send(new IntervalFrame(own, 1, List.of(wrong)));
            old.awaitClose(WAIT); // after the error (the controller logs why: IntervalFrameTests check the message)
        }
        assertThat(rowsOf("run_frame", own)).isEqualTo(1);
        assertThat(rowsOf("run_interval", own)).isEqualTo(1);
    }

    @Test
    void aLinkThatSaysNoHelloIsClosedAfterTheHelloTimeout() throws Exception {
        long start = System.nanoTime();
        try (RawAgent silent = RawAgent.connect(port)) {
            CloseStatus closed = silent.awaitClose(WAIT);
            long ms = (System.nanoTime() - start) / 1_000_000;

            assertThat(closed.getCode()).isEqualTo(CloseStatus.POLICY_VIOLATION.getCode());
            assertThat(closed.getReason()).isEqualTo("no hello within 1000 ms");
            assertThat(ms).as("closed after qplab.agents.hello-timeout (1 s), not before").isBetween(900L, 10_000L);
        }
    }

    @Test
    void aWebSocketUpgradeWithABrowserOriginIsRefused() throws Exception {
        try (RawAgent browser = RawAgent.connectWithOrigin(port, "http://evil.example")) {
            assertThat(browser.refusedWithStatus()).as("upgrade refused: %s", browser.upgradeRefusal()).isEqualTo(403);
        }
        try (RawAgent sameOrigin = RawAgent.connectWithOrigin(port, "http://127.0.0.1:" + port)) {
            assertThat(sameOrigin.refusedWithStatus()).as("a page of the controller itself is a browser too").isEqualTo(403);
        }
        try (RawAgent agent = RawAgent.connect(port).hello("hostile-no-origin", TOKEN)) {
            assertThat(agent.await(AgentMessage.Welcome.class, WAIT).agentId()).as("without an Origin: an agent")
                    .isEqualTo("hostile-no-origin");
        }
    }

    @Test
    void wrongHellosFromAnAddressThrottleGuessesThereButNeverAnAgentWithItsOwnToken() throws Exception {
        String own;
        try (RawAgent valid = RawAgent.connect(port).hello("hostile-throttled", TOKEN)) {
            own = valid.await(AgentMessage.Welcome.class, WAIT).token();
        }
        // failed-hello-limit is 20 a minute: 20 guesses are refused, the 20th starts the block, the 21st meets it
        CloseStatus throttled = null;
        int refusedHellos = 0;
        for (int i = 1; i <= 21 && throttled == null; i++) {
            try (RawAgent guess = RawAgent.connect(port).hello("hostile-guesser", "guess-" + i)) {
                CloseStatus refused = guess.awaitClose(WAIT);
                if (refused.getCode() == LinkClose.THROTTLED.code()) {
                    throttled = refused;
                } else {
                    assertThat(refused.getReason()).isEqualTo("agent token refused for agent 'hostile-guesser'");
                    refusedHellos++;
                }
            }
        }
        assertThat(throttled).as("throttled after %d refused hellos", refusedHellos).isNotNull();
        assertThat(refusedHellos).as("refused hellos before the block (each counted once)").isEqualTo(20);
        assertThat(throttled.getReason()).matches("too many failed agent hellos from this address; try again in [1-3] s");

        try (RawAgent valid = RawAgent.connect(port).hello("hostile-throttled", own)) {
            assertThat(valid.await(AgentMessage.Welcome.class, WAIT).agentId())
                    .as("an agent with its own token gets in from a throttled address").isEqualTo("hostile-throttled");
        }
        try (RawAgent enrolling = RawAgent.connect(port).hello("hostile-newcomer", TOKEN)) {
            CloseStatus refused = enrolling.awaitClose(WAIT);
            assertThat(refused.getCode()).as("the enrolment secret, which can be guessed, waits the block out")
                    .isEqualTo(LinkClose.THROTTLED.code());
        }
        assertThat(jdbc.sql("SELECT count(*) FROM agent_identity WHERE agent_id = 'hostile-newcomer'")
                .query(Long.class).single()).isZero();

        // failed-hello-block=3s: once the throttle says the block is over (polled, bounded), the secret enrols again
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!throttle.blocked(LOOPBACK).isZero() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(throttle.blocked(LOOPBACK)).as("the block of failed-hello-block (3 s) is over").isZero();
        try (RawAgent after = RawAgent.connect(port).hello("hostile-newcomer", TOKEN)) {
            assertThat(after.await(AgentMessage.Welcome.class, WAIT).token()).as("the block is over: it enrols")
                    .matches("[0-9a-f]{64}");
        }
    }

    private List<Map<String, Object>> audit(String target) {
        return jdbc.sql("SELECT actor, action, status FROM audit_event WHERE target = ? AND action LIKE 'agent link%'")
                .param(target).query().listOfRows();
    }

    private boolean connected(String agentId) {
        return http().get().uri("/api/agents").exchange().expectStatus().isOk().expectBody(JSON_ARRAY).returnResult()
                .getResponseBody().stream().anyMatch(a -> agentId.equals(a.get("id")) && Boolean.TRUE.equals(a.get("connected")));
    }

    private void awaitConnected(String agentId, AgentProcess agent) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!connected(agentId)) {
            assertThat(System.nanoTime()).as("agent %s registered (log: %s)", agentId, agent.log()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private long awaitRunning(long experimentId, String agentId, AgentProcess agent) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            List<Long> running = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? AND status = 'RUNNING' AND agent_id = ?")
                    .params(experimentId, agentId).query(Long.class).list();
            if (!running.isEmpty()) {
                return running.get(0);
            }
            assertThat(System.nanoTime()).as("run of experiment %d running (log: %s)", experimentId, agent.log())
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** An experiment of one run in the given state on the given agent, written directly: no scheduler in between. */
    private long rowsOf(String table, long runId) {
        return jdbc.sql("SELECT count(*) FROM " + table + " WHERE run_id = ?").param(runId).query(Long.class).single();
    }
}
