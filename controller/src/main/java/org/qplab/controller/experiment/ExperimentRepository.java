package org.qplab.controller.experiment;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.controller.api.Conflict;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/** Experiments and their runs' creation. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class ExperimentRepository {

    private static final String SELECT = """
            SELECT e.id, e.name, e.status, e.created_at, e.finished_at, %s AS matrix, e.submitted_by,
                   count(r.id) FILTER (WHERE r.superseded_by IS NULL) AS total,
                   count(r.id) FILTER (WHERE r.status IN ('FINISHED', 'FAILED', 'CANCELLED') AND r.superseded_by IS NULL) AS done,
                   count(r.id) FILTER (WHERE r.status = 'FAILED' AND r.superseded_by IS NULL) AS failed,
                   count(r.id) FILTER (WHERE r.status = 'RUNNING') AS running,
                   count(r.id) FILTER (WHERE r.superseded_by IS NOT NULL) AS retried,
                   avg(extract(epoch FROM r.finished_at - r.started_at)::double precision)
                       FILTER (WHERE r.status = 'FINISHED') AS mean_run_seconds,
                   array(SELECT DISTINCT x.params ->> 'provider' FROM run x
                         WHERE x.experiment_id = e.id AND x.params ->> 'provider' IS NOT NULL ORDER BY 1) AS providers,
                   coalesce(e.matrix -> 'imported' ->> 'tool', 'qplab') AS tool, e.matrix -> 'imported' ->> 'from' AS imported_from,
                   array(SELECT DISTINCT a FROM run x, unnest(ARRAY[x.agent_id, x.server_agent_id]) a
                         WHERE x.experiment_id = e.id AND a IS NOT NULL ORDER BY 1) AS agents,
                   jsonb_typeof(e.matrix -> 'expect') = 'object' AND e.matrix -> 'expect' <> '{}'::jsonb AS expects,
                   count(r.id) FILTER (WHERE r.superseded_by IS NULL AND v.verdict = 'PASS') AS runs_passed,
                   count(r.id) FILTER (WHERE r.superseded_by IS NULL AND v.verdict = 'FAIL') AS runs_failed,
                   count(r.id) FILTER (WHERE r.superseded_by IS NULL AND (v.verdict = 'NOT_JUDGED'
                       OR v.verdict IS NULL AND r.status IN ('FINISHED', 'FAILED', 'CANCELLED'))) AS runs_not_judged,
                   count(r.id) FILTER (WHERE r.superseded_by IS NULL AND r.status IN ('QUEUED', 'RUNNING')) AS runs_pending
            FROM experiment e LEFT JOIN run r ON r.experiment_id = e.id LEFT JOIN run_expectation v ON v.run_id = r.id
            """;

    private final JdbcClient jdbc;
    private final JdbcTemplate template;
    private final TransactionTemplate tx;
    private final ObjectMapper json;

    public ExperimentRepository(JdbcClient jdbc, JdbcTemplate template, TransactionTemplate tx, ObjectMapper json) {
        this.jdbc = jdbc;
        this.template = template;
        this.tx = tx;
        this.json = json;
    }

    /** Stores the experiment (submitted by that account) and all of its runs, QUEUED, in one transaction. */
    public long create(Matrix matrix, String submitter) {
        return tx.execute(status -> {
            long id = jdbc.sql("INSERT INTO experiment (name, matrix, submitted_by) VALUES (?, CAST(? AS jsonb), ?) RETURNING id")
                    .params(matrix.name(), json.writeValueAsString(matrix.source()), submitter)
                    .query(Long.class).single();
            List<Matrix.RunPoint> runs = matrix.runs();
            List<Object[]> rows = new java.util.ArrayList<>(runs.size());
            for (int i = 0; i < runs.size(); i++) {
                Matrix.RunPoint run = runs.get(i);
                rows.add(new Object[] {id, i, run.repeat(), json.writeValueAsString(run.params()), run.client(), run.server()});
            }
            template.batchUpdate("""
                    INSERT INTO run (experiment_id, idx, repeat, params, want_client, want_server)
                    VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?)""", rows);
            return id;
        });
    }

    /** A run that was under way when its experiment was cancelled. */
    public record RunningRun(long runId, String agentId, String serverAgentId) {}

    /**
     * Cancels the experiment and its queued runs; returns the runs still running, whose agents must
     * be told. Empty Optional when there is no such experiment; Conflict when it has already ended.
     */
    public Optional<List<RunningRun>> cancel(long id) {
        return tx.execute(status -> {
            Optional<String> state = jdbc.sql("SELECT status FROM experiment WHERE id = ? FOR UPDATE").param(id)
                    .query(String.class).optional();
            if (state.isEmpty()) {
                return Optional.empty();
            }
            if (!List.of("QUEUED", "RUNNING").contains(state.get())) {
                throw new Conflict("experiment " + id + " already ended (" + state.get() + ")");
            }
            jdbc.sql("UPDATE experiment SET status = 'CANCELLED', finished_at = now() WHERE id = ?").param(id).update();
            jdbc.sql("UPDATE run SET status = 'CANCELLED', finished_at = now() WHERE experiment_id = ? AND status = 'QUEUED'")
                    .param(id).update();
            return Optional.of(jdbc.sql("SELECT id, agent_id, server_agent_id FROM run WHERE experiment_id = ? AND status = 'RUNNING'")
                    .param(id).query((rs, i) -> new RunningRun(rs.getLong(1), rs.getString(2), rs.getString(3))).list());
        });
    }

    /**
     * Deletes an ended experiment and everything its runs keep: the rows of run_trace and run_interval (which have no
     * foreign key), then the experiment, whose foreign keys cascade to run, run_frame, run_summary,
     * run_histogram, run_baseline and run_expectation. False when there is no such experiment; Conflict while it, or one of its
     * runs, is queued or running. Its runs are locked first (in id order, as ingest claims them), so a frame in
     * flight for one commits before, or fails alone after, and leaves nothing behind.
     */
    public boolean delete(long id) {
        return Boolean.TRUE.equals(tx.execute(status -> {
            Optional<String> state = jdbc.sql("SELECT status FROM experiment WHERE id = ? FOR UPDATE").param(id)
                    .query(String.class).optional();
            if (state.isEmpty()) {
                return false;
            }
            if (List.of("QUEUED", "RUNNING").contains(state.get())) {
                throw new Conflict("experiment " + id + " is " + state.get() + ": cancel it first (POST /api/experiments/"
                        + id + "/cancel), then delete it");
            }
            List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id FOR UPDATE").param(id)
                    .query(Long.class).list();
            long active = jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ? AND status IN ('QUEUED', 'RUNNING')")
                    .param(id).query(Long.class).single();
            if (active > 0) {
                throw new Conflict("experiment " + id + " is " + state.get() + " but " + active + " of its runs are still"
                        + " running: delete it once their agents have stopped them");
            }
            Long[] ids = runs.toArray(Long[]::new);
            jdbc.sql("DELETE FROM run_trace WHERE run_id = ANY(?)").param(ids).update();
            jdbc.sql("DELETE FROM run_interval WHERE run_id = ANY(?)").param(ids).update();
            jdbc.sql("DELETE FROM experiment WHERE id = ?").param(id).update();
            return true;
        }));
    }

    /** Newest first; statuses empty = any status, nameContains null = any name (else case-insensitive substring). */
    public List<Experiment> list(List<String> statuses, String nameContains) {
        return jdbc.sql(SELECT.formatted("NULL") + """
                        WHERE (cardinality(?::text[]) = 0 OR e.status = ANY(?::text[]))
                          AND (?::text IS NULL OR strpos(lower(e.name), lower(?::text)) > 0)
                        GROUP BY e.id ORDER BY e.id DESC""")
                .params(statuses.toArray(String[]::new), statuses.toArray(String[]::new), nameContains, nameContains)
                .query(this::map).list();
    }

    /** The experiment, with the first of its expectations' failures. */
    public Optional<Experiment> find(long id) {
        return jdbc.sql(SELECT.formatted("e.matrix::text") + " WHERE e.id = ? GROUP BY e.id")
                .param(id).query(this::map).optional()
                .map(e -> e.expectations() == null ? e : e.withExpectations(e.expectations().withFailures(failures(id))));
    }

    /**
     * The rules of the experiment's current runs that failed or were not judged, in run order: a run that passed
     * lists none, and a rule on a metric a run does not measure only when no other rule applied to it.
     */
    private List<ExperimentExpectations.Failure> failures(long id) {
        return jdbc.sql("""
                        SELECT r.id, rule ->> 'result', rule ->> 'rule', rule ->> 'message'
                        FROM run r JOIN run_expectation v ON v.run_id = r.id, jsonb_array_elements(v.rules) rule
                        WHERE r.experiment_id = ? AND r.superseded_by IS NULL AND v.verdict <> 'PASS'
                          AND (rule ->> 'result' NOT IN ('PASS', 'NOT_MEASURED')
                               OR rule ->> 'result' = 'NOT_MEASURED' AND v.verdict = 'NOT_JUDGED')
                        ORDER BY r.idx, r.id LIMIT ?""")
                .params(id, ExperimentExpectations.MAX_FAILURES)
                .query((rs, i) -> new ExperimentExpectations.Failure(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getString(4)))
                .list();
    }

    private Experiment map(ResultSet rs, int row) throws SQLException {
        String matrix = rs.getString("matrix");
        @SuppressWarnings("unchecked")
        Map<String, Object> source = matrix == null ? null : json.readValue(matrix, Map.class);
        String status = rs.getString("status");
        int total = rs.getInt("total");
        int done = rs.getInt("done");
        int running = rs.getInt("running");
        Double mean = rs.getObject("mean_run_seconds", Double.class);
        return new Experiment(rs.getLong("id"), rs.getString("name"), status,
                rs.getObject("created_at", OffsetDateTime.class), rs.getObject("finished_at", OffsetDateTime.class),
                total, done, rs.getInt("failed"), running, rs.getInt("retried"), mean,
                Experiment.secondsLeft(status, total, done, running, mean), source, rs.getString("submitted_by"),
                strings(rs, "providers"), rs.getString("tool"), rs.getString("imported_from"), strings(rs, "agents"), null,
                expectations(rs));
    }

    private static ExperimentExpectations expectations(ResultSet rs) throws SQLException {
        if (!rs.getBoolean("expects")) {
            return null;
        }
        int failed = rs.getInt("runs_failed");
        int pending = rs.getInt("runs_pending");
        int notJudged = rs.getInt("runs_not_judged");
        return new ExperimentExpectations(ExperimentExpectations.verdict(failed, pending, notJudged),
                rs.getInt("runs_passed"), failed, notJudged, pending, null);
    }

    private static List<String> strings(ResultSet rs, String column) throws SQLException {
        return List.of((String[]) rs.getArray(column).getArray());
    }
}
