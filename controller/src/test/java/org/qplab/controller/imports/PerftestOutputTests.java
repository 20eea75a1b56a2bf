package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.qplab.controller.imports.PerftestFixtures.Fixture;
import org.qplab.controller.imports.PerftestFixtures.Result;

/**
 * perftest output captured in the Soft-RoCE lab (rxe0, two qemu VMs): see src/test/resources/perftest/README.md;
 * fixtures.tsv lists every run and how it ended.
 */
class PerftestOutputTests {

    static String fixture(String name) throws IOException {
        return PerftestFixtures.fixture(name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#reportedResults")
    void readsEveryCapturedRunWithTheNumbersAndHeaderItsFileShows(Fixture fixture) throws IOException {
        String text = fixture.text();
        List<Result> expected = PerftestFixtures.results(text);
        PerftestOutput out = PerftestOutput.parse(text);

        assertThat(out.tool()).isEqualTo(fixture.tool());
        assertThat(out.format()).isEqualTo("text");
        assertThat(expected).as("-a reports every size, else one").hasSizeGreaterThan(fixture.command().contains(" -a ") ? 5 : 0)
                .hasSizeLessThan(fixture.command().contains(" -a ") ? 24 : 2);
        assertThat(out.rows()).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            Result line = expected.get(i);
            PerftestOutput.Row row = out.rows().get(i);
            assertThat(row.bytes()).isEqualTo(line.bytes());
            assertThat(row.iterations()).isEqualTo(line.iterations());
            assertThat(row.values()).as("%d B", line.bytes()).containsAllEntriesOf(line.values())
                    .hasSize(line.values().size() + 2);
            assertThat(PerftestImport.params(out, row)).as("%d B", line.bytes())
                    .containsAllEntriesOf(PerftestFixtures.headerParams(text))
                    .containsEntry("tool", fixture.tool()).containsEntry("msg_size", line.bytes())
                    .containsEntry("iterations", line.iterations());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#failed")
    void quotesWhatEveryCapturedRunThatFailedPrinted(Fixture fixture) throws IOException {
        String text = fixture.text();
        List<String> lines = text.lines().toList();
        int quoted = 1 + lines.stream().map(String::strip).toList().indexOf(fixture.quote());

        assertThatThrownBy(() -> PerftestOutput.parse(text)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).as("the line quoted").isEqualTo(quoted).isPositive();
            if (fixture.outcome().equals("failed")) {
                assertThat(e.getMessage()).isEqualTo("perftest failed: \"" + fixture.quote() + "\"");
                assertThat(e).isInstanceOfSatisfying(PerftestFailure.Failed.class, failed -> assertThat(failed.errors())
                        .as("perftest's error lines, as it printed them").isNotEmpty()
                        .allSatisfy(error -> assertThat(error.text()).isEqualTo(lines.get(error.number() - 1).strip())));
            } else {
                assertThat(e.getMessage()).startsWith("perftest printed no result; its last line: \"" + fixture.quote() + "\"");
            }
        });
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
                .containsEntry("qps_per_thread", 1L).containsEntry("srq", "none").containsEntry("mode", "bw")
                .containsEntry("relaxed_ordering", true)
                .containsEntry("post_api", "legacy"); // ibv_wr* API : OFF (rxe)
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
        assertThat(PerftestImport.params(lat, lat.rows().get(0))).containsEntry("mode", "latency");
        assertThat(lat.rows()).singleElement().satisfies(r -> {
            assertThat(r.bytes()).isEqualTo(64);
            assertThat(r.values().get("t_typical_us")).isPositive();
            assertThat(r.values().get("t_p99_us")).isGreaterThanOrEqualTo(r.values().get("t_typical_us"));
        });
    }

    /**
     * qpbench's latency mode prints perftest's *_lat table (engine/src/main/c/qpbench_output.c): its output imports
     * like ib_write_lat's. Captured in the lab: qpbench --perftest=ib_write_lat --sizes=2,64,4096 -n 200 between the
     * VMs.
     */
    @Test
    void importsQpbenchsLatencyOutputAsPerftestWouldPrintIt() throws IOException {
        String text;
        try (var in = PerftestOutputTests.class.getResourceAsStream("/qpbench/ib_write_lat-sizes.txt")) {
            text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }

        PerftestOutput out = PerftestOutput.parse(text);

        assertThat(out.tool()).isEqualTo("ib_write_lat");
        assertThat(out.latency()).isTrue();
        assertThat(out.value("Tool")).isEqualTo("qpbench, provider verbs");
        assertThat(out.rows()).extracting(PerftestOutput.Row::bytes).containsExactly(2L, 64L, 4096L);
        assertThat(out.rows()).allSatisfy(r -> {
            assertThat(r.iterations()).isEqualTo(200);
            assertThat(r.values()).containsOnlyKeys("bytes", "iterations", "t_min_us", "t_max_us", "t_typical_us",
                    "t_avg_us", "t_stdev_us", "t_p99_us", "t_p999_us");
            assertThat(r.values().get("t_min_us")).isPositive().isLessThanOrEqualTo(r.values().get("t_typical_us"));
            assertThat(r.values().get("t_typical_us")).isLessThanOrEqualTo(r.values().get("t_p99_us"));
            assertThat(r.values().get("t_p99_us")).isLessThanOrEqualTo(r.values().get("t_p999_us"));
            assertThat(r.values().get("t_p999_us")).isLessThanOrEqualTo(r.values().get("t_max_us"));
        });
        // the 64 B row as the file prints it
        assertThat(out.rows().get(1).values()).containsEntry("t_min_us", 796.60).containsEntry("t_typical_us", 7946.24)
                .containsEntry("t_p999_us", 83623.93);
        assertThat(PerftestImport.params(out, out.rows().get(1))).containsEntry("op", "write").containsEntry("transport", "rc")
                .containsEntry("msg_size", 64L).containsEntry("iterations", 200L).containsEntry("tx_depth", 1L)
                .containsEntry("device", "rxe0");
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
    void quotesEveryErrorLineOfARunThatFailedAndNothingElse() throws IOException {
        String text = fixture("ib_send_bw-xrc-unsupported.txt");
        assertThatThrownBy(() -> PerftestOutput.parse(text)).isInstanceOfSatisfying(PerftestFailure.Failed.class,
                e -> assertThat(e.errors()).extracting(PerftestFailure.Line::text).containsExactly(
                        "Error opening XRC domain", "Couldn't create XRC resources", "Couldn't create IB resources"));

        String warned = fixture("ib_read_bw.txt");
        assertThat(warned).as("a warning perftest prints on a run that reports results")
                .contains("Device not recognized to implement inline feature. Disabling it");
        assertThat(PerftestOutput.parse(warned).rows()).hasSize(1);
        String cut = String.join("\n", warned.lines().toList().subList(0, 10));
        assertThatThrownBy(() -> PerftestOutput.parse(cut)).as("a warning is not why a run failed")
                .hasMessageContaining("ends before perftest's result header");
    }

    @Test
    void aRunThatFailedAfterSomeSizesIsRefusedQuotingItsErrorNotAsTruncated() throws IOException {
        List<String> lines = fixture("ib_send_bw-a.txt").lines().toList();
        int kilobyte = lines.indexOf(lines.stream().filter(l -> l.trim().startsWith("1024 ")).findFirst().orElseThrow());
        // what perftest 4.5 prints when a completion fails (its own strings; no run here failed that way)
        String failed = String.join("\n", lines.subList(0, kilobyte + 1))
                + "\n Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\nscnt=20, ccnt=0\n";

        assertThatThrownBy(() -> PerftestOutput.parse(failed)).isInstanceOfSatisfying(PerftestFailure.Failed.class, e -> {
            assertThat(e.line()).isEqualTo(kilobyte + 2);
            assertThat(e.errors()).extracting(PerftestFailure.Line::text)
                    .containsExactly("Completion with error at client", "Failed status 12: wr_id 0 syndrom 0x81");
        });
    }

    @Test
    void keepsTheLinesWhoseStandardDeviationPerftestCouldNotCompute() throws IOException {
        String text = fixture("ib_send_lat-a.txt");
        List<String> nan = text.lines().filter(l -> l.contains("-nan")).toList();
        assertThat(nan).as("perftest's -nan standard deviations").isNotEmpty();

        PerftestOutput out = PerftestOutput.parse(text);
        assertThat(out.rows()).hasSize(23);
        assertThat(out.rows()).filteredOn(r -> nan.stream().anyMatch(l -> l.trim().startsWith(r.bytes() + " ")))
                .hasSameSizeAs(nan)
                .allSatisfy(r -> assertThat(r.values()).doesNotContainKey("t_stdev_us").containsKeys("t_typical_us", "t_p99_us"));
        assertThat(PerftestJson.parse(fixture("ib_send_lat-a.json")).rows().get(0).values()).doesNotContainKey("t_stdev_us")
                .containsKey("t_avg_us");
        assertThatThrownBy(() -> PerftestOutput.parse(text.replaceFirst("-nan", "-0.5")))
                .hasMessageContaining("t_stdev_us is not a non-negative number: '-0.5'");
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
