package org.qplab.controller.run;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.qplab.engine.Engine;
import org.qplab.protocol.Interval;
import org.qplab.protocol.StoredHistogram;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** Reads a run's intervals (run_interval, V14). Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class RunIntervals {

    /** The engine's default interval length (its schema's), for runs whose parameters do not name one. */
    private static final class EngineDefault {
        static final long INTERVAL_MS = (Long) Engine.specDefaults().get("interval_ms");
    }

    private static final String COLUMNS = "thread, idx, span, cycles, messages, bytes, errors, min_ns, max_ns, "
            + "first_start_ns, last_end_ns, buckets";

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public RunIntervals(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** Every interval of the run in (thread, index) order. */
    public List<Interval> all(long runId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM run_interval WHERE run_id = ? ORDER BY thread, idx")
                .param(runId).query(RunIntervals::read).list();
    }

    /** The histograms of the run's intervals, in no order: what a run's histogram adds up (only that column read). */
    public List<Interval.Histogram> histograms(long runId) {
        return jdbc.sql("SELECT buckets FROM run_interval WHERE run_id = ?").param(runId)
                .query((rs, i) -> StoredHistogram.decode(rs.getBytes(1))).list();
    }

    /** A page of them in (thread, index) order from a cursor. */
    public List<Interval> page(long runId, int fromThread, long fromIndex, int limit) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM run_interval WHERE run_id = ? AND (thread, idx) >= (?, ?) "
                        + "ORDER BY thread, idx LIMIT ?")
                .params(runId, fromThread, fromIndex, limit).query(RunIntervals::read).list();
    }

    /** Those of its intervals with these keys (threads[k], indexes[k]), in (thread, index) order: primary-key lookups. */
    public List<Interval> keyed(long runId, int[] threads, long[] indexes) {
        if (threads.length == 0) {
            return List.of();
        }
        return jdbc.sql("SELECT " + COLUMNS + " FROM run_interval WHERE run_id = ? AND (thread, idx) IN "
                        + "(SELECT * FROM unnest(?::int[], ?::bigint[])) ORDER BY thread, idx")
                .params(runId, threads, indexes).query(RunIntervals::read).list();
    }

    /** The length of the run's intervals in ns (its interval_ms, else the engine's default). */
    public long intervalNs(long runId) {
        String params = jdbc.sql("SELECT params::text FROM run WHERE id = ?").param(runId).query(String.class).single();
        Object ms = json.readValue(params, Map.class).get("interval_ms");
        return (ms instanceof Number n ? n.longValue() : EngineDefault.INTERVAL_MS) * 1_000_000L;
    }

    static Interval read(ResultSet rs, int row) throws SQLException {
        Interval.Histogram h = StoredHistogram.decode(rs.getBytes(12)); // either format (V14's pairs, V33's runs)
        return new Interval(rs.getInt(1), rs.getLong(2), rs.getInt(3), rs.getLong(4), rs.getLong(5), rs.getLong(6),
                rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getLong(11), h.buckets(), h.counts());
    }
}
