package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.TestDirs;
import org.springframework.web.reactive.socket.CloseStatus;

/**
 * Enrolment is only for new identities: the enrolment secret registers an agent id once, and the agent gets a token
 * of its own at once, which it keeps in a 0600 file and comes back with after a restart. From then on the secret never
 * registers that id again, not even after its token is revoked; revoking or replacing the token ends its live link.
 * A refused agent stops and keeps its spool.
 */
class AgentEnrolmentIntegrationTests extends ControllerIntegrationTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void aNewAgentEnrolsOnceKeepsItsOwnTokenPrivatelyAndComesBackWithItAfterARestart() throws Exception {
        String id = "enrol-agent";
        TestDirs.delete(AgentProcess.stateOf(url(), id)); // a file an earlier build left would be refused once first
        AgentProcess agent = AgentProcess.start(port, id, TOKEN);
        try {
            awaitConnected(id, agent);
            Path file = AgentProcess.stateOf(url(), id).resolve("agent.token");
            awaitFile(file, agent); // written once the welcome is read: just after the controller lists it connected
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            String own = Files.readString(file).strip();
            assertThat(own).matches("[0-9a-f]{64}").isNotEqualTo(TOKEN);
            assertThat(HexFormat.of().formatHex(storedToken(id))).as("only the hash is kept")
                    .isEqualTo(HexFormat.of().formatHex(AgentToken.sha256(own)));
            assertThat(jdbc.sql("SELECT bound_by FROM agent_identity WHERE agent_id = ?").param(id).query(String.class)
                    .single()).isEqualTo("enrolment");
            assertThat(audited("agent enrolled", id)).isEqualTo(1);
            // the agent logs this just after it moved the file into place: wait for the line, not only the file
            awaitLog(agent, "enrolled: the controller issued this agent a token of its own, kept in " + file);
            assertThat(agent.log()).doesNotContain(own).doesNotContain(TOKEN);

            agent.kill();
            agent = agent.restart();
            awaitConnected(id, agent);
            assertThat(agent.log()).as("registered twice, refused never").doesNotContain("refused");
            assertThat(HexFormat.of().formatHex(storedToken(id))).as("not enrolled again: the same token")
                    .isEqualTo(HexFormat.of().formatHex(AgentToken.sha256(own)));
            assertThat(audited("agent enrolled", id)).isEqualTo(1);
        } finally {
            agent.close();
        }
    }

    @Test
    void theSecretDoesNotRegisterAnIdThatHasATokenAndTheRefusedAgentStopsKeepingItsSpool() throws Exception {
        String id = "enrol-twin";
        try (AgentProcess first = AgentProcess.start(port, id, TOKEN)) {
            awaitConnected(id, first);
            // another process under the same id, with the secret but not the token: its own state and spool
            Path elsewhere = TestDirs.fresh("enrol-twin-");
            Path spooled = Files.createDirectories(elsewhere.resolve("spool").resolve("earlier-installation"))
                    .resolve("r999999-end.json");
            Files.writeString(spooled, "{\"type\":\"run-failed\",\"runId\":999999,\"error\":\"kept\",\"retryable\":false,"
                    + "\"batches\":0}");
            try (AgentProcess twin = AgentProcess.start(url(), id, TOKEN, List.of("--state-dir",
                    elsewhere.resolve("state").toString(), "--spool-dir", elsewhere.resolve("spool").toString()))) {
                assertThat(twin.process().waitFor(60, TimeUnit.SECONDS)).as("it stops by itself").isTrue();
                assertThat(twin.process().exitValue()).isEqualTo(2);
                assertThat(twin.log()).contains("the controller refused this agent: agent '" + id + "' has, or had, a "
                        + "token of its own: the enrolment secret does not register it (4423 ENROLMENT_CLOSED)")
                        .contains("stopping: the controller refused this agent every token it has")
                        .contains("1 unacknowledged frames and run ends stay in the spool " + elsewhere.resolve("spool"));
            }
            assertThat(spooled).as("its spool is not deleted").exists();
            assertThat(connected(id)).as("the first agent is untouched").isTrue();
            assertThat(first.process().isAlive()).isTrue();
            TestDirs.delete(elsewhere);
        }
    }

    @Test
    void revokingItsTokenClosesTheAgentsLinkAtOnceAndTheSecretDoesNotLetItBackIn() throws Exception {
        String id = "enrol-revoked";
        try (AgentProcess agent = AgentProcess.start(port, id, TOKEN)) {
            awaitConnected(id, agent);
            http().delete().uri("/api/agents/{id}/token", id).exchange().expectStatus().isNoContent();

            assertThat(agent.process().waitFor(60, TimeUnit.SECONDS)).as("it stops by itself").isTrue();
            assertThat(agent.process().exitValue()).isEqualTo(2);
            assertThat(agent.log()).contains("the controller refused this agent: agent token revoked by an admin "
                    + "(4410 TOKEN_REVOKED)").contains("the controller refused this agent: agent '" + id + "' has, or "
                    + "had, a token of its own: the enrolment secret does not register it (4423 ENROLMENT_CLOSED)");
            awaitDisconnected(id);
            assertThat(audited("agent link closed: agent token revoked by an admin", id)).isEqualTo(1);
        }
    }

    @Test
    void issuingANewTokenClosesTheLinkOfTheOldOneAndOnlyTheNewOneRegisters() throws Exception {
        String id = "enrol-rotated";
        String enrolled;
        try (RawAgent agent = RawAgent.connect(port).hello(id, TOKEN)) {
            AgentMessage.Welcome welcome = agent.await(AgentMessage.Welcome.class, WAIT);
            enrolled = welcome.token();
            assertThat(enrolled).matches("[0-9a-f]{64}");

            String issued = (String) http().post().uri("/api/agents/{id}/token", id).exchange().expectStatus().isCreated()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody().get("token");
            CloseStatus closed = agent.awaitClose(WAIT);
            assertThat(closed.getCode()).isEqualTo(LinkClose.TOKEN_REVOKED.code());
            assertThat(closed.getReason()).isEqualTo("agent token replaced by an admin");

            try (RawAgent old = RawAgent.connect(port).hello(id, enrolled)) {
                CloseStatus refused = old.awaitClose(WAIT);
                assertThat(refused.getCode()).isEqualTo(LinkClose.TOKEN_REFUSED.code());
                assertThat(refused.getReason()).isEqualTo("agent token refused for agent '" + id + "'");
            }
            try (RawAgent rotated = RawAgent.connect(port).hello(id, issued)) {
                AgentMessage.Welcome again = rotated.await(AgentMessage.Welcome.class, WAIT);
                assertThat(again.token()).as("nothing issued to an agent that has its token").isNull();
            }
        }
        assertThat(audited("agent link closed: agent token replaced by an admin", id)).isEqualTo(1);
    }

    @Test
    void revokingADeployedAgentsTokenClosesItsLinkAndLeavesItsIdClosedToTheSecret() throws Exception {
        String id = "enrol-deployed";
        String token = "deployed-" + System.nanoTime();
        // what a deploy leaves (HostRepository.deployed): the host's token, and its name bound for good
        jdbc.sql("INSERT INTO host (name, address, state) VALUES (?, '127.0.0.1', 'RUNNING')").param(id).update();
        try {
            new org.qplab.controller.deploy.HostRepository(jdbc).deployed(id, token, "sha");
            long run = jdbc.sql("INSERT INTO experiment (name, matrix, status) VALUES ('enrol', '{}', 'FINISHED') RETURNING id")
                    .query(Long.class).single();
            run = jdbc.sql("""
                            INSERT INTO run (experiment_id, idx, params, status, agent_id, attempt, started_at)
                            VALUES (?, 0, '{"provider": "tcp"}', 'FINISHED', ?, 1, now()) RETURNING id""")
                    .params(run, id).query(Long.class).single();
            try (RawAgent agent = RawAgent.connect(port).hello(id, token)) {
                assertThat(agent.await(AgentMessage.Welcome.class, WAIT).token()).as("it has its token").isNull();
                // a token issued by hand besides the deployed one leaves the link of the deployed one alone
                http().post().uri("/api/agents/{id}/token", id).exchange().expectStatus().isCreated();
                agent.send(new AgentMessage.Heartbeat(run, 0, 0L)).send(new AgentMessage.RunFailed(run, "late", 0));
                assertThat(agent.await(AgentMessage.RunRecorded.class, WAIT).runId()).as("still read").isEqualTo(run);

                http().delete().uri("/api/agents/{id}/token", id).exchange().expectStatus().isNoContent();
                CloseStatus closed = agent.awaitClose(WAIT);
                assertThat(closed.getCode()).isEqualTo(LinkClose.TOKEN_REVOKED.code());
            }
            assertThat(jdbc.sql("SELECT token_sha256 IS NULL FROM host WHERE name = ?").param(id).query(Boolean.class)
                    .single()).as("the deployed token is revoked").isTrue();
            try (RawAgent secret = RawAgent.connect(port).hello(id, TOKEN)) {
                assertThat(secret.awaitClose(WAIT).getCode()).isEqualTo(LinkClose.ENROLMENT_CLOSED.code());
            }
            http().delete().uri("/api/agents/{id}/token", id).exchange().expectStatus().isNotFound();
        } finally {
            jdbc.sql("DELETE FROM host WHERE name = ?").param(id).update();
        }
    }

    private String url() {
        return "ws://127.0.0.1:" + port + "/agent";
    }

    private byte[] storedToken(String id) {
        return jdbc.sql("SELECT token_sha256 FROM agent_token WHERE agent_id = ?").param(id).query(byte[].class).single();
    }

    private long audited(String action, String target) throws InterruptedException {
        // written after the fact, off the event loop: wait a little for it
        long deadline = System.nanoTime() + WAIT.toNanos();
        long n;
        while ((n = jdbc.sql("SELECT count(*) FROM audit_event WHERE action = ? AND target = ?").params(action, target)
                .query(Long.class).single()) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        return n;
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

    private static void awaitFile(Path file, AgentProcess agent) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!Files.exists(file)) {
            assertThat(System.nanoTime()).as("%s written (log: %s)", file, agent.log()).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static void awaitLog(AgentProcess agent, String line) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!agent.log().contains(line)) {
            assertThat(System.nanoTime()).as("agent logged \"%s\" (log: %s)", line, agent.log()).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private void awaitDisconnected(String agentId) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (connected(agentId)) {
            assertThat(System.nanoTime()).as("agent %s disconnected", agentId).isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
