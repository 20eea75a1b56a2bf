package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * One walk over every page kind with the five experiments a lab has: a native tcp run, an imported bandwidth run, an
 * imported latency run, a cancelled experiment and a failed one. On each experiment page and each of its run pages:
 * the states are the API's, every number the API has is shown (no "–" where a value exists), and no card is empty.
 */
class PageWalkBrowserIntegrationTests extends BrowserTest {

    @Test
    void everyPageShowsTheApisStatesAndNumbersAndNoEmptyCard() throws Exception {
        Map<String, Long> experiments = new LinkedHashMap<>();
        experiments.put("imported bandwidth", importFile("ib_send_bw.txt"));
        experiments.put("imported latency", importFile("ib_read_lat.txt"));
        long cancelled = submit("{\"name\":\"walk-cancelled\",\"hosts\":{\"loopback\":[\"walk-nobody\"]},"
                + "\"base\":{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":100}}");
        http().post().uri("/api/experiments/{id}/cancel", cancelled).exchange().expectStatus().isOk();
        experiments.put("cancelled", cancelled);
        long nativeRun = submit("{\"name\":\"walk-native\",\"hosts\":{\"loopback\":[\"walk-client\"]},"
                + "\"base\":{\"provider\":\"tcp\",\"msg_size\":4096,\"iterations\":20000},\"dimensions\":{\"threads\":[1,2]}}");
        long failed = submit("{\"name\":\"walk-failed\",\"hosts\":{\"pairs\":[[\"walk-client\",\"walk-server\"]]},"
                + "\"base\":{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":100}}");
        try (AgentProcess client = AgentProcess.start(port, "walk-client", TOKEN);
             AgentProcess server = AgentProcess.start(List.of("env", "QPLAB_DATA_ADDRESS=192.0.2.1"),
                     "ws://127.0.0.1:" + port + "/agent", "walk-server", TOKEN)) { // it cannot bind: every try fails
            assertThat(awaitExperimentEnd(nativeRun, Duration.ofSeconds(120), client::log)).containsEntry("status", "FINISHED");
            assertThat(awaitExperimentEnd(failed, Duration.ofSeconds(120), server::log)).containsEntry("status", "FAILED");
        }
        experiments.put("native", nativeRun);
        experiments.put("failed", failed);

        List<String> walked = new ArrayList<>();
        for (var entry : experiments.entrySet()) {
            String what = entry.getKey();
            long id = entry.getValue();
            Map<String, Object> experiment = get("/api/experiments/" + id);
            List<Map<String, Object>> runs = getList("/api/experiments/" + id + "/runs");
            open("#/experiments/" + id);
            waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.cssSelector("#runs tbody tr")).size()
                    == runs.size() && (Boolean) browser.executeScript("return document.querySelector('#curves .badge')"
                    + ".textContent === arguments[0]", experiment.get("status")));
            waiting(Duration.ofSeconds(10)).withMessage(what + ": no empty card").until(driver -> emptyCards().isEmpty());
            List<Map<String, String>> rows = tableRows("runs");
            for (int i = 0; i < runs.size(); i++) {
                Map<String, Object> run = runs.get(i);
                Map<String, String> row = rows.stream().filter(r -> r.get("Run").equals("#" + run.get("id"))).findFirst()
                        .orElseThrow(() -> new AssertionError(what + ": no row for run " + run.get("id") + " in " + rows));
                assertThat(row.get("Status")).as(what).startsWith((String) run.get("status"));
                assertNumbers(what + " run " + run.get("id"), row, summary(run));
            }
            Map<String, Object> first = runs.get(0);
            open("#/runs/" + first.get("id"));
            waiting(Duration.ofSeconds(20)).until(driver -> browser.findElement(By.cssSelector("#run h2")).getText()
                    .startsWith("Run #" + first.get("id") + " ")
                    && first.get("status").equals(browser.findElement(By.cssSelector("#run .summary-line .badge")).getText()));
            waiting(Duration.ofSeconds(10)).withMessage(what + " run page: no empty card").until(driver -> emptyCards().isEmpty());
            Map<String, Object> summary = summary(first);
            if (summary.get("bw_avg_bps") instanceof Number bps) {
                assertThat(browser.findElement(By.id("run-numbers")).getText()).as(what + " run page's numbers")
                        .contains(gbits(bps.doubleValue()));
            }
            walked.add(what + " #" + id + " (" + runs.size() + " runs, " + experiment.get("status") + ")");
        }
        assertThat(walked).hasSize(5);
        System.out.println("walked: " + walked);
    }

    /** Every number column of the row whose summary value exists shows a number, and none where it does not. */
    @SuppressWarnings("unchecked")
    private static void assertNumbers(String what, Map<String, String> row, Map<String, Object> summary) {
        Map<String, Object> latency = summary.get("latency_us") instanceof Map<?, ?> l ? (Map<String, Object>) l : Map.of();
        Map<String, Object> cycles = summary.get("cycle_ns") instanceof Map<?, ?> c ? (Map<String, Object>) c : Map.of();
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("BW avg (Gbit/s)", summary.get("bw_avg_bps") instanceof Number n ? n.doubleValue() * 8 / 1e9 : null);
        values.put("Msg rate (Mmsg/s)", summary.get("msg_rate") instanceof Number n ? n.doubleValue() / 1e6 : null);
        values.put("Cycle median (µs)", cycles.get("median") instanceof Number n ? n.doubleValue() / 1e3 : null);
        values.put("t_typical (µs)", latency.get("typical"));
        values.put("p99 (µs)", latency.get("p99"));
        values.forEach((column, value) -> {
            if (value instanceof Number number && row.containsKey(column)) {
                assertShows(row.get(column), number.doubleValue(), what + " " + column);
            }
        });
        if (summary.get("bw_avg_bps") instanceof Number) {
            assertThat(row).as(what + ": a bandwidth run shows its bandwidth").containsKey("BW avg (Gbit/s)");
        }
        if (latency.get("typical") instanceof Number) {
            assertThat(row).as(what + ": a latency run shows its latency").containsKey("t_typical (µs)");
        }
    }

    private static String gbits(double bytesPerSecond) {
        double value = bytesPerSecond * 8 / 1e9;
        return value == 0 ? "0" : String.valueOf(Double.valueOf(String.format(java.util.Locale.ROOT, "%.3g", value)))
                .replaceAll("\\.0$", "");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> summary(Map<String, Object> run) {
        return run.get("summary") instanceof Map<?, ?> s ? (Map<String, Object>) s : Map.of();
    }

    private long importFile(String name) throws Exception {
        String text = Files.readString(Path.of(PageWalkBrowserIntegrationTests.class.getResource("/perftest/" + name).toURI()));
        return ((Number) http().post().uri("/api/import/perftest?file={file}", name).contentType(MediaType.TEXT_PLAIN)
                .bodyValue(text).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody().get("id")).longValue();
    }

    private long submit(String matrix) {
        return ((Number) http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON).bodyValue(matrix)
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id"))
                .longValue();
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    private List<Map<String, Object>> getList(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
    }
}
