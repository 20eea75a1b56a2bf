package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 30 in the dashboard, on runs whose agent the test plays (StoredExperiments: every value known): a curve point is
 * one configuration, picked with the pin bar, its band the spread over that configuration's repeats (none at n = 1);
 * a configuration's history over time; verdicts judged over runs, "inconclusive" with one run per side, and two
 * experiments paired across the one knob they differ in.
 */
class PointsAndVerdictsBrowserIntegrationTests extends BrowserTest {

    private static final String PINS_MATRIX = """
            name: pins-browser-test
            base: {provider: tcp, iterations: 200}
            dimensions: {msg_size: [4K, 64K], qps_per_thread: [1, 8], threads: [1, 2]}
            repeats: 3
            """;

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    /** Bytes per second: each configuration apart from the others, and each repeat 2 % above the one before. */
    private static double bandwidth(StoredExperiments.Point p) {
        return 1e8 * (1 + p.msgSize() / 4096.0) * (p.qpsPerThread() == 8 ? 3 : 1) * p.threads() * (1 + 0.02 * p.repeat());
    }

    @Test
    void theDimensionSelectorsPinEachChartToOneConfigurationAndItsDownloadsSaySo() throws Exception {
        long id = stored().create(PINS_MATRIX, "6.1.0-pins", PointsAndVerdictsBrowserIntegrationTests::bandwidth);
        Map<List<Long>, List<Double>> runs = gbitsByConfiguration(id);

        open("#/experiments/" + id);
        awaitCharts(Duration.ofSeconds(30), "bandwidthVsSize", "throughputVsThreads", "cyclePercentiles");
        // threads is every chart's x or series; qps_per_thread and msg_size are pinned, each at its first value
        assertThat(options("pin-qps_per_thread")).containsExactly("1", "8");
        assertThat(options("pin-msg_size")).containsExactly("4096", "65536");
        assertThat(browser.findElements(By.id("pin-threads"))).isEmpty();
        assertThat(new Select(browser.findElement(By.id("pin-qps_per_thread"))).getFirstSelectedOption().getText()).isEqualTo("1");

        assertLines("bandwidthVsSize", bandwidthVsSize(runs, 1));
        assertThat(note("bandwidthVsSize", "pin-note")).isEqualTo("at qps_per_thread = 1");
        assertThat(note("bandwidthVsSize", "band-note")).isEqualTo("band: min–max over 3 runs of each point");
        assertThat(note("throughputVsThreads", "pin-note")).isEqualTo("at msg_size = 4 KiB");
        assertThat(drawn("throughputVsThreads")).containsOnlyKeys("1 QP/thread", "8 QPs/thread");
        assertThat(note("cyclePercentiles", "band-note")).isEqualTo("each point the median of 3 runs; min–max in the tooltip");

        new Select(browser.findElement(By.id("pin-qps_per_thread"))).selectByValue("8");
        Map<String, List<Map<String, Double>>> eightQps = bandwidthVsSize(runs, 8);
        waiting(Duration.ofSeconds(20)).until(driver -> sameLines(points("bandwidthVsSize"), eightQps));
        assertLines("bandwidthVsSize", eightQps);
        assertThat(note("bandwidthVsSize", "pin-note")).isEqualTo("at qps_per_thread = 8");
        assertThat(note("cyclePercentiles", "pin-note")).isEqualTo("at qps_per_thread = 8");
        assertThat(note("throughputVsThreads", "pin-note")).as("a chart that draws qps_per_thread keeps its own pin")
                .isEqualTo("at msg_size = 4 KiB");
        screenshot("curves-pinned");

        click(By.cssSelector("[data-chart='bandwidthVsSize'] button.download-csv"));
        List<String> csv = Files.readAllLines(downloaded("bandwidth-vs-message-size.csv"));
        assertThat(csv.get(0)).isEqualTo("series,\"Message size (bytes, log2)\",Bandwidth (Gbit/s),min,max,n,qps_per_thread");
        assertThat(csv.subList(1, csv.size())).hasSize(4).allSatisfy(row -> assertThat(row).endsWith(",3,8"));
        click(By.cssSelector("[data-chart='bandwidthVsSize'] button.download-json"));
        JsonNode json = JsonMapper.builder().build().readTree(downloaded("bandwidth-vs-message-size.json").toFile());
        assertThat(json.get("pinned").properties()).hasSize(1);
        assertThat(json.get("pinned").get("qps_per_thread").asInt()).isEqualTo(8);
    }

