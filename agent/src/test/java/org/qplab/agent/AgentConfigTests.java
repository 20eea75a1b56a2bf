package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTests {

    private static final Map<String, String> TOKEN = Map.of("QPLAB_AGENT_TOKEN", "t");

    @Test
    void flagsWinOverEnvironmentWhichWinsOverDefaults(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        AgentConfig fromEnv = AgentConfig.parse(new String[0], Map.of("QPLAB_AGENT_TOKEN", "env-token",
                "QPLAB_CONTROLLER", "ws://10.0.0.1:9000/agent", "HOME", "/home/lab"), "host-a");
        assertThat(fromEnv).isEqualTo(new AgentConfig(URI.create("ws://10.0.0.1:9000/agent"), "env-token", "host-a",
                Duration.ofSeconds(5), null, -1, "127.0.0.1", Path.of("/home/lab/.local/share/qplab/agent/host-a/spool"),
                Path.of("/home/lab/.local/share/qplab/agent/host-a"), 64L << 20, null, List.of(), null));

        Path tokenFile = java.nio.file.Files.writeString(dir.resolve("agent.token"), "file-token\n");
        AgentConfig fromFlags = AgentConfig.parse(new String[] {"--token-file", tokenFile.toString(), "--id", "b",
                "--heartbeat-seconds", "2", "--spool-dir", "/var/spool/qplab", "--spool-memory-mb", "1",
                "--state-dir", "/var/lib/qplab-agent"},
                Map.of("QPLAB_AGENT_TOKEN", "env-token", "QPLAB_AGENT_SPOOL", "/elsewhere", "QPLAB_AGENT_STATE", "/other"),
                "host-a");
        assertThat(fromFlags).isEqualTo(new AgentConfig(URI.create("ws://127.0.0.1:8080/agent"), "file-token", "b",
                Duration.ofSeconds(2), null, -1, "127.0.0.1", Path.of("/var/spool/qplab"), Path.of("/var/lib/qplab-agent"),
                1L << 20, null, List.of(), null));
    }

    /** Controllers sharing one database: every URL is kept in order, the first is the one the data route is taken to. */
    @Test
    void severalControllersAreACommaSeparatedListEachAWebSocketUrl() {
        AgentConfig config = AgentConfig.parse(new String[] {"--controller", "ws://10.0.0.1:8080/agent, ws://10.0.0.2:8080/agent"},
                TOKEN, "h");
        assertThat(config.controllers()).containsExactly(URI.create("ws://10.0.0.1:8080/agent"),
                URI.create("ws://10.0.0.2:8080/agent"));
        assertThat(config.controller()).isEqualTo(URI.create("ws://10.0.0.1:8080/agent"));
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--controller", "ws://10.0.0.1:8080/agent,http://b/agent"},
                TOKEN, "h")).hasMessageContaining("got http://b/agent");
    }

    @Test
    void theSpoolFollowsXdgDataHomeAndRefusesANonsenseMemoryLimit() {
        assertThat(AgentConfig.parse(new String[0], Map.of("QPLAB_AGENT_TOKEN", "t", "XDG_DATA_HOME", "/data"), "h").spoolDir())
                .isEqualTo(Path.of("/data/qplab/agent/h/spool"));
        assertThat(AgentConfig.parse(new String[0], Map.of("QPLAB_AGENT_TOKEN", "t", "QPLAB_AGENT_STATE", "/state"), "h")
                .spoolDir()).as("the spool goes with the state unless told otherwise").isEqualTo(Path.of("/state/spool"));
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--spool-memory-mb", "lots"}, TOKEN, "h"))
                .hasMessage("--spool-memory-mb must be a number of MiB (0 = everything to disk), got lots");
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--id", "../etc"}, TOKEN, "h"))
                .hasMessageStartingWith("--id must be 1-128 characters");
    }

    @Test
    void takesTheCaFileFromTheFlagOrTheEnvironment() {
        assertThat(AgentConfig.parse(new String[] {"--controller", "wss://c:8443/agent"},
                Map.of("QPLAB_AGENT_TOKEN", "t", "QPLAB_CA_FILE", "/etc/qplab/ca.pem"), "h").caFile())
                .isEqualTo(Path.of("/etc/qplab/ca.pem"));
        assertThat(AgentConfig.parse(new String[] {"--ca-file", "controller.pem"},
                Map.of("QPLAB_AGENT_TOKEN", "t", "QPLAB_CA_FILE", "/etc/qplab/ca.pem"), "h").caFile())
                .isEqualTo(Path.of("controller.pem"));
        assertThat(AgentConfig.parse(new String[0], TOKEN, "h").caFile()).as("the JDK's trust store only").isNull();
    }

    @Test
    void takesNvmeofBackingPathsFromRepeatedFlagsElseTheEnvironment() {
        assertThat(AgentConfig.parse(new String[] {"--nvmeof-backing", "/dev/vdb", "--nvmeof-backing", "/srv/x.img"},
                Map.of("QPLAB_AGENT_TOKEN", "t", "QPLAB_NVMEOF_BACKING", "/dev/sdz"), "h").nvmeofBacking())
                .containsExactly("/dev/vdb", "/srv/x.img");
        assertThat(AgentConfig.parse(new String[0], Map.of("QPLAB_AGENT_TOKEN", "t",
                "QPLAB_NVMEOF_BACKING", "/dev/vdb:/srv/x.img"), "h").nvmeofBacking()).containsExactly("/dev/vdb", "/srv/x.img");
        assertThat(AgentConfig.parse(new String[0], TOKEN, "h").nvmeofBacking()).as("null_blk only").isEmpty();
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--nvmeof-backing", "x.img"}, TOKEN, "h"))
                .hasMessage("--nvmeof-backing must be an absolute path (a file or block device), got x.img");
        assertThat(AgentConfig.USAGE).contains("--nvmeof-backing PATH").contains("QPLAB_NVMEOF_BACKING");
    }

    @Test
    void refusesToStartWithoutAToken() {
        assertThatThrownBy(() -> AgentConfig.parse(new String[0], Map.of(), "h"))
                .hasMessageStartingWith("no agent token: pass --token-file FILE or set QPLAB_AGENT_TOKEN");
    }

    @Test
    void refusesATokenInArgvNamingTheWaysThatKeepItOutOfTheProcessList() {
        for (String[] args : new String[][] {{"--token", "hunter2"}, {"--token=hunter2"}}) {
            assertThatThrownBy(() -> AgentConfig.parse(args, Map.of(), "h"))
                    .hasMessageStartingWith("--token is not taken: a token in argv is shown to every local user by ps; "
                            + "pass --token-file FILE (mode 0600) or set QPLAB_AGENT_TOKEN")
                    .hasMessageNotContaining("hunter2");
        }
    }

    @Test
    void refusesUnknownFlagsAndNonWebSocketUrls() {
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--tokn", "x"}, Map.of(), "h"))
                .hasMessageStartingWith("unknown flag --tokn");
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"--controller", "http://c:8080"}, TOKEN, "h"))
                .hasMessage("--controller must be a ws:// or wss:// URL (or several, comma-separated), got http://c:8080");
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

    @Test
    void takesEveryFlagOfTheTableAndPrintsEachWithItsVariableAndDefault() {
        for (AgentOption option : AgentOption.values()) {
            if (option.flag() == null || option.value() == null || option == AgentOption.TOKEN_FILE) {
                continue;
            }
            String value = switch (option) {
                case CONTROLLER -> "ws://c:8080/agent";
                case DATA_ADDRESS, HEALTH_ADDRESS -> "10.0.0.2";
                case ID -> "b";
                case HEARTBEAT_SECONDS, HEALTH_PORT, SPOOL_MEMORY_MB -> "7";
                default -> "/abs";
            };
            assertThat(AgentConfig.parse(new String[] {option.flag(), value}, TOKEN, "h")).as(option.flag()).isNotNull();
        }
        assertThat(AgentConfig.USAGE).contains("  --heartbeat-seconds N\n      seconds between heartbeats (default 5)\n")
                .contains("  --controller URL\n").contains("QPLAB_CONTROLLER; default ws://127.0.0.1:8080/agent")
                .contains("env QPLAB_ENGINE_LIBRARY").contains("--help");
        assertThatThrownBy(() -> AgentConfig.parse(new String[] {"-h"}, Map.of(), "h")).hasMessage(AgentConfig.USAGE);
    }
}
