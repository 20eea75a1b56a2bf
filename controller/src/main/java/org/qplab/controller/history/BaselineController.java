package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.run.Fingerprint;
import org.springframework.http.HttpStatus;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Runs' fingerprints and the baselines marked for them: GET /api/runs/{id}/fingerprint,
 * PUT and DELETE /api/runs/{id}/baseline, GET /api/baselines.
 */
@RestController
@Tag(name = ApiTags.HISTORY)
class BaselineController {

    /** What a run's fingerprint is made of. */
    record RunFingerprint(long runId, String fingerprint, Map<String, Object> params, Map<String, Object> host) {}

    private final Jdbc jdbc;
    private final BaselineRepository baselines;
    private final TransactionTemplate tx;

    BaselineController(Jdbc jdbc, BaselineRepository baselines, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.baselines = baselines;
        this.tx = tx;
    }

    /** 409 while the run has not started on a host: until then it has no host facts. */
    @GetMapping("/api/runs/{id}/fingerprint")
    @Operation(operationId = "getRunFingerprint", summary = "A run's fingerprint",
            description = "What makes runs comparable: a hash of the run's parameters and its host's facts (kernel, "
                    + "CPU model, engine, device, ...), with both. 409 while the run has not started on a host: until "
                    + "then it has no host facts.")
    @ApiResponse(responseCode = "200", description = "The fingerprint and what it is made of.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<RunFingerprint> fingerprint(@PathVariable long id) {
        return jdbc.call(() -> {
            BaselineRepository.RunIdentity run = identity(id);
            if (run.hostFacts() == null) {
                throw new Conflict("run " + id + " is " + run.status() + " and has not run on a host yet: no fingerprint");
            }
            return new RunFingerprint(id, Fingerprint.of(run.params(), run.hostFacts()), run.params(),
                    Fingerprint.host(run.hostFacts()));
        });
    }

    /** Marks a finished run as the baseline of its fingerprint (replacing the one before); 409 unless FINISHED. */
    @PutMapping("/api/runs/{id}/baseline")
    @Operation(operationId = "markBaseline", summary = "Mark a run as its fingerprint's baseline",
            description = "Makes the finished run the baseline of its fingerprint, replacing the one before; later "
                    + "runs with the same fingerprint compare against it. 409 unless the run FINISHED. Needs an "
                    + "operator.")
    @ApiResponse(responseCode = "200", description = "The baseline now marked.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Baseline> mark(@PathVariable long id) {
        return jdbc.call(() -> tx.execute(status -> {
            BaselineRepository.RunIdentity run = identity(id);
            if (!run.status().equals("FINISHED")) {
                throw new Conflict("run " + id + " is " + run.status() + ": only a finished run can be a baseline");
            }
            baselines.mark(Fingerprint.of(run.params(), run.hostFacts()), id);
            return baselines.byRun(id).orElseThrow();
        }));
    }

    @DeleteMapping("/api/runs/{id}/baseline")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "unmarkBaseline", summary = "Unmark a baseline",
            description = "The run is no longer its fingerprint's baseline (404 when it is not one); the fingerprint "
                    + "then has none. Needs an operator.")
    @ApiResponse(responseCode = "204", description = "Unmarked.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Void> unmark(@PathVariable long id) {
        return jdbc.run(() -> {
            identity(id);
            if (!baselines.unmark(id)) {
                throw new NotFound("run " + id + " is not a baseline");
            }
        });
    }

    /** Every baseline, the most recently marked first. */
    @GetMapping("/api/baselines")
    @Operation(operationId = "listBaselines", summary = "List baselines",
            description = "Every baseline, the most recently marked first: its fingerprint, run, experiment, and the "
                    + "parameters and host facts the fingerprint is made of.")
    @ApiResponse(responseCode = "200", description = "The baselines.")
    Mono<List<Baseline>> list() {
        return jdbc.call(baselines::list);
    }

    private BaselineRepository.RunIdentity identity(long id) {
        return baselines.identity(id).orElseThrow(() -> new NotFound("no run " + id));
    }
}
