package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.imports.PerftestFixtures.Fixture;
import org.qplab.controller.imports.PerftestFixtures.Result;
import org.springframework.http.MediaType;

/**
 * perftest's --out_json files captured in the lab go in over REST (as application/json or as plain
 * text: the content decides) and come out of the history like the same run's text output; a file
 * with the extra closing braces some perftest versions write comes in with its numbers and a warning
 * naming the repair; a cut, incomplete or empty file, or other damage, is refused naming its line (or
 * saying why it is empty) and stores nothing.
 */
class PerftestJsonImportIntegrationTests extends ControllerIntegrationTest {

    private Map<String, Object> upload(String fixture, MediaType type, String query) throws Exception {
        return http().post().uri("/api/import/perftest" + query).contentType(type)
                .bodyValue(PerftestOutputTests.fixture(fixture)).exchange().expectStatus().isCreated()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    private static long id(Map<String, Object> created) {
        return ((Number) created.get("id")).longValue();
    }

    private List<Map<String, Object>> runs(long experiment) {
        return http().get().uri("/api/experiments/{id}/runs", experiment).exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
    }

    private double single(long experiment, String y) {
        Map<String, Object> curve = http().get().uri("/api/experiments/{id}/curve?x=msg_size&y={y}&series=op", experiment, y)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> points = (List<Map<String, Object>>) curve.get("points");
        assertThat(points).as("%s of experiment %d", y, experiment).hasSize(1);
        return ((Number) points.get(0).get("y")).doubleValue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#withJson")
    void everyCapturedFileImportsWithTheNumbersAndParametersItHolds(Fixture fixture) throws Exception {
        String json = PerftestOutputTests.fixture(fixture.json());
        Result expected = PerftestFixtures.jsonResults(json);
        Map<String, Object> created = upload(fixture.json(), MediaType.APPLICATION_JSON, "?file=" + fixture.json());
        assertThat(created).containsEntry("tool", fixture.tool()).containsEntry("runs", 1);

        http().get().uri("/api/experiments/{id}", id(created)).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("FINISHED").jsonPath("$.matrix.imported.format").isEqualTo("out_json");
        // the file names no BW unit: the same run's text does
        PerftestImportIntegrationTests.assertStoredAsTheFileSays(http(), id(created), List.of(expected),
                PerftestFixtures.jsonParams(json), PerftestFixtures.bandwidthUnit(fixture.text()), fixture.tool());
    }

    @Test
    void anEmptyFileIsRefusedSayingAFailedRunLeavesOneAndNothingIsStored() {
        long experiments = count("experiment");
        for (String empty : List.of("", "\n \n")) {
            http().post().uri("/api/import/perftest?file=out.json").contentType(MediaType.APPLICATION_JSON).bodyValue(empty)
                    .exchange().expectStatus().isBadRequest().expectBody()
                    .jsonPath("$.error").isEqualTo("invalid perftest output")
                    .jsonPath("$.violations[0].message").value(m -> assertThat((String) m).startsWith("the request body is empty: ")
                            .contains("--out_json").contains("a run that failed leaves none or an empty one")
                            .endsWith("its text output (stdout and stderr) says why it failed"));
        }
        http().post().uri("/api/import/perftest").contentType(MediaType.TEXT_PLAIN).bodyValue("\n\n").exchange()
                .expectStatus().isBadRequest().expectBody()
                .jsonPath("$.violations[0].message").value(m -> assertThat((String) m).startsWith("the request body is empty: send"));
        assertThat(count("experiment")).isEqualTo(experiments);
    }

    @Test
    void anOutJsonFileBecomesTheSameRunAsItsTextOutput() throws Exception {
        Map<String, Object> created = upload("ib_write_bw.json", MediaType.APPLICATION_JSON, "?file=ib_write_bw.json");
        assertThat(created).containsEntry("tool", "ib_write_bw").containsEntry("runs", 1)
                .containsEntry("name", "ib_write_bw (ib_write_bw.json) import");
        long json = id(created);
        long text = id(upload("ib_write_bw.txt", MediaType.TEXT_PLAIN, ""));

        http().get().uri("/api/experiments/{id}", json).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("FINISHED").jsonPath("$.runsDone").isEqualTo(1)
                .jsonPath("$.matrix.imported.from").isEqualTo("perftest")
                .jsonPath("$.matrix.imported.format").isEqualTo("out_json")
                .jsonPath("$.matrix.imported.header['Number of qps']").isEqualTo("2");
        Map<String, Object> fromJson = runs(json).get(0);
        Map<String, Object> fromText = runs(text).get(0);
        assertThat(fromJson.get("status")).isEqualTo("FINISHED");
        assertThat(fromJson.get("params")).isEqualTo(fromText.get("params"));
        @SuppressWarnings("unchecked")
        Map<String, Object> params = (Map<String, Object>) fromJson.get("params");
        assertThat(params).containsEntry("msg_size", 4096).containsEntry("qps_per_thread", 2);

        double average = PerftestJsonTests.field(PerftestOutputTests.fixture("ib_write_bw.json"), "BW_average");
        assertThat(single(json, "bw_avg_bps")).as("BW_average in bytes/s").isCloseTo(average * 1024 * 1024, within(1e-6))
                .isEqualTo(single(text, "bw_avg_bps"));
    }

    @Test
    void aJsonBodySentAsTextIsReadAsJsonWithItsUnits() throws Exception {
        String lat = PerftestOutputTests.fixture("ib_read_lat.json");
        long latency = id(upload("ib_read_lat.json", MediaType.TEXT_PLAIN, "?name=read latency json"));
        assertThat(single(latency, "cycle_median_ns")).isCloseTo(PerftestJsonTests.field(lat, "t_typical") * 1000, within(1e-6));
        assertThat(single(latency, "cycle_p99_ns")).isCloseTo(PerftestJsonTests.field(lat, "percentile_99") * 1000, within(1e-6));

        String gbits = PerftestOutputTests.fixture("ib_write_bw-gbits.json");
        long bandwidth = id(upload("ib_write_bw-gbits.json", MediaType.TEXT_PLAIN, ""));
        assertThat(single(bandwidth, "bw_avg_bps")).as("--report_gbits: Gb/s in bytes/s")
                .isCloseTo(PerftestJsonTests.field(gbits, "BW_average") * 1e9 / 8, within(1e-3));
    }

    @Test
    void anAllSizesRunsJsonBecomesOneRunOfItsLastSize() throws Exception {
        long id = id(upload("ib_send_bw-a.json", MediaType.APPLICATION_JSON, ""));

        assertThat(runs(id)).singleElement()
                .satisfies(run -> assertThat(run.get("params")).asInstanceOf(InstanceOfAssertFactories.MAP)
                        .containsEntry("msg_size", 8388608));
    }

    @Test
    void aFileEndingWithExtraClosingBracesIsImportedWithItsNumbersAndAWarningNamingTheRepair() throws Exception {
        String json = PerftestOutputTests.fixture("ib_write_bw.json");
        int end = json.lines().toList().size();
        String warning = "repaired: 2 closing braces after the end of the JSON, left out (some perftest versions write "
                + "them; linux-rdma/perftest#216)";
        Map<String, Object> created = http().post().uri("/api/import/perftest?file=damaged.json")
                .contentType(MediaType.APPLICATION_JSON).bodyValue(json + "}\n}\n").exchange().expectStatus().isCreated()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(created).containsEntry("tool", "ib_write_bw").containsEntry("runs", 1)
                .containsEntry("warnings", List.of(Map.of("field", "line " + (end + 1), "message", warning)));
        long damaged = id(created);
        long sound = id(upload("ib_write_bw.json", MediaType.APPLICATION_JSON, "?file=ib_write_bw.json"));
        assertThat(upload("ib_write_bw.json", MediaType.APPLICATION_JSON, "")).as("a sound file needs no repair")
                .containsEntry("warnings", List.of());

        http().get().uri("/api/experiments/{id}", damaged).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("FINISHED")
                .jsonPath("$.matrix.imported.header['Number of qps']").isEqualTo("2")
                .jsonPath("$.matrix.imported.repaired[0].line").isEqualTo(end + 1)
                .jsonPath("$.matrix.imported.repaired[0].message").isEqualTo(warning);
        http().get().uri("/api/experiments/{id}", sound).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.matrix.imported.repaired").doesNotExist();
        assertThat(runs(damaged).get(0).get("params")).isEqualTo(runs(sound).get(0).get("params"));
        PerftestImportIntegrationTests.assertStoredAsTheFileSays(http(), damaged, List.of(PerftestFixtures.jsonResults(json)),
                PerftestFixtures.jsonParams(json), PerftestFixtures.bandwidthUnit(PerftestOutputTests.fixture("ib_write_bw.txt")),
                "ib_write_bw");
        for (String y : List.of("bw_avg_bps", "bw_peak_bps", "msg_rate")) {
            assertThat(single(damaged, y)).as(y).isEqualTo(single(sound, y));
        }
        assertThat(single(damaged, "bw_avg_bps")).isCloseTo(PerftestJsonTests.field(json, "BW_average") * 1024 * 1024, within(1e-6));
    }

    @Test
    void damageThatIsNoRepairIsRefusedNamingItsLineAndColumnAndNothingIsStored() throws Exception {
        String json = PerftestOutputTests.fixture("ib_send_lat.json");
        int end = json.lines().toList().size();
        long experiments = count("experiment");

        http().post().uri("/api/import/perftest").contentType(MediaType.APPLICATION_JSON).bodyValue(json + "}\n}, x\n")
                .exchange().expectStatus().isBadRequest().expectBody()
                .jsonPath("$.error").isEqualTo("invalid perftest output")
                .jsonPath("$.violations.length()").isEqualTo(1)
                .jsonPath("$.violations[0].field").isEqualTo("line " + (end + 2))
                .jsonPath("$.violations[0].message").isEqualTo("column 2: unexpected ',' after the value that ended on line " + end);
        assertThat(count("experiment")).isEqualTo(experiments);
    }

    @Test
    void aTruncatedJsonFileIsRefusedNamingItsLineAndColumnAndNothingIsStored() throws Exception {
        List<String> lines = PerftestOutputTests.fixture("ib_write_bw.json").lines().toList();
        int average = PerftestJsonTests.lineOf(lines, "BW_average");
        long experiments = count("experiment");
        long runs = count("run");

        http().post().uri("/api/import/perftest").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(String.join("\n", lines.subList(0, average))).exchange().expectStatus().isBadRequest()
                .expectBody()
                .jsonPath("$.error").isEqualTo("invalid perftest output")
                .jsonPath("$.violations[0].field").isEqualTo("line " + average)
                .jsonPath("$.violations[0].message").value(m -> assertThat((String) m)
                        .startsWith("column " + lines.get(average - 1).length() + ": the file ends inside the object opened on line "
                                + PerftestJsonTests.lineOf(lines, "results"))
                        .endsWith("truncated?"));
        assertThat(count("experiment")).isEqualTo(experiments);
        assertThat(count("run")).isEqualTo(runs);
    }

    @Test
    void aJsonFileWithoutItsResultsIsRefusedNamingWhereTheyShouldBeAndNothingIsStored() throws Exception {
        List<String> lines = PerftestOutputTests.fixture("ib_send_lat.json").lines().toList();
        int results = PerftestJsonTests.lineOf(lines, "results");
        String withoutResults = String.join("\n", lines.subList(0, results - 1)) + "\n}\n";
        long experiments = count("experiment");

        http().post().uri("/api/import/perftest").contentType(MediaType.APPLICATION_JSON).bodyValue(withoutResults).exchange()
                .expectStatus().isBadRequest().expectBody()
                .jsonPath("$.error").isEqualTo("invalid perftest output")
                .jsonPath("$.violations[0].field").isEqualTo("line " + results)
                .jsonPath("$.violations[0].message").value(m -> assertThat((String) m)
                        .isEqualTo("the object that ends here has no \"results\": the run failed before reporting its "
                                + "results, or the file is truncated"));
        http().post().uri("/api/import/perftest").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(PerftestOutputTests.fixture("ib_send_lat.txt")).exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].message").value(m -> assertThat((String) m)
                        .contains("is this its text output? Send that as text/plain"));
        assertThat(count("experiment")).isEqualTo(experiments);
    }
}
