package org.qplab.controller.history;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** What a comparison reads. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class ComparisonRepository {

    /** A finished run with its summary numbers and the host it ran on. */
    public record FinishedRun(long id, Map<String, Object> params, Map<String, Object> hostFacts, long cycles,
                              double bwAvgBps, double msgRate, double cycleMedianNs) {}

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public ComparisonRepository(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    public Optional<String> experimentName(long id) {
        return jdbc.sql("SELECT name FROM experiment WHERE id = ?").param(id).query(String.class).optional();
    }

    @SuppressWarnings("unchecked")
    public List<FinishedRun> finishedRuns(long experimentId) {
        return jdbc.sql("""
                        SELECT r.id, r.params::text, coalesce(r.host_facts, '{}'::jsonb)::text, s.cycles, s.bw_avg_bps,
                               s.msg_rate, s.cycle_median_ns
                        FROM run r JOIN run_summary s ON s.run_id = r.id
                        WHERE r.experiment_id = ? AND r.status = 'FINISHED' ORDER BY r.idx, r.repeat""")
                .param(experimentId)
                .query((rs, i) -> new FinishedRun(rs.getLong(1), json.readValue(rs.getString(2), Map.class),
                        json.readValue(rs.getString(3), Map.class), rs.getLong(4), rs.getDouble(5), rs.getDouble(6),
                        rs.getDouble(7)))
                .list();
    }

    /** The cycle times of these runs, pooled: their stored histograms merged (see V3__run_histogram.sql). */
    public MannWhitney.Counts cycleTimes(List<Long> runIds) {
        List<long[]> rows = jdbc.sql("""
                        SELECT bucket, sum(count)::bigint FROM run_histogram WHERE run_id = ANY(?)
                        GROUP BY bucket ORDER BY bucket""")
                .param(runIds.toArray(Long[]::new))
                .query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)}).list();
        return new MannWhitney.Counts(rows.stream().mapToLong(r -> r[0]).toArray(), rows.stream().mapToLong(r -> r[1]).toArray());
    }
}
