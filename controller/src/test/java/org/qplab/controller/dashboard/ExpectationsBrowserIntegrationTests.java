package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * An experiment's expect rules on its page and its run's: the verdict, which rule failed with what value, and each
 * run's verdict in the runs table.
 */
class ExpectationsBrowserIntegrationTests extends BrowserTest {

    @Test
    void theExperimentAndItsRunShowWhichRuleFailedAndWhichPassed() throws Exception {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"expect in the browser\",\"base\":{\"provider\":\"tcp\",\"msg_size\":4096,"
                        + "\"iterations\":200},\"expect\":{\"bw_avg_bps\":\"> 0\",\"bw_avg_gbps\":\">= 1e6\"}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long experiment = ((Number) created.get("id")).longValue();
        try (AgentProcess agent = AgentProcess.start(port, "expect-browser-agent", TOKEN)) {
            assertThat(awaitExperimentEnd(experiment, Duration.ofSeconds(90), agent::log).get("status"))
                    .isEqualTo("FINISHED");
        }
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        String message = jdbc.sql("SELECT rule ->> 'message' FROM run_expectation, jsonb_array_elements(rules) rule "
                + "WHERE run_id = ? AND rule ->> 'result' = 'FAIL'").param(run).query(String.class).single();

        open("#/");
        WebElement listed = waitFor(By.id("experiment-" + experiment));
        assertThat(listed.findElement(By.cssSelector(".expect-verdict")).getText()).as("the list shows the verdict")
                .isEqualTo("FAIL");
        assertThat(fits("experiments")).as("the list still fits its width").isTrue();

        open("#/experiments/" + experiment);
        WebElement box = waitFor(By.id("experiment-expectations"));
        assertThat(box.findElement(By.id("experiment-expect-verdict")).getText()).isEqualTo("FAIL");
        assertThat(box.getText()).contains("0 passed, 1 failed, 0 not judged", "Run #" + run + ": " + message);
        waiting(Duration.ofSeconds(20)).withMessage("the runs table shows the run's verdict").until(driver ->
                tableRows("runs").stream().anyMatch(row -> "FAIL".equals(row.get("Expect"))));
        screenshot("expectations-experiment");

        box.findElement(By.linkText("Run #" + run)).click();
        WebElement runBox = waitFor(By.id("run-expectation"));
        assertThat(runBox.findElement(By.id("run-expect-verdict")).getText()).isEqualTo("FAIL");
        List<String> rules = runBox.findElements(By.cssSelector("li.expect-rule")).stream().map(WebElement::getText)
                .toList();
        assertThat(rules).hasSize(2);
        assertThat(rules.get(0)).startsWith("PASS bw_avg_bps > 0 passed: measured ").endsWith(" B/s");
        assertThat(rules.get(1)).isEqualTo("FAIL " + message);
        screenshot("expectations-run");
    }
}