    /** Each run's bandwidth in Gbit/s by its configuration [msg_size, qps_per_thread, threads], repeats in order. */
    private Map<List<Long>, List<Double>> gbitsByConfiguration(long experimentId) {
        Map<List<Long>, List<Double>> runs = new HashMap<>();
        jdbc.sql("""
                        SELECT (r.params->>'msg_size')::bigint, (r.params->>'qps_per_thread')::bigint, (r.params->>'threads')::bigint,
                               s.bw_avg_bps * 8 / 1e9
                        FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ? ORDER BY r.repeat""")
                .param(experimentId).query((rs, i) -> {
                    runs.computeIfAbsent(List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3)), k -> new ArrayList<>())
                            .add(rs.getDouble(4));
                    return null;
                }).list();
        return runs;
    }

    /** What bandwidth vs message size must draw at this pin: per thread count, each point the median of its 3 runs. */
    private static Map<String, List<Map<String, Double>>> bandwidthVsSize(Map<List<Long>, List<Double>> runs, long qpsPerThread) {
        Map<String, List<Map<String, Double>>> lines = new HashMap<>();
        for (long threads : List.of(1L, 2L)) {
            List<Map<String, Double>> line = new ArrayList<>();
            for (long msgSize : List.of(4096L, 65536L)) {
                List<Double> values = runs.get(List.of(msgSize, qpsPerThread, threads)).stream().sorted().toList();
                assertThat(values).hasSize(3);
                line.add(Map.of("x", (double) msgSize, "y", values.get(1), "min", values.get(0), "max", values.get(2), "n", 3.0));
            }
            lines.put(threads + (threads == 1 ? " thread" : " threads"), line);
        }
        return lines;
    }

    private void assertLines(String chart, Map<String, List<Map<String, Double>>> expected) {
        Map<String, List<Map<String, Double>>> drawn = points(chart);
        assertThat(drawn).as(chart).containsOnlyKeys(expected.keySet());
        expected.forEach((label, line) -> {
            assertThat(drawn.get(label)).as("%s %s", chart, label).hasSize(line.size());
            for (int i = 0; i < line.size(); i++) {
                for (var field : line.get(i).entrySet()) {
                    double value = field.getValue();
                    assertThat(drawn.get(label).get(i).get(field.getKey())).as("%s %s point %d %s", chart, label, i, field.getKey())
                            .isCloseTo(value, offset(Math.abs(value) * 1e-9));
                }
            }
        });
    }

    private static boolean sameLines(Map<String, List<Map<String, Double>>> drawn, Map<String, List<Map<String, Double>>> expected) {
        return drawn.keySet().equals(expected.keySet()) && expected.entrySet().stream().allMatch(line ->
                drawn.get(line.getKey()).size() == line.getValue().size() && java.util.stream.IntStream.range(0, line.getValue().size())
                        .allMatch(i -> line.getValue().get(i).entrySet().stream().allMatch(field -> drawn.get(line.getKey()).get(i)
                                .containsKey(field.getKey()) && Math.abs(drawn.get(line.getKey()).get(i).get(field.getKey())
                                - field.getValue()) <= Math.abs(field.getValue()) * 1e-9)));
    }

    private List<String> options(String selectId) {
        return waitFor(By.id(selectId)).findElements(By.tagName("option")).stream().map(o -> o.getAttribute("value")).toList();
    }

    /** A chart card's note (pin-note or band-note); "" when it is hidden. */
    private String note(String chart, String kind) {
        WebElement note = browser.findElement(By.cssSelector("[data-chart='" + chart + "'] ." + kind));
        return note.isDisplayed() ? note.getText() : "";
    }

    private StoredExperiments stored() {
        return new StoredExperiments(http(), jdbc, ingest, outcomes);
    }

    @Test
    void aConfigurationMeasuredOnceHasNoBandAndItsHistoryShowsEachRunOfItsFingerprint() throws Exception {
        String matrix = """
                name: once-browser-test
                base: {provider: tcp, iterations: 200, threads: 1}
                dimensions: {msg_size: [4K, 64K]}
                """;
        long first = stored().create(matrix, "6.1.0-once", p -> 1e9 * p.msgSize() / 4096);
        long second = stored().create(matrix, "6.1.0-once", p -> 1.1e9 * p.msgSize() / 4096);

        open("#/experiments/" + second);
        awaitCharts(Duration.ofSeconds(30), "bandwidthVsSize", "cycleDistribution");
        Map<String, List<Map<String, Double>>> line = points("bandwidthVsSize");
        assertThat(line).containsOnlyKeys("1 thread");
        assertThat(line.get("1 thread")).hasSize(2).allSatisfy(point -> {
            assertThat(point.get("n")).isEqualTo(1.0);
            assertThat(point.get("min")).isEqualTo(point.get("y"));
            assertThat(point.get("max")).isEqualTo(point.get("y"));
        });
        assertThat(note("bandwidthVsSize", "band-note")).as("no band, so nothing to say of one").isEmpty();
        assertThat(browser.findElement(By.id("pin-bar")).isDisplayed()).as("nothing to pin").isFalse();

        // the distribution card's point (4 KiB first) leads to its fingerprint's history: one run in each experiment
        List<Map<String, Object>> stored = jdbc.sql("""
                        SELECT r.id, extract(epoch FROM r.finished_at) * 1000 AS ms, s.bw_avg_bps * 8 / 1e9 AS gbits,
                               s.msg_rate / 1e6 AS mmsgs
                        FROM run r JOIN run_summary s ON s.run_id = r.id
                        WHERE r.experiment_id IN (?, ?) AND (r.params->>'msg_size')::int = 4096 ORDER BY r.finished_at""")
                .params(first, second).query().listOfRows();
        assertThat(stored).hasSize(2);
        String fingerprint = (String) http().get().uri("/api/runs/{id}", stored.get(1).get("id")).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody().get("fingerprint");
        assertThat(http().get().uri("/api/runs/{id}", stored.get(0).get("id")).exchange().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody().get("fingerprint")).as("same parameters, same host").isEqualTo(fingerprint);
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElement(By.id("distribution-history")).isDisplayed());
        click(By.id("distribution-history"));
        awaitCharts(Duration.ofSeconds(20), "fingerprintHistory");
        assertThat(browser.findElement(By.id("fingerprint-history")).getAttribute("data-fingerprint")).isEqualTo(fingerprint);
        assertHistoryShows(stored, "gbits");
        assertThat(axis("fingerprintHistory", "x")).containsEntry("type", "linear").containsEntry("title", "Finished (local time)");
        assertThat(axis("fingerprintHistory", "y")).containsEntry("title", "BW avg (Gbit/s)");
        assertThat(browser.findElements(By.cssSelector("#fingerprint-experiments tbody tr"))).hasSize(2);
        assertThat(browser.findElement(By.id("fingerprint-params")).getText()).contains("msg_size=4 KiB");
        screenshot("fingerprint-history");

        new Select(browser.findElement(By.id("history-metric"))).selectByValue("msg_rate");
        waiting(Duration.ofSeconds(20)).until(driver -> "Msg rate (Mmsg/s)".equals(axis("fingerprintHistory", "y").get("title")));
        assertHistoryShows(stored, "mmsgs");

        long runId = ((Number) stored.get(0).get("id")).longValue();
        open("#/runs/" + runId);
        assertThat(waitFor(By.id("run-fingerprint-history")).getAttribute("href")).endsWith("#/fingerprints/" + fingerprint);
    }

    /** Every run of the fingerprint a point at its end time, and each experiment's median (of its one run, n = 1). */
    private void assertHistoryShows(List<Map<String, Object>> stored, String column) {
        Map<String, List<Map<String, Double>>> history = points("fingerprintHistory");
        assertThat(history).containsOnlyKeys("each run", "median of each experiment's runs");
        for (String series : history.keySet()) {
            List<Map<String, Double>> drawn = history.get(series);
            assertThat(drawn).as(series).hasSize(stored.size());
            for (int i = 0; i < stored.size(); i++) {
                double value = ((Number) stored.get(i).get(column)).doubleValue();
                assertThat(drawn.get(i).get("y")).as("%s %d", series, i).isCloseTo(value, offset(value * 1e-9));
                assertThat(drawn.get(i).get("n")).isEqualTo(1.0);
            }
        }
        List<Map<String, Double>> runs = history.get("each run");
        for (int i = 0; i < stored.size(); i++) {
            assertThat(runs.get(i).get("x")).as("run %d's end, epoch ms", i)
                    .isCloseTo(((Number) stored.get(i).get("ms")).doubleValue(), offset(1.0));
        }
    }

    @Test
    void aVerdictIsJudgedOverRunsInconclusiveWithOneRunPerSideAndTwoExperimentsPairAcrossTheKnobTheyDifferIn()
            throws Exception {
        String matrix = """
                name: verdict-browser-test
                base: {provider: tcp, iterations: 200, threads: 1, tx_depth: %d}
                dimensions: {msg_size: [4K, 64K]}
                repeats: %d
                """;
        long baseline = stored().create(matrix.formatted(128, 3), "6.1.0-verdict", p -> 1e9 * (1 + 0.02 * p.repeat()));
        long candidate = stored().create(matrix.formatted(256, 3), "6.1.0-verdict", p -> 0.5e9 * (1 + 0.02 * p.repeat()));

        // no two points share every parameter: the page offers the one that differs, and pairs across it
        open("#/compare?baseline=" + baseline + "&candidate=" + candidate);
        WebElement hint = waitFor(By.id("across-hint"));
        assertThat(hint.getText()).contains("No paired points").contains("tx_depth");
        assertThat(browser.findElement(By.id("compare-across")).getAttribute("value")).isEqualTo("tx_depth");
        click(By.id("apply-across"));
        List<WebElement> rows = rows(2);
        assertThat(browser.getCurrentUrl()).contains("across=tx_depth");
        assertThat(browser.findElements(By.cssSelector("#compare-table thead tr:nth-child(2) th")).stream().map(WebElement::getText)
                .toList()).startsWith("msg_size", "tx_depth", "baseline", "candidate");
        for (WebElement row : rows) {
            assertThat(row.getAttribute("data-verdict")).isEqualTo("regression");
            assertThat(row.findElement(By.cssSelector("td.differs")).getText()).isEqualTo("128 → 256");
            assertThat(row.findElement(By.cssSelector(".badge.verdict-regression")).getText()).isEqualTo("regression");
            assertThat(row.findElement(By.cssSelector("td.side-stats")).getText()).contains("n = 3").contains("CV");
            assertThat(row.findElement(By.cssSelector("td.p-value .method")).getText()).isEqualTo("Welch over runs");
            double[] change = changeWithInterval(row.findElement(By.cssSelector("td.change")).getText());
            assertThat(change[0]).as("halved bandwidth").isCloseTo(-50.0, offset(0.05));
            assertThat(change[1]).as("the interval holds the change made").isLessThanOrEqualTo(-50.0);
            assertThat(change[2]).isGreaterThanOrEqualTo(-50.0);
        }
        screenshot("compare-across");

        // α outside (0, 0.5] is refused in the page, as the server would
        WebElement alpha = browser.findElement(By.id("compare-alpha"));
        alpha.clear();
        alpha.sendKeys("0.7\t");
        assertThat(waitFor(By.id("compare-settings-error")).getText()).isEqualTo("α must be in (0, 0.5], got 0.7");

        // one run per side: no test, no p-value, its own badge
        String once = """
                name: inconclusive-browser-test
                base: {provider: tcp, iterations: 200, threads: 1}
                dimensions: {msg_size: [4K, 64K]}
                """;
        long onceBaseline = stored().create(once, "6.1.0-inconclusive", p -> 1e9);
        long onceCandidate = stored().create(once, "6.1.0-inconclusive", p -> 0.5e9);
        open("#/compare?baseline=" + onceBaseline + "&candidate=" + onceCandidate);
        for (WebElement row : rows(2)) {
            assertThat(row.getAttribute("data-verdict")).isEqualTo("inconclusive: 1 run per side");
            WebElement badge = row.findElement(By.cssSelector("td.verdict-cell .badge"));
            assertThat(badge.getText()).isEqualTo("inconclusive: 1 run per side");
            assertThat(badge.getAttribute("class")).contains("verdict-inconclusive");
            assertThat(row.findElements(By.cssSelector("td")).stream().map(WebElement::getText).toList())
                    .as("no p-value, no method").contains("–");
        }
        assertThat(browser.findElement(By.cssSelector(".verdict-counts")).getText()).contains("inconclusive 2");
        screenshot("compare-inconclusive");
    }

    private List<WebElement> rows(int count) {
        return waiting(Duration.ofSeconds(20)).until(driver -> {
            List<WebElement> found = driver.findElements(By.cssSelector("#compare-table tbody tr"));
            return found.size() == count ? found : null;
        });
    }

    /** "−50.0 % [−50.3, −49.7]" → {−50.0, −50.3, −49.7}. */
    private static double[] changeWithInterval(String text) {
        String[] numbers = text.replace('−', '-').replaceAll("[^-0-9.,\\[]", "").replace("[", ",").split(",");
        assertThat(numbers).as(text).hasSize(3);
        return new double[] {Double.parseDouble(numbers[0]), Double.parseDouble(numbers[1]), Double.parseDouble(numbers[2])};
    }
}
