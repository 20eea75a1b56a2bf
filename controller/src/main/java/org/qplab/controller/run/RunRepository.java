package org.qplab.controller.run;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.provider.Providers;
import org.qplab.protocol.TraceRecord;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** Reads runs, their summaries and trace records. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class RunRepository {

    private static final String SELECT = """
            SELECT r.id, r.experiment_id, r.idx, r.repeat, r.params::text AS params, r.status, r.agent_id, r.attempt,
                   r.started_at, r.finished_at, r.error, s.summary::text AS summary, r.server_summary::text AS server_summary,
                   r.host_facts::text AS host_facts,
                   CASE WHEN r.want_client IS NOT NULL THEN concat_ws('/', r.want_client, r.want_server) END AS hosts,
                   b.run_id IS NOT NULL AS baseline, r.superseded_by, r.retry_of, r.trace_deleted_at,
                   (SELECT coalesce(sum(cycles), 0) FROM run_frame sb WHERE sb.run_id = r.id) AS cycles_stored,
                   (SELECT coalesce(sum(rows), 0) FROM run_frame sb WHERE sb.run_id = r.id) AS trace_stored,
                   x.verdict, x.rules::text AS expectation_rules, x.judged_at
            FROM run r LEFT JOIN run_summary s ON s.run_id = r.id LEFT JOIN run_baseline b ON b.run_id = r.id
                 LEFT JOIN run_expectation x ON x.run_id = r.id
            """;

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public RunRepository(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    public List<Run> byExperiment(long experimentId) {
        return jdbc.sql(SELECT + " WHERE r.experiment_id = ? ORDER BY r.idx").param(experimentId).query(this::map).list();
    }

    public Optional<Run> find(long id) {
        return jdbc.sql(SELECT + " WHERE r.id = ?").param(id).query(this::map).optional();
    }

    /** Trace records of a run in (thread, cycle) order, from a cursor, at most limit of them. */
    public List<TraceRecord> trace(long runId, int fromThread, long fromCycle, int limit) {
        return jdbc.sql("""
                        SELECT thread, errors, cycle, start_ns, end_ns, bytes, messages FROM run_trace
                        WHERE run_id = ? AND (thread, cycle) >= (?, ?) ORDER BY thread, cycle LIMIT ?""")
                .params(runId, fromThread, fromCycle, limit)
                .query((rs, i) -> new TraceRecord(rs.getInt(1), rs.getInt(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
                        rs.getLong(6), rs.getLong(7)))
                .list();
    }

    private Run map(ResultSet rs, int row) throws SQLException {
        String summary = rs.getString("summary");
        String serverSummary = rs.getString("server_summary");
        String hostFacts = rs.getString("host_facts");
        Map<String, Object> params = toMap(rs.getString("params"));
        return new Run(rs.getLong("id"), rs.getLong("experiment_id"), rs.getInt("idx"), rs.getInt("repeat"),
                params, Providers.find(params).map(ProviderSpec::counts).orElse(ProviderSpec.Counts.MESSAGES).name()
                        .toLowerCase(Locale.ROOT), rs.getString("hosts"), rs.getString("status"), rs.getString("agent_id"), rs.getInt("attempt"),
                rs.getObject("started_at", OffsetDateTime.class), rs.getObject("finished_at", OffsetDateTime.class),
                rs.getString("error"), summary == null ? null : toMap(summary),
                serverSummary == null ? null : toMap(serverSummary),
                hostFacts == null ? null : Fingerprint.of(params, toMap(hostFacts)), rs.getBoolean("baseline"),
                rs.getObject("superseded_by", Long.class), rs.getObject("retry_of", Long.class),
                List.of("FAILED", "CANCELLED").contains(rs.getString("status")) && rs.getLong("cycles_stored") > 0,
                rs.getLong("cycles_stored"), rs.getObject("trace_deleted_at") == null ? rs.getLong("trace_stored") : 0,
                rs.getObject("trace_deleted_at", OffsetDateTime.class), expectation(rs));
    }

    private RunExpectation expectation(ResultSet rs) throws SQLException {
        String rules = rs.getString("expectation_rules");
        if (rules == null) {
            return null;
        }
        return new RunExpectation(rs.getString("verdict"), rs.getObject("judged_at", OffsetDateTime.class),
                List.of(json.readValue(rules, RunExpectation.Rule[].class)));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> toMap(String text) {
        return json.readValue(text, Map.class);
    }
}
