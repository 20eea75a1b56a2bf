package org.qplab.controller.run;

import java.util.List;
import java.util.Map;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.protocol.Sample;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** /api/runs/{id}: one run, its summary, its per-cycle samples. */
@RestController
@RequestMapping("/api/runs/{id}")
class RunController {

    static final int MAX_SAMPLES_PER_PAGE = 100_000;

    private final Jdbc jdbc;
    private final RunRepository runs;

    RunController(Jdbc jdbc, RunRepository runs) {
        this.jdbc = jdbc;
        this.runs = runs;
    }

    @GetMapping
    Mono<Run> get(@PathVariable long id) {
        return jdbc.call(() -> find(id));
    }

    @GetMapping("/summary")
    Mono<Map<String, Object>> summary(@PathVariable long id) {
        return jdbc.call(() -> {
            Run run = find(id);
            if (run.summary() == null) {
                throw new NotFound("run " + id + " has no summary yet (status " + run.status() + ")");
            }
            return run.summary();
        });
    }

    /** Samples in (thread, cycle) order; page with fromThread/fromCycle = the last seen + 1. */
    @GetMapping("/samples")
    Mono<List<Sample>> samples(@PathVariable long id, @RequestParam(defaultValue = "0") int fromThread,
                               @RequestParam(defaultValue = "0") long fromCycle,
                               @RequestParam(defaultValue = "10000") int limit) {
        if (limit < 1 || limit > MAX_SAMPLES_PER_PAGE) {
            return Mono.error(new BadRequest("bad request", List.of(new Violation("limit",
                    "must be between 1 and " + MAX_SAMPLES_PER_PAGE + ", got " + limit))));
        }
        return jdbc.call(() -> {
            find(id);
            return runs.samples(id, fromThread, fromCycle, limit);
        });
    }

    private Run find(long id) {
        return runs.find(id).orElseThrow(() -> new NotFound("no run " + id));
    }
}
