package org.qplab.controller.recurring;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Csv;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.Forbidden;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.ValidText;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.experiment.Matrix;
import org.qplab.controller.experiment.RunsEstimate;
import org.qplab.controller.experiment.Submissions;
import org.qplab.controller.security.Role;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * /api/schedules: recurring experiments. A matrix with a schedule (a cron expression in the controller's time zone,
 * or every so many hours), checked when it is made as a submit would check it, and submitted at each occurrence by
 * {@link RecurringTicker}; list (JSON or CSV), one with its occurrences, enable, disable, delete.
 */
@RestController
@Tag(name = ApiTags.SCHEDULES)
class RecurringController {

    /** POST /api/schedules body. */
    record NewSchedule(
            @Schema(description = "Shown in lists; default the matrix's name.", maxLength = 200) String name,
            @Schema(description = "Spring's cron expression, 6 fields with seconds first (second minute hour "
                    + "day-of-month month day-of-week), in the controller's time zone: '0 0 2 * * *' is 02:00 every day. "
                    + "Give this or everyHours.", example = "0 0 2 * * *") String cron,
            @Schema(description = "Fire every so many hours (1 to 8784), the first that long after it is made. Give "
                    + "this or cron.", example = "24") @JsonAlias("every_hours") Integer everyHours,
            @Schema(type = "string", description = "The matrix POST /api/experiments takes, as its text (YAML or "
                    + "JSON, as contentType says); the matrix itself as a JSON object is taken too.",
                    requiredMode = Schema.RequiredMode.REQUIRED, example = "base: {provider: tcp, msg_size: 4K}")
            JsonNode matrix,
            @Schema(description = "The media type of the matrix's text: application/yaml (the default) or "
                    + "application/json; a JSON object is application/json.") String contentType) {}

    private final Jdbc jdbc;
    private final RecurringRepository schedules;
    private final Submissions submissions;
    private final ObjectMapper json;

    RecurringController(Jdbc jdbc, RecurringRepository schedules, Submissions submissions, ObjectMapper json) {
        this.jdbc = jdbc;
        this.schedules = schedules;
        this.submissions = submissions;
        this.json = json;
    }

    @PostMapping("/api/schedules")
    @Operation(operationId = "createSchedule", summary = "Make a recurring experiment",
            description = "Stores a matrix with its schedule, enabled: at each occurrence the matrix is submitted as "
                    + "POST /api/experiments would submit it, as this account; an occurrence whose previous experiment "
                    + "is still queued or running is skipped, and the skip recorded. The matrix is checked now as a "
                    + "submit checks it: one 400 lists every violation of it (fields under matrix.) and of the "
                    + "schedule: a cron expression that is not one (quoted, with why), neither or both of cron and "
                    + "everyHours, or a schedule that fires more often than the matrix's runs are estimated to take. "
                    + "Needs an operator.")
    @ApiResponse(responseCode = "201", description = "Made: the schedule, with when it fires first.", headers = @Header(
            name = HttpHeaders.LOCATION, description = "The schedule's URL: /api/schedules/{id}",
            schema = @Schema(type = "string")))
    Mono<ResponseEntity<RecurringSchedule>> create(@RequestBody NewSchedule body, Principal who) {
        List<Violation> problems = new ArrayList<>(Cadence.problems(body.cron(), body.everyHours()));
        if (body.name() != null) {
            if (body.name().isBlank() || body.name().length() > 200) {
                problems.add(new Violation("name", "must be 1-200 characters, or left out for the matrix's name"));
            } else {
                ValidText.check("name", body.name(), problems);
            }
        }
        String contentType = body.matrix() != null && body.matrix().isObject() ? "application/json"
                : body.contentType() == null ? "application/yaml" : body.contentType().strip().toLowerCase(Locale.ROOT);
        String text = body.matrix() == null ? null
                : body.matrix().isString() ? body.matrix().stringValue()
                : body.matrix().isObject() ? json.writeValueAsString(body.matrix()) : null;
        if (text == null) {
            problems.add(new Violation("matrix", "is missing: give the matrix POST /api/experiments takes, as its YAML "
                    + "or JSON text or as a JSON object"));
        } else if (!contentType.equals("application/yaml") && !contentType.equals("application/json")) {
            problems.add(new Violation("contentType", "must be application/yaml or application/json, got " + contentType));
        }
        if (text == null || problems.stream().anyMatch(p -> p.field().equals("contentType"))) {
            return Mono.error(new BadRequest("invalid schedule", problems));
        }
        Cadence cadence = new Cadence(body.cron(), body.everyHours(), ZoneId.systemDefault());
        return submissions.expand(text.getBytes(StandardCharsets.UTF_8), contentType)
                .map(matrix -> new Checked(matrix, List.<Violation>of()))
                .onErrorResume(BadRequest.class, bad -> Mono.just(new Checked(null, bad.violations().stream()
                        .map(v -> new Violation(v.field().isEmpty() ? "matrix" : "matrix." + v.field(), v.message()))
                        .toList())))
                .flatMap(checked -> jdbc.call(() -> {
                    List<Violation> all = new ArrayList<>(problems);
                    all.addAll(checked.violations());
                    Instant now = Instant.now();
                    if (all.isEmpty()) {
                        tooOften(cadence, submissions.estimate(checked.matrix()), now, all);
                    }
                    if (!all.isEmpty()) {
                        throw new BadRequest("invalid schedule", all);
                    }
                    String name = body.name() != null ? body.name() : checked.matrix().name();
                    long id = schedules.create(name, text, contentType, cadence, who.getName(), cadence.first(now));
                    return schedules.find(id).orElseThrow();
                }))
                .map(made -> ResponseEntity.created(URI.create("/api/schedules/" + made.id())).body(made));
    }

