package org.qplab.controller.storage;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * GET /api/runs/{id}/storage: what a run keeps (rows and bytes of its intervals, trace and histogram).
 * DELETE /api/runs/{id}/trace and DELETE /api/experiments/{id}/trace: delete the per-cycle trace of an ended
 * run, or of every ended run of an experiment ({"deleted": rows, "runs": [...]}); the intervals, summaries and
 * histograms stay, and so does every number the dashboard shows. A run still queued or running answers 409.
 */
@RestController
@Tag(name = ApiTags.STORAGE)
class StorageController {

    /** What a trace deletion deleted. */
    record TraceDeleted(@Schema(description = "The trace rows deleted.") long deleted,
                        @Schema(description = "The runs whose trace was deleted.") List<Long> runs) {}

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final RunStorage storage;

    StorageController(Jdbc jdbc, JdbcClient sql, RunStorage storage) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.storage = storage;
    }

    @GetMapping("/api/runs/{id}/storage")
    @Operation(operationId = "getRunStorage", summary = "What a run keeps stored",
            description = "Rows and bytes (pg_column_size, indexes not counted) of the run's intervals, per-cycle "
                    + "trace and histogram, and their total in bytes.")
    @ApiResponse(responseCode = "200", description = "The run's storage.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<RunStorage.Usage> storage(@PathVariable long id) {
        return jdbc.call(() -> {
            status(id);
            return storage.of(id);
        });
    }

    @DeleteMapping("/api/runs/{id}/trace")
    @Operation(operationId = "deleteRunTrace", summary = "Delete a run's per-cycle trace",
            description = "Deletes the trace of an ended run; its intervals, summary and histogram stay, and so does "
                    + "every number the dashboard shows. 409 while the run is queued or running. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "What was deleted.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<TraceDeleted> deleteRunTrace(@PathVariable long id) {
        return jdbc.call(() -> {
            String status = status(id);
            if (status.equals("QUEUED") || status.equals("RUNNING")) {
                throw new Conflict("run " + id + " is " + status + ": delete its trace once it has ended");
            }
            return new TraceDeleted(storage.deleteTrace(List.of(id)), List.of(id));
        });
    }

    @DeleteMapping("/api/experiments/{id}/trace")
    @Operation(operationId = "deleteExperimentTrace", summary = "Delete the per-cycle trace of an experiment's runs",
            description = "Deletes the trace of every ended run of the experiment (runs still queued or running keep "
                    + "theirs); intervals, summaries and histograms stay. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "What was deleted.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<TraceDeleted> deleteExperimentTrace(@PathVariable long id) {
        return jdbc.call(() -> {
            sql.sql("SELECT 1 FROM experiment WHERE id = ?").param(id).query(Integer.class).optional()
                    .orElseThrow(() -> new NotFound("no experiment " + id));
            List<Long> ended = sql.sql("SELECT id FROM run WHERE experiment_id = ? AND status NOT IN ('QUEUED', 'RUNNING')")
                    .param(id).query(Long.class).list();
            List<Long> runs = storage.runsWithTrace(id).stream().filter(ended::contains).toList();
            return new TraceDeleted(storage.deleteTrace(runs), runs);
        });
    }

    private String status(long id) {
        return sql.sql("SELECT status FROM run WHERE id = ?").param(id).query(String.class).optional()
                .orElseThrow(() -> new NotFound("no run " + id));
    }
}
