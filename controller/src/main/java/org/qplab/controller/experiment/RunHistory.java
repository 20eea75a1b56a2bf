package org.qplab.controller.experiment;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/**
 * Finished runs as {@link DurationEstimate} asks about them: measured by qplab (imports are not: they have no start
 * and end of their own), ended FINISHED with a start, an end after it and a summary. Each question is one statement
 * for all the matrix's points (a JSON array of them, joined by jsonb equality). Blocking: call through
 * {@link org.qplab.controller.database.Jdbc}.
 */
@Repository
class RunHistory implements DurationEstimate.History {

    /** The runs a question reads: finished, measured here, with a summary. */
    private static final String FINISHED = """
            FROM run r JOIN run_summary s ON s.run_id = r.id JOIN experiment e ON e.id = r.experiment_id
            WHERE r.status = 'FINISHED' AND r.started_at IS NOT NULL AND r.finished_at > r.started_at
              AND e.matrix -> 'imported' IS NULL""";
    private static final String WALL = "extract(epoch FROM r.finished_at - r.started_at)";
    private static final String OVERHEAD = "greatest(0, " + WALL + " - s.duration_ns / 1e9)";
    /** How many of a provider's latest runs its overhead is the mean of. */
    private static final int RECENT = 200;

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    RunHistory(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    @Override
    public Map<Integer, DurationEstimate.Same> same(List<Map<String, Object>> points) {
        Map<Integer, DurationEstimate.Same> found = new HashMap<>();
        jdbc.sql("""
                WITH wanted AS (SELECT i - 1 AS i, p FROM jsonb_array_elements(CAST(? AS jsonb)) WITH ORDINALITY AS w(p, i))
                SELECT w.i, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY %s)
                %s AND r.params = w.p
                GROUP BY w.i""".formatted(WALL, FINISHED.replace("FROM run r", "FROM wanted w, run r")))
                .param(json.writeValueAsString(points))
                .query((rs, n) -> found.put(rs.getInt(1), new DurationEstimate.Same(rs.getLong(2), rs.getDouble(3))))
                .list();
        return found;
    }

    @Override
    public Map<Integer, DurationEstimate.Similar> similar(List<Map<String, Object>> points, List<String> lengthKeys) {
        Map<Integer, DurationEstimate.Similar> found = new HashMap<>();
        jdbc.sql("""
                WITH wanted AS (SELECT i - 1 AS i, p FROM jsonb_array_elements(CAST(? AS jsonb)) WITH ORDINALITY AS w(p, i))
                SELECT w.i, count(*), sum(s.cycles)::float8 / nullif(sum(s.duration_ns), 0) * 1e9, avg(%s)
                %s AND (r.params - CAST(? AS text[])) = w.p
                GROUP BY w.i""".formatted(OVERHEAD, FINISHED.replace("FROM run r", "FROM wanted w, run r")))
                .params(json.writeValueAsString(points), lengthKeys.toArray(String[]::new))
                .query((rs, n) -> found.put(rs.getInt(1), new DurationEstimate.Similar(rs.getLong(2),
                        rs.getDouble(3), rs.getDouble(4))))
                .list();
        return found;
    }

    @Override
    public Map<String, DurationEstimate.Overhead> overhead() {
        Map<String, DurationEstimate.Overhead> found = new HashMap<>();
        jdbc.sql("""
                SELECT provider, count(*), avg(overhead) FROM (
                    SELECT r.params ->> 'provider' AS provider, %s AS overhead,
                           row_number() OVER (PARTITION BY r.params ->> 'provider' ORDER BY r.finished_at DESC) AS k
                    %s) latest
                WHERE k <= ? AND provider IS NOT NULL
                GROUP BY provider""".formatted(OVERHEAD, FINISHED))
                .param(RECENT)
                .query((rs, n) -> found.put(rs.getString(1), new DurationEstimate.Overhead(rs.getLong(2), rs.getDouble(3))))
                .list();
        return found;
    }
}
