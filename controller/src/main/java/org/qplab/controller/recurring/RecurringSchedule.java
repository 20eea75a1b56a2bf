package org.qplab.controller.recurring;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;

/** A recurring experiment as GET /api/schedules shows it; its occurrences only when one is asked for. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "A matrix submitted on a schedule: a cron expression in the controller's time zone, or every so "
        + "many hours. At most one of its experiments is queued or running at a time.")
public record RecurringSchedule(
        long id,
        String name,
        @Schema(description = "Spring's cron expression, 6 fields with seconds first; absent when everyHours is set.")
        String cron,
        @Schema(description = "Hours between occurrences; absent when cron is set.") Integer everyHours,
        @Schema(description = "The time zone the cron expression is read in: the controller's.") String timeZone,
        boolean enabled,
        @Schema(description = "When it fires next; absent while disabled.") OffsetDateTime nextRunAt,
        @Schema(description = "The account that made it: its experiments are submitted as that account's.")
        String owner,
        OffsetDateTime createdAt,
        @Schema(description = "The matrix as it was sent, submitted at each occurrence as POST /api/experiments would.")
        String matrix,
        @Schema(description = "The matrix's media type: application/json or application/yaml.") String contentType,
        @Schema(description = "The latest occurrence, if any.") Occurrence last,
        @Schema(description = "Its occurrences, newest first (the last 500): only on GET /api/schedules/{id}.")
        List<Occurrence> occurrences) {

    RecurringSchedule withOccurrences(List<Occurrence> all) {
        return new RecurringSchedule(id, name, cron, everyHours, timeZone, enabled, nextRunAt, owner, createdAt, matrix,
                contentType, last, all);
    }

    /** What one occurrence produced. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "Occurrence", description = "What one occurrence of a schedule produced.")
    public record Occurrence(
            long id,
            @Schema(description = "The time it was due.") OffsetDateTime dueAt,
            @Schema(description = "When this controller fired it (later than dueAt when no controller ran then).")
            OffsetDateTime firedAt,
            @Schema(description = "SUBMITTED (experimentId), SKIPPED (the previous occurrence's experiment was still "
                    + "queued or running) or FAILED (the submit was refused: reason has the error).",
                    allowableValues = {"SUBMITTED", "SKIPPED", "FAILED"}) String outcome,
            @Schema(description = "The experiment it submitted; absent once that experiment was deleted.")
            Long experimentId,
            @Schema(description = "Why it was skipped, or the submit's error.") String reason) {
    }
}
