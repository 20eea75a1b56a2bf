package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.qplab.protocol.LinkClose;

class AgentRegistryTests {

    @Test
    void theSpoolOfTheConnectedAgentsIsWhatTheirLastHeartbeatsSaidAddedUp() {
        AgentRegistry registry = new AgentRegistry();
        AgentConnection a = connection("a", 12, 4_000_000);
        AgentConnection b = connection("b", 3, 1_000);
        registry.register(a, TOKEN, System.nanoTime());
        registry.register(b, TOKEN, System.nanoTime());
        a.spool(2, 100_000); // a later heartbeat replaces the earlier
        assertThat(registry.spooledEntries()).isEqualTo(5);
        assertThat(registry.spooledBytes()).isEqualTo(101_000);

        registry.remove(b);
        assertThat(registry.spooledEntries()).as("a disconnected agent is not counted").isEqualTo(2);
    }

    @Test
    void aSecondLinkOfAConnectedAgentReplacesItOnlyWithTheSameToken() {
        AgentRegistry registry = new AgentRegistry();
        AgentConnection first = connection("a", 0, 0);
        registry.register(first, TOKEN, System.nanoTime());
        AgentConnection impostor = connection("a", 0, 0);

        assertThat(registry.register(impostor, AgentToken.sha256("another"), System.nanoTime()).refused())
                .isEqualTo(LinkClose.ID_LIVE);
        assertThat(registry.get("a")).containsSame(first);

        AgentConnection reconnected = connection("a", 0, 0);
        AgentRegistry.Registration again = registry.register(reconnected, TOKEN, System.nanoTime());
        assertThat(again.refused()).isNull();
        assertThat(again.replaced()).containsSame(first);
        assertThat(registry.get("a")).containsSame(reconnected);
    }

    @Test
    void aHelloWhoseTokenWasCheckedBeforeARevocationDoesNotRegisterAndTheLiveLinkIsNamedForClosing() {
        AgentRegistry registry = new AgentRegistry();
        AgentConnection live = connection("a", 0, 0);
        registry.register(live, TOKEN, System.nanoTime());
        long checkedBefore = System.nanoTime();

        assertThat(registry.revoked("a")).containsSame(live);
        assertThat(registry.revoked("nobody")).isEmpty();

        AgentConnection late = connection("a", 0, 0);
        assertThat(registry.register(late, TOKEN, checkedBefore).refused()).as("checked before the revocation")
                .isEqualTo(LinkClose.TOKEN_REVOKED);
        assertThat(registry.get("a")).containsSame(live);
        live.close();
        AgentConnection fresh = connection("a", 0, 0);
        assertThat(registry.register(fresh, TOKEN, System.nanoTime()).refused()).as("a token checked after it").isNull();
    }

    private static final byte[] TOKEN = AgentToken.sha256("token");

    private static AgentConnection connection(String id, long entries, long bytes) {
        AgentConnection c = new AgentConnection("127.0.0.1:1");
        c.registeredAs(id);
        c.presented(TOKEN);
        c.spool(entries, bytes);
        return c;
    }
}
