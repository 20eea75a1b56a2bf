package org.qplab.controller.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.controller.run.RunIntervals;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A run's cycle-time histogram (run_histogram, one row per run: its buckets and their counts as arrays, V33): the sum
 * of its stored intervals, computed from them when it is read and kept until more intervals arrive. It is current
 * while its cycles (the counts' sum) are the cycles of the run's stored frames (run_frame.cycles); when they are not
 * (the run is still running, or an agent replayed frames after it ended) it is computed again. The ingest itself
 * never touches it: one upsert per bucket of every interval would cost PostgreSQL far more than the intervals
 * themselves. Blocking.
 */
@Component
public class RunHistograms {

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final RunIntervals intervals;

    public RunHistograms(JdbcClient jdbc, TransactionTemplate tx, RunIntervals intervals) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.intervals = intervals;
    }

    /** The run's histogram, current: stored bucket → count, ascending. */
    public Map<Long, Long> of(long runId) {
        current(List.of(runId));
        Map<Long, Long> stored = new LinkedHashMap<>();
        jdbc.sql("SELECT b, n FROM run_histogram, unnest(buckets, counts) WITH ORDINALITY AS h(b, n, o) WHERE run_id = ? ORDER BY o")
                .param(runId).query((rs, i) -> stored.put(rs.getLong(1), rs.getLong(2))).list();
        return stored;
    }

    /** Makes the histograms of these runs current. */
    public void current(List<Long> runIds) {
        for (long runId : stale(runIds)) {
            tx.executeWithoutResult(status -> {
                // one writer per run at a time; the one that waited finds it current
                jdbc.sql("SELECT pg_advisory_xact_lock(?)").param(runId).query().singleRow();
                if (!stale(List.of(runId)).isEmpty()) {
                    write(runId);
                }
            });
        }
    }

    /** The runs whose stored histogram does not count the cycles of their stored frames. */
    private List<Long> stale(List<Long> runIds) {
        return jdbc.sql("""
                        SELECT r FROM unnest(?::bigint[]) AS r
                        WHERE coalesce((SELECT cycles FROM run_histogram h WHERE h.run_id = r), 0)
                           <> (SELECT coalesce(sum(cycles), 0) FROM run_frame b WHERE b.run_id = r)""")
                .param(runIds.toArray(Long[]::new)).query(Long.class).list();
    }

    private void write(long runId) {
        long[] counts = new long[CycleBuckets.COUNT];
        for (Interval.Histogram h : intervals.histograms(runId)) {
            for (int k = 0; k < h.buckets().length; k++) {
                counts[h.buckets()[k]] += h.counts()[k];
            }
        }
        List<Integer> buckets = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        long cycles = 0;
        for (int b = 0; b < counts.length; b++) {
            if (counts[b] > 0) {
                buckets.add(b);
                values.add(counts[b]);
                cycles += counts[b];
            }
        }
        jdbc.sql("""
                        INSERT INTO run_histogram (run_id, cycles, buckets, counts) VALUES (?, ?, ?::int[], ?::bigint[])
                        ON CONFLICT (run_id) DO UPDATE SET cycles = excluded.cycles, buckets = excluded.buckets,
                            counts = excluded.counts""")
                .params(runId, cycles, buckets.toArray(Integer[]::new), values.toArray(Long[]::new)).update();
    }
}