    /** The matrix as expanded, or the violations of it (their fields under matrix.). */
    private record Checked(Matrix matrix, List<Violation> violations) {}

    /** A violation when the schedule fires more often than its matrix's runs are estimated to take. */
    private static void tooOften(Cadence cadence, RunsEstimate estimate, Instant now, List<Violation> violations) {
        Duration gap = cadence.shortestGap(now);
        if (estimate.seconds() != null && estimate.seconds() > gap.toMillis() / 1000.0) {
            violations.add(new Violation(cadence.cron() != null ? "cron" : "everyHours", String.format(Locale.ROOT,
                    "%s fires every %s at its closest, but the matrix's runs take an estimated %s (%s): its "
                            + "occurrences would overlap and be skipped; fire less often, or make the matrix shorter",
                    cadence.describe(), words(gap), words(Duration.ofMillis(Math.round(estimate.seconds() * 1000))),
                    estimate.basis())));
        }
    }

    /** 2 s, 1 min 30 s, 2 h, 1 d 2 h. */
    static String words(Duration d) {
        long s = d.toSeconds();
        List<String> parts = new ArrayList<>();
        long[] units = {86400, 3600, 60, 1};
        String[] names = {"d", "h", "min", "s"};
        for (int i = 0; i < units.length; i++) {
            if (s >= units[i]) {
                parts.add(s / units[i] + " " + names[i]);
                s %= units[i];
            }
        }
        if (parts.isEmpty()) {
            return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
        }
        return String.join(" ", parts.subList(0, Math.min(2, parts.size())));
    }

    @GetMapping("/api/schedules")
    @Operation(operationId = "listSchedules", summary = "List recurring experiments",
            description = "Every schedule, newest first: when it fires next and what its latest occurrence produced.")
    @ApiResponse(responseCode = "200", description = "The schedules, newest first.")
    Mono<List<RecurringSchedule>> list() {
        return jdbc.call(schedules::list);
    }

