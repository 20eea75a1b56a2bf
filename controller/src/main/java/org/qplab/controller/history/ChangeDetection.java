package org.qplab.controller.history;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.run.RunFinished;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Keeps change_point up to date as runs finish (V24__change_points.sql): each series of the finished run's
 * fingerprint that issue 36 watches is scanned on from where its last scan stopped ({@link EDivisive#resume}),
 * reading only the runs from there (by keyset), so the detector's work is one or two windows however long the
 * history is; what still grows with it is the count of the fingerprint's runs that tells whether the part already
 * scanned changed (an index range; ~20 ms a run in all at 10,000 runs on the shared 2-core machine). A series is
 * ordered as the history shows it (finished_at, id) over the runs whose value is positive, so positions match
 * GET /api/fingerprints/{fingerprint}/history's changes. One series at a time per fingerprint and metric: its
 * change_scan row is locked. Blocking; a failure is logged, never the run's end.
 */
@Component
public class ChangeDetection {

    /** The run-level series watched: bandwidth, message rate (an NVMe-oF run's IOPS), typical and p99 latency. */
    static final List<Metric> WATCHED = List.of("bw_avg_bps", "msg_rate", "latency_typical_us", "latency_p99_us")
            .stream().map(name -> Metric.byName(name).orElseThrow()).toList();

    private static final Logger log = LoggerFactory.getLogger(ChangeDetection.class);

    /**
     * Where a series was scanned to: its length, its last run, where the next scan resumes and the run there, and
     * how many runs of the fingerprint (any metric) finished up to the last one.
     */
    private record State(int length, Long lastRunId, int resumeAt, Long resumeRunId, int runsToLast, Long originRunId) {}

    private record Point(long runId, double value) {}

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final Fingerprints fingerprints;
    private final EDivisive detector = new EDivisive(EDivisive.Settings.DEFAULT);

    public ChangeDetection(JdbcClient jdbc, TransactionTemplate tx, Fingerprints fingerprints) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.fingerprints = fingerprints;
    }

    @EventListener
    public void finished(RunFinished finished) {
        try {
            update(finished.runId());
        } catch (RuntimeException e) {
            log.warn("change points after run {} not updated: {}", finished.runId(), e.toString(), e);
        }
    }

    /** Scans on every watched series of the run's fingerprint. */
    public void update(long runId) {
        fingerprints.fill();
        String fingerprint = jdbc.sql("SELECT fingerprint FROM run WHERE id = ? AND status = 'FINISHED'").param(runId)
                .query(String.class).optional().orElse(null);
        if (fingerprint == null) {
            return;
        }
        for (Metric metric : WATCHED) {
            tx.executeWithoutResult(status -> scan(fingerprint, metric, runId));
        }
    }

    private void scan(String fingerprint, Metric metric, long runId) {
        Double value = jdbc.sql("SELECT " + metric.sql() + " FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.id = ?")
                .param(runId).query((rs, i) -> (Double) rs.getObject(1)).optional().orElse(null);
        if (value == null || !(value > 0)) {
            return; // not in this series (a bandwidth run has no latency): nothing new to look at
        }
        jdbc.sql("INSERT INTO change_scan (fingerprint, metric, length, resume_at) VALUES (?, ?, 0, 0) ON CONFLICT DO NOTHING")
                .params(fingerprint, metric.name()).update();
        State stored = jdbc.sql("""
                        SELECT length, last_run_id, resume_at, resume_run_id, runs_to_last, origin_run_id FROM change_scan
                        WHERE fingerprint = ? AND metric = ? FOR UPDATE""")
                .params(fingerprint, metric.name())
                .query((rs, i) -> new State(rs.getInt(1), (Long) rs.getObject(2), rs.getInt(3), (Long) rs.getObject(4),
                        rs.getInt(5), (Long) rs.getObject(6))).single();
        // a run deleted, or given its fingerprint late, up to the last one scanned changes the series: scan it again
        // (from its origin: the change point last confirmed, a new normal, or its first run)
        State state = stored.length() > 0 && runsTo(fingerprint, stored.lastRunId()) == stored.runsToLast() ? stored
                : new State(0, null, 0, null, 0, stored.originRunId());
        List<Point> tail = points(fingerprint, metric, state.resumeRunId() != null ? state.resumeRunId()
                : state.originRunId());
        int length = state.resumeAt() + tail.size();
        if (length <= state.length() || tail.isEmpty()) {
            return;
        }
        EDivisive.Scan scan = detector.resume(tail.stream().mapToDouble(Point::value).toArray(), state.resumeAt(),
                new EDivisive.Scan(List.of(), List.of(), state.resumeAt(), state.length()));
        Set<Long> found = new HashSet<>();
        scan.settled().forEach(c -> found.add(store(fingerprint, metric, tail, state.resumeAt(), c, true)));
        scan.tail().forEach(c -> found.add(store(fingerprint, metric, tail, state.resumeAt(), c, false)));
        // an open change point from the part scanned again that was not found again has moved or gone (one before the
        // series' origin, a confirmed change, stays for its triage)
        Long[] scanned = tail.stream().skip(1).map(Point::runId).toArray(Long[]::new);
        jdbc.sql("""
                DELETE FROM change_point WHERE fingerprint = ? AND metric = ? AND status = 'open'
                AND run_after = ANY(?::bigint[]) AND run_after <> ALL(?::bigint[])""")
                .params(fingerprint, metric.name(), scanned, found.toArray(Long[]::new)).update();
        long last = tail.get(tail.size() - 1).runId();
        jdbc.sql("""
                UPDATE change_scan SET length = ?, last_run_id = ?, resume_at = ?, resume_run_id = ?, runs_to_last = ?,
                    scanned_at = now()
                WHERE fingerprint = ? AND metric = ?""")
                .params(length, last, scan.resumeAt(), tail.get(scan.resumeAt() - state.resumeAt()).runId(),
                        runsTo(fingerprint, last), fingerprint, metric.name()).update();
    }

    private long store(String fingerprint, Metric metric, List<Point> tail, int offset, ChangePoint c, boolean settled) {
        long before = tail.get(c.index() - 1 - offset).runId();
        long after = tail.get(c.index() - offset).runId();
        jdbc.sql("""
                INSERT INTO change_point (fingerprint, metric, run_before, run_after, position, mean_before, mean_after,
                    change_percent, p_value, points_before, points_after, settled)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (fingerprint, metric, run_after) DO UPDATE SET run_before = excluded.run_before,
                    position = excluded.position, mean_before = excluded.mean_before, mean_after = excluded.mean_after,
                    change_percent = excluded.change_percent, p_value = excluded.p_value,
                    points_before = excluded.points_before, points_after = excluded.points_after, settled = excluded.settled""")
                .params(fingerprint, metric.name(), before, after, c.index(), c.meanBefore(), c.meanAfter(),
                        c.changePercent(), c.pValue(), c.pointsBefore(), c.pointsAfter(), settled)
                .update();
        return after;
    }

    /** The fingerprint's runs up to this one (finished_at, id): an index range, whatever the metric. */
    private int runsTo(String fingerprint, long runId) {
        return jdbc.sql("""
                        SELECT count(*) FROM run WHERE fingerprint = ?
                        AND (finished_at, id) <= (SELECT finished_at, id FROM run WHERE id = ?)""")
                .params(fingerprint, runId).query(Integer.class).single();
    }

    /** The series from the run at the resume position on (all of it when there is none), oldest first. */
    private List<Point> points(String fingerprint, Metric metric, Long from) {
        String after = from == null ? "" : "AND (r.finished_at, r.id) >= (SELECT finished_at, id FROM run WHERE id = ?)";
        Object[] params = from == null ? new Object[] {fingerprint} : new Object[] {fingerprint, from};
        return jdbc.sql("""
                        SELECT r.id, %s FROM run r JOIN run_summary s ON s.run_id = r.id
                        WHERE r.fingerprint = ? AND r.status = 'FINISHED' AND %s > 0 %s
                        ORDER BY r.finished_at, r.id""".formatted(metric.sql(), metric.sql(), after))
                .params(params).query((rs, i) -> new Point(rs.getLong(1), rs.getDouble(2))).list();
    }
}
