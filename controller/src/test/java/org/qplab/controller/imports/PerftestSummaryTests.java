package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.qplab.controller.imports.PerftestFixtures.Fixture;
import org.qplab.controller.imports.PerftestFixtures.Result;

/**
 * A perftest result line as a run summary in the engine's keys and units (run-summary.schema.json): every
 * captured run's lines, read independently of the importer, against what the import stores.
 */
class PerftestSummaryTests {

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#reportedResults")
    void everyCapturedLineBecomesTheEnginesKeysInItsUnitsAndKeepsWhatPerftestPrinted(Fixture fixture) throws IOException {
        String text = fixture.text();
        PerftestOutput out = PerftestOutput.parse(text);
        List<Result> expected = PerftestFixtures.results(text);
        double unit = PerftestFixtures.bandwidthUnit(text);
        for (int i = 0; i < expected.size(); i++) {
            Result line = expected.get(i);
            PerftestOutput.Row row = out.rows().get(i);
            Map<String, Object> params = PerftestImport.params(out, row);
            Map<String, Object> summary = PerftestSummary.of(out, row, params);
            Map<String, Double> v = line.values();
            long qps = ((Number) params.get("qps_per_thread")).longValue();
            long messages = out.latency() ? line.iterations() : line.iterations() * qps;

            assertThat(summary).as("%d B", line.bytes())
                    .containsEntry("provider", params.get("provider")).containsEntry("op", params.get("op"))
                    .containsEntry("mode", out.latency() ? "latency" : "bw").containsEntry("threads", 1L)
                    .containsEntry("qps_per_thread", qps).containsEntry("msg_size", line.bytes())
                    .containsEntry("iterations", line.iterations()).containsEntry("cycles", line.iterations())
                    .containsEntry("messages", messages).containsEntry("bytes", messages * line.bytes())
                    .containsEntry("errors", 0L);
            @SuppressWarnings("unchecked")
            Map<String, Object> perftest = (Map<String, Object>) summary.get("perftest");
            assertThat(perftest).containsEntry("tool", fixture.tool()).containsEntry("line", row.line());
            @SuppressWarnings("unchecked")
            Map<String, Object> results = (Map<String, Object>) perftest.get("results");
            assertThat(results).as("perftest's line, value for value").containsEntry("bytes", line.bytes())
                    .containsEntry("iterations", line.iterations()).containsAllEntriesOf(v).hasSize(v.size() + 2);
            if (out.latency()) {
                assertThat(summary).doesNotContainKeys("bw_avg_bps", "bw_peak_bps", "msg_rate");
                assertThat(perftest).doesNotContainKey("bw_unit");
                @SuppressWarnings("unchecked")
                Map<String, Object> latency = (Map<String, Object>) summary.get("latency_us");
                @SuppressWarnings("unchecked")
                Map<String, Object> cycles = (Map<String, Object>) summary.get("cycle_ns");
                Map<String, String> names = Map.of("min", "t_min_us", "max", "t_max_us", "typical", "t_typical_us",
                        "avg", "t_avg_us", "stdev", "t_stdev_us", "p99", "t_p99_us", "p999", "t_p999_us");
                names.forEach((key, column) -> {
                    String cycleKey = key.equals("typical") ? "median" : key;
                    if (v.containsKey(column)) {
                        assertThat(latency).as("%s of %d B", key, line.bytes()).containsEntry(key, v.get(column));
                        assertThat((Double) cycles.get(cycleKey)).as("%s of %d B in ns", cycleKey, line.bytes())
                                .isCloseTo(v.get(column) * 1000, within(1e-6));
                    } else { // -nan: what perftest could not compute is absent, not zero
                        assertThat(latency).doesNotContainKey(key);
                        assertThat(cycles).doesNotContainKey(cycleKey);
                    }
                });
                assertThat((Long) summary.get("duration_ns")).isEqualTo(Math.round(v.get("t_avg_us") * 1e3 * line.iterations()));
            } else {
                assertThat(summary).doesNotContainKeys("cycle_ns", "latency_us");
                assertThat(perftest).containsEntry("bw_unit", unit == 1e9 / 8 ? "Gb/sec" : "MB/sec");
                assertThat(summary).containsEntry("bw_avg_bps", v.get("bw_average") * unit)
                        .containsEntry("bw_peak_bps", v.get("bw_peak") * unit)
                        .containsEntry("msg_rate", v.get("msg_rate_mpps") * 1e6);
                double average = v.get("bw_average") * unit;
                assertThat((Long) summary.get("duration_ns")).as("bytes / BW average")
                        .isEqualTo(average > 0 ? Math.round(messages * line.bytes() / average * 1e9) : 0L);
            }
        }
    }

    @Test
    void aGigabitReportIsInBytesPerSecondAndSaysItsUnit() throws IOException {
        PerftestOutput out = PerftestOutput.parse(PerftestFixtures.fixture("ib_write_bw-gbits.txt"));
        PerftestOutput.Row row = out.rows().get(0);
        Map<String, Object> summary = PerftestSummary.of(out, row, PerftestImport.params(out, row));

        assertThat((Double) summary.get("bw_avg_bps")).isEqualTo(row.values().get("bw_average") * 1e9 / 8);
        assertThat(summary.get("perftest")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("bw_unit", "Gb/sec");
        assertThat(PerftestSummary.number(summary, "bw_avg_bps")).isEqualTo(summary.get("bw_avg_bps"));
        assertThat(PerftestSummary.number(summary, "cycle_median_ns")).as("not measured").isNull();
        assertThat(PerftestSummary.cycleNs(summary, "median")).isNull();
    }
}
