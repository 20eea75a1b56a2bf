package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * The Schedules page with a real agent running tcp on loopback: a schedule whose cron is not one is refused on the
 * page with the API's violations, each shown; one made there every 2 s fires experiments that finish, each linked
 * from the list; disabled from the page, the API says so and it fires no more; its own page lists its occurrences
 * as the API does, with the webhook's deliveries of the alerts about its experiments; an operator who did not make it
 * is refused its Delete, the API's words shown in its row. A schedule that has produced nothing for twice its period
 * is flagged stale, as GET /api/alerts says.
 */
@SuppressWarnings("unchecked")
class SchedulesBrowserIntegrationTests extends BrowserTest {

    private static final String AGENT = "schedules-agent";
    private static final String MATRIX = "name: schedules page tcp\nhosts: {loopback: [" + AGENT + "]}\n"
            + "base: {provider: tcp, msg_size: 4K, iterations: 200}\n";
    private static final Pattern EXPERIMENT = Pattern.compile("#(\\d+) FINISHED");

    @Test
    void aScheduleMadeOnThePageFiresExperimentsThatFinishUntilItIsDisabledThere() throws Exception {
        long stale = jdbc.sql("""
                        INSERT INTO recurring (name, matrix, content_type, every_hours, next_run_at, owner, created_at)
                        VALUES ('page stale', '{}', 'application/json', 1, now() + interval '1 hour', 'admin',
                                now() - interval '3 hours') RETURNING id""").query(Long.class).single();
        Long made = null;
        try (AgentProcess agent = AgentProcess.start(port, AGENT, TOKEN)) {
            awaitAgentsConnected(List.of(AGENT), agent::log);
            open("#/schedules");
            waitFor(By.id("schedule-form"));
            fill("schedule-name", "page every two seconds");
            fill("schedule-matrix", MATRIX);
            fill("schedule-cadence", "0 2 * * *");
            click(By.cssSelector("#schedule-form button[type=submit]"));
            WebElement refused = waitFor(By.id("schedule-violations"));
            List<Map<String, Object>> violations = (List<Map<String, Object>>) http().post().uri("/api/schedules")
                    .contentType(MediaType.APPLICATION_JSON).bodyValue(Map.of("name", "page every two seconds",
                            "cron", "0 2 * * *", "matrix", MATRIX)).exchange().expectStatus().isBadRequest()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody().get("violations");
            assertThat(refused.findElements(By.tagName("li"))).extracting(WebElement::getText)
                    .containsExactlyElementsOf(violations.stream().map(v -> v.get("field") + ": " + v.get("message")).toList())
                    .anySatisfy(text -> assertThat(text).startsWith("cron: cron '0 2 * * *' is not a cron expression: "));

            fill("schedule-cadence", "*/2 * * * * *");
            click(By.cssSelector("#schedule-form button[type=submit]"));
            WebElement outcome = waiting(Duration.ofSeconds(10)).until(driver -> {
                WebElement shown = driver.findElement(By.id("schedule-outcome"));
                return shown.getText().startsWith("Made ") ? shown : null;
            });
            assertThat(browser.findElement(By.id("schedule-violations")).isDisplayed()).isFalse();
            long id = Long.parseLong(outcome.findElement(By.tagName("a")).getAttribute("href").replaceAll(".*#/schedules/", ""));
            made = id;
            Map<String, Object> schedule = schedule(id);
            assertThat(outcome.getText()).startsWith("Made page every two seconds (#" + id + "): first run ");
            assertThat(schedule).containsEntry("cron", "*/2 * * * * *").containsEntry("enabled", true)
                    .containsEntry("owner", "admin");

            waitFor(By.id("schedule-" + id));
            Map<String, String> row = waiting(Duration.ofSeconds(30)).withMessage(() -> agent.log()).until(driver -> {
                Map<String, String> shown = row(id);
                return shown.get("Last occurrence").startsWith("SUBMITTED") && EXPERIMENT.matcher(shown.get("Last occurrence"))
                        .find() ? shown : null;
            });
            assertThat(row).containsEntry("Schedule", "page every two seconds #" + id)
                    .containsEntry("Cadence", "*/2 * * * * * (every 2 seconds, " + schedule.get("timeZone") + ")")
                    .containsEntry("Enabled", "yes").containsEntry("Alert", "").containsEntry("Owner", "admin");
            assertThat(row.get("Next run")).isNotEqualTo("–");
            Matcher finished = EXPERIMENT.matcher(row.get("Last occurrence"));
            assertThat(finished.find()).isTrue();
            long experiment = Long.parseLong(finished.group(1));
            assertThat(get("/api/experiments/" + experiment)).containsEntry("status", "FINISHED")
                    .containsEntry("name", "schedules page tcp");
            assertThat(occurrences(id)).anySatisfy(o -> assertThat(o).containsEntry("outcome", "SUBMITTED")
                    .containsEntry("experimentId", (int) experiment));
            assertThat(browser.findElement(By.cssSelector("#schedule-" + id + " a[href='#/experiments/" + experiment + "']"))
                    .getText()).isEqualTo("#" + experiment);

            Map<String, String> staleRow = row(stale);
            assertThat(staleRow).containsEntry("Cadence", "every 1 hour").containsEntry("Alert", "stale")
                    .containsEntry("Last occurrence", "none yet");
            assertThat((List<Map<String, Object>>) get("/api/alerts").get("alerts")).extracting(a -> a.get("key"))
                    .anySatisfy(key -> assertThat((String) key).startsWith("stale:" + stale + ":"));

            click(By.cssSelector("#schedule-" + id + " button.schedule-toggle"));
            waiting(Duration.ofSeconds(10)).until(driver -> row(id).get("Enabled").equals("no"));
            assertThat(row(id)).containsEntry("Next run", "–");
            assertThat(browser.findElement(By.cssSelector("#schedule-" + id + " button.schedule-toggle")).getText())
                    .isEqualTo("Enable");
            assertThat(schedule(id)).containsEntry("enabled", false).doesNotContainKey("nextRunAt");
            int fired = occurrences(id).size();
            Thread.sleep(4000);
            List<Map<String, Object>> history = occurrences(id);
            assertThat(history).as("disabled, it fires no more").hasSize(fired);
            for (Map<String, Object> o : history) {
                if (o.get("experimentId") != null) {
                    awaitExperimentEnd(((Number) o.get("experimentId")).longValue(), Duration.ofSeconds(20), agent::log);
                }
            }
            jdbc.sql("""
                            INSERT INTO alert_delivery (key, kind, message, status, attempts, last_error)
                            VALUES (?, 'expectation', 'page: 1 run failed its expect rules', 'FAILED', 5, 'HTTP 503')""")
                    .param("expectation:" + experiment).update();

            click(By.cssSelector("#schedule-" + id + " td.name-cell a"));
            waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.cssSelector("#occurrences tbody tr"))
                    .size() == history.size() && driver.findElements(By.cssSelector("#deliveries tbody tr")).size() == 1
                    && !driver.findElement(By.id("occurrences")).getText().contains("RUNNING")
                    && !driver.findElement(By.id("occurrences")).getText().contains("QUEUED"));
            assertThat(browser.findElement(By.id("schedule-title")).getText()).isEqualTo("Schedule #" + id + " page every two seconds");
            List<Map<String, String>> rows = tableRows("occurrences");
            for (int i = 0; i < history.size(); i++) {
                Map<String, Object> o = history.get(i);
                Object experimentId = o.get("experimentId");
                assertThat(rows.get(i)).as("occurrence %d of %s", i, history)
                        .containsEntry("Outcome", (String) o.get("outcome"))
                        .containsEntry("Experiment", experimentId == null ? "" : "#" + experimentId + " "
                                + get("/api/experiments/" + experimentId).get("status"))
                        .containsEntry("Reason", o.get("reason") == null ? "" : (String) o.get("reason"));
            }
            assertThat(rows).anySatisfy(r -> assertThat(r).containsEntry("Experiment", "#" + experiment + " FINISHED"));
            assertThat(tableRows("deliveries")).singleElement().satisfies(d -> assertThat(d)
                    .containsEntry("Alert", "expectation:" + experiment + " page: 1 run failed its expect rules")
                    .containsEntry("Status", "FAILED").containsEntry("Tries", "5").containsEntry("Last error", "HTTP 503")
                    .containsEntry("Delivered", "–"));
            screenshot("schedule");

