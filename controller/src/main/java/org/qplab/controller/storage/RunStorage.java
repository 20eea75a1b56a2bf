package org.qplab.controller.storage;

import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * What a run keeps in PostgreSQL, and deleting its per-cycle trace: the intervals, the summary and the
 * histogram stay. Blocking: call through {@link org.qplab.controller.database.Jdbc}.
 */
@Repository
public class RunStorage {

    /** Rows and their bytes (pg_column_size of each row) in one table. */
    public record Part(long rows, long bytes) {}

    /** A run's rows by table; totalBytes is their sum (indexes not counted). */
    public record Usage(long runId, Part intervals, Part trace, Part histogram, long totalBytes) {}

    private final JdbcClient jdbc;

    public RunStorage(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Usage of(long runId) {
        Part intervals = part("run_interval", runId);
        Part trace = part("run_trace", runId);
        Part histogram = part("run_histogram", runId);
        return new Usage(runId, intervals, trace, histogram, intervals.bytes() + trace.bytes() + histogram.bytes());
    }

    private Part part(String table, long runId) {
        return jdbc.sql("SELECT count(*), coalesce(sum(pg_column_size(t.*)), 0) FROM " + table + " t WHERE run_id = ?")
                .param(runId).query((rs, i) -> new Part(rs.getLong(1), rs.getLong(2))).single();
    }

    /** Deletes the trace rows of these runs and notes when; returns the rows deleted. */
    public long deleteTrace(List<Long> runIds) {
        if (runIds.isEmpty()) {
            return 0;
        }
        Long[] ids = runIds.toArray(Long[]::new);
        long deleted = jdbc.sql("DELETE FROM run_trace WHERE run_id = ANY(?)").param(ids).update();
        jdbc.sql("UPDATE run SET trace_deleted_at = now() WHERE id = ANY(?) AND trace_deleted_at IS NULL").param(ids).update();
        return deleted;
    }

    /** The runs of an experiment that still have trace rows. */
    public List<Long> runsWithTrace(long experimentId) {
        return jdbc.sql("""
                        SELECT r.id FROM run r WHERE r.experiment_id = ? AND r.trace_deleted_at IS NULL
                          AND EXISTS (SELECT 1 FROM run_frame b WHERE b.run_id = r.id AND b.rows > 0)""")
                .param(experimentId).query(Long.class).list();
    }

    /** Ended runs with trace rows that finished before the cutoff. */
    public List<Long> runsWithTraceEndedBefore(java.time.OffsetDateTime cutoff) {
        return jdbc.sql("""
                        SELECT r.id FROM run r WHERE r.finished_at < ? AND r.trace_deleted_at IS NULL
                          AND r.status IN ('FINISHED', 'FAILED', 'CANCELLED')
                          AND EXISTS (SELECT 1 FROM run_frame b WHERE b.run_id = r.id AND b.rows > 0)""")
                .param(cutoff).query(Long.class).list();
    }
}
