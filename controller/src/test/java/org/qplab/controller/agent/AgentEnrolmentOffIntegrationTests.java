package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.reactive.socket.CloseStatus;

/**
 * With enrolment off, the shared token lets no agent in: only a token issued to the agent's own id does, shown
 * once, kept only as its SHA-256, good for that id alone, and refused once revoked.
 */
@TestPropertySource(properties = "qplab.agents.enrolment=false")
class AgentEnrolmentOffIntegrationTests extends ControllerIntegrationTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void theSharedTokenIsRefusedWhenEnrolmentIsOff() throws Exception {
        try (RawAgent agent = RawAgent.connect(port).hello("enrol-shared", TOKEN)) {
            CloseStatus refused = agent.awaitClose(WAIT);
            assertThat(refused.getCode()).isEqualTo(LinkClose.TOKEN_REFUSED.code());
            assertThat(refused.getReason()).isEqualTo("agent token refused for agent 'enrol-shared'");
        }
        assertThat(jdbc.sql("SELECT count(*) FROM agent WHERE id = 'enrol-shared'").query(Long.class).single()).isZero();
    }

    @Test
    void anIssuedTokenRegistersItsOwnIdOnlyAndNotOnceRevoked() throws Exception {
        Map<String, Object> issued = http().post().uri("/api/agents/enrol-own/token").exchange()
                .expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        String token = (String) issued.get("token");
        assertThat(issued.get("agentId")).isEqualTo("enrol-own");
        assertThat(token).matches("[0-9a-f]{64}");
        byte[] stored = jdbc.sql("SELECT token_sha256 FROM agent_token WHERE agent_id = 'enrol-own'").query(byte[].class).single();
        assertThat(HexFormat.of().formatHex(stored)).as("only the hash is kept")
                .isEqualTo(HexFormat.of().formatHex(AgentToken.sha256(token))).isNotEqualTo(token);

        try (RawAgent own = RawAgent.connect(port).hello("enrol-own", token)) {
            AgentMessage.Welcome welcome = own.await(AgentMessage.Welcome.class, WAIT);
            assertThat(welcome.agentId()).isEqualTo("enrol-own");
            assertThat(welcome.token()).as("a token of its own needs none issued").isNull();
        }
        try (RawAgent other = RawAgent.connect(port).hello("enrol-other", token)) {
            CloseStatus refused = other.awaitClose(WAIT);
            assertThat(refused.getCode()).isEqualTo(LinkClose.TOKEN_REFUSED.code());
            assertThat(refused.getReason()).as("a token is bound to its id").isEqualTo("agent token refused for agent 'enrol-other'");
        }

        http().delete().uri("/api/agents/enrol-own/token").exchange().expectStatus().isNoContent();
        http().delete().uri("/api/agents/enrol-own/token").exchange().expectStatus().isNotFound();
        try (RawAgent revoked = RawAgent.connect(port).hello("enrol-own", token)) {
            CloseStatus refused = revoked.awaitClose(WAIT);
            assertThat(refused.getCode()).isEqualTo(LinkClose.TOKEN_REFUSED.code());
            assertThat(refused.getReason()).isEqualTo("agent token refused for agent 'enrol-own'");
        }
        assertThat(jdbc.sql("SELECT bound_by FROM agent_identity WHERE agent_id = 'enrol-own'").query(String.class).single())
                .as("the id stays bound").isEqualTo("admin");
    }

    @Test
    void aTokenIsIssuedOnlyForAValidAgentId() {
        http().post().uri("/api/agents/{id}/token", "bad id!").exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("id");
    }
}
