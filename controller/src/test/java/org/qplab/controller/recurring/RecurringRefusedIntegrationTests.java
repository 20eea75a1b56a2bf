package org.qplab.controller.recurring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/**
 * An occurrence whose submit is refused when it fires (here: past qplab.limits.user-queued-runs, a 429 for POST
 * /api/experiments) is recorded as FAILED with the refusal, stores no experiment, and the schedule goes on: the submit
 * ran behind a savepoint of the claim's transaction. A controller of its own, for the limit.
 */
@TestPropertySource(properties = "qplab.limits.user-queued-runs=1")
@SuppressWarnings("unchecked")
class RecurringRefusedIntegrationTests extends ControllerIntegrationTest {

    @Test
    void anOccurrenceWhoseSubmitIsRefusedIsRecordedAsFailedWithTheErrorAndTheScheduleGoesOn() throws Exception {
        Map<String, Object> made = http().post().uri("/api/schedules").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "over the limit", "everyHours", 1, "matrix",
                        "base: {provider: tcp, iterations: 100}\ndimensions: {msg_size: [64, 4K]}\n"))
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) made.get("id")).longValue();
        assertThat(OffsetDateTime.parse((String) made.get("nextRunAt"))).isAfter(OffsetDateTime.now().plusMinutes(59));

        jdbc.sql("UPDATE recurring SET next_run_at = date_trunc('second', now()) WHERE id = ?").param(id).update();
        Await.until("the occurrence", Duration.ofSeconds(30),
                () -> count("recurring_occurrence WHERE recurring_id = " + id) == 1, () -> "");

        Map<String, Object> schedule = http().get().uri("/api/schedules/{id}", id).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        Map<String, Object> failed = ((List<Map<String, Object>>) schedule.get("occurrences")).get(0);
        assertThat(failed).containsEntry("outcome", "FAILED").doesNotContainKey("experimentId");
        assertThat((String) failed.get("reason")).contains("qplab.limits.user-queued-runs", "admin");
        assertThat(count("experiment")).as("the refused submit stored nothing").isZero();
        assertThat(count("run")).isZero();
        assertThat(schedule).containsEntry("enabled", true);
        assertThat(OffsetDateTime.parse((String) schedule.get("nextRunAt"))).as("it goes on, an hour on")
                .isAfter(OffsetDateTime.now().plusMinutes(59));
    }
}
