package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * A latency experiment in the dashboard, run by a real agent (tcp, mode latency): the curves page draws
 * latency vs message size and latency percentiles vs threads, in µs with their axis titles, each point the
 * stored run's own latency, and no bandwidth chart; compared (with itself) on typical latency, with its latency
 * overlay; the run page shows the run's latency table.
 */
class LatencyBrowserIntegrationTests extends BrowserTest {

    private static final String MATRIX = """
            name: latency-browser-test
            base: {provider: tcp, mode: latency, iterations: 1000, msg_size: 64}
            dimensions: {threads: [1, 2]}
            """;

    @Test
    void aLatencyExperimentsChartsShowEachRunsLatencyInMicrosecondsWithTheirAxes() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "latency-browser-agent", TOKEN)) {
            Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                    .bodyValue(MATRIX).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                    .getResponseBody();
            long id = ((Number) created.get("id")).longValue();
            assertThat(awaitExperimentEnd(id, Duration.ofMinutes(3), () -> "agent log:\n" + agent.log()))
                    .containsEntry("status", "FINISHED");
            List<Map<String, Object>> runs = jdbc.sql("""
                            SELECT r.id, (r.params->>'threads')::int AS threads,
                                   (s.summary->'latency_us'->>'typical')::float8 AS typical,
                                   (s.summary->'latency_us'->>'p99')::float8 AS p99,
                                   (s.summary->'latency_us'->>'p999')::float8 AS p999
                            FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ? ORDER BY r.idx""")
                    .param(id).query().listOfRows();
            assertThat(runs).hasSize(2);

            open("#/experiments/" + id);
            awaitCharts(Duration.ofSeconds(30), "latencyVsSize", "latencyPercentiles", "cycleDistribution");
            assertThat(axis("latencyVsSize", "x")).containsEntry("type", "logarithmic")
                    .containsEntry("title", "Message size (bytes, log2)");
            assertThat(axis("latencyVsSize", "y")).containsEntry("type", "logarithmic")
                    .containsEntry("title", "Latency, typical (µs, log)");
            assertThat(axis("latencyPercentiles", "x")).containsEntry("type", "linear").containsEntry("title", "Threads");
            assertThat(axis("latencyPercentiles", "y")).containsEntry("type", "logarithmic")
                    .containsEntry("title", "Latency (µs, log)");
            assertThat(browser.findElement(By.cssSelector("[data-chart=latencyPercentiles] .chart-title")).getText())
                    .isEqualTo("Latency percentiles vs threads");

            // latency vs size: one op, so one line per thread count (what varies besides), each the run's typical
            var bySize = drawn("latencyVsSize");
            assertThat(bySize).containsOnlyKeys("1 thread", "2 threads");
            for (Map<String, Object> run : runs) {
                int threads = ((Number) run.get("threads")).intValue();
                assertThat(bySize.get(threads + (threads == 1 ? " thread" : " threads"))).singleElement()
                        .isEqualTo(List.of(64.0, (Double) run.get("typical")));
            }
            // percentiles vs threads: one line per percentile, each point the run's own value in µs
            var percentiles = drawn("latencyPercentiles");
            assertThat(percentiles).containsOnlyKeys("typical", "p99", "p99.9");
            for (var entry : Map.of("typical", "typical", "p99", "p99", "p99.9", "p999").entrySet()) {
                assertThat(percentiles.get(entry.getKey())).as(entry.getKey()).containsExactlyElementsOf(runs.stream()
                        .map(r -> List.of(((Number) r.get("threads")).doubleValue(), (Double) r.get(entry.getValue()))).toList());
            }
            // a latency experiment has no bandwidth runs, so no bandwidth charts, nor cycle-time percentiles that would
            // repeat the latency ones
            assertThat(browser.findElements(By.cssSelector(".chart-card")).stream().filter(WebElement::isDisplayed)
                    .map(c -> c.getDomAttribute("data-chart")).toList())
                    .containsExactly("latencyVsSize", "latencyPercentiles", "cycleDistribution");
            assertThat(emptyCards()).isEmpty();
            // its runs table: the latency columns, each run's own numbers
            List<Map<String, String>> rows = tableRows("runs");
            assertThat(rows).hasSize(2);
            for (int i = 0; i < rows.size(); i++) {
                Map<String, String> row = rows.get(i);
                assertThat(row).containsEntry("Run", "#" + runs.get(i).get("id")).doesNotContainKey("BW avg (Gbit/s)");
                assertShows(row.get("t_typical (µs)"), (Double) runs.get(i).get("typical"), "t_typical");
                assertShows(row.get("p99 (µs)"), (Double) runs.get(i).get("p99"), "p99");
                assertShows(row.get("p99.9 (µs)"), (Double) runs.get(i).get("p999"), "p99.9");
                assertThat(row.get("t_min (µs)")).isNotEqualTo("–");
                assertThat(row.get("t_max (µs)")).isNotEqualTo("–");
            }
            screenshot("latency-curves");

            // compared with itself (one run a side): judged on typical latency, drawn as latency vs message size
            open("#/compare?baseline=" + id + "&candidate=" + id);
            awaitCharts(Duration.ofSeconds(30), "compareLatency");
            assertThat(axis("compareLatency", "y")).containsEntry("type", "logarithmic")
                    .containsEntry("title", "Latency, typical (µs, log)");
            var overlay = drawn("compareLatency");
            assertThat(overlay).containsOnlyKeys("baseline · 1 thread", "candidate · 1 thread", "baseline · 2 threads",
                    "candidate · 2 threads");
            for (Map<String, Object> run : runs) {
                int threads = ((Number) run.get("threads")).intValue();
                assertThat(overlay.get("candidate · " + threads + (threads == 1 ? " thread" : " threads"))).singleElement()
                        .isEqualTo(List.of(64.0, (Double) run.get("typical")));
            }
            assertThat(browser.findElement(By.cssSelector("[data-chart=compareBandwidth]")).isDisplayed())
                    .as("no bandwidth overlay for latency points").isFalse();
            assertThat(browser.findElement(By.cssSelector("#compare-table th.group")).getText())
                    .isEqualTo("Latency typical (µs), over runs");
            assertThat(browser.findElements(By.cssSelector("#compare-table tbody tr")).stream()
                    .map(row -> row.getAttribute("data-verdict")).toList())
                    .containsExactly("inconclusive: 1 run per side", "inconclusive: 1 run per side");
            screenshot("latency-compare");

            long runId = (Long) runs.get(0).get("id");
            open("#/runs/" + runId);
            WebElement table = waitFor(By.id("run-latency"));
            assertThat(table.findElements(By.cssSelector("thead th")).stream().map(WebElement::getText).toList())
                    .containsExactly("", "t_min (µs)", "t_typical (µs)", "t_avg (µs)", "t_stdev (µs)", "p99 (µs)",
                            "p99.9 (µs)", "t_max (µs)");
            List<String> all = table.findElements(By.cssSelector("tbody tr:first-child td")).stream().map(WebElement::getText).toList();
            assertThat(all.get(0)).isEqualTo("all threads");
            double typical = (Double) runs.get(0).get("typical");
            assertThat(Double.parseDouble(all.get(2))).as("t_typical shown to 3 digits").isCloseTo(typical, within(typical * 0.005));
            long cycles = jdbc.sql("SELECT cycles FROM run_summary WHERE run_id = ?").param(runId).query(Long.class).single();
            assertThat(browser.findElement(By.cssSelector("#run-numbers tbody tr:first-child td:nth-child(2)")).getText())
                    .as("cycles with thousands separators").isEqualTo(String.format(java.util.Locale.ROOT, "%,d", cycles));
            assertThat(fits("run-numbers")).as("the numbers table is not cut off at 1400 px").isTrue();
            screenshot("latency-run");
        }
    }
}
