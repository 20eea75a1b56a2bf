package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCredentialsTests {

    @TempDir
    Path state;

    @Test
    void anIssuedTokenIsKeptPrivatelyAndPresentedFirstFromThenOnAlsoByTheNextProcess() throws Exception {
        AgentCredentials first = AgentCredentials.load(state.resolve("agent-a"), "enrolment-secret");
        assertThat(first.current()).isEqualTo("enrolment-secret");

        first.issued("own-token");
        assertThat(first.current()).isEqualTo("own-token");
        Path file = state.resolve("agent-a").resolve("agent.token");
        assertThat(Files.readString(file)).isEqualTo("own-token\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");

        AgentCredentials next = AgentCredentials.load(state.resolve("agent-a"), "enrolment-secret");
        assertThat(next.current()).isEqualTo("own-token");
        assertThat(next.refused()).as("the secret is left to try").isTrue();
        assertThat(next.current()).isEqualTo("enrolment-secret");
        assertThat(next.refused()).as("nothing is left").isFalse();
        assertThat(next.current()).isNull();
        assertThat(file).as("kept: an operator may look into why").exists();
    }

    @Test
    void aStoredTokenTheControllerRefusedIsDeletedOnceTheConfiguredOneRegisters() throws Exception {
        Files.createDirectories(state);
        Path file = Files.writeString(state.resolve("agent.token"), "stale\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        AgentCredentials credentials = AgentCredentials.load(state, "issued-by-an-admin");
        assertThat(credentials.current()).isEqualTo("stale");

        assertThat(credentials.refused()).isTrue();
        credentials.accepted();
        assertThat(file).doesNotExist();
        assertThat(credentials.current()).isEqualTo("issued-by-an-admin");
    }

    @Test
    void aTokenFileOthersMayReadIsRefusedAtStart() throws Exception {
        Path file = Files.writeString(state.resolve("agent.token"), "own-token\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> AgentCredentials.load(state, "secret"))
                .hasMessage(file + " holds this agent's token and may be read by others (mode rw-r--r--): chmod 600 it");
    }
}
