package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The Changes page: an open change point of a stepped series (ten nightly experiments, bandwidth 20 % lower from the
 * sixth on) listed with its numbers and its series drawn over time, the first run after the change marked; dismissed
 * with a reason from the page, it leaves the open list and the API keeps who and why.
 */
class ChangesBrowserIntegrationTests extends BrowserTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    @SuppressWarnings("unchecked")
    void anOpenChangeIsShownWithItsSeriesAndDismissedWithAReason() throws Exception {
        long sixth = 0;
        for (int night = 0; night < 10; night++) {
            long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes)
                    .create("[4096]", 500 + night, night < 5 ? 1.0 : 1.25, "changes-page-6.20", 5, 0.03);
            sixth = night == 5 ? experiment : sixth;
        }
        long firstAfter = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(sixth).query(Long.class).single();
        long id = jdbc.sql("SELECT id FROM change_point WHERE run_after = ? AND metric = 'bw_avg_bps'").param(firstAfter)
                .query(Long.class).single();
        double percent = jdbc.sql("SELECT change_percent FROM change_point WHERE id = ?").param(id).query(Double.class).single();

        open("#/changes");
        WebElement card = waitFor(By.cssSelector("section.change[data-change-id='" + id + "']"));
        assertThat(card.findElement(By.tagName("h2")).getText()).startsWith("BW avg (Gbit/s): -")
                .contains(String.format(java.util.Locale.ROOT, "%.1f %%", Math.abs(percent)), "25 runs before");
        assertThat(card.getText()).contains("and run #" + firstAfter, "(experiment #" + sixth + ")");
        String chart = "change" + id;
        awaitCharts(Duration.ofSeconds(20), chart);
        Map<String, List<Map<String, Double>>> drawn = points(chart);
        assertThat(drawn.get("each run")).hasSize(50);
        assertThat(drawn.get("median of each experiment's runs")).hasSize(10);
        assertThat(drawn.get("first run after the change")).hasSize(1);

        card.findElement(By.cssSelector("input.reason")).sendKeys("a noisy neighbour that night");
        card.findElement(By.cssSelector("button.dismiss")).click();
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.invisibilityOfElementLocated(
                By.cssSelector("section.change[data-change-id='" + id + "']")));
        Map<String, Object> dismissed = ((List<Map<String, Object>>) (List<?>) http().get()
                .uri("/api/changes?status=dismissed").exchange().expectStatus().isOk().expectBodyList(Map.class)
                .returnResult().getResponseBody()).stream().filter(c -> ((Number) c.get("id")).longValue() == id)
                .findFirst().orElseThrow();
        assertThat(dismissed).containsEntry("status", "dismissed").containsEntry("decidedBy", "admin")
                .containsEntry("reason", "a noisy neighbour that night");

        open("#/changes?status=dismissed");
        WebElement shown = waitFor(By.cssSelector("section.change[data-change-id='" + id + "'] .decision"));
        assertThat(shown.getText()).startsWith("Dismissed by admin ").endsWith(": a noisy neighbour that night");
    }
}
