package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTests {

    @Test
    void flagsWinOverEnvironmentWhichWinsOverDefaults() {
        AgentConfig fromEnv = AgentConfig.parse(new String[0], Map.of("QPLAB_AGENT_TOKEN", "env-token",
                "QPLAB_CONTROLLER", "ws://10.0.0.1:9000/agent", "HOME", "/home/lab"), "host-a");
        assertThat(fromEnv).isEqualTo(new AgentConfig(URI.create("ws://10.0.0.1:9000/agent"), "env-token", "host-a",
                Duration.ofSeconds(5), null, -1, "127.0.0.1", Path.of("/home/lab/.local/share/qplab/agent/host-a/spool"),
                64L << 20));

        AgentConfig fromFlags = AgentConfig.parse(new String[] {"--token", "flag-token", "--id", "b",
                "--heartbeat-seconds", "2", "--spool-dir", "/var/spool/qplab", "--spool-memory-mb", "1"},
                Map.of("QPLAB_AGENT_TOKEN", "env-token", "QPLAB_AGENT_SPOOL", "/elsewhere"), "host-a");
        assertThat(fromFlags).isEqualTo(new AgentConfig(URI.create("ws://127.0.0.1:8080/agent"), "flag-token", "b",
                Duration.ofSeconds(2), null, -1, "127.0.0.1", Path.of("/var/spool/qplab"), 1L << 20));
    }

    @Test
    void theSpoolFollowsXdgDataHomeAndRefusesANonsenseMemoryLimit() {
        assertThat(AgentConfig.parse(new String[] {"--token", "t"}, Map.of("XDG_DATA_HOME", "/data"), "h").spoolDir())
                .isEqualTo(Path.of("/data/qplab/agent/h/spool"));
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--token", "t", "--spool-memory-mb", "lots"}, Map.of(), "h"))
                .hasMessage("--spool-memory-mb must be a number of MiB (0 = everything to disk), got lots");
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--token", "t", "--id", "../etc"}, Map.of(), "h"))
                .hasMessageStartingWith("--id must be 1-128 characters");
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
