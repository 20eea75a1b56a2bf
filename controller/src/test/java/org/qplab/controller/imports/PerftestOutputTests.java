package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** perftest output captured in the Soft-RoCE lab (rxe0, two qemu VMs): see src/test/resources/perftest/README.md. */
class PerftestOutputTests {

    static String fixture(String name) throws IOException {
        try (InputStream in = PerftestOutputTests.class.getResourceAsStream("/perftest/" + name)) {
            assertThat(in).as("fixture %s", name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsAnAllSizesBandwidthRunWithItsHeader() throws IOException {
        PerftestOutput out = PerftestOutput.parse(fixture("ib_send_bw-a.txt"));

        assertThat(out.tool()).isEqualTo("ib_send_bw");
        assertThat(out.latency()).isFalse();
        assertThat(out.rows()).extracting(PerftestOutput.Row::bytes)
                .containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L, 16384L, 32768L,
                        65536L, 131072L, 262144L, 524288L, 1048576L, 2097152L, 4194304L, 8388608L);
        assertThat(out.rows()).allSatisfy(r -> assertThat(r.values()).containsKeys("bw_peak", "bw_average", "msg_rate_mpps"));
        Map<String, Object> params = PerftestImport.params(out, out.rows().get(11));
        assertThat(params).containsEntry("provider", "perftest").containsEntry("op", "send").containsEntry("transport", "rc")
                .containsEntry("msg_size", 4096L).containsEntry("device", "rxe0").containsEntry("mtu", 1024L)
                .containsEntry("qps_per_thread", 1L).containsEntry("srq", "none");
    }

    @Test
    void readsWriteBandwidthAndReadLatency() throws IOException {
        PerftestOutput write = PerftestOutput.parse(fixture("ib_write_bw.txt"));
        assertThat(write.tool()).isEqualTo("ib_write_bw");
        assertThat(write.rows()).singleElement().satisfies(r -> assertThat(r.bytes()).isEqualTo(4096));
        assertThat(PerftestImport.params(write, write.rows().get(0))).containsEntry("op", "write").containsEntry("qps_per_thread", 2L);

        PerftestOutput lat = PerftestOutput.parse(fixture("ib_read_lat.txt"));
        assertThat(lat.tool()).isEqualTo("ib_read_lat");
        assertThat(lat.latency()).isTrue();
        assertThat(lat.rows()).singleElement().satisfies(r -> {
            assertThat(r.bytes()).isEqualTo(64);
            assertThat(r.values().get("t_typical_us")).isPositive();
            assertThat(r.values().get("t_p99_us")).isGreaterThanOrEqualTo(r.values().get("t_typical_us"));
        });
    }

    @Test
    void refusesATruncatedFileNamingItsLastResultLine() throws IOException {
        List<String> lines = fixture("ib_send_bw-a.txt").lines().toList();
        int eightK = lines.indexOf(lines.stream().filter(l -> l.trim().startsWith("8192 ")).findFirst().orElseThrow());
        String cut = String.join("\n", lines.subList(0, eightK + 1)) + "\n";

        assertThatThrownBy(() -> PerftestOutput.parse(cut)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(eightK + 1);
            assertThat(e.getMessage()).contains("truncated");
        });
        String beforeResults = String.join("\n", lines.subList(0, 5));
        assertThatThrownBy(() -> PerftestOutput.parse(beforeResults)).hasMessageContaining("ends before perftest's result header");
    }

    @Test
    void refusesABadResultLineNamingItAndWhatWasWrong() throws IOException {
        String[] lines = fixture("ib_write_bw.txt").split("\n", -1);
        int row = Arrays.asList(lines).indexOf(Arrays.stream(lines).filter(l -> l.trim().startsWith("4096 ")).findFirst().orElseThrow());
        lines[row] = lines[row].replaceFirst("4096", "4096 x");
        assertThatThrownBy(() -> PerftestOutput.parse(String.join("\n", lines)))
                .isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
                    assertThat(e.line()).isEqualTo(row + 1);
                    assertThat(e.getMessage()).contains("expected 5 values");
                });
        lines[row] = lines[row].replace("4096 x", "4096").replaceFirst("\\s(\\d+\\.\\d+)", " fast");
        assertThatThrownBy(() -> PerftestOutput.parse(String.join("\n", lines)))
                .hasMessageContaining("is not a non-negative number: 'fast'");
    }

    @Test
    void refusesWhatIsNotPerftestOutput() {
        assertThatThrownBy(() -> PerftestOutput.parse("iperf3 -c 10.0.0.1\n[ ID] Interval  Transfer  Bitrate\n"))
                .isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
                    assertThat(e.line()).isZero();
                    assertThat(e.getMessage()).contains("no perftest test title");
                });
    }
}
