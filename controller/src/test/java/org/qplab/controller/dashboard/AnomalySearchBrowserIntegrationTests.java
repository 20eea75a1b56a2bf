package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * An anomaly search's card on the experiment page: the sentence saying how it ended and the table of the anomalies,
 * each point with its metric against its neighbours' best and its minimal feature set, as GET
 * /api/experiments/{id}/search says.
 */
class AnomalySearchBrowserIntegrationTests extends BrowserTest {

    private static AgentProcess agent;

    @AfterAll
    static void stopTheAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExperimentPageListsThePlantedAnomalyWithItsMinimalFeatureSet() throws Exception {
        // below 0.2: the planted point moves 500 cycles/s of 64 KiB, a few % of its neighbours' rate on loopback; in CI a
        // 200 ms run at 4 QPs of 4 KiB once measured under half of 1 QP's, was flagged too and took the planted point's
        // minimal set down to {qps_per_thread}. This test is about the card, not about the machine's noise.
        agent = AgentProcess.start(port, "anomaly-browser", TOKEN);
        awaitAgentsConnected(List.of("anomaly-browser"), agent::log);
        Map<String, Object> created = http().post().uri("/api/experiments")
                .contentType(MediaType.parseMediaType("application/yaml")).bodyValue("""
                        name: anomalies on the page
                        base: {provider: tcp, msg_size: 4K, duration_ms: 200}
                        dimensions: {qps_per_thread: [1, 4], msg_size: [4K, 64K]}
                        search: {anomalies: [qps_per_thread, msg_size], max_runs: 12, below: 0.2}
                        overrides: [{when: {qps_per_thread: 4, msg_size: 64K}, set: {rate_limit: 500}}]
                        """).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        assertThat(awaitExperimentEnd(id, Duration.ofMinutes(2), agent::log).get("status")).isEqualTo("FINISHED");
        Map<String, Object> search = http().get().uri("/api/experiments/" + id + "/search").exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        List<Map<String, Object>> anomalies = (List<Map<String, Object>>) ((Map<String, Object>) ((Map<String, Object>)
                search.get("anomalies")).get("report")).get("anomalies");

        open("#/experiments/" + id);
        WebElement line = waitFor(By.cssSelector("[data-chart=kneeSearch] .search-result[data-state=done]"));
        assertThat(line.getDomAttribute("data-kind")).isEqualTo("anomalies");
        assertThat(line.getText()).startsWith("Done: " + anomalies.size() + " anomal");
        assertThat(browser.findElement(By.cssSelector("[data-chart=kneeSearch] .chart-title")).getText())
                .isEqualTo("Anomaly search: bw_avg_bps over qps_per_thread, msg_size");
        List<WebElement> rows = browser.findElements(By.cssSelector("#search-anomalies tbody tr"));
        assertThat(rows).hasSize(anomalies.size());
        assertThat(rows).anySatisfy(row -> {
            List<WebElement> cells = row.findElements(By.tagName("td"));
            assertThat(cells.get(0).getText()).isEqualTo("qps_per_thread 4, msg_size 64 KiB");
            assertThat(cells.get(3).getText()).isEqualTo("qps_per_thread 4, msg_size 64 KiB");
            assertThat(cells.get(1).getText()).endsWith("%)");
        });
    }
}
