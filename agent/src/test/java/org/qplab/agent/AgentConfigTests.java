package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTests {

    @Test
    void flagsWinOverEnvironmentWhichWinsOverDefaults() {
        AgentConfig fromEnv = AgentConfig.parse(new String[0],
                Map.of("QPLAB_AGENT_TOKEN", "env-token", "QPLAB_CONTROLLER", "ws://10.0.0.1:9000/agent"), "host-a");
        assertThat(fromEnv).isEqualTo(new AgentConfig(URI.create("ws://10.0.0.1:9000/agent"), "env-token", "host-a",
                Duration.ofSeconds(5), null));

        AgentConfig fromFlags = AgentConfig.parse(new String[] {"--token", "flag-token", "--id", "b",
                "--heartbeat-seconds", "2"}, Map.of("QPLAB_AGENT_TOKEN", "env-token"), "host-a");
        assertThat(fromFlags).isEqualTo(new AgentConfig(URI.create("ws://127.0.0.1:8080/agent"), "flag-token", "b",
                Duration.ofSeconds(2), null));
    }

    @Test
    void refusesToStartWithoutAToken() {
        assertThatThrownBy(() -> AgentConfig.parse(new String[0], Map.of(), "h"))
                .hasMessageStartingWith("no agent token: pass --token or set QPLAB_AGENT_TOKEN");
    }

    @Test
    void refusesUnknownFlagsAndNonWebSocketUrls() {
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--tokn", "x"}, Map.of(), "h"))
                .hasMessageStartingWith("unknown flag --tokn");
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--token", "t", "--controller", "http://c:8080"}, Map.of(), "h"))
                .hasMessage("--controller must be a ws:// or wss:// URL, got http://c:8080");
    }

    @Test
    void readsTheTokenFromAFileWithoutItsNewline(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("agent.token"), "issued-token\n");
        assertThat(AgentConfig.parse(new String[] {"--token-file", file.toString()}, Map.of(), "h").token())
                .isEqualTo("issued-token");
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--token-file", dir.resolve("none").toString()}, Map.of(), "h"))
                .hasMessageStartingWith("cannot read the token file");
    }
}
