package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lab script's own contract: what it refuses, and what a failed `up` leaves behind (nothing). */
class LabScriptIntegrationTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @Test
    void refusesAVmCountOutsideOneToEight() throws Exception {
        LabScript lab = script("refuses-count");
        for (String count : List.of("0", "9", "two", "")) {
            CommandResult up = lab.run(TIMEOUT, "up", count);
            assertThat(up.exitCode()).as(up.describe()).isEqualTo(1);
            assertThat(up.stderr()).contains("up needs a VM count 1..8");
        }
    }

    @Test
    void refusesCommandsForAVmThatIsNotUp() throws Exception {
        LabScript lab = script("refuses-vm");
        for (String command : List.of("ssh", "addr", "port", "gid", "console")) {
            CommandResult result = lab.run(TIMEOUT, command, "1");
            assertThat(result.exitCode()).as(result.describe()).isEqualTo(1);
            assertThat(result.stderr()).contains("no VM '1' (the lab has 0 VM(s) up; lab up N first)");
        }
        assertThat(lab.output(TIMEOUT, "status")).startsWith("lab: down");
    }

    @Test
    void aFailedUpStopsEverythingItStartedAndShowsTheConsoles() throws Exception {
        SoftRoceLab.assumeAvailable();
        Path stateDir = stateDir("failed-up");
        LabScript lab = new LabScript(LabScript.locate().orElseThrow(), stateDir, Map.of("QPLAB_LAB_TIMEOUT", "3"));

        CommandResult up = lab.run(TIMEOUT, "up", "2");

        assertThat(up.exitCode()).as(up.describe()).isEqualTo(1);
        assertThat(up.stderr()).contains("did not boot within 3s")
                .contains("---- VM 1 console (" + stateDir.resolve("run/vm1.console.log") + ")")
                .contains("---- VM 2 console (" + stateDir.resolve("run/vm2.console.log") + ")");
        assertThat(processesNaming(stateDir)).as("processes left running").isEmpty();
        assertThat(stateDir.resolve("run/vm1.console.log")).exists();
        assertThat(lab.output(TIMEOUT, "status")).startsWith("lab: down");
    }

    @Test
    void refusesAStateDirectoryTooLongForItsUnixSocketsBeforeStartingAnything() throws Exception {
        SoftRoceLab.assumeAvailable();
        Path stateDir = stateDir("long-" + "x".repeat(90));
        CommandResult up = new LabScript(LabScript.locate().orElseThrow(), stateDir).run(TIMEOUT, "up", "1");

        assertThat(up.exitCode()).as(up.describe()).isEqualTo(1);
        assertThat(up.stderr()).contains("the unix socket " + stateDir.resolve("run/vm8.monitor") + " would be "
                + stateDir.resolve("run/vm8.monitor").toString().length() + " bytes, more than a unix socket's 107");
        assertThat(processesNaming(stateDir)).as("processes left running").isEmpty();
        assertThat(stateDir.resolve("run")).doesNotExist();
    }

    private static List<String> processesNaming(Path stateDir) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.pid() != ProcessHandle.current().pid())
                .map(p -> p.info().commandLine().orElse(""))
                .filter(line -> line.contains(stateDir.toString()))
                .toList();
    }

    private static LabScript script(String name) throws IOException {
        return new LabScript(LabScript.locate().orElseThrow(), stateDir(name));
    }

    private static Path stateDir(String name) throws IOException {
        Path dir = Path.of("target", "lab-script-tests", name).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }
}
