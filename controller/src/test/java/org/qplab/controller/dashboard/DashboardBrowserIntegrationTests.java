package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.run.RunIntervals;
import org.qplab.controller.schedule.RunOutcomes;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The issue's walk through the dashboard with a real agent: a matrix typed and validated in the
 * page, its progress to 100 %, its curves (each chart's points equal to the stored values, spread
 * over repeats included), their downloads, a baseline marked, a clone run and compared with it.
 */
class DashboardBrowserIntegrationTests extends BrowserTest {

    private static final String MATRIX = """
            name: browser-test
            base: {provider: tcp, iterations: 200, qps_per_thread: 2}
            dimensions: {msg_size: [4K, 64K], threads: [1, 2]}
            repeats: 2
            """;

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Autowired
    private RunIntervals intervals;

    /** A finished run's stored numbers. */
    private record Stored(long runId, int threads, long msgSize, long cycles, double bw, double rate, double median,
                          double p99, double p999) {}

    @Test
    void aMatrixSubmittedInThePageRunsToTheEndItsCurvesShowTheStoredValuesAndItComparesWithItsClone() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "browser-agent", TOKEN)) {
            open("");
            WebElement text = waitFor(By.id("matrix-text"));
            text.clear();
            text.sendKeys(MATRIX);
            assertThat(waitForText(By.id("validation"), t -> t.startsWith("✓ browser-test")))
                    .as("validated while typing").isEqualTo("✓ browser-test: 8 runs (4 points × repeats)");
            long id = submitAndAwait(Duration.ofSeconds(180));
            assertThat(browser.findElement(By.id("experiment-" + id)).getText())
                    .contains("browser-test").contains("8 / 8 runs · 100 %");
            screenshot("experiments");

            click(By.cssSelector("#experiment-" + id + " a"));
            awaitCharts(Duration.ofSeconds(30), "bandwidthVsSize", "throughputVsThreads", "msgRateVsThreads",
                    "cyclePercentiles", "cycleDistribution");
            List<Stored> stored = stored(id);
            assertThat(stored).hasSize(8);
            assertCurvesShow(stored);
            assertDistributionShowsStoredCycles(stored);
            screenshot("curves");
            assertDownloadsHoldTheDrawnBandwidth();

            long baselineRun = stored.stream().filter(s -> s.threads() == 1 && s.msgSize() == 4096)
                    .mapToLong(Stored::runId).min().orElseThrow();
            click(By.cssSelector("#run-" + baselineRun + " button.baseline-toggle"));
            waiting(Duration.ofSeconds(20)).until(driver ->
                    "true".equals(driver.findElement(By.id("run-" + baselineRun)).getAttribute("data-baseline")));
            assertThat(jdbc.sql("SELECT count(*) FROM run_baseline WHERE run_id = ?").param(baselineRun).query(Long.class).single())
                    .isEqualTo(1);

            // clone: the matrix lands in the submit box, renamed, and submits as a new experiment of the same runs
            click(By.id("clone-matrix"));
            String cloned = waitForText(By.id("matrix-text"), t -> t.contains("(clone)"));
            assertThat(cloned).contains("\"name\": \"browser-test (clone)\"").contains("\"msg_size\"").contains("4K");
            long cloneId = submitAndAwait(Duration.ofSeconds(180));
            assertThat(cloneId).isNotEqualTo(id);

            comparePageShowsBothExperiments(id, cloneId);
            againstBaselinesFlagsThePointOfTheMarkedRun(cloneId, baselineRun);
        }
    }

    @Test
    void theComparePageShowsOneRunPerSideAsInconclusiveTheHostDifferenceAndBothCurves() throws Exception {
        StoredExperiments stored = new StoredExperiments(http(), jdbc, ingest, outcomes);
        long baseline = stored.create("[4096, 65536]", 31, 1.0, "6.18.0-compare-page");
        long candidate = stored.create("[4096, 65536]", 32, 1.05, "6.19.0-compare-page");

        open("#/compare?baseline=" + baseline + "&candidate=" + candidate);
        List<String> verdicts = waiting(Duration.ofSeconds(20)).until(driver -> {
            List<String> found = driver.findElements(By.cssSelector("#compare-table tbody tr")).stream()
                    .map(r -> r.getAttribute("data-verdict")).toList();
            return found.size() == 2 ? found : null;
        });
        assertThat(verdicts).as("5 % slower, but one run a side cannot say so").containsOnly("inconclusive: 1 run per side");
        assertThat(browser.findElements(By.cssSelector("#compare-table .badge.verdict-inconclusive")).stream()
                .map(WebElement::getText).toList()).containsExactly("inconclusive: 1 run per side", "inconclusive: 1 run per side");
        String mismatches = waiting(Duration.ofSeconds(10)).until(driver -> {
            WebElement box = driver.findElement(By.id("host-mismatches"));
            return box.isDisplayed() ? box.getText() : null;
        });
        assertThat(mismatches).contains("kernel").contains("6.18.0").contains("6.19.0");
        awaitCharts(Duration.ofSeconds(20), "compareBandwidth");
        assertOverlayShowsStoredBandwidth(Map.of("baseline · 1 thread", baseline, "candidate · 1 thread", candidate));

        // two single runs of different message sizes, picked on the history page
        long small = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? AND (params ->> 'msg_size')::int = 4096")
                .param(baseline).query(Long.class).single();
        long large = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? AND (params ->> 'msg_size')::int = 65536")
                .param(candidate).query(Long.class).single();
        open("#/history");
        waitFor(By.id("baseline-run")).sendKeys(String.valueOf(small));
        browser.findElement(By.id("candidate-run")).sendKeys(String.valueOf(large));
        click(By.cssSelector("#compare-runs button"));
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.cssSelector("#compare-table tbody tr")).size() == 1);
        assertThat(browser.findElement(By.id("host-mismatches")).getText()).contains("kernel: 6.18.0-compare-page → 6.19.0-compare-page")
                .contains("parameter msg_size: 4 KiB → 64 KiB");
        awaitCharts(Duration.ofSeconds(20), "compareDistribution");
        Map<String, List<Map<String, Double>>> distributions = points("compareDistribution");
        assertThat(distributions).containsOnlyKeys("baseline · run #" + small, "candidate · run #" + large);
        distributions.forEach((label, bins) -> assertThat(bins.stream().mapToDouble(b -> b.get("count")).sum())
                .as(label).isEqualTo((double) StoredExperiments.CYCLES));
        screenshot("compare-runs");
    }

    @Test
    void theCancelButtonCancelsAQueuedExperiment() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"to-cancel\",\"base\":{\"msg_size\":64,\"duration_ms\":600000}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue(); // no agent is connected: it stays queued
        // a name longer than the list's column is wide: the list must not run under the submit panel
        long longNamed = ((Number) http().post().uri("/api/experiments").contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"" + "a-very-long-experiment-name-".repeat(6) + "\",\"base\":{\"msg_size\":64,\"iterations\":10}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id")).longValue();

        open("");
        click(By.cssSelector("#experiment-" + id + " button.cancel"));
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();

        waiting(Duration.ofSeconds(20)).until(driver ->
                "CANCELLED".equals(driver.findElement(By.id("experiment-" + id)).getAttribute("data-status")));
        assertThat(browser.findElements(By.cssSelector("#experiment-" + id + " button.cancel"))).isEmpty();
        assertThat(jdbc.sql("SELECT status FROM experiment WHERE id = ?").param(id).query(String.class).single())
                .isEqualTo("CANCELLED");
        http().post().uri("/api/experiments/{id}/cancel", longNamed).exchange().expectStatus().isOk();
    }

    @Test
    void theDeleteButtonDeletesAnEndedExperimentAfterAConfirmAndIsNotOfferedWhileItIsQueued() throws Exception {
        long ended = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[64, 4096]", 91, 1.0, "delete-ui");
        long queued = ((Number) http().post().uri("/api/experiments").contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"delete-ui-queued\",\"base\":{\"msg_size\":64,\"iterations\":10}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id")).longValue();

        open("#/experiments/" + queued);
        waitFor(By.cssSelector("#curves button.cancel"));
        assertThat(browser.findElements(By.id("delete-experiment"))).as("no Delete while it is queued").isEmpty();

        open("#/experiments/" + ended);
        click(By.id("delete-experiment"));
        Alert confirm = waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).isEqualTo("Delete experiment compare #" + ended + " and its 2 runs? Everything they"
                + " measured is deleted; this cannot be undone.");
        confirm.dismiss();
        http().get().uri("/api/experiments/{id}", ended).exchange().expectStatus().isOk();

        click(By.id("delete-experiment"));
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();
        waitFor(By.id("experiment-" + queued)); // back on the list
        assertThat(browser.findElements(By.id("experiment-" + ended))).as("the deleted experiment's row").isEmpty();
        http().get().uri("/api/experiments/{id}", ended).exchange().expectStatus().isNotFound();
        assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ?").param(ended).query(Long.class).single())
                .isZero();
        http().post().uri("/api/experiments/{id}/cancel", queued).exchange().expectStatus().isOk();
    }

    @Test
    void theServersViolationsShowNextToTheTextWhileItIsTypedAndGoWhenItIsFixed() throws Exception {
        long experiments = count("experiment");
        open("");
        WebElement text = waitFor(By.id("matrix-text"));
        text.clear();
        text.sendKeys("base: {thread: 2}\ndimensions: {msg_size: [0, 64]}\n");

        WebElement violations = waiting(Duration.ofSeconds(20))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("violations")));
        assertThat(violations.getText()).contains("base.thread").contains("unknown parameter 'thread'")
                .contains("dimensions.msg_size[0]").contains("msg_size must be in 1..1073741824 (got 0)");
        assertThat(browser.findElement(By.id("validation")).getText()).isEqualTo("✗ 2 problems: invalid matrix");
        screenshot("violations");

        text.clear();
        text.sendKeys("name: fixed\nbase: {threads: 2}\ndimensions: {msg_size: [32, 64]}\n");
        assertThat(waitForText(By.id("validation"), t -> t.startsWith("✓"))).isEqualTo("✓ fixed: 2 runs");
        assertThat(browser.findElement(By.id("violations")).isDisplayed()).isFalse();
        assertThat(count("experiment")).as("validating stores nothing").isEqualTo(experiments);
    }

    private long submitAndAwait(Duration timeout) {
        click(By.cssSelector("#submit-matrix button"));
        WebElement submitted = waiting(Duration.ofSeconds(20)).until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#submit-matrix a[href^='#/experiments/']")));
        long id = Long.parseLong(submitted.getAttribute("href").replaceAll(".*/", ""));
        waiting(timeout).until(driver -> "FINISHED".equals(driver.findElement(By.id("experiment-" + id)).getAttribute("data-status")));
        return id;
    }

    private String waitForText(By locator, java.util.function.Predicate<String> done) {
        return waiting(Duration.ofSeconds(20)).until(driver -> {
            WebElement element = driver.findElement(locator);
            String value = element.getTagName().equals("textarea") ? element.getAttribute("value") : element.getText();
            return done.test(value) ? value : null;
        });
    }

    private List<Stored> stored(long experimentId) {
        return jdbc.sql("""
                        SELECT r.id, (r.params ->> 'threads')::int, (r.params ->> 'msg_size')::bigint, s.cycles, s.bw_avg_bps,
                               s.msg_rate, s.cycle_median_ns, s.cycle_p99_ns, (s.summary -> 'cycle_ns' ->> 'p999')::float8
                        FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ? AND r.status = 'FINISHED'""")
                .param(experimentId).query((rs, i) -> new Stored(rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getLong(4),
                        rs.getDouble(5), rs.getDouble(6), rs.getDouble(7), rs.getDouble(8), rs.getDouble(9))).list();
    }

    /** Every point of every curve is the median of the stored runs at it (of two: their mean), its spread their min and max. */
    private void assertCurvesShow(List<Stored> stored) {
        assertPoints("bandwidthVsSize", stored, s -> s.threads() + (s.threads() == 1 ? " thread" : " threads"),
                Stored::msgSize, s -> s.bw() * 8 / 1e9);
        assertPoints("throughputVsThreads", stored, s -> s.msgSize() == 4096 ? "4 KiB" : "64 KiB", Stored::threads,
                s -> s.bw() * 8 / 1e9);
        assertPoints("msgRateVsThreads", stored, s -> s.msgSize() == 4096 ? "4 KiB" : "64 KiB", Stored::threads,
                s -> s.rate() / 1e6);
        for (var percentile : Map.<String, ToDoubleFunction<Stored>>of("median", Stored::median, "p99", Stored::p99,
                "p99.9", Stored::p999).entrySet()) {
            assertPoints("cyclePercentiles", stored, s -> s.threads() + (s.threads() == 1 ? " thread" : " threads")
                    + " · " + percentile.getKey(), Stored::msgSize, s -> percentile.getValue().applyAsDouble(s) / 1000);
        }
        assertThat(axis("bandwidthVsSize", "x")).containsEntry("type", "logarithmic")
                .containsEntry("title", "Message size (bytes, log2)");
        assertThat(axis("bandwidthVsSize", "y")).containsEntry("title", "Bandwidth (Gbit/s)").containsEntry("beginAtZero", true);
        assertThat(axis("throughputVsThreads", "y")).containsEntry("title", "Throughput (Gbit/s)").containsEntry("beginAtZero", true);
        assertThat(axis("msgRateVsThreads", "y")).containsEntry("type", "logarithmic")
                .containsEntry("title", "Message rate (Mmsg/s, log)");
        assertThat(axis("cyclePercentiles", "y")).containsEntry("type", "logarithmic").containsEntry("title", "Cycle time (µs, log)");
    }

    private void assertPoints(String chart, List<Stored> stored, java.util.function.Function<Stored, String> label,
                              ToDoubleFunction<Stored> x, ToDoubleFunction<Stored> y) {
        Map<String, Map<Double, List<Double>>> expected = new HashMap<>();
        stored.forEach(s -> expected.computeIfAbsent(label.apply(s), k -> new HashMap<>())
                .computeIfAbsent(x.applyAsDouble(s), k -> new ArrayList<>()).add(y.applyAsDouble(s)));
        Map<String, List<Map<String, Double>>> drawn = points(chart);
        expected.forEach((series, byX) -> {
            assertThat(drawn).as("%s draws %s", chart, series).containsKey(series);
            assertThat(drawn.get(series)).as("%s %s", chart, series).hasSize(byX.size());
            for (Map<String, Double> point : drawn.get(series)) {
                List<Double> values = byX.get(point.get("x"));
                assertThat(values).as("%s %s at x=%s", chart, series, point.get("x")).hasSize(2);
                double mean = values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
                double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                String where = chart + " " + series + " at x=" + point.get("x");
                assertThat(point.get("y")).as(where).isCloseTo(mean, offset(Math.abs(mean) * 1e-9));
                assertThat(point.get("min")).as(where + " min over repeats").isCloseTo(min, offset(Math.abs(min) * 1e-9));
                assertThat(point.get("max")).as(where + " max over repeats").isCloseTo(max, offset(Math.abs(max) * 1e-9));
                assertThat(point.get("n")).isEqualTo(2.0);
            }
        });
    }

    /**
     * The distribution card draws the first point's runs: each bin holds the cycles that the run's stored intervals
     * count in its time range (their histogram buckets, 128 per power of two, each inside one bin), and every
     * cycle of the run's summary is in a bin.
     */
    private void assertDistributionShowsStoredCycles(List<Stored> stored) {
        Map<String, List<Map<String, Double>>> lines = points("cycleDistribution");
        assertThat(lines).hasSize(2); // the two repeats of the point shown first
        for (var line : lines.entrySet()) {
            long runId = Long.parseLong(line.getKey().replaceAll("run #(\\d+).*", "$1"));
            long cycles = stored.stream().filter(s -> s.runId() == runId).findFirst().orElseThrow().cycles();
            List<Interval> runIntervals = intervals.all(runId);
            assertThat(runIntervals.stream().mapToLong(Interval::cycles).sum()).as("the intervals of run %d count every cycle", runId)
                    .isEqualTo(cycles);
            double total = 0;
            for (Map<String, Double> bin : line.getValue()) {
                long count = cyclesBetween(runIntervals, bin.get("lowNs").longValue(), bin.get("highNs").longValue());
                assertThat(bin.get("count")).as("run %d, %s..%s ns", runId, bin.get("lowNs"), bin.get("highNs")).isEqualTo((double) count);
                double octaves = Math.log(bin.get("highNs") / bin.get("lowNs")) / Math.log(2);
                assertThat(bin.get("y")).as("share per 1/8 octave").isCloseTo(100.0 * count / cycles / (8 * octaves), offset(1e-9));
                total += count;
            }
            assertThat(total).as("every cycle of run %d is in a bin", runId).isEqualTo((double) cycles);
        }
        assertThat(axis("cycleDistribution", "x")).containsEntry("type", "logarithmic");
        assertThat(axis("cycleDistribution", "y")).containsEntry("title", "Cycles (% per 1/8 power of two)");
    }

    /** Cycles the intervals' histograms count in [lowNs, highNs). */
    private static long cyclesBetween(List<Interval> intervals, long lowNs, long highNs) {
        long count = 0;
        for (Interval interval : intervals) {
            for (int k = 0; k < interval.buckets().length; k++) {
                long bucketLow = CycleBuckets.lowNs(interval.buckets()[k]);
                if (bucketLow >= lowNs && bucketLow < highNs) {
                    assertThat(CycleBuckets.highNs(interval.buckets()[k])).as("a bucket lies inside one bin").isLessThanOrEqualTo(highNs);
                    count += interval.counts()[k];
                }
            }
        }
        return count;
    }

    private void assertDownloadsHoldTheDrawnBandwidth() throws Exception {
        Map<String, List<List<Double>>> drawn = drawn("bandwidthVsSize");
        click(By.cssSelector("[data-chart='bandwidthVsSize'] button.download-csv"));
        List<String> csv = Files.readAllLines(downloaded("bandwidth-vs-message-size.csv"));
        assertThat(csv.get(0)).isEqualTo("series,\"Message size (bytes, log2)\",Bandwidth (Gbit/s),min,max,n");
        assertThat(csv).hasSize(1 + 4);
        for (String row : csv.subList(1, csv.size())) {
            String[] cells = row.split(",");
            assertThat(drawn.get(cells[0])).as(row).contains(List.of(Double.parseDouble(cells[1]), Double.parseDouble(cells[2])));
        }

        click(By.cssSelector("[data-chart='bandwidthVsSize'] button.download-json"));
        JsonNode json = JsonMapper.builder().build().readTree(downloaded("bandwidth-vs-message-size.json").toFile());
        assertThat(json.get("title").asString()).isEqualTo("Bandwidth vs message size");
        assertThat(json.get("y").asString()).isEqualTo("Bandwidth (Gbit/s)");
        for (JsonNode series : json.get("series")) {
            List<List<Double>> points = new ArrayList<>();
            series.get("points").forEach(p -> points.add(List.of(p.get("x").asDouble(), p.get("y").asDouble())));
            assertThat(points).isEqualTo(drawn.get(series.get("label").asString()));
        }

        click(By.cssSelector("[data-chart='bandwidthVsSize'] button.download-png"));
        byte[] png = Files.readAllBytes(downloaded("bandwidth-vs-message-size.png"));
        assertThat(png).startsWith(0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a);
        assertThat(png.length).isGreaterThan(10_000);
    }

    private void comparePageShowsBothExperiments(long baseline, long candidate) throws Exception {
        open("#/experiments/" + candidate);
        click(By.id("compare-with"));
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.cssSelector("#compare-baseline option"))
                .stream().anyMatch(o -> o.getAttribute("value").equals(String.valueOf(baseline))));
        new Select(browser.findElement(By.id("compare-baseline"))).selectByValue(String.valueOf(baseline));
        assertThat(new Select(browser.findElement(By.id("compare-candidate"))).getFirstSelectedOption().getAttribute("value"))
                .isEqualTo(String.valueOf(candidate));
        click(By.id("compare-go"));
        List<String> verdicts = waiting(Duration.ofSeconds(30)).until(driver -> {
            List<String> found = driver.findElements(By.cssSelector("#compare-table tbody tr")).stream()
                    .map(r -> r.getAttribute("data-verdict")).toList();
            return found.size() == 4 ? found : null;
        });
        assertThat(verdicts).as("2 runs a side, no earlier runs of these fingerprints").containsOnly("inconclusive: 2 runs per side");
        awaitCharts(Duration.ofSeconds(20), "compareBandwidth");
        assertOverlayShowsStoredMeans(baseline, candidate);
        screenshot("compare");
    }

    /** The overlay's points are each side's stored bandwidth, the median (of two: the mean) over the repeats of a point. */
    private void assertOverlayShowsStoredMeans(long baseline, long candidate) {
        Map<String, List<List<Double>>> overlay = drawn("compareBandwidth");
        assertThat(overlay).containsOnlyKeys("baseline · 1 thread", "candidate · 1 thread", "baseline · 2 threads",
                "candidate · 2 threads");
        overlay.forEach((label, points) -> {
            long experiment = label.startsWith("baseline") ? baseline : candidate;
            int threads = Integer.parseInt(label.replaceAll("\\D+", ""));
            for (List<Double> point : points) {
                double mean = jdbc.sql("""
                                SELECT avg(s.bw_avg_bps) * 8 / 1e9 FROM run r JOIN run_summary s ON s.run_id = r.id
                                WHERE r.experiment_id = ? AND (r.params ->> 'msg_size')::bigint = ? AND (r.params ->> 'threads')::int = ?""")
                        .params(experiment, point.get(0).longValue(), threads).query(Double.class).single();
                assertThat(point.get(1)).as("%s at %s B", label, point.get(0)).isCloseTo(mean, offset(mean * 1e-9));
            }
        });
    }

    private void assertOverlayShowsStoredBandwidth(Map<String, Long> experimentBySeries) {
        Map<String, List<List<Double>>> overlay = drawn("compareBandwidth");
        assertThat(overlay).containsOnlyKeys(experimentBySeries.keySet());
        experimentBySeries.forEach((label, experiment) -> {
            for (List<Double> point : overlay.get(label)) {
                double storedGbits = jdbc.sql("""
                                SELECT s.bw_avg_bps * 8 / 1e9 FROM run r JOIN run_summary s ON s.run_id = r.id
                                WHERE r.experiment_id = ? AND (r.params ->> 'msg_size')::bigint = ?""")
                        .params(experiment, point.get(0).longValue()).query(Double.class).single();
                assertThat(point.get(1)).as("%s at %s B", label, point.get(0)).isCloseTo(storedGbits, offset(storedGbits * 1e-9));
            }
        });
    }

    /** The clone's point of the marked run is compared with it; its other points have no baseline. */
    private void againstBaselinesFlagsThePointOfTheMarkedRun(long cloneId, long baselineRun) throws Exception {
        open("#/experiments/" + cloneId);
        click(By.id("compare-baselines"));
        WebElement row = waiting(Duration.ofSeconds(30)).until(driver -> {
            List<WebElement> rows = driver.findElements(By.cssSelector("#compare-table tbody tr"));
            return rows.size() == 1 ? rows.get(0) : null;
        });
        assertThat(row.getText()).contains("#" + baselineRun);
        assertThat(browser.findElements(By.cssSelector("#without-baseline li"))).hasSize(3);
        Map<String, Object> api = http().get().uri("/api/compare/baselines?experiment=" + cloneId).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        Map<?, ?> point = (Map<?, ?>) ((List<?>) api.get("points")).get(0);
        assertThat(row.getAttribute("data-verdict")).isEqualTo(point.get("verdict"));
        assertThat(row.getAttribute("data-fingerprint")).isEqualTo(point.get("fingerprint"));
        assertThat(row.findElement(By.cssSelector("a.fingerprint-history")).getAttribute("href"))
                .as("the row leads to its fingerprint's history").endsWith("#/fingerprints/" + point.get("fingerprint"));
        screenshot("against-baselines");

        open("#/history");
        WebElement baseline = waitFor(By.id("baseline-" + baselineRun));
        assertThat(baseline.getAttribute("data-fingerprint")).isEqualTo(point.get("fingerprint"));
        screenshot("history");
    }
}
