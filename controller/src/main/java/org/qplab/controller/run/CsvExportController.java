package org.qplab.controller.run;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.Csv;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import tools.jackson.databind.ObjectMapper;

/**
 * CSV for scripts and spreadsheets: GET /api/experiments.csv (one line per experiment) and
 * GET /api/experiments/{id}/runs.csv (one line per run: its parameters, one column each, and its
 * results with their units in the header; an empty cell is a value that was not measured). cycles_stored: the
 * cycles the stored intervals count (equal to cycles once a run finished: every cycle is stored). Text cells a
 * spreadsheet would take for a formula are neutralised ({@link Csv}).
 */
@RestController
@Tag(name = ApiTags.EXPORTS)
class CsvExportController {

    private static final String[] RESULTS = {"cycles", "cycles_stored", "messages", "bytes", "errors", "duration_ns",
            "bw_avg_bps", "bw_peak_bps", "msg_rate", "cycle_median_ns", "cycle_p99_ns", "intervals", "trace_rows"};
    private static final String[] RESULT_HEADERS = {"cycles", "cycles_stored", "messages", "bytes", "errors",
            "duration [ns]", "bw_avg [B/s]", "bw_peak [B/s]", "msg_rate [msg/s]", "cycle_median [ns]", "cycle_p99 [ns]",
            "intervals", "trace_rows"};

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final ObjectMapper json;

    CsvExportController(Jdbc jdbc, JdbcClient sql, ObjectMapper json) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.json = json;
    }

    @GetMapping("/api/experiments.csv")
    @Operation(operationId = "exportExperimentsCsv", summary = "Every experiment as CSV",
            description = "One line per experiment, oldest first: id, name, status, runs, done, failed, created, "
                    + "finished (ISO 8601). Retried tries are not counted. Text a spreadsheet would take for a formula "
                    + "gets a leading '.")
    @ApiResponse(responseCode = "200", description = "The experiments, RFC 4180 CSV with a header line.",
            content = @Content(mediaType = "text/csv", schema = @Schema(type = "string", format = "binary")))
    Mono<ResponseEntity<String>> experiments() {
        return jdbc.call(() -> {
            Csv out = new Csv().row("id", "name", "status", "runs", "done", "failed", "created", "finished");
            sql.sql("""
                            SELECT e.id, e.name, e.status, count(r.id) FILTER (WHERE r.superseded_by IS NULL),
                                   count(r.id) FILTER (WHERE r.status IN ('FINISHED', 'FAILED', 'CANCELLED')
                                                         AND r.superseded_by IS NULL),
                                   count(r.id) FILTER (WHERE r.status = 'FAILED' AND r.superseded_by IS NULL),
                                   e.created_at, e.finished_at
                            FROM experiment e LEFT JOIN run r ON r.experiment_id = e.id GROUP BY e.id ORDER BY e.id""")
                    .query((rs, i) -> {
                        out.row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                                rs.getLong(6), rs.getObject(7, OffsetDateTime.class), rs.getObject(8, OffsetDateTime.class));
                        return null;
                    }).list();
            return ResponseEntity.ok().contentType(Csv.MEDIA_TYPE).body(out.toString());
        });
    }

    @GetMapping("/api/experiments/{id}/runs.csv")
    @Operation(operationId = "exportExperimentRunsCsv", summary = "An experiment's runs as CSV",
            description = "One line per run in matrix order (retried tries left out): run, repeat, status, each "
                    + "parameter in a column of its own, then the results with their units in the header: cycles, "
                    + "cycles_stored, messages, bytes, errors, duration [ns], bw_avg and bw_peak [B/s], msg_rate "
                    + "[msg/s], cycle_median and cycle_p99 [ns], intervals, trace_rows. An empty cell was not "
                    + "measured. Text a spreadsheet would take for a formula gets a leading '.")
    @ApiResponse(responseCode = "200", description = "The runs, RFC 4180 CSV with a header line.",
            content = @Content(mediaType = "text/csv", schema = @Schema(type = "string", format = "binary")))
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<ResponseEntity<String>> runs(@PathVariable long id) {
        return jdbc.call(() -> {
            if (sql.sql("SELECT count(*) FROM experiment WHERE id = ?").param(id).query(Long.class).single() == 0) {
                throw new NotFound("no experiment " + id);
            }
            List<Object[]> rows = sql.sql("""
                            SELECT r.id, r.repeat, r.status, r.params::text, s.cycles, b.cycles, s.messages, s.bytes,
                                   s.errors, s.duration_ns, s.bw_avg_bps, s.bw_peak_bps, s.msg_rate, s.cycle_median_ns,
                                   s.cycle_p99_ns, b.intervals,
                                   CASE WHEN r.trace_deleted_at IS NULL THEN b.rows ELSE 0 END
                            FROM run r LEFT JOIN run_summary s ON s.run_id = r.id
                            LEFT JOIN LATERAL (SELECT sum(cycles) AS cycles, sum(intervals) AS intervals, sum(rows) AS rows
                                               FROM run_frame WHERE run_id = r.id) b ON true
                            WHERE r.experiment_id = ? AND r.superseded_by IS NULL ORDER BY r.idx""")
                    .param(id).query((rs, i) -> {
                        Object[] row = new Object[4 + RESULTS.length];
                        row[0] = rs.getLong(1);
                        row[1] = rs.getInt(2);
                        row[2] = rs.getString(3);
                        row[3] = json.readValue(rs.getString(4), Map.class);
                        for (int c = 0; c < RESULTS.length; c++) {
                            row[4 + c] = rs.getObject(5 + c);
                        }
                        return row;
                    }).list();
            TreeSet<String> keys = new TreeSet<>();
            rows.forEach(r -> ((Map<?, ?>) r[3]).keySet().forEach(k -> keys.add(String.valueOf(k))));
            Csv out = new Csv();
            List<Object> header = new ArrayList<>(List.of("run", "repeat", "status"));
            header.addAll(keys);
            header.addAll(List.of(RESULT_HEADERS));
            out.row(header);
            for (Object[] r : rows) {
                List<Object> cells = new ArrayList<>(List.of(r[0], r[1], r[2]));
                Map<?, ?> params = (Map<?, ?>) r[3];
                keys.forEach(k -> cells.add(params.get(k)));
                for (int c = 0; c < RESULTS.length; c++) {
                    cells.add(r[4 + c]);
                }
                out.row(cells);
            }
            return ResponseEntity.ok().contentType(Csv.MEDIA_TYPE).body(out.toString());
        });
    }
}
