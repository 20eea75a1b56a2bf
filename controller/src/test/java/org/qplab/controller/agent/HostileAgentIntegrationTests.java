package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.AgentProcess;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.TestIntervals;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.SampleFrame;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.reactive.socket.CloseStatus;

/**
 * A fake agent against the real controller, replaying what issue 18 found: it took another agent's id, ended
 * another agent's run (the real summary was lost), stored a frame of a run not its own, and neither silence, a
 * browser's Origin nor a guessed token met any limit. Each is now refused, and nothing of it is stored.
 */
@TestPropertySource(properties = {"qplab.agents.hello-timeout=1s", "qplab.agents.failed-hello-limit=5",
        "qplab.agents.failed-hello-block=3s"})
class HostileAgentIntegrationTests extends ControllerIntegrationTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void aHelloUnderAConnectedIdWithAnotherTokenIsRefusedAndTheConnectedAgentStaysRegistered() throws Exception {
        // enrolled with the shared token; then the admin gives the id a token of its own
        try (RawAgent first = RawAgent.connect(port).hello("hostile-victim", TOKEN)) {
            first.await(AgentMessage.Welcome.class, WAIT);
            String own = issueToken("hostile-victim");

            try (RawAgent second = RawAgent.connect(port).hello("hostile-victim", own);
                 RawAgent shared = RawAgent.connect(port)) {
                CloseStatus refused = second.awaitClose(WAIT);
                assertThat(refused.getCode()).isEqualTo(AgentGateway.REFUSED);
                assertThat(refused.getReason()).isEqualTo("agent 'hostile-victim' is connected already, with another token");

                // the shared token no longer lets anyone in under this id at all
                CloseStatus sharedRefused = shared.hello("hostile-victim", TOKEN).awaitClose(WAIT);
                assertThat(sharedRefused.getCode()).isEqualTo(AgentGateway.REFUSED);
                assertThat(sharedRefused.getReason()).isEqualTo("agent token refused for agent 'hostile-victim'");
            }

            // the first link is still the agent's: it gets a run assigned to it
            long runId = queuedRun("hostile-victim");
            assertThat(first.await(AgentMessage.AssignRun.class, WAIT).runId()).isEqualTo(runId);
            assertThat(first.isOpen()).isTrue();
            assertThat(connected("hostile-victim")).isTrue();
        }
    }

    @Test
    void aRunFinishedForAnotherAgentsRunIsRefusedAndTheRealSummaryIsStored() throws Exception {
        try (AgentProcess real = AgentProcess.start(port, "hostile-real", TOKEN)) {
            awaitConnected("hostile-real", real);
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
            assertThat(refused.getCode()).isEqualTo(AgentGateway.REFUSED);
            assertThat(refused.getReason()).isEqualTo("run " + runId + " is not assigned to agent 'hostile-fake'");
            assertThat(jdbc.sql("SELECT status FROM run WHERE id = ?").param(runId).query(String.class).single())
                    .as("the run goes on").isEqualTo("RUNNING");
            assertThat(jdbc.sql("SELECT count(*) FROM run_summary WHERE run_id = ?").param(runId).query(Long.class).single())
                    .as("no summary stored from the fake").isZero();

            Map<String, Object> ended = awaitExperimentEnd(experimentId, Duration.ofMinutes(2), real::log);
            assertThat(ended.get("status")).as("agent log: %s", real.log()).isEqualTo("FINISHED");
            Map<String, Object> summary = jdbc.sql("""
                            SELECT s.cycles, s.bw_avg_bps, s.batches, r.agent_id,
                                   (SELECT count(*) FROM sample_batch b WHERE b.run_id = s.run_id) AS stored,
                                   (SELECT sum(cycles) FROM run_interval i WHERE i.run_id = s.run_id) AS interval_cycles
                            FROM run_summary s JOIN run r ON r.id = s.run_id WHERE s.run_id = ?""")
                    .param(runId).query().singleRow();
            assertThat(summary.get("agent_id")).isEqualTo("hostile-real");
            assertThat((Long) summary.get("cycles")).as("the real agent's summary").isGreaterThan(1);
            assertThat((Double) summary.get("bw_avg_bps")).as("a loopback tcp rate, not the fake's 9.99e15 B/s")
                    .isLessThan(1e12);
            assertThat(summary.get("stored")).isEqualTo(summary.get("batches"));
            assertThat(((Number) summary.get("interval_cycles")).longValue()).isEqualTo((Long) summary.get("cycles"));
        }
    }

    @Test
    void aFrameForARunNotItsOwnIsStoredNowhereWhileItsOwnRunsFramesAreStored() throws Exception {
        long others = storedRun("FINISHED", "hostile-owner");
        long own = storedRun("RUNNING", "hostile-framer");
        try (RawAgent fake = RawAgent.connect(port)) {
            fake.hello("hostile-framer", TOKEN).await(AgentMessage.Welcome.class, WAIT);

            fake.send(frame(own, 0));
            AgentMessage.BatchAck ack = fake.await(AgentMessage.BatchAck.class, WAIT);
            assertThat(List.of(ack.runId(), ack.seq())).as("its own run's frame is stored").isEqualTo(List.of(own, 0L));

            // a run that no longer exists (its experiment deleted while the agent held its frame): acknowledged, so
            // the agent drops it, stored nowhere, and the link stays up
            long gone = own + 1_000_000;
            fake.send(frame(gone, 3));
            AgentMessage.BatchAck dropped = fake.await(AgentMessage.BatchAck.class, WAIT);
            assertThat(List.of(dropped.runId(), dropped.seq())).isEqualTo(List.of(gone, 3L));
            assertThat(fake.isOpen()).isTrue();
            assertThat(rowsOf("sample_batch", gone) + rowsOf("run_interval", gone)).isZero();

            fake.send(frame(others, 7));
            CloseStatus refused = fake.awaitClose(WAIT);
            assertThat(refused.getCode()).isEqualTo(AgentGateway.REFUSED);
            assertThat(refused.getReason()).isEqualTo("run " + others + " is not assigned to agent 'hostile-framer'");
        }
        assertThat(rowsOf("sample_batch", own)).isEqualTo(1);
        assertThat(rowsOf("run_interval", own)).isPositive();
        assertThat(rowsOf("sample_batch", others)).as("batches of the other agent's run").isZero();
        assertThat(rowsOf("run_interval", others)).as("intervals of the other agent's run").isZero();
        assertThat(rowsOf("sample", others)).as("trace records of the other agent's run").isZero();
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
    void repeatedWrongTokensAreThrottledEvenWithTheRightTokenUntilTheBlockIsOver() throws Exception {
        // failed-hello-limit is 5 a minute: the 6th upgrade at the latest (fewer when other tests' refusals count)
        int refusedHellos = 0;
        int throttledAt = 0;
        for (int i = 1; i <= 6 && throttledAt == 0; i++) {
            try (RawAgent guess = RawAgent.connect(port)) {
                if (guess.refusedWithStatus() == 429) {
                    throttledAt = i;
                } else {
                    CloseStatus refused = guess.hello("hostile-guesser", "guess-" + i).awaitClose(WAIT);
                    assertThat(refused.getReason()).isEqualTo("agent token refused for agent 'hostile-guesser'");
                    refusedHellos++;
                }
            }
        }
        long blockedAt = System.nanoTime();
        try {
            // at least one refused here: the hellos other tests of this class failed (3 at most) count too
            assertThat(throttledAt).as("throttled after %d refused hellos", refusedHellos).isBetween(2, 6);
            try (RawAgent right = RawAgent.connect(port)) {
                assertThat(right.refusedWithStatus()).as("while blocked even the right token is not read").isEqualTo(429);
            }
        } finally { // failed-hello-block=3s: the tests after this one are not refused
            Thread.sleep(Math.max(0, 3_100 - (System.nanoTime() - blockedAt) / 1_000_000));
        }
        try (RawAgent after = RawAgent.connect(port).hello("hostile-guesser", TOKEN)) {
            assertThat(after.await(AgentMessage.Welcome.class, WAIT).agentId()).as("the block is over")
                    .isEqualTo("hostile-guesser");
        }
    }

    private String issueToken(String agentId) {
        Map<String, Object> issued = http().post().uri("/api/agents/{id}/token", agentId).exchange()
                .expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return (String) issued.get("token");
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
    private long storedRun(String status, String agentId) {
        long experimentId = jdbc.sql("INSERT INTO experiment (name, matrix, status) VALUES ('hostile', '{}', ?) RETURNING id")
                .param(status).query(Long.class).single();
        return jdbc.sql("""
                        INSERT INTO run (experiment_id, idx, params, status, agent_id, attempt, started_at)
                        VALUES (?, 0, '{"provider": "tcp", "msg_size": 64}', ?, ?, 1, now()) RETURNING id""")
                .params(experimentId, status, agentId).query(Long.class).single();
    }

    /** A queued run that only agentId may take (its matrix named that host). */
    private long queuedRun(String agentId) {
        long experimentId = jdbc.sql("INSERT INTO experiment (name, matrix) VALUES ('hostile', '{}') RETURNING id")
                .query(Long.class).single();
        return jdbc.sql("""
                        INSERT INTO run (experiment_id, idx, params, want_client) VALUES (?, 0, '{"provider": "tcp"}', ?)
                        RETURNING id""").params(experimentId, agentId).query(Long.class).single();
    }

    private static SampleFrame frame(long runId, long seq) {
        List<TestIntervals.Cycle> cycles = List.of(new TestIntervals.Cycle(0, 0, 1_000), new TestIntervals.Cycle(0, 1_000, 2_500));
        return SampleFrame.of(runId, seq, List.of(), TestIntervals.of(cycles, 10_000_000L, 64, 1));
    }

    private long rowsOf(String table, long runId) {
        return jdbc.sql("SELECT count(*) FROM " + table + " WHERE run_id = ?").param(runId).query(Long.class).single();
    }
}
