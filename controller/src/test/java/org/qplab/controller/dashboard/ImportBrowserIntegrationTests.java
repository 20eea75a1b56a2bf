package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.TestDirs;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Importing perftest output in the dashboard: real lab files chosen in the picker (or dropped) become experiments in
 * the list with their runs; a file the server repaired shows its warnings, and a bad file the API's refusal and every
 * violation, word for word; a viewer sees no import box, and one that forces it is told the server's 403.
 */
class ImportBrowserIntegrationTests extends BrowserTest {

    private static final By PICKER = By.id("import-files");

    @Test
    void labFilesChosenOrDroppedInThePageBecomeExperimentsInTheListWithTheirRuns() throws Exception {
        open("");
        waitFor(By.id("import-name")).sendKeys("lab run 7");
        browser.findElement(PICKER).sendKeys(fixture("ib_send_bw-a.txt").toString());
        long named = assertImported("ib_send_bw-a.txt", 23, "ib_send_bw");
        assertThat(experiment(named)).containsEntry("name", "lab run 7");
        screenshot("import");

        browser.findElement(By.id("import-name")).clear(); // the API's own names: "TOOL (FILE) import"
        browser.findElement(PICKER).sendKeys(fixture("ib_write_bw.json") + "\n" + fixture("ib_read_lat.txt"));
        long json = assertImported("ib_write_bw.json", 1, "ib_write_bw");
        long text = assertImported("ib_read_lat.txt", 1, "ib_read_lat");
        assertThat(experiment(json)).containsEntry("name", "ib_write_bw (ib_write_bw.json) import");
        assertThat(experiment(text)).containsEntry("name", "ib_read_lat (ib_read_lat.txt) import");

        // Selenium cannot drag a file from the desktop: the drop event a browser would fire, with the file in it
        browser.executeScript("""
                const files = new DataTransfer();
                files.items.add(new File([arguments[0]], 'ib_send_lat.txt', {type: 'text/plain'}));
                document.getElementById('import-drop').dispatchEvent(
                    new DragEvent('drop', {dataTransfer: files, bubbles: true, cancelable: true}));""",
                Files.readString(fixture("ib_send_lat.txt")));
        long dropped = assertImported("ib_send_lat.txt", 1, "ib_send_lat");
        assertThat(experiment(dropped)).containsEntry("name", "ib_send_lat (ib_send_lat.txt) import");
        assertThat(fits("experiments")).as("the list, provider, tool and host included, fits its column at 1400 px").isTrue();
        WebElement name = browser.findElement(By.cssSelector("#experiment-" + dropped + " td.name-cell a"));
        assertThat(name.getSize().getHeight()).as("an import's name on at most two lines")
                .isLessThanOrEqualTo((int) (2 * 1.5 * Double.parseDouble(name.getCssValue("font-size").replace("px", ""))));
        screenshot("import-list");
    }

