package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * Pages that follow what happens: a run's header follows it from QUEUED to RUNNING while its page stays open; one
 * tab walks 20 live run pages, each loading within 2 s with at most one event stream open; the experiment page
 * follows its one event stream (no reads while nothing changes), and a cancelled experiment's table shows every run
 * CANCELLED within 2 s of the API, the stream closed; a failed experiment and its run show the error at the top,
 * whole, the failed run linked.
 */
class LivePagesBrowserIntegrationTests extends BrowserTest {

    /** How soon a page must show a change the API already answers. */
    private static final Duration WITHIN = Duration.ofSeconds(2);

    @Test
    void livePagesFollowTheirRunsAndACancelledExperimentShowsEveryRunCancelled() throws Exception {
        // 20 runs of ten minutes on one agent: the first runs for as long as the test looks, the others wait
        long experiment = submit("{\"name\":\"live-pages\",\"hosts\":{\"loopback\":[\"live-pages-agent\"]},"
                + "\"base\":{\"provider\":\"tcp\",\"msg_size\":4096,\"duration_ms\":600000},"
                + "\"dimensions\":{\"threads\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}}");
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id").param(experiment)
                .query(Long.class).list();
        long first = runs.get(0);
        open("#/runs/" + first); // no agent yet: the page opens on a queued run
        waiting(Duration.ofSeconds(20)).until(driver -> "watching".equals(attribute(By.id("live-state"), "data-live")));
        assertThat(headerStatus()).isEqualTo("QUEUED");
        assertThat(browser.findElement(By.cssSelector("#run .summary-line")).getText()).contains("agent –");

        try (AgentProcess agent = AgentProcess.start(port, "live-pages-agent", TOKEN)) {
            waiting(Duration.ofSeconds(60)).until(driver -> "RUNNING".equals(status(first)));
            waiting(WITHIN).withMessage("the open page's header follows the run to RUNNING (agent log: " + agent.log() + ")")
                    .until(driver -> "RUNNING".equals(headerStatus()));
            String line = browser.findElement(By.cssSelector("#run .summary-line")).getText();
            assertThat(line).contains("agent live-pages-agent").doesNotContain("started –");

            // one tab walks the 20 live pages: each shows its run within 2 s, never with two event streams open
            browser.executeScript("""
                    const Native = window.EventSource;
                    window.qplabOpenStreams = 0;
                    window.EventSource = class extends Native {
                      constructor(url) { super(url); window.qplabOpenStreams++; this.counted = true; }
                      close() { if (this.counted) { this.counted = false; window.qplabOpenStreams--; } super.close(); }
                    };""");
            List<Long> millis = new ArrayList<>();
            for (long run : runs) {
                long start = System.nanoTime();
                open("#/runs/" + run);
                waiting(WITHIN).withMessage("run " + run + "'s page loads within 2 s").until(driver ->
                        browser.findElement(By.cssSelector("#run")).getAttribute("data-run-id").equals(String.valueOf(run))
                                && browser.findElement(By.cssSelector("#run h2")).getText().startsWith("Run #" + run + " ")
                                && "watching".equals(attribute(By.id("live-state"), "data-live")));
                millis.add((System.nanoTime() - start) / 1_000_000);
                assertThat(((Number) browser.executeScript("return window.qplabOpenStreams")).intValue())
                        .as("event streams open on run %d's page", run).isLessThanOrEqualTo(1);
            }
            System.out.println("20 live run pages loaded in (ms): " + millis);

            open("#/experiments/" + experiment);
            waiting(Duration.ofSeconds(10)).until(driver -> driver.findElements(By.cssSelector("#runs tbody tr")).size() == 20);
            // the experiment page follows the experiment's event stream: while nothing changes it reads nothing
            browser.executeScript("""
                    const native = window.fetch;
                    window.qplabReads = 0;
                    window.fetch = (...args) => { window.qplabReads++; return native(...args); };""");
            waiting(Duration.ofSeconds(5)).until(driver -> ((Number) browser.executeScript(
                    "return window.qplabOpenStreams")).intValue() == 1);
            Thread.sleep(3000); // the stream's first event (the state the page read) comes in this time, too
            assertThat(((Number) browser.executeScript("return window.qplabReads")).intValue())
                    .as("requests in 3 s of a running experiment in which nothing changed").isZero();
            http().post().uri("/api/experiments/{id}/cancel", experiment).exchange().expectStatus().isOk();
            waiting(Duration.ofSeconds(30)).until(driver -> jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ? "
                    + "AND status IN ('QUEUED', 'RUNNING')").param(experiment).query(Long.class).single() == 0);
            waiting(WITHIN).withMessage("every run of the cancelled experiment shows CANCELLED").until(driver ->
                    driver.findElements(By.cssSelector("#runs tbody tr")).stream()
                            .allMatch(row -> "CANCELLED".equals(row.getAttribute("data-status"))));
            waiting(WITHIN).withMessage("the stream closes once the experiment and its runs ended").until(driver ->
                    ((Number) browser.executeScript("return window.qplabOpenStreams")).intValue() == 0);
            screenshot("cancelled");
        }
    }

    @Test
    void aFailedExperimentAndItsRunShowTheErrorAtTheTopWithTheRunLinked() throws Exception {
        // the server side cannot bind its data address (an address no interface has: nothing is sent anywhere), so
        // every try of the point fails at prepare and the experiment fails
        long experiment = submit("{\"name\":\"failing\",\"hosts\":{\"pairs\":[[\"fail-client\",\"fail-server\"]]},"
                + "\"base\":{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":100}}");
        try (AgentProcess client = AgentProcess.start(port, "fail-client", TOKEN);
             AgentProcess server = AgentProcess.start(List.of("env", "QPLAB_DATA_ADDRESS=192.0.2.1"),
                     "ws://127.0.0.1:" + port + "/agent", "fail-server", TOKEN)) {
            Map<String, Object> ended = awaitExperimentEnd(experiment, Duration.ofSeconds(90),
                    () -> client.log() + "\n" + server.log());
            assertThat(ended.get("status")).isEqualTo("FAILED");
        }
        Map<String, Object> failed = jdbc.sql("SELECT id, error FROM run WHERE experiment_id = ? AND status = 'FAILED' "
                + "AND superseded_by IS NULL").param(experiment).query().singleRow();
        long run = ((Number) failed.get("id")).longValue();
        String error = (String) failed.get("error");
        assertThat(error).isNotBlank();

        open("#/experiments/" + experiment);
        WebElement box = waitFor(By.id("experiment-failures"));
        assertThat(box.getText()).startsWith("1 run failed").contains("Run #" + run + " on fail-client: " + error);
        assertThat(box.getLocation().getY()).as("above the charts and the runs table")
                .isLessThan(browser.findElement(By.cssSelector("#curves .charts")).getLocation().getY());
        screenshot("failed-experiment");
        box.findElement(By.linkText("Run #" + run)).click();
        WebElement runBox = waitFor(By.id("run-failure"));
        assertThat(runBox.findElement(By.cssSelector(".failure-text")).getText()).as("the error whole").isEqualTo(error);
        assertThat(runBox.getSize().getWidth()).as("not cut off in a scrolled cell")
                .isLessThanOrEqualTo(browser.findElement(By.cssSelector("#run .card.header")).getSize().getWidth());
        screenshot("failed-run");
    }

    private long submit(String matrix) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(matrix).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private String status(long run) {
        return jdbc.sql("SELECT status FROM run WHERE id = ?").param(run).query(String.class).single();
    }

    private String headerStatus() {
        return browser.findElement(By.cssSelector("#run .summary-line .badge")).getText().strip();
    }

    private String attribute(By locator, String name) {
        return browser.findElement(locator).getAttribute(name);
    }
}
