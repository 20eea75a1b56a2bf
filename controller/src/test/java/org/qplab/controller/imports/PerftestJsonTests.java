package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.qplab.controller.imports.PerftestFixtures.Fixture;
import org.qplab.controller.imports.PerftestFixtures.Result;
import tools.jackson.databind.ObjectMapper;

/**
 * perftest 4.5's --out_json files captured in the Soft-RoCE lab, each from the same run as the text
 * fixture of the same name: see src/test/resources/perftest/README.md.
 */
class PerftestJsonTests {

    /** The value the file gives key, read with a regex rather than the importer. */
    static double field(String json, String key) {
        Matcher m = Pattern.compile("(?m)^\"?" + Pattern.quote(key) + "\"?\\s*:\\s*([0-9.]+)").matcher(json);
        assertThat(m.find()).as("%s in the file", key).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** 1-based number of the first line that starts with prefix. */
    static int lineOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i + 1;
            }
        }
        throw new AssertionError("no line starts with " + prefix);
    }

    private static PerftestOutput.Row lastTextRow(String fixture) throws IOException {
        List<PerftestOutput.Row> rows = PerftestOutput.parse(PerftestOutputTests.fixture(fixture)).rows();
        return rows.get(rows.size() - 1);
    }

    @Test
    void readsABandwidthRunWithTheValuesAndHeaderItsTextOutputHas() throws IOException {
        String json = PerftestOutputTests.fixture("ib_write_bw.json");
        PerftestOutput out = PerftestJson.parse(json);

        assertThat(out.tool()).isEqualTo("ib_write_bw");
        assertThat(out.latency()).isFalse();
        assertThat(out.format()).isEqualTo("out_json");
        assertThat(out.bandwidthUnit()).isEqualTo("MB");
        PerftestOutput.Row row = out.rows().get(0);
        assertThat(out.rows()).hasSize(1);
        assertThat(row.bytes()).isEqualTo((long) field(json, "MsgSize"));
        assertThat(row.iterations()).isEqualTo((long) field(json, "n_iterations"));
        assertThat(row.values()).containsEntry("bw_peak", field(json, "BW_peak"))
                .containsEntry("bw_average", field(json, "BW_average"))
                .containsEntry("msg_rate_mpps", field(json, "MsgRate"));
        assertThat(row.line()).isEqualTo(lineOf(json.lines().toList(), "results"));

        PerftestOutput text = PerftestOutput.parse(PerftestOutputTests.fixture("ib_write_bw.txt"));
        assertThat(row.values()).as("the same run's text line").isEqualTo(text.rows().get(0).values());
        assertThat(PerftestImport.params(out, row)).as("the same run's parameters from its text header")
                .isEqualTo(PerftestImport.params(text, text.rows().get(0)))
                .containsEntry("op", "write").containsEntry("qps_per_thread", 2L).containsEntry("tx_depth", 128L)
                .containsEntry("signal_every", 100L).containsEntry("mtu", 1024L).containsEntry("device", "rxe0")
                .containsEntry("srq", "none").containsEntry("rdma_cm", false).containsEntry("transport", "rc")
                .containsEntry("post_api", "legacy");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#withJson")
    void readsEveryCapturedFileWithTheNumbersAndHeaderItHolds(Fixture fixture) throws IOException {
        String json = PerftestOutputTests.fixture(fixture.json());
        String text = fixture.text();
        Result expected = PerftestFixtures.jsonResults(json);
        List<Result> textLines = PerftestFixtures.results(text);
        PerftestOutput out = PerftestJson.parse(json);

        assertThat(expected).as("the file holds the last size its run's text reports").isEqualTo(textLines.get(textLines.size() - 1));
        assertThat(PerftestFixtures.jsonParams(json)).as("test_info says what the text header says")
                .isEqualTo(PerftestFixtures.headerParams(text));
        assertThat(out.tool()).isEqualTo(fixture.tool());
        assertThat(out.format()).isEqualTo("out_json");
        assertThat(out.repairs()).as("perftest 4.5's bare words and trailing commas are its dialect, no damage").isEmpty();
        assertThat(out.rows()).singleElement().satisfies(row -> {
            assertThat(row.bytes()).isEqualTo(expected.bytes());
            assertThat(row.iterations()).isEqualTo(expected.iterations());
            assertThat(row.values()).containsAllEntriesOf(expected.values()).hasSize(expected.values().size() + 2);
            assertThat(PerftestImport.params(out, row)).containsAllEntriesOf(PerftestFixtures.jsonParams(json))
                    .containsEntry("tool", fixture.tool()).containsEntry("msg_size", expected.bytes())
                    .containsEntry("iterations", expected.iterations());
        });
        if (!out.latency()) {
            assertThat(out.bandwidthUnit()).as("the unit the file does not name, as its run's text header names it")
                    .isEqualTo(text.contains("BW average[Gb/sec]") ? "Gb" : "MB");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#failed")
    void aFailedRunLeavesNoFileAndItsTextSentAsJsonIsExplainedAsText(Fixture fixture) throws IOException {
        assertThat(fixture.json()).as("what perftest wrote to --out_json").isEqualTo("none");
        String text = fixture.text();
        assertThatThrownBy(() -> PerftestJson.parse(text)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            PerftestOutput.Invalid asText = catchThrowableOfType(PerftestOutput.Invalid.class, () -> PerftestOutput.parse(text));
            assertThat(e.line()).isEqualTo(asText.line());
            assertThat(e.getMessage()).isEqualTo(asText.getMessage()).contains(fixture.quote());
        });
    }

    @Test
    void refusesAnEmptyFileSayingWhyAFailedRunLeavesOne() {
        for (String empty : List.of("", " \n\n")) {
            assertThatThrownBy(() -> PerftestJson.parse(empty)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
                assertThat(e.line()).isZero();
                assertThat(e.getMessage()).startsWith("the file is empty: ").contains("a run that failed leaves none or an empty one");
            });
        }
    }

    @Test
    void anAllSizesRunsFileHoldsItsLastSizeOnly() throws IOException {
        String json = PerftestOutputTests.fixture("ib_send_bw-a.json");
        PerftestOutput out = PerftestJson.parse(json);

        assertThat(out.tool()).isEqualTo("ib_send_bw");
        assertThat(out.rows()).singleElement().satisfies(row -> {
            assertThat(row.bytes()).isEqualTo(8388608L);
            assertThat(row.values()).as("the text's 8 MiB line of the same run").isEqualTo(lastTextRow("ib_send_bw-a.txt").values());
        });
        assertThat(PerftestOutput.parse(PerftestOutputTests.fixture("ib_send_bw-a.txt")).rows()).hasSize(23);
    }

    @Test
    void readsLatencyRunsWithTheirPercentiles() throws IOException {
        for (String name : List.of("ib_read_lat", "ib_send_lat")) {
            String json = PerftestOutputTests.fixture(name + ".json");
            PerftestOutput out = PerftestJson.parse(json);

            assertThat(out.tool()).isEqualTo(name);
            assertThat(out.latency()).isTrue();
            assertThat(out.rows()).singleElement().satisfies(row -> {
                assertThat(row.bytes()).isEqualTo(64L);
                assertThat(row.values()).containsEntry("t_typical_us", field(json, "t_typical"))
                        .containsEntry("t_avg_us", field(json, "t_avg"))
                        .containsEntry("t_p99_us", field(json, "percentile_99"))
                        .containsEntry("t_p999_us", field(json, "percentile_99.9"));
                assertThat(row.values()).as("%s: the same run's text line", name).isEqualTo(lastTextRow(name + ".txt").values());
            });
        }
        PerftestOutput read = PerftestJson.parse(PerftestOutputTests.fixture("ib_read_lat.json"));
        assertThat(read.value("Outstand reads")).isEqualTo("128");
    }

    @Test
    void tellsGigabitsFromMegabytesByTheMessageRateTheFileDoesNotNameItsUnit() throws IOException {
        assertThat(PerftestJson.parse(PerftestOutputTests.fixture("ib_write_bw-gbits.json")).bandwidthUnit())
                .as("--report_gbits, as its text header says")
                .isEqualTo(PerftestOutput.parse(PerftestOutputTests.fixture("ib_write_bw-gbits.txt")).bandwidthUnit())
                .isEqualTo("Gb");
        assertThat(PerftestJson.parse(PerftestOutputTests.fixture("ib_send_bw-a.json")).bandwidthUnit())
                .as("8 MiB at 0.000000 Mpps: no rate to compare, perftest's default").isEqualTo("MB");
        assertThat(PerftestJson.bandwidthInGigabits(Map.of("bytes", 8388608.0, "bw_average", 8.87, "msg_rate_mpps", 0.000001)))
                .as("8 MiB at 0.000001 Mpps and 8.87 MB/s (an earlier capture): a rounded rate still tells").isFalse();
        assertThat(PerftestJson.bandwidthInGigabits(Map.of("bytes", 2.0, "bw_average", 0.0, "msg_rate_mpps", 0.001)))
                .as("no bandwidth to compare: perftest's default").isFalse();
    }

    @Test
    void readsStrictJsonAsCurrentPerftestWritesIt() throws IOException {
        String loose = PerftestOutputTests.fixture("ib_write_bw.json");
        // quote every key and bare value, and drop the comma before a closing brace
        String strict = loose.replaceAll("(?m)^([A-Za-z0-9_.]+)\\s*:", "\"$1\":")
                .replaceAll("(?m): ([A-Za-z][A-Za-z0-9_]*),$", ": \"$1\",")
                .replaceAll(",\\s*\n}", "\n}");
        assertThat(new ObjectMapper().readTree(strict).get("results").get("MsgSize").asLong()).isEqualTo(4096L);

        PerftestOutput out = PerftestJson.parse(strict);
        PerftestOutput original = PerftestJson.parse(loose);
        assertThat(out.header()).isEqualTo(original.header());
        assertThat(out.rows().get(0).values()).isEqualTo(original.rows().get(0).values());
    }

    /** The file as some perftest versions end it: more closing braces than it opened, after its last one. */
    @Test
    void readsAFileEndingWithMoreClosingBracesThanItOpenedKeepingItsValuesAndNamingTheRepair() throws IOException {
        String json = PerftestOutputTests.fixture("ib_write_bw.json");
        int lines = json.lines().toList().size();
        PerftestOutput sound = PerftestJson.parse(json);

        PerftestOutput out = PerftestJson.parse(json + "}\n}\n");

        assertThat(out.repairs()).containsExactly(new PerftestOutput.Repair(lines + 1, "repaired: 2 closing braces after "
                + "the end of the JSON, left out (some perftest versions write them; linux-rdma/perftest#216)"));
        assertThat(out.header()).isEqualTo(sound.header()).containsEntry("Number of qps", "2");
        assertThat(out.rows()).singleElement().satisfies(row -> {
            assertThat(row.bytes()).isEqualTo((long) field(json, "MsgSize")).isEqualTo(4096L);
            assertThat(row.iterations()).isEqualTo((long) field(json, "n_iterations"));
            assertThat(row.values()).isEqualTo(sound.rows().get(0).values())
                    .containsEntry("bw_peak", field(json, "BW_peak"))
                    .containsEntry("bw_average", field(json, "BW_average"))
                    .containsEntry("msg_rate_mpps", field(json, "MsgRate"));
        });
        assertThat(PerftestImport.params(out, out.rows().get(0))).isEqualTo(PerftestImport.params(sound, sound.rows().get(0)));
    }

    @Test
    void oneExtraBraceOfAStrictLatencyFileIsOneRepairWhereverItsWhiteSpaceIs() throws IOException {
        String loose = PerftestOutputTests.fixture("ib_read_lat.json");
        // as perftest writes it since linux-rdma/perftest#239: keys and words quoted, no comma before a closing brace
        String strict = loose.replaceAll("(?m)^([A-Za-z0-9_.]+)\\s*:", "\"$1\":")
                .replaceAll("(?m): ([A-Za-z][A-Za-z0-9_]*),$", ": \"$1\",")
                .replaceAll(",\\s*\n}", "\n}");
        int lines = strict.lines().toList().size();

        PerftestOutput one = PerftestJson.parse(strict.stripTrailing() + "}");
        assertThat(one.repairs()).containsExactly(new PerftestOutput.Repair(lines, "repaired: 1 closing brace after the "
                + "end of the JSON, left out (some perftest versions write them; linux-rdma/perftest#216)"));
        assertThat(one.rows().get(0).values()).containsEntry("t_typical_us", field(loose, "t_typical"))
                .containsEntry("t_p99_us", field(loose, "percentile_99"))
                .isEqualTo(PerftestJson.parse(loose).rows().get(0).values());

        PerftestOutput three = PerftestJson.parse(strict.replace("\n", "\r\n") + "} }\t\r\n\r\n}\r\n");
        assertThat(three.repairs()).singleElement().satisfies(repair -> {
            assertThat(repair.line()).isEqualTo(lines + 1);
            assertThat(repair.message()).startsWith("repaired: 3 closing braces after the end of the JSON");
        });
        assertThat(three.rows().get(0).values()).isEqualTo(one.rows().get(0).values());
    }

    @Test
    void damageBeyondExtraClosingBracesIsStillRefusedNamingLineAndColumn() throws IOException {
        String json = PerftestOutputTests.fixture("ib_send_bw.json");
        List<String> lines = json.lines().toList();
        int end = lines.size();

        // braces, then something else: the first character that is not a brace
        assertThatThrownBy(() -> PerftestJson.parse(json + "}\n},\n")).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(end + 2);
            assertThat(e.getMessage()).isEqualTo("column 2: unexpected ',' after the value that ended on line " + end);
        });
        // a brace too many inside the file ends the object early: what follows it is no repair
        int results = lineOf(lines, "results");
        String early = String.join("\n", lines.subList(0, results - 1)) + "\n}\n" + String.join("\n", lines.subList(results - 1, end));
        assertThatThrownBy(() -> PerftestJson.parse(early)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(results + 1);
            assertThat(e.getMessage()).isEqualTo("column 1: unexpected 'r' after the value that ended on line " + results);
        });
        // a brace too few is a truncated file, as before
        String missing = json.stripTrailing().substring(0, json.stripTrailing().length() - 1);
        assertThatThrownBy(() -> PerftestJson.parse(missing)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(end - 1);
            assertThat(e.getMessage()).startsWith("column 2: the file ends inside the object opened on line 1");
        });
    }

    @Test
    void refusesATruncatedFileNamingWhereItStops() throws IOException {
        List<String> lines = PerftestOutputTests.fixture("ib_write_bw.json").lines().toList();
        int peak = lineOf(lines, "BW_peak");
        String cut = String.join("\n", lines.subList(0, peak)) + "\n";

        assertThatThrownBy(() -> PerftestJson.parse(cut)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(peak);
            assertThat(e.getMessage()).startsWith("column " + lines.get(peak - 1).length() + ": ")
                    .contains("ends inside the object opened on line " + lineOf(lines, "results")).contains("truncated");
        });
        String midString = String.join("\n", lines.subList(0, lineOf(lines, "Device"))).replace("\"rxe0\",", "\"rx");
        assertThatThrownBy(() -> PerftestJson.parse(midString)).hasMessageContaining("ends inside the string");
    }

    @Test
    void refusesAFileWithoutResultsOrWithABadValueNamingTheLine() throws IOException {
        String json = PerftestOutputTests.fixture("ib_read_lat.json");
        List<String> lines = json.lines().toList();
        int results = lineOf(lines, "results");
        String withoutResults = String.join("\n", lines.subList(0, results - 1)) + "\n}\n";

        assertThatThrownBy(() -> PerftestJson.parse(withoutResults)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(results);
            assertThat(e.getMessage()).contains("no \"results\"");
        });

        String withoutTypical = json.replaceFirst("t_typical: [0-9.]+,\n", "");
        assertThatThrownBy(() -> PerftestJson.parse(withoutTypical))
                .hasMessageContaining("have no t_typical, which a ib_read_lat run reports");

        String slow = json.replaceFirst("t_avg: [0-9.]+", "t_avg: slow");
        assertThatThrownBy(() -> PerftestJson.parse(slow)).isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
            assertThat(e.line()).isEqualTo(lineOf(lines, "t_avg"));
            assertThat(e.getMessage()).isEqualTo("t_avg is not a non-negative number: 'slow'");
        });
    }

    @Test
    void refusesWhatIsNotAnOutJsonFileOfATestItImports() throws IOException {
        String json = PerftestOutputTests.fixture("ib_write_bw.json");
        int test = lineOf(json.lines().toList(), "test:");
        assertThatThrownBy(() -> PerftestJson.parse(json.replace("RDMA_Write_BW_Test", "Atomic_FETCH_AND_ADD_BW_Test")))
                .isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
                    assertThat(e.line()).isEqualTo(test);
                    assertThat(e.getMessage()).contains("'Atomic_FETCH_AND_ADD_BW_Test' is not one qplab imports");
                });
        assertThatThrownBy(() -> PerftestJson.parse("\n" + PerftestOutputTests.fixture("ib_write_bw.txt")))
                .isInstanceOfSatisfying(PerftestOutput.Invalid.class, e -> {
                    assertThat(e.line()).isEqualTo(2);
                    assertThat(e.getMessage()).startsWith("column 1: ").contains("is this its text output?");
                });
        assertThatThrownBy(() -> PerftestJson.parse("{\"name\": \"quickstart\", \"dimensions\": {}}"))
                .hasMessageContaining("has no \"test_info\"");
    }
}