    @Test
    void anImportedLatencyRunDrawsTheLatencyChartsAndItsPageShowsPerftestsColumns() throws Exception {
        Path file = fixture("ib_read_lat.txt");
        long id = ((Number) http().post().uri("/api/import/perftest?file=ib_read_lat.txt").contentType(MediaType.TEXT_PLAIN)
                .bodyValue(Files.readString(file)).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody().get("id")).longValue();
        // the file's one result line: bytes, iterations, t_min, t_max, t_typical, t_avg, t_stdev, 99%, 99.9% (µs)
        String[] line = Files.readAllLines(file).stream().filter(l -> l.trim().startsWith("64 ")).findFirst().orElseThrow()
                .trim().split("\\s+");
        double typical = Double.parseDouble(line[4]);

        open("#/experiments/" + id);
        awaitCharts(Duration.ofSeconds(30), "latencyVsSize", "latencyPercentiles");
        assertThat(drawn("latencyVsSize")).containsOnlyKeys("op = read");
        assertThat(drawn("latencyVsSize").get("op = read")).containsExactly(List.of(64.0, typical));
        assertThat(axis("latencyVsSize", "x")).containsEntry("type", "logarithmic").containsEntry("title", "Message size (bytes, log2)");
        assertThat(axis("latencyVsSize", "y")).containsEntry("type", "logarithmic").containsEntry("title", "Latency, typical (µs, log)");
        assertThat(drawn("latencyPercentiles")).containsOnlyKeys("typical", "p99", "p99.9")
                .containsEntry("typical", List.of(List.of(1.0, typical)))
                .containsEntry("p99", List.of(List.of(1.0, Double.parseDouble(line[7]))))
                .containsEntry("p99.9", List.of(List.of(1.0, Double.parseDouble(line[8]))));
        assertThat(axis("latencyPercentiles", "x")).containsEntry("title", "Threads");
        assertThat(axis("latencyPercentiles", "y")).containsEntry("type", "logarithmic").containsEntry("title", "Latency (µs, log)");
        assertThat(browser.findElement(By.cssSelector("[data-chart=bandwidthVsSize]")).isDisplayed())
                .as("a bandwidth chart for a latency test").isFalse();
        // the runs table has the latency columns, each the API's number; no cycle-time chart repeats the latency one
        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(id).query(Long.class).single();
        waitFor(By.id("run-" + runId));
        assertThat(tableRows("runs")).singleElement().satisfies(row -> {
            assertThat(row).doesNotContainKeys("BW avg (Gbit/s)", "Msg rate (Mmsg/s)", "Cycle median (µs)")
                    .containsEntry("Run", "#" + runId);
            Map<String, Integer> columns = Map.of("t_min (µs)", 2, "t_typical (µs)", 4, "p99 (µs)", 7, "p99.9 (µs)", 8,
                    "t_max (µs)", 3);
            columns.forEach((name, column) -> assertShows(row.get(name), Double.parseDouble(line[column]), name));
        });
        assertThat(emptyCards()).isEmpty();
        assertThat(browser.findElements(By.cssSelector(".chart-card")).stream().filter(WebElement::isDisplayed)
                .map(c -> c.getDomAttribute("data-chart")).toList()).containsExactly("latencyVsSize", "latencyPercentiles");
        screenshot("import-latency-curves");

        open("#/runs/" + runId);
        WebElement table = waitFor(By.id("run-latency"));
        assertThat(table.findElements(By.cssSelector("tbody tr")).stream().map(WebElement::getText).toList())
                .as("perftest's columns in its order: t_min, t_typical, t_avg, t_stdev, 99%, 99.9%, t_max")
                .containsExactly(String.join(" ", "all threads", shown(line[2]), shown(line[4]), shown(line[5]),
                        shown(line[6]), shown(line[7]), shown(line[8]), shown(line[3])));
        assertThat(waitFor(By.id("run-perftest")).findElement(By.cssSelector("tbody tr")).getText())
                .as("the line as perftest printed it").isEqualTo(String.join(" ", line).replaceAll("(\\.\\d*?)0+(?= |$)", "$1")
                        .replaceAll("\\.(?= |$)", ""));
        assertThat(browser.findElement(By.id("run-over-time")).isDisplayed()).as("no intervals: no timeline").isFalse();
        assertThat(emptyCards()).isEmpty();
        screenshot("import-latency-run");
    }

