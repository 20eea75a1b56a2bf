package org.qplab.controller.storage;

import java.util.List;
import java.util.Map;
import org.qplab.controller.api.Conflict;
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
class StorageController {

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final RunStorage storage;

    StorageController(Jdbc jdbc, JdbcClient sql, RunStorage storage) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.storage = storage;
    }

    @GetMapping("/api/runs/{id}/storage")
    Mono<RunStorage.Usage> storage(@PathVariable long id) {
        return jdbc.call(() -> {
            status(id);
            return storage.of(id);
        });
    }

    @DeleteMapping("/api/runs/{id}/trace")
    Mono<Map<String, Object>> deleteRunTrace(@PathVariable long id) {
        return jdbc.call(() -> {
            String status = status(id);
            if (status.equals("QUEUED") || status.equals("RUNNING")) {
                throw new Conflict("run " + id + " is " + status + ": delete its trace once it has ended");
            }
            return Map.of("deleted", storage.deleteTrace(List.of(id)), "runs", List.of(id));
        });
    }

    @DeleteMapping("/api/experiments/{id}/trace")
    Mono<Map<String, Object>> deleteExperimentTrace(@PathVariable long id) {
        return jdbc.call(() -> {
            sql.sql("SELECT 1 FROM experiment WHERE id = ?").param(id).query(Integer.class).optional()
                    .orElseThrow(() -> new NotFound("no experiment " + id));
            List<Long> ended = sql.sql("SELECT id FROM run WHERE experiment_id = ? AND status NOT IN ('QUEUED', 'RUNNING')")
                    .param(id).query(Long.class).list();
            List<Long> runs = storage.runsWithTrace(id).stream().filter(ended::contains).toList();
            return Map.of("deleted", storage.deleteTrace(runs), "runs", runs);
        });
    }

    private String status(long id) {
        return sql.sql("SELECT status FROM run WHERE id = ?").param(id).query(String.class).optional()
                .orElseThrow(() -> new NotFound("no run " + id));
    }
}
