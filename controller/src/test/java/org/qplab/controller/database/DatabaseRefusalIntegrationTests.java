package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerProcess;

/** The controller as its own process, as an operator starts it, refused by its database: one line, no stack trace. */
class DatabaseRefusalIntegrationTests {

    @Test
    void aPasswordFileOthersMayReadStopsTheControllerWithOneLineSayingWhichAndWhatToDo() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        Path file = dataDir.resolveSibling("postgres-password");
        Files.writeString(file, "a-password-others-may-read\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));

        assertThatThrownBy(() -> ControllerProcess.start("database-refusal", ControllerProcess.freePort(), dataDir,
                ControllerProcess.freePort(), List.of()))
                .hasMessageStartingWith("the controller exited (1) while starting");
        List<String> log = Files.readAllLines(Path.of("target", "controller-database-refusal.log"));
        assertThat(log.stream().filter(l -> l.contains(file.toString())))
                .singleElement().asString()
                .contains(" ERROR ")
                .endsWith("qplab cannot start: the embedded PostgreSQL's password file " + file + " is open to other users "
                        + "(mode 0640): chmod 600 " + file + ", and change the password if others may have read it "
                        + "(README, \"The database\")");
        assertThat(log).as("no stack trace").noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
        assertThat(dataDir).as("nothing made before the refusal").doesNotExist();
    }
}