    /**
     * A one-thread -a bandwidth import (23 sizes) on every page shows the API's numbers: the list says where it came
     * from; the experiment's charts draw bandwidth and message rate against message size, one line, and no chart
     * without data; its runs table has each run's bandwidth and message rate; a run's page its numbers and
     * perftest's line, and no timeline, distribution or counters it does not have.
     */
    @Test
    void anAllSizesBandwidthImportShowsTheApisNumbersOnEveryPageAndNoEmptyCard() throws Exception {
        long id = ((Number) http().post().uri("/api/import/perftest?file=ib_send_bw-a.txt").contentType(MediaType.TEXT_PLAIN)
                .bodyValue(Files.readString(fixture("ib_send_bw-a.txt"))).exchange().expectStatus().isCreated()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id")).longValue();
        List<Map<String, Object>> runs = http().get().uri("/api/experiments/{id}/runs", id).exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(runs).hasSize(23);
        List<Double> sizes = runs.stream().map(r -> ((Number) ((Map<?, ?>) r.get("params")).get("msg_size")).doubleValue()).toList();

        open("");
        assertThat(waitFor(By.id("experiment-" + id)).findElements(By.tagName("td")).stream().map(WebElement::getText).toList())
                .as("provider, tool, host").containsSubsequence("perftest", "perftest import", "–");

        open("#/experiments/" + id);
        awaitCharts(Duration.ofSeconds(30), "bandwidthVsSize", "msgRateVsThreads");
        assertThat(drawn("bandwidthVsSize")).containsOnlyKeys("1 thread");
        assertThat(drawn("bandwidthVsSize").get("1 thread").stream().map(p -> p.get(0)).toList()).isEqualTo(sizes);
        assertThat(drawn("msgRateVsThreads")).as("message rate against size, not 23 lines at x = 1").containsOnlyKeys("1 thread");
        assertThat(drawn("msgRateVsThreads").get("1 thread").stream().map(p -> p.get(0)).toList()).isEqualTo(sizes);
        assertThat(browser.findElement(By.cssSelector("[data-chart=msgRateVsThreads] .chart-title")).getText())
                .isEqualTo("Message rate vs message size");
        assertThat(axis("msgRateVsThreads", "y")).containsEntry("type", "logarithmic")
                .containsEntry("title", "Message rate (Mmsg/s, log)");
        waitFor(By.id("run-" + runs.get(22).get("id")));
        assertThat(emptyCards()).isEmpty();
        assertThat(browser.findElements(By.cssSelector(".chart-card")).stream().filter(WebElement::isDisplayed)
                .map(c -> c.getDomAttribute("data-chart")).toList()).containsExactly("bandwidthVsSize", "msgRateVsThreads");
        List<Map<String, String>> rows = tableRows("runs");
        assertThat(rows).hasSize(23);
        for (int i = 0; i < rows.size(); i++) {
            Map<?, ?> summary = (Map<?, ?>) runs.get(i).get("summary");
            Map<String, String> row = rows.get(i);
            assertThat(row).containsEntry("Run", "#" + runs.get(i).get("id")).doesNotContainKey("Cycle median (µs)");
            assertShows(row.get("BW avg (Gbit/s)"), ((Number) summary.get("bw_avg_bps")).doubleValue() * 8 / 1e9, "BW of " + i);
            assertShows(row.get("Msg rate (Mmsg/s)"), ((Number) summary.get("msg_rate")).doubleValue() / 1e6, "rate of " + i);
        }
        screenshot("import-bandwidth-curves");

        Map<String, Object> run = runs.stream().filter(r -> ((Map<?, ?>) r.get("params")).get("msg_size").equals(65536))
                .findFirst().orElseThrow();
        Map<?, ?> summary = (Map<?, ?>) run.get("summary");
        open("#/runs/" + run.get("id"));
        waitFor(By.id("run-perftest"));
        List<String> numbers = browser.findElements(By.cssSelector("#run-numbers tbody tr:first-child td")).stream()
                .map(WebElement::getText).toList();
        assertThat(numbers).as("all threads: cycles, BW avg and peak, message rate; no cycle times").hasSize(5);
        assertShows(numbers.get(1), ((Number) summary.get("cycles")).doubleValue(), "cycles");
        assertShows(numbers.get(2), ((Number) summary.get("bw_avg_bps")).doubleValue() * 8 / 1e9, "BW avg");
        assertShows(numbers.get(3), ((Number) summary.get("bw_peak_bps")).doubleValue() * 8 / 1e9, "BW peak");
        assertShows(numbers.get(4), ((Number) summary.get("msg_rate")).doubleValue() / 1e6, "msg rate");
        assertThat(tableRows("run-perftest")).singleElement().satisfies(row -> assertThat(row)
                .containsEntry("#bytes", "65536").containsEntry("#iterations", "20").containsKeys("BW average[MB/sec]"));
        assertThat(browser.findElement(By.id("run-over-time")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.id("run-cost-card")).isDisplayed()).as("perftest measured no CPU or counters").isFalse();
        assertThat(emptyCards()).isEmpty();
        screenshot("import-bandwidth-run");
    }

    /**
     * Imports compare like native runs: two imports of one ib_write_bw -a output overlay their bandwidth curves, each line the API's curve, and pair their 23 points; two imported runs
     * compare without a distribution card, since perftest kept no cycle times. No card is empty.
     */
    @Test
    void twoImportsCompareTheirCurvesAndPointsAndTheirRunsWithoutAnEmptyCard() throws Exception {
        long baseline = imported("ib_write_bw-a.txt", MediaType.TEXT_PLAIN);
        long candidate = imported("ib_write_bw-a.txt", MediaType.TEXT_PLAIN);
        Map<String, Object> comparison = http().get().uri("/api/compare?baseline={b}&candidate={c}", baseline, candidate)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        int points = ((List<?>) comparison.get("points")).size();
        assertThat(points).as("the two imports' points, paired").isEqualTo(23);

        open("#/compare?baseline=" + baseline + "&candidate=" + candidate);
        awaitCharts(Duration.ofSeconds(30), "compareBandwidth");
        waiting(Duration.ofSeconds(10)).until(driver -> driver.findElements(By.cssSelector("#compare-table tbody tr")).size()
                == points);
        var lines = drawn("compareBandwidth");
        assertThat(lines).containsOnlyKeys("baseline · 1 thread", "candidate · 1 thread");
        for (var side : Map.of("baseline · 1 thread", baseline, "candidate · 1 thread", candidate).entrySet()) {
            List<Map<String, Object>> curve = curvePoints(side.getValue());
            assertThat(lines.get(side.getKey())).as(side.getKey()).hasSize(curve.size());
            for (int i = 0; i < curve.size(); i++) {
                assertThat(lines.get(side.getKey()).get(i).get(0)).isEqualTo(((Number) curve.get(i).get("x")).doubleValue());
                assertThat(lines.get(side.getKey()).get(i).get(1)).as("%s at %s B, Gbit/s", side.getKey(), curve.get(i).get("x"))
                        .isCloseTo(((Number) curve.get(i).get("y")).doubleValue() * 8 / 1e9, within(1e-9));
            }
        }
        assertThat(browser.findElement(By.cssSelector("[data-chart=compareLatency]")).isDisplayed()).isFalse();
        assertThat(emptyCards()).isEmpty();

        List<Long> runs = List.of(baseline, candidate).stream().map(id -> jdbc.sql("SELECT id FROM run WHERE experiment_id = ? "
                + "AND (params->>'msg_size')::int = 65536").param(id).query(Long.class).single()).toList();
        open("#/compare?baselineRun=" + runs.get(0) + "&candidateRun=" + runs.get(1));
        waiting(Duration.ofSeconds(10)).until(driver -> driver.findElements(By.cssSelector("#compare-table tbody tr")).size() == 1);
        assertThat(browser.findElement(By.cssSelector("[data-chart=compareDistribution]")).isDisplayed())
                .as("no distribution card: perftest kept no cycle times").isFalse();
        assertThat(emptyCards()).isEmpty();
    }

    private long imported(String file, MediaType type) throws Exception {
        return ((Number) http().post().uri("/api/import/perftest?file={file}", file).contentType(type)
                .bodyValue(Files.readString(fixture(file))).exchange().expectStatus().isCreated()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id")).longValue();
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> curvePoints(long experiment) {
        Map<String, Object> curve = http().get().uri("/api/experiments/{id}/curve?x=msg_size&y=bw_avg_bps&series=threads",
                experiment).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((List<Map<String, Object>>) curve.get("points")).stream()
                .sorted(java.util.Comparator.comparingDouble(p -> ((Number) p.get("x")).doubleValue())).toList();
    }

    /** A number as the dashboard shows it: three significant digits, no trailing zeros. */
    private static String shown(String number) {
        return new java.math.BigDecimal(number).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    }

    @Test
    void aRefusedFileShowsTheApisErrorAndEveryViolationVerbatimAndStoresNothing() throws Exception {
        Path dir = TestDirs.fresh("import");
        try {
            List<String> lines = Files.readAllLines(fixture("ib_send_bw-a.txt"));
            int last = lines.indexOf(lines.stream().filter(l -> l.trim().startsWith("1024 ")).findFirst().orElseThrow());
            Path truncated = Files.writeString(dir.resolve("ib_send_bw-truncated.txt"), String.join("\n", lines.subList(0, last + 1)));
            String json = Files.readString(fixture("ib_write_bw.json"));
            Path truncatedJson = Files.writeString(dir.resolve("ib_write_bw-truncated.json"), json.substring(0, json.length() / 2));
            Path binary = Files.writeString(dir.resolve("binary.txt"), "\u0000\u0001\n".repeat(40));
            Path tooLarge = Files.write(dir.resolve("too-large.txt"), new byte[5 * 1024 * 1024]);
            long experiments = count("experiment");

            open("");
            waitFor(PICKER).sendKeys(String.join("\n", truncated.toString(), truncatedJson.toString(), binary.toString()));
            for (Path file : List.of(truncated, truncatedJson, binary)) {
                Map<String, Object> api = answer(http(), file, 400);
                WebElement line = awaitResult(file.getFileName().toString(), "refused");
                assertThat(textOf(line, ".error")).isEqualTo(api.get("error"));
                assertThat(shownViolations(line)).as("%s: every violation, as the API words it", file.getFileName())
                        .isEqualTo(violations(api)).isNotEmpty();
            }
            assertThat(violations(answer(http(), binary, 400))).as("the API's first ten lines").hasSize(10);
            screenshot("import-refused");

            browser.findElement(PICKER).sendKeys(tooLarge.toString());
            Map<String, Object> api = answer(http(), tooLarge, 413);
            WebElement line = awaitResult("too-large.txt", "failed");
            assertThat(textOf(line, ".error")).isEqualTo("POST /api/import/perftest?file=too-large.txt failed: 413 " + api.get("error"));
            assertThat(count("experiment")).as("nothing stored").isEqualTo(experiments);
        } finally {
            TestDirs.delete(dir);
        }
    }

    /** A file with the closing braces some perftest versions add is imported, and its line lists the API's warning. */
    @Test
    void aRepairedFileIsImportedAndItsLineShowsTheApisWarningVerbatim() throws Exception {
        Path dir = TestDirs.fresh("import-repaired");
        try {
            String json = Files.readString(fixture("ib_write_bw.json"));
            Path damaged = Files.writeString(dir.resolve("ib_write_bw-braces.json"), json + "}\n}\n");
            List<List<String>> api = warnings(answer(http(), damaged, 201));
            assertThat(api).singleElement().satisfies(warning -> assertThat(warning.get(1))
                    .startsWith("repaired: 2 closing braces after the end of the JSON"));

            open("");
            waitFor(PICKER).sendKeys(damaged.toString() + "\n" + fixture("ib_write_bw.json"));
            long id = assertImported("ib_write_bw-braces.json", 1, "ib_write_bw", api);
            assertThat(experiment(id)).containsEntry("name", "ib_write_bw (ib_write_bw-braces.json) import");
            WebElement sound = awaitResult("ib_write_bw.json", "imported");
            assertThat(sound.findElements(By.cssSelector(".warnings"))).as("a sound file: no warning").isEmpty();
            screenshot("import-repaired");
        } finally {
            TestDirs.delete(dir);
        }
    }

    @Test
    void aViewerSeesNoImportAndOneThatForcesItIsShownTheServersRefusal() throws Exception {
        WebTestClient viewer = anonymous().mutate().defaultHeader("Authorization", "Bearer " + tokenOf("viewer")).build();
        logIn("test-viewer", "password-of-viewer");
        open("");
        waitFor(By.id("experiments"));
        assertThat(browser.findElement(By.id("import-perftest")).isDisplayed()).as("the import box").isFalse();
        assertThat(browser.findElement(PICKER).isDisplayed()).isFalse();

        long experiments = count("experiment");
        browser.executeScript("document.getElementById('import-perftest').removeAttribute('data-needs')");
        browser.findElement(PICKER).sendKeys(fixture("ib_write_bw.txt").toString());
        Map<String, Object> api = answer(viewer, fixture("ib_write_bw.txt"), 403);
        WebElement line = awaitResult("ib_write_bw.txt", "failed");
        assertThat(textOf(line, ".error")).isEqualTo("POST /api/import/perftest?file=ib_write_bw.txt failed: 403 " + api.get("error"));
        assertThat(count("experiment")).isEqualTo(experiments);
    }

    /** The file's line says it was imported, links the new experiment and its runs; the list shows it, all runs done. */
    private long assertImported(String file, int runs, String tool) {
        return assertImported(file, runs, tool, List.of());
    }

    /** As above, the line listing below the experiment the warnings expected, field and message as the API words them. */
    private long assertImported(String file, int runs, String tool, List<List<String>> warnings) {
        WebElement line = awaitResult(file, "imported");
        String href = line.findElement(By.cssSelector("a")).getDomAttribute("href");
        long id = Long.parseLong(href.replace("#/experiments/", ""));
        Map<String, Object> experiment = experiment(id);
        String imported = file + ": imported as " + experiment.get("name") + " (#" + id + "): " + runs
                + (runs == 1 ? " run of " : " runs of ") + tool;
        assertThat(line.getText()).isEqualTo(Stream.concat(Stream.of(imported),
                warnings.stream().map(w -> w.get(0) + ": " + w.get(1))).collect(Collectors.joining("\n")));
        assertThat(shownItems(line, ".warnings")).as("%s: the repairs, as the API words them", file).isEqualTo(warnings);
        assertThat(experiment).containsEntry("runsTotal", runs).containsEntry("status", "FINISHED");
        WebElement row = waitFor(By.id("experiment-" + id));
        assertThat(row.getText()).contains((String) experiment.get("name")).contains(runs + " / " + runs + " runs · 100 %");
        return id;
    }

    /** The line of a file once its upload has ended, in the state expected (any other fails at once, with its text). */
    private WebElement awaitResult(String file, String state) {
        By locator = By.cssSelector("#import-results li[data-file='" + file + "']");
        return waiting(Duration.ofSeconds(30)).until(driver -> {
            WebElement line = driver.findElement(locator);
            String now = line.getDomAttribute("data-state");
            if (now.equals("waiting") || now.equals("uploading")) {
                return null;
            }
            assertThat(now).as("%s: %s", file, line.getText()).isEqualTo(state);
            return line;
        });
    }

    private Map<String, Object> experiment(long id) {
        return http().get().uri("/api/experiments/{id}", id).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    /** What the API answers a script sending the same bytes as the dashboard (./qplab import's content type). */
    private static Map<String, Object> answer(WebTestClient client, Path file, int status) throws Exception {
        String name = file.getFileName().toString();
        return client.post().uri("/api/import/perftest?file={file}", name)
                .contentType(name.endsWith(".json") ? MediaType.APPLICATION_JSON : MediaType.TEXT_PLAIN)
                .bodyValue(Files.readAllBytes(file)).exchange().expectStatus().isEqualTo(status).expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    @SuppressWarnings("unchecked")
    private static List<List<String>> violations(Map<String, Object> answer) {
        return ((List<Map<String, String>>) answer.get("violations")).stream()
                .map(v -> List.of(v.get("field"), v.get("message"))).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<List<String>> warnings(Map<String, Object> answer) {
        return ((List<Map<String, String>>) answer.get("warnings")).stream()
                .map(v -> List.of(v.get("field"), v.get("message"))).toList();
    }

    private List<List<String>> shownViolations(WebElement line) {
        return shownItems(line, ".violations");
    }

    /** Each item of the list (.violations or .warnings) in a file's line: its field and its message. */
    @SuppressWarnings("unchecked")
    private List<List<String>> shownItems(WebElement line, String list) {
        return (List<List<String>>) browser.executeScript("""
                return [...arguments[0].querySelectorAll(arguments[1] + ' > li')]
                    .map(li => [li.querySelector('.field')?.textContent ?? '', li.querySelector('.message').textContent]);""",
                line, list);
    }

    private String textOf(WebElement line, String selector) {
        return (String) browser.executeScript("return arguments[0].querySelector(arguments[1]).textContent", line, selector);
    }

    private static Path fixture(String name) throws URISyntaxException {
        return Path.of(ImportBrowserIntegrationTests.class.getResource("/perftest/" + name).toURI());
    }
}
