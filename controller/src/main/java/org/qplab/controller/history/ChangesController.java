package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** /api/changes: the change points found in the fingerprints' series, and their triage (confirm, dismiss). */
@RestController
@Tag(name = ApiTags.HISTORY)
class ChangesController {

    private final Jdbc jdbc;
    private final ChangeTriage triage;

    ChangesController(Jdbc jdbc, ChangeTriage triage) {
        this.jdbc = jdbc;
        this.triage = triage;
    }

    @Schema(description = "Why the change is decided so: kept with the decision, who and when.")
    record Decision(@Schema(description = "Why.", example = "firmware 28.39 on both hosts") String reason) {
    }

    @GetMapping("/api/changes")
    @Operation(operationId = "listChanges", summary = "Change points, newest first",
            description = "The change points found in each fingerprint's run-level series (E-Divisive means, as runs "
                    + "finish): open ones await triage; confirmed ones are a new normal (their series restarts there); "
                    + "dismissed ones are hidden from the open list and restart nothing.")
    @ApiResponse(responseCode = "200", description = "The change points.")
    Mono<List<ChangeTriage.Change>> list(
            @Parameter(description = "open (default), confirmed, dismissed or all; repeatable or comma-separated")
            @RequestParam(required = false) List<String> status,
            @Parameter(description = "At most this many, 1..1000.") @RequestParam(defaultValue = "200") int limit) {
        List<String> wanted = new ArrayList<>();
        for (String s : status == null ? List.of("open") : status) {
            for (String one : s.split(",")) {
                if (!one.isBlank() && !one.strip().equals("all")) {
                    wanted.add(one.strip());
                }
            }
        }
        List<Violation> problems = new ArrayList<>();
        wanted.stream().filter(s -> !ChangeTriage.STATUSES.contains(s)).forEach(s -> problems.add(new Violation(
                "status", "must be open, confirmed, dismissed or all, got " + s)));
        if (limit < 1 || limit > 1000) {
            problems.add(new Violation("limit", "must be 1..1000, got " + limit));
        }
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid changes request", problems));
        }
        return jdbc.call(() -> triage.list(wanted, limit));
    }

    @PostMapping("/api/changes/{id}/confirm")
    @Operation(operationId = "confirmChange", summary = "Confirm a change: a new normal",
            description = "The series restarts at the change: later runs are judged against the new level only. Needs "
                    + "an operator and a reason; audited with who and when.")
    @ApiResponse(responseCode = "200", description = "The change, confirmed.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", description = "Already confirmed or dismissed (by whom, when, why).")
    Mono<ChangeTriage.Change> confirm(@PathVariable long id, @RequestBody(required = false) Decision decision,
                                      Principal who) {
        return jdbc.call(() -> triage.confirm(id, who.getName(), decision == null ? null : decision.reason()));
    }

    @PostMapping("/api/changes/{id}/dismiss")
    @Operation(operationId = "dismissChange", summary = "Dismiss a change: not a change",
            description = "Hidden from the open list; its series goes on as it was. Needs an operator and a reason; "
                    + "audited with who and when.")
    @ApiResponse(responseCode = "200", description = "The change, dismissed.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", description = "Already confirmed or dismissed (by whom, when, why).")
    Mono<ChangeTriage.Change> dismiss(@PathVariable long id, @RequestBody(required = false) Decision decision,
                                      Principal who) {
        return jdbc.call(() -> triage.dismiss(id, who.getName(), decision == null ? null : decision.reason()));
    }
}
