package org.qplab.controller.live;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.controller.run.RunIntervals;
import org.qplab.protocol.Interval;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A watched run as the database has it, whichever controller stored its frames and set its status: where a watch
 * begins, then what it has not yet shown. A frame's intervals are found by the keys its run_frame row lists
 * (interval_keys, V32): primary-key lookups, so a poll that finds nothing new reads one status and an index range of
 * run_frame. Blocking: call through {@link org.qplab.controller.database.Jdbc}.
 */
@Repository
class StoredRuns {

    private final JdbcClient jdbc;
    private final RunIntervals intervals;

    StoredRuns(JdbcClient jdbc, RunIntervals intervals) {
        this.jdbc = jdbc;
        this.intervals = intervals;
    }

    /** A watch of the run from now on: its status, and the frames stored so far as accounted for; empty: no run. */
    Optional<RunWatch> begin(long runId) {
        return status(runId).map(status -> {
            long[] frames = jdbc.sql("SELECT count(*), coalesce(max(seq) + 1, 0), coalesce(sum(cycles), 0) FROM run_frame "
                            + "WHERE run_id = ?")
                    .param(runId).query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}).single();
            if (frames[0] == frames[1]) { // seq 0 .. count-1, as they usually are: nothing missing below the last
                return new RunWatch(runId, status, frames[1], List.of(), frames[2]);
            }
            List<Long> seqs = jdbc.sql("SELECT seq FROM run_frame WHERE run_id = ? ORDER BY seq").param(runId)
                    .query(Long.class).list();
            long next = 0;
            while (next < seqs.size() && seqs.get((int) next) == next) {
                next++;
            }
            return new RunWatch(runId, status, next, seqs.subList((int) next, seqs.size()), frames[2]);
        });
    }

    /** The run's status; empty when there is no such run. */
    Optional<String> status(long runId) {
        return jdbc.sql("SELECT status FROM run WHERE id = ?").param(runId).query(String.class).optional();
    }

    /**
     * What the watch has not yet shown: the frames stored since (in seq order), then the run's status. The status is
     * read first: a run is FINISHED only once all of its frames are stored, so a watch that reads it sees them all.
     */
    List<RunSignal> poll(RunWatch watch) {
        Optional<String> status = status(watch.runId());
        List<RunSignal> signals = new ArrayList<>(frames(watch));
        status.ifPresent(s -> signals.add(new RunSignal.Status(s))); // a deleted run's watch ends with the client
        return signals;
    }

    /** The frames stored that the watch has not accounted for, in seq order, each with its intervals. */
    List<RunSignal.Frame> frames(RunWatch watch) {
        record Row(long seq, long cycles, byte[] keys) {}
        List<Row> rows = jdbc.sql("SELECT seq, cycles, interval_keys FROM run_frame WHERE run_id = ? AND seq >= ? "
                        + "ORDER BY seq")
                .params(watch.runId(), watch.next())
                .query((rs, i) -> new Row(rs.getLong(1), rs.getLong(2), rs.getBytes(3))).list().stream()
                .filter(r -> !watch.accounted(r.seq())).toList();
        if (rows.isEmpty()) {
            return List.of();
        }
        int keys = rows.stream().mapToInt(r -> r.keys() == null ? 0 : r.keys().length / 12).sum();
        int[] threads = new int[keys];
        long[] indexes = new long[keys];
        int k = 0;
        for (Row r : rows) {
            for (ByteBuffer b = ByteBuffer.wrap(r.keys() == null ? new byte[0] : r.keys()); b.hasRemaining(); k++) {
                threads[k] = b.getInt();
                indexes[k] = b.getLong();
            }
        }
        Map<Key, Interval> found = new HashMap<>();
        intervals.keyed(watch.runId(), threads, indexes).forEach(i -> found.put(new Key(i.thread(), i.index()), i));
        List<RunSignal.Frame> frames = new ArrayList<>(rows.size());
        for (Row r : rows) {
            List<Interval> of = new ArrayList<>();
            for (ByteBuffer b = ByteBuffer.wrap(r.keys() == null ? new byte[0] : r.keys()); b.hasRemaining();) {
                Interval i = found.get(new Key(b.getInt(), b.getLong())); // stored in the frame's own transaction
                if (i != null) { // unless the run has just been deleted
                    of.add(i);
                }
            }
            frames.add(new RunSignal.Frame(r.seq(), r.cycles(), LiveRuns.perThread(of)));
        }
        return frames;
    }

    private record Key(int thread, long index) {}
}
