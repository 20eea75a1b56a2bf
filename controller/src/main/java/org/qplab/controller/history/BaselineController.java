package org.qplab.controller.history;

import java.util.List;
import java.util.Map;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
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
    Mono<List<Baseline>> list() {
        return jdbc.call(baselines::list);
    }

    private BaselineRepository.RunIdentity identity(long id) {
        return baselines.identity(id).orElseThrow(() -> new NotFound("no run " + id));
    }
}
