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
 * A knee search's card on the experiment page: the curve of the values measured, the bracket of the knee (or cliff)
 * marked on it, and the sentence saying where it lies, as GET /api/experiments/{id}/search says.
 */
class KneeSearchBrowserIntegrationTests extends BrowserTest {

    private static AgentProcess agent;

    @AfterAll
    static void stopTheAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExperimentPageMarksTheKneeTheSearchFound() throws Exception {
        agent = AgentProcess.start(port, "knee-browser", TOKEN);
        awaitAgentsConnected(List.of("knee-browser"), agent::log);
        Map<String, Object> created = http().post().uri("/api/experiments")
                .contentType(MediaType.parseMediaType("application/yaml")).bodyValue("""
                        name: knee on the page
                        base: {provider: tcp, msg_size: 64K, duration_ms: 200}
                        search: {knee: threads, low: 1, high: 8, max_runs: 10}
                        """).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        assertThat(awaitExperimentEnd(id, Duration.ofMinutes(2), agent::log).get("status")).isEqualTo("FINISHED");
        Map<String, Object> search = http().get().uri("/api/experiments/" + id + "/search").exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        Map<String, Object> result = (Map<String, Object>) search.get("result");

        open("#/experiments/" + id);
        WebElement line = waitFor(By.cssSelector("[data-chart=kneeSearch] .search-result[data-state=done]"));
        assertThat(line.getDomAttribute("data-kind")).isEqualTo(result.get("kind"));
        assertThat(browser.findElement(By.cssSelector("[data-chart=kneeSearch] .chart-title")).getText())
                .isEqualTo("Knee search: bw_avg_bps [Gbit/s] vs threads");
        assertThat(browser.findElement(By.cssSelector("[data-chart=kneeSearch]")).getDomAttribute("class"))
                .contains("has-chart");
        int points = ((List<?>) search.get("points")).size();
        if (result.get("kind").equals("none")) {
            assertThat(line.getText()).startsWith("No knee: ");
        } else {
            String kind = result.get("kind").equals("cliff") ? "Cliff" : "Knee";
            assertThat(line.getText()).startsWith(kind + " at threads " + result.get("value") + " (between "
                    + result.get("bracketLow") + "–" + result.get("bracketHigh")).contains("found in " + points + " values");
            assertThat(line.getDomAttribute("data-bracket-low")).isEqualTo(String.valueOf(result.get("bracketLow")));
            // the curve and the bracket: two datasets in the chart, the bracket's points at its ends
            List<Object> bracket = (List<Object>) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
                    "const c = Chart.getChart(document.querySelector('[data-chart=kneeSearch] canvas'));"
                            + "return c.data.datasets.length === 2 ? c.data.datasets[1].data.map(p => p.x) : null;");
            assertThat(bracket).extracting(x -> ((Number) x).longValue())
                    .containsExactly(((Number) result.get("bracketLow")).longValue(),
                            ((Number) result.get("bracketHigh")).longValue());
        }
    }
}