            String refusal = (String) anonymous().delete().uri("/api/schedules/{id}", id)
                    .header("Authorization", "Bearer " + tokenOf("operator")).exchange().expectStatus().isForbidden()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody().get("error");
            browser.manage().deleteAllCookies();
            logIn("test-operator", "password-of-operator");
            open("#/schedules");
            waitFor(By.id("schedule-" + id));
            click(By.cssSelector("#schedule-" + id + " button.schedule-delete"));
            browser.switchTo().alert().accept();
            assertThat(waitFor(By.cssSelector("#schedule-" + id + " .schedule-error")).getText())
                    .as("an operator may not delete the admin's schedule").isEqualTo(refusal)
                    .startsWith("only an admin or the account that made schedule " + id + " (admin) may delete it");
            assertThat(fits("schedules")).as("the list fits the page, the refusal shown").isTrue();
            screenshot("schedules");
            get("/api/schedules/" + id);
        } finally {
            jdbc.sql("DELETE FROM recurring WHERE id = ?").param(stale).update();
            if (made != null) {
                http().delete().uri("/api/schedules/{id}", made).exchange().expectStatus().isNoContent();
            }
        }
    }

    /** Types into a field as a person would, over what it held. */
    private void fill(String id, String text) {
        WebElement field = waitFor(By.id(id));
        field.clear();
        field.sendKeys(text);
    }

    private Map<String, String> row(long id) {
        return tableRows("schedules").stream().filter(r -> r.get("Schedule").endsWith(" #" + id)).findFirst()
                .orElseThrow(() -> new AssertionError("no row of schedule " + id + " in " + tableRows("schedules")));
    }

    private Map<String, Object> schedule(long id) {
        return get("/api/schedules/" + id);
    }

    private List<Map<String, Object>> occurrences(long id) {
        return (List<Map<String, Object>>) schedule(id).get("occurrences");
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }
}
