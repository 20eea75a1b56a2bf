package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.qplab.controller.AgentProcess;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.controller.ingest.SampleIngest;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The dashboard in headless Chromium against a real controller and agent: what a user types,
 * sees and what the charts draw, compared with the values stored in PostgreSQL. Screenshots of
 * each page go to target/screenshots/.
 */
class DashboardBrowserIntegrationTests extends ControllerIntegrationTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private ChromeDriver browser;

    @Autowired
    private SampleIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @BeforeEach
    void openBrowser() throws IOException {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium is not installed: apt-get install -y chromium chromium-driver (.ci/run does)");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments(
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1400,1600", "--user-data-dir=" + Files.createTempDirectory("qplab-chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
        browser = new ChromeDriver(service, options);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void aMatrixSubmittedInThePageRunsToTheEndAndItsCurvesShowTheStoredValues() throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "browser-agent", TOKEN)) {
            browser.get("http://127.0.0.1:" + port + "/");
            WebElement text = waitFor(By.id("matrix-text"));
            text.clear();
            text.sendKeys("""
                    name: browser-test
                    base: {provider: tcp, iterations: 200, qps_per_thread: 2}
                    dimensions: {msg_size: [4K, 64K], threads: [1, 2]}
                    """);
            browser.findElement(By.cssSelector("#submit-matrix button")).click();
            WebElement submitted = waiting(Duration.ofSeconds(20)).until(
                    ExpectedConditions.presenceOfElementLocated(By.cssSelector("#submit-matrix a[href^='#/experiments/']")));
            long id = Long.parseLong(submitted.getAttribute("href").replaceAll(".*/", ""));

            String row = waiting(Duration.ofSeconds(120)).until(driver -> {
                WebElement r = driver.findElement(By.id("experiment-" + id));
                return "FINISHED".equals(r.getAttribute("data-status")) ? r.getText() : null;
            });
            assertThat(row).contains("browser-test").contains("4 / 4 runs");
            screenshot("experiments");

            waiting(Duration.ofSeconds(10)).until(driver -> {
                driver.findElement(By.id("experiment-" + id)).click();
                return true;
            });
            waiting(Duration.ofSeconds(20)).until(driver ->
                    ((JavascriptExecutor) driver).executeScript("return !!(window.qplabCharts && window.qplabCharts.bandwidthVsSize"
                            + " && window.qplabCharts.throughputVsThreads)"));
            screenshot("curves");

            Map<String, Double> storedGbits = new HashMap<>();
            jdbc.sql("""
                    SELECT (r.params->>'threads') || ' ' || (r.params->>'msg_size') AS point, s.bw_avg_bps
                    FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ?""")
                    .param(id).query((rs, i) -> storedGbits.put(rs.getString(1), rs.getDouble(2) * 8 / 1e9)).list();
            assertThat(storedGbits).hasSize(4);

            Map<String, List<List<Double>>> bandwidth = drawn("bandwidthVsSize");
            assertThat(bandwidth).containsOnlyKeys("1 thread", "2 threads");
            for (var series : bandwidth.entrySet()) {
                String threads = series.getKey().split(" ")[0];
                assertThat(series.getValue()).extracting(p -> p.get(0)).containsExactly(4096.0, 65536.0);
                for (List<Double> point : series.getValue()) {
                    double stored = storedGbits.get(threads + " " + point.get(0).longValue());
                    assertThat(point.get(1)).as("%s at %s B", series.getKey(), point.get(0))
                            .isCloseTo(stored, org.assertj.core.data.Offset.offset(stored * 1e-9));
                }
            }
            Map<String, List<List<Double>>> throughput = drawn("throughputVsThreads");
            assertThat(throughput).containsOnlyKeys("4 KiB", "64 KiB");
            assertThat(throughput.get("64 KiB")).extracting(p -> p.get(0)).containsExactly(1.0, 2.0);
            assertThat(throughput.get("64 KiB").get(1).get(1))
                    .isCloseTo(storedGbits.get("2 65536"), org.assertj.core.data.Offset.offset(1e-9));
            assertThat(browser.findElement(By.id("chart-bw-size")).getAttribute("aria-label")).isNotBlank();

            // clone: the matrix lands in the submit box, renamed, and submits as a new experiment of the same runs
            waitFor(By.id("clone-matrix")).click();
            String cloned = waiting(Duration.ofSeconds(10)).until(driver -> {
                String value = driver.findElement(By.id("matrix-text")).getAttribute("value");
                return value.contains("(clone)") ? value : null;
            });
            assertThat(cloned).contains("\"name\": \"browser-test (clone)\"").contains("\"msg_size\"").contains("4K");
            browser.findElement(By.cssSelector("#submit-matrix button")).click();
            WebElement clone = waiting(Duration.ofSeconds(20)).until(
                    ExpectedConditions.presenceOfElementLocated(By.cssSelector("#submit-matrix a[href^='#/experiments/']")));
            long cloneId = Long.parseLong(clone.getAttribute("href").replaceAll(".*/", ""));
            assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ?").param(cloneId).query(Long.class).single())
                    .isEqualTo(4);
            waiting(Duration.ofSeconds(120)).until(driver ->
                    "FINISHED".equals(driver.findElement(By.id("experiment-" + cloneId)).getAttribute("data-status")));
        }
    }

    @Test
    void theComparePageShowsTheRegressionTheHostDifferenceAndBothCurves() throws Exception {
        StoredExperiments stored = new StoredExperiments(http(), jdbc, ingest, outcomes);
        long baseline = stored.create("[4096, 65536]", 31, 1.0, "6.18.0");
        long candidate = stored.create("[4096, 65536]", 32, 1.05, "6.19.0");

        browser.get("http://127.0.0.1:" + port + "/#/compare?baseline=" + baseline + "&candidate=" + candidate);
        List<String> verdicts = waiting(Duration.ofSeconds(20)).until(driver -> {
            List<String> found = driver.findElements(By.cssSelector("#compare-table tbody tr")).stream()
                    .map(r -> r.getAttribute("data-verdict")).toList();
            return found.size() == 2 ? found : null;
        });
        assertThat(verdicts).containsOnly("regression");
        String mismatches = waiting(Duration.ofSeconds(10)).until(driver -> {
            WebElement box = driver.findElement(By.id("host-mismatches"));
            return box.isDisplayed() ? box.getText() : null;
        });
        assertThat(mismatches).contains("kernel").contains("6.18.0").contains("6.19.0");
        waiting(Duration.ofSeconds(20)).until(driver -> ((JavascriptExecutor) driver)
                .executeScript("return !!(window.qplabCharts && window.qplabCharts.compareBandwidth)"));
        screenshot("compare");

        Map<String, List<List<Double>>> overlay = drawn("compareBandwidth");
        assertThat(overlay).containsOnlyKeys("baseline · 1 thread", "candidate · 1 thread");
        for (var side : Map.of("baseline · 1 thread", baseline, "candidate · 1 thread", candidate).entrySet()) {
            for (List<Double> point : overlay.get(side.getKey())) {
                double storedGbits = jdbc.sql("""
                                SELECT s.bw_avg_bps * 8 / 1e9 FROM run r JOIN run_summary s ON s.run_id = r.id
                                WHERE r.experiment_id = ? AND (r.params->>'msg_size')::bigint = ?""")
                        .params(side.getValue(), point.get(0).longValue()).query(Double.class).single();
                assertThat(point.get(1)).as("%s at %s B", side.getKey(), point.get(0))
                        .isCloseTo(storedGbits, org.assertj.core.data.Offset.offset(storedGbits * 1e-9));
            }
        }
    }

    @Test
    void theCancelButtonCancelsAQueuedExperiment() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"to-cancel\",\"base\":{\"msg_size\":64,\"duration_ms\":600000}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue(); // no agent is connected: it stays queued

        browser.get("http://127.0.0.1:" + port + "/");
        waiting(Duration.ofSeconds(20)).until(driver -> {
            driver.findElement(By.cssSelector("#experiment-" + id + " button.cancel")).click();
            return true;
        });
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();

        waiting(Duration.ofSeconds(20)).until(driver ->
                "CANCELLED".equals(driver.findElement(By.id("experiment-" + id)).getAttribute("data-status")));
        assertThat(browser.findElements(By.cssSelector("#experiment-" + id + " button.cancel"))).isEmpty();
        assertThat(jdbc.sql("SELECT status FROM experiment WHERE id = ?").param(id).query(String.class).single())
                .isEqualTo("CANCELLED");
    }

    @Test
    void anInvalidMatrixShowsEveryViolationNextToTheBox() throws IOException {
        long experiments = count("experiment");
        browser.get("http://127.0.0.1:" + port + "/");
        WebElement text = waitFor(By.id("matrix-text"));
        text.clear();
        text.sendKeys("base: {thread: 2}\ndimensions: {msg_size: [0, 64]}\n");
        browser.findElement(By.cssSelector("#submit-matrix button")).click();

        WebElement violations = waiting(Duration.ofSeconds(20))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("violations")));
        assertThat(violations.getText()).contains("base.thread").contains("unknown parameter 'thread'")
                .contains("dimensions.msg_size[0]").contains("must be between 1 and 1073741824");
        screenshot("violations");
        assertThat(count("experiment")).isEqualTo(experiments);
    }

    /** The points a chart draws, by series label: [x, y] in the chart's units. */
    @SuppressWarnings("unchecked")
    private Map<String, List<List<Double>>> drawn(String chart) {
        Object result = browser.executeScript("""
                const out = {};
                for (const d of window.qplabCharts[arguments[0]].data.datasets) {
                  out[d.label] = d.data.map(p => [Number(p.x), Number(p.y)]);
                }
                return out;""", chart);
        Map<String, List<List<Number>>> raw = (Map<String, List<List<Number>>>) result;
        Map<String, List<List<Double>>> points = new HashMap<>();
        raw.forEach((label, list) -> points.put(label,
                list.stream().map(p -> p.stream().map(Number::doubleValue).toList()).toList()));
        return points;
    }

    private WebElement waitFor(By locator) {
        return waiting(Duration.ofSeconds(20)).until(ExpectedConditions.visibilityOfElementLocated(locator));
    }

    /** The list page re-renders every 2 s: an element found a moment ago may be gone, so look again. */
    private WebDriverWait waiting(Duration timeout) {
        WebDriverWait wait = new WebDriverWait(browser, timeout);
        wait.ignoring(StaleElementReferenceException.class).ignoring(NoSuchElementException.class);
        return wait;
    }

    private void screenshot(String name) throws IOException {
        Files.write(SCREENSHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
