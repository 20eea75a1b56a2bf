package org.qplab.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .ci/tiers}, which ends {@code .ci/run}'s log with each test tier's wall time and counts, read from a Maven log
 * written with timestamps (test resource {@code ci/maven-build-log.txt}: a build over midnight with the agent's C
 * tests, fast and integration tests, the lab module's tests skipped, the controller's integration and lab executions).
 */
class CiTiersTests {

    private static final Path SCRIPT = Path.of("..", ".ci", "tiers");
    private static final Path LOG = Path.of("src", "test", "resources", "ci", "maven-build-log.txt");

    @Test
    void eachTiersTimeRunsFromItsExecutionToTheNextSummedOverModulesWithItsOwnCounts() throws Exception {
        assertThat(tiers(LOG)).containsExactly(
                "Test tiers (wall time of each, from this log):",
                "  C tests          17 s  86 tests, 0 failed",
                // agent 23:58:27-23:58:41 and controller 00:00:15-00:01:20; per-class lines are not counted twice
                "  fast             79 s  248 tests, 0 failures, 1 errors, 0 skipped",
                "  integration     361 s  270 tests, 1 failures, 0 errors, 0 skipped",
                "                  110 s  of which browser: 8 tests",
                // the lab module's execution crosses midnight (23:59:43-00:00:14), the controller's "lab" one is 601 s
                "  lab             632 s  42 tests, 0 failures, 0 errors, 33 skipped",
                "  Soft-RoCE lab: SKIPPED 33 tests: not root: the lab needs root");
    }

    @Test
    void tiersABuildDidNotReachSayNotRun(@TempDir Path dir) throws Exception {
        List<String> lines = Files.readAllLines(LOG);
        Path testOnly = dir.resolve("test-only.log");
        Files.write(testOnly, List.of(lines.get(0), lines.get(1), lines.get(2), lines.get(3), lines.get(4), lines.get(5),
                lines.get(7), "23:58:41 [INFO] BUILD SUCCESS"));
        assertThat(tiers(testOnly)).containsExactly(
                "Test tiers (wall time of each, from this log):",
                "  C tests          17 s  86 tests, 0 failed",
                "  fast             14 s  80 tests, 0 failures, 0 errors, 0 skipped",
                "  integration  not run",
                "  lab          not run");
    }

    private static List<String> tiers(Path log) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("bash", SCRIPT.toString(), log.toString()).redirectErrorStream(true).start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(".ci/tiers ended").isTrue();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(out).isZero();
        return out.lines().toList();
    }
}
