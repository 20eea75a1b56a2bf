package org.qplab.controller.run;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.protocol.TraceRecord;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** /api/runs/{id}: one run, its summary, its per-cycle trace. */
@RestController
@RequestMapping("/api/runs/{id}")
@Tag(name = ApiTags.RUNS)
class RunController {

    static final int MAX_TRACE_RECORDS_PER_PAGE = 100_000;

    private final Jdbc jdbc;
    private final RunRepository runs;

    RunController(Jdbc jdbc, RunRepository runs) {
        this.jdbc = jdbc;
        this.runs = runs;
    }

    @GetMapping
    @Operation(operationId = "getRun", summary = "One run",
            description = "The run: its engine parameters, status, the agents it ran on, its try (attempt), start and "
                    + "end, its summary once finished, its fingerprint and whether it is that fingerprint's baseline, "
                    + "and what it keeps stored (cyclesStored, traceStored).")
    @ApiResponse(responseCode = "200", description = "The run.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Run> get(@PathVariable long id) {
        return jdbc.call(() -> find(id));
    }

    @GetMapping("/summary")
    @Operation(operationId = "getRunSummary", summary = "A run's summary",
            description = "The engine's summary of an ended run (perftest's definitions): cycles, messages, bytes, "
                    + "errors, duration_ns, bw_avg_bps and bw_peak_bps (bytes per second), msg_rate (messages per "
                    + "second), cycle_ns {min, median, avg, stdev, p99, p999, max} in nanoseconds, and the same per "
                    + "thread (per_thread); the verbs provider adds its device, knobs and what the receiving side got "
                    + "(peer). 404 also while the run has none yet.")
    @ApiResponse(responseCode = "200", description = "The summary, as the engine wrote it.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Map<String, Object>> summary(@PathVariable long id) {
        return jdbc.call(() -> {
            Run run = find(id);
            if (run.summary() == null) {
                throw new NotFound("run " + id + " has no summary yet (status " + run.status() + ")");
            }
            return run.summary();
        });
    }

    /**
     * Trace records in (thread, cycle) order; page with fromThread/fromCycle = the last seen + 1. The path and
     * the operation id keep the name they were published with (samples).
     */
    @GetMapping("/samples")
    @Operation(operationId = "listRunSamples", summary = "A run's per-cycle trace, a page",
            description = "The trace records the run kept (the matrix's trace_first and trace_every choose them), in "
                    + "(thread, cycle) order: each cycle's start and end (ns since the run's t0), bytes, messages and "
                    + "errors. The next page starts at fromThread/fromCycle = the last record's thread and cycle + 1; "
                    + "a page shorter than limit is the last.")
    @ApiResponse(responseCode = "200", description = "Up to limit trace records.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<List<TraceRecord>> trace(@PathVariable long id,
                               @Parameter(description = "The first thread of the page.")
                               @RequestParam(defaultValue = "0") int fromThread,
                               @Parameter(description = "The first cycle of fromThread in the page.")
                               @RequestParam(defaultValue = "0") long fromCycle,
                               @Parameter(description = "The most records in the page, 1 to 100000.")
                               @RequestParam(defaultValue = "10000") int limit) {
        if (limit < 1 || limit > MAX_TRACE_RECORDS_PER_PAGE) {
            return Mono.error(new BadRequest("bad request", List.of(new Violation("limit",
                    "must be between 1 and " + MAX_TRACE_RECORDS_PER_PAGE + ", got " + limit))));
        }
        return jdbc.call(() -> {
            find(id);
            return runs.trace(id, fromThread, fromCycle, limit);
        });
    }

    private Run find(long id) {
        return runs.find(id).orElseThrow(() -> new NotFound("no run " + id));
    }
}
