package org.qplab.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * qpbench --lat prints perftest's *_lat table (perftest_parameters.h RESULT_FMT_LAT and REPORT_FMT_LAT), so a
 * lab's scripts that read ib_send_lat's output read qpbench's: the built CLI, tcp in loopback.
 */
class QpbenchLatencyTableIntegrationTests {

    /** perftest's header line, as perftest prints it. */
    static final String PERFTEST_LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
            + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";

    @Test
    void latencyRunPrintsPerftestsHeaderAndOneOrderedRowPerSize() throws Exception {
        Path qpbench = Path.of("target", "native", "qpbench");
        assertThat(qpbench).as("the build makes the CLI").isExecutable();
        Process p = new ProcessBuilder(qpbench.toString(), "--provider=tcp", "--lat", "-s", "64", "-n", "300")
                .redirectErrorStream(false).start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("qpbench ends").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("exit status; stderr: %s", stderr(p)).isZero();

        List<String> lines = out.lines().toList();
        int header = lines.indexOf(PERFTEST_LAT_HEADER);
        assertThat(header).as("perftest's header in:%n%s", out).isNotNegative();
        double[] row = Arrays.stream(lines.get(header + 1).trim().split("\\s+")).mapToDouble(Double::parseDouble)
                .toArray();
        assertThat(row).as("bytes, iterations and seven figures in µs").hasSize(9);
        assertThat(row[0]).isEqualTo(64);
        assertThat(row[1]).isEqualTo(300);
        double min = row[2], max = row[3], typical = row[4], avg = row[5], p99 = row[7], p999 = row[8];
        assertThat(min).isPositive();
        assertThat(typical).isBetween(min, max);
        assertThat(avg).isBetween(min, max);
        assertThat(p99).isBetween(typical, max);
        assertThat(p999).isBetween(p99, max);
    }

    /** --perftest=ib_atomic_lat / ib_atomic_bw run perftest's atomics: fetch-and-add unless -A says otherwise. */
    @Test
    void actsAsPerftestsAtomicTools() throws Exception {
        assertThat(refusal("--perftest=ib_atomic_lat", "--provider=tcp"))
                .isEqualTo("qpbench: op \"atomic_fadd\" is not supported by provider tcp (only \"send\")");
        assertThat(refusal("--perftest=ib_atomic_bw", "-A", "CMP_AND_SWAP", "--provider=tcp"))
                .isEqualTo("qpbench: op \"atomic_cswap\" is not supported by provider tcp (only \"send\")");
    }

    /** What qpbench says on stderr when it refuses these arguments (exit status 1). */
    private static String refusal(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of("target", "native", "qpbench").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("qpbench ends").isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        return stderr(p).strip();
    }

    private static String stderr(Process p) throws IOException {
        return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