    @GetMapping("/api/schedules.csv")
    @Operation(operationId = "exportSchedulesCsv", summary = "Every recurring experiment as CSV",
            description = "One line per schedule, newest first: id, name, enabled, cron, every_hours, time_zone, "
                    + "next_run_at, owner, and its latest occurrence: last_due, last_outcome, last_experiment, "
                    + "last_reason (ISO 8601 times). Text a spreadsheet would take for a formula gets a leading '.")
    @ApiResponse(responseCode = "200", description = "The schedules, RFC 4180 CSV with a header line.",
            content = @Content(mediaType = "text/csv", schema = @Schema(type = "string", format = "binary")))
    Mono<ResponseEntity<String>> csv() {
        return jdbc.call(() -> {
            Csv out = new Csv().row("id", "name", "enabled", "cron", "every_hours", "time_zone", "next_run_at", "owner",
                    "last_due", "last_outcome", "last_experiment", "last_reason");
            for (RecurringSchedule s : schedules.list()) {
                RecurringSchedule.Occurrence last = s.last();
                out.row(s.id(), s.name(), s.enabled(), s.cron(), s.everyHours(), s.timeZone(), s.nextRunAt(), s.owner(),
                        last == null ? null : last.dueAt(), last == null ? null : last.outcome(),
                        last == null ? null : last.experimentId(), last == null ? null : last.reason());
            }
            return ResponseEntity.ok().contentType(Csv.MEDIA_TYPE).body(out.toString());
        });
    }

    @GetMapping("/api/schedules/{id}")
    @Operation(operationId = "getSchedule", summary = "One recurring experiment",
            description = "The schedule with its occurrences, newest first (the last 500): each the experiment it "
                    + "submitted, or why it was skipped, or the submit's error.")
    @ApiResponse(responseCode = "200", description = "The schedule and its occurrences.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<RecurringSchedule> get(@PathVariable long id) {
        return jdbc.call(() -> schedules.find(id).orElseThrow(() -> notFound(id))
                .withOccurrences(schedules.occurrences(id)));
    }

    @PostMapping("/api/schedules/{id}/enable")
    @Operation(operationId = "enableSchedule", summary = "Enable a recurring experiment",
            description = "It fires again, first at its next time after now (nothing that fell due while it was "
                    + "disabled). One enabled already is left as it is. Needs an operator.")
    @ApiResponse(responseCode = "200", description = "The schedule, enabled, with when it fires next.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<RecurringSchedule> enable(@PathVariable long id) {
        return jdbc.call(() -> {
            RecurringSchedule schedule = schedules.find(id).orElseThrow(() -> notFound(id));
            Cadence cadence = new Cadence(schedule.cron(), schedule.everyHours(), ZoneId.systemDefault());
            schedules.setEnabled(id, true, cadence.first(Instant.now()));
            return schedules.find(id).orElseThrow(() -> notFound(id));
        });
    }

    @PostMapping("/api/schedules/{id}/disable")
    @Operation(operationId = "disableSchedule", summary = "Disable a recurring experiment",
            description = "It fires no more until it is enabled; its experiments already submitted go on (cancel them "
                    + "with POST /api/experiments/{id}/cancel). Needs an operator.")
    @ApiResponse(responseCode = "200", description = "The schedule, disabled.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<RecurringSchedule> disable(@PathVariable long id) {
        return jdbc.call(() -> {
            if (!schedules.setEnabled(id, false, null)) {
                throw notFound(id);
            }
            return schedules.find(id).orElseThrow(() -> notFound(id));
        });
    }

    @DeleteMapping("/api/schedules/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "deleteSchedule", summary = "Delete a recurring experiment",
            description = "Deletes the schedule and its occurrences' history; the experiments it submitted stay. An "
                    + "admin may delete any schedule, an operator only those it made (403 otherwise).")
    @ApiResponse(responseCode = "204", description = "Deleted.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Void> delete(@PathVariable long id, Authentication who) {
        return jdbc.run(() -> {
            RecurringSchedule schedule = schedules.find(id).orElseThrow(() -> notFound(id));
            if (Role.of(who.getAuthorities()) != Role.ADMIN && !who.getName().equals(schedule.owner())) {
                throw new Forbidden("only an admin or the account that made schedule " + id + " (" + schedule.owner()
                        + ") may delete it; disable it instead (POST /api/schedules/" + id + "/disable)");
            }
            if (!schedules.delete(id)) {
                throw notFound(id);
            }
        });
    }

    private static NotFound notFound(long id) {
        return new NotFound("no schedule " + id + " (GET /api/schedules lists them)");
    }
}
