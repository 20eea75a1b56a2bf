package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AgentRegistryTests {

    @Test
    void theSpoolOfTheConnectedAgentsIsWhatTheirLastHeartbeatsSaidAddedUp() {
        AgentRegistry registry = new AgentRegistry();
        AgentConnection a = connection("a", 12, 4_000_000);
        AgentConnection b = connection("b", 3, 1_000);
        registry.register(a);
        registry.register(b);
        a.spool(2, 100_000); // a later heartbeat replaces the earlier
        assertThat(registry.spooledEntries()).isEqualTo(5);
        assertThat(registry.spooledBytes()).isEqualTo(101_000);

        registry.remove(b);
        assertThat(registry.spooledEntries()).as("a disconnected agent is not counted").isEqualTo(2);
    }

    private static AgentConnection connection(String id, long entries, long bytes) {
        AgentConnection c = new AgentConnection("127.0.0.1:1");
        c.registeredAs(id);
        c.spool(entries, bytes);
        return c;
    }
}
