package org.qplab.controller.history;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.controller.run.Fingerprint;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** The run_baseline table. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class BaselineRepository {

    /** A run's parameters and host facts, from which its fingerprint is computed. */
    public record RunIdentity(long runId, String status, Map<String, Object> params, Map<String, Object> hostFacts) {}

    private static final String SELECT = """
            SELECT b.fingerprint, r.id, r.experiment_id, e.name, r.params::text, coalesce(r.host_facts, '{}'::jsonb)::text,
                   b.marked_at
            FROM run_baseline b JOIN run r ON r.id = b.run_id JOIN experiment e ON e.id = r.experiment_id
            """;

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public BaselineRepository(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    @SuppressWarnings("unchecked")
    public Optional<RunIdentity> identity(long runId) {
        return jdbc.sql("SELECT id, status, params::text, host_facts::text FROM run WHERE id = ?").param(runId)
                .query((rs, i) -> new RunIdentity(rs.getLong(1), rs.getString(2), json.readValue(rs.getString(3), Map.class),
                        rs.getString(4) == null ? null : json.readValue(rs.getString(4), Map.class)))
                .optional();
    }

    /** Makes the run the baseline of its fingerprint, replacing the one before. */
    public void mark(String fingerprint, long runId) {
        jdbc.sql("""
                INSERT INTO run_baseline (fingerprint, run_id) VALUES (?, ?)
                ON CONFLICT (fingerprint) DO UPDATE SET run_id = excluded.run_id, marked_at = now()""")
                .params(fingerprint, runId).update();
    }

    public boolean unmark(long runId) {
        return jdbc.sql("DELETE FROM run_baseline WHERE run_id = ?").param(runId).update() == 1;
    }

    public Optional<Baseline> byRun(long runId) {
        return jdbc.sql(SELECT + " WHERE b.run_id = ?").param(runId).query(this::map).optional();
    }

    public List<Baseline> list() {
        return jdbc.sql(SELECT + " ORDER BY b.marked_at DESC, b.run_id DESC").query(this::map).list();
    }

    @SuppressWarnings("unchecked")
    private Baseline map(ResultSet rs, int row) throws SQLException {
        return new Baseline(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getString(4),
                json.readValue(rs.getString(5), Map.class), Fingerprint.host(json.readValue(rs.getString(6), Map.class)),
                rs.getObject(7, OffsetDateTime.class));
    }
}
