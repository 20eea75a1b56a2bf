package org.qplab.controller.ingest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.qplab.protocol.Interval;
import org.qplab.protocol.StoredHistogram;
import org.qplab.protocol.TraceRecord;
import org.qplab.protocol.IntervalFrame;

/**
 * Writes a group of frames (from any agents and runs) in one transaction: claims their (run, seq) in
 * run_frame, copies the intervals of the frames it claimed into run_interval and their trace records into
 * run_trace (one binary COPY each), notes in run_frame which intervals each carried (a live watch on another
 * controller reads a frame's intervals by them), commits. run_frame.received_at is when the frame was claimed; it became
 * visible when its transaction committed, a group's COPYs later: {@code pg_xact_commit_timestamp(xmin)} says when, to the
 * microsecond (the embedded PostgreSQL tracks commit timestamps; bench/ingest measures latency by them). Stamping the
 * commit's time on every frame cost an UPDATE of each claimed row: 8.7 µs of PostgreSQL's time per interval stored,
 * and a dead row version per frame (issue 38). A frame whose (run, seq)
 * is already there (a replay after a broken link) is not claimed and nothing of it is copied: never stored twice, even
 * when the first copy is in flight in another transaction (the claim waits for it); every writer claims in
 * (run, seq) order. A run's histogram is the sum of its intervals, computed from them when read
 * ({@link org.qplab.controller.analysis.RunHistograms}). Blocking.
 */
final class FrameWriter {

    private static final byte[] COPY_SIGNATURE = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);
    private static final int COPY_ROW_BYTES = 2 + 8 * 4 + 6 * 8 + 2 * 4;
    /** A run_interval COPY row without its histogram: field count, 13 lengths, run_id, thread, idx, span, 8 bigints. */
    private static final int INTERVAL_ROW_BYTES = 2 + 13 * 4 + 8 + 4 + 8 + 4 + 8 * 8;
    private static final int COPY_CHUNK = 64 * 1024;
    private static final String COPY = "COPY run_trace (run_id, thread, cycle, start_ns, end_ns, bytes, messages, errors) "
            + "FROM STDIN (FORMAT binary)";
    private static final String COPY_INTERVALS = "COPY run_interval (run_id, thread, idx, span, cycles, messages, bytes, "
            + "errors, min_ns, max_ns, first_start_ns, last_end_ns, buckets) FROM STDIN (FORMAT binary)";

    private FrameWriter() {
    }

    /** Stores the frames; per frame (in the given order) whether it was new. Commits, or rolls back and throws. */
    static List<Boolean> write(Connection c, List<IntervalFrame> frames) throws SQLException {
        c.setAutoCommit(false);
        try {
            Set<Key> claimed = claim(c, frames);
            Set<Key> once = new HashSet<>();
            List<IntervalFrame> fresh = frames.stream().filter(f -> claimed.contains(key(f)) && once.add(key(f))).toList();
            copyIntervals(c, fresh);
            copy(c, fresh);
            c.commit();
            List<Boolean> out = new ArrayList<>(frames.size());
            Set<Key> seen = new HashSet<>();
            for (IntervalFrame f : frames) {
                out.add(claimed.contains(key(f)) && seen.add(key(f))); // the same frame twice in a group: once
            }
            return out;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Inserts the frames' batch rows in (run, seq) order (one lock order for every writer); the keys inserted. */
    private static Set<Key> claim(Connection c, List<IntervalFrame> frames) throws SQLException {
        List<IntervalFrame> sorted = new ArrayList<>(frames);
        sorted.sort(Comparator.comparingLong(IntervalFrame::runId).thenComparingLong(IntervalFrame::seq));
        Set<Key> claimed = new HashSet<>();
        try (PreparedStatement insert = c.prepareStatement("""
                INSERT INTO run_frame (run_id, seq, rows, first_end_ns, cycles, intervals, interval_keys, received_at)
                SELECT r, s, n, e, y, i, k, clock_timestamp()
                FROM unnest(?::bigint[], ?::bigint[], ?::int[], ?::bigint[], ?::bigint[], ?::int[], ?::bytea[])
                    WITH ORDINALITY AS f(r, s, n, e, y, i, k, o) ORDER BY o
                ON CONFLICT DO NOTHING RETURNING run_id, seq""")) {
            insert.setArray(1, longs(c, sorted, IntervalFrame::runId));
            insert.setArray(2, longs(c, sorted, IntervalFrame::seq));
            Integer[] rows = sorted.stream().map(IntervalFrame::count).toArray(Integer[]::new);
            insert.setArray(3, c.createArrayOf("integer", rows));
            Long[] firstEnds = sorted.stream().map(FrameWriter::firstEnd).toArray(Long[]::new);
            insert.setArray(4, c.createArrayOf("bigint", firstEnds));
            insert.setArray(5, longs(c, sorted, IntervalFrame::cycles));
            insert.setArray(6, c.createArrayOf("integer", sorted.stream().map(IntervalFrame::intervalCount).toArray(Integer[]::new)));
            insert.setArray(7, c.createArrayOf("bytea", sorted.stream().map(FrameWriter::intervalKeys).toArray(byte[][]::new)));
            try (ResultSet rs = insert.executeQuery()) {
                while (rs.next()) {
                    claimed.add(new Key(rs.getLong(1), rs.getLong(2)));
                }
            }
        }
        return claimed;
    }

    /** One COPY stream for every row of the frames: PostgreSQL's binary format, read straight from the records. */
    private static void copy(Connection c, List<IntervalFrame> frames) throws SQLException {
        int rows = frames.stream().mapToInt(IntervalFrame::count).sum();
        if (rows == 0) {
            return;
        }
        CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY);
        byte[] header = ByteBuffer.allocate(COPY_SIGNATURE.length + 8).put(COPY_SIGNATURE).putInt(0).putInt(0).array();
        copy.writeToCopy(header, 0, header.length);
        for (IntervalFrame frame : frames) {
            byte[] body = rows(frame);
            for (int at = 0; at < body.length; at += COPY_CHUNK) { // each a CopyData message the server reads whole
                copy.writeToCopy(body, at, Math.min(COPY_CHUNK, body.length - at));
            }
        }
        copy.writeToCopy(new byte[] {-1, -1}, 0, 2);
        copy.endCopy();
    }

    /**
     * One COPY stream for every interval of the frames, histograms in the stored runs format ({@link StoredHistogram}):
     * as a v3 frame carried them, checked when it was decoded, not encoded again here.
     */
    private static void copyIntervals(Connection c, List<IntervalFrame> frames) throws SQLException {
        if (frames.stream().allMatch(f -> f.intervalCount() == 0)) {
            return;
        }
        CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY_INTERVALS);
        byte[] header = ByteBuffer.allocate(COPY_SIGNATURE.length + 8).put(COPY_SIGNATURE).putInt(0).putInt(0).array();
        copy.writeToCopy(header, 0, header.length);
        for (IntervalFrame frame : frames) {
            byte[] body = intervalRows(frame);
            for (int at = 0; at < body.length; at += COPY_CHUNK) {
                copy.writeToCopy(body, at, Math.min(COPY_CHUNK, body.length - at));
            }
        }
        copy.writeToCopy(new byte[] {-1, -1}, 0, 2);
        copy.endCopy();
    }

    /** The frame's intervals as binary COPY rows of run_interval. */
    static byte[] intervalRows(IntervalFrame frame) {
        int size = 0;
        List<byte[]> histograms = new ArrayList<>(frame.intervalCount());
        for (int k = 0; k < frame.intervalCount(); k++) {
            byte[] h = frame.storedHistogram(k);
            histograms.add(h);
            size += INTERVAL_ROW_BYTES + h.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (int k = 0; k < frame.intervalCount(); k++) {
            Interval i = frame.intervalFields().get(k);
            out.putShort((short) 13);
            out.putInt(8).putLong(frame.runId());
            out.putInt(4).putInt(i.thread());
            out.putInt(8).putLong(i.index());
            out.putInt(4).putInt(i.span());
            for (long v : new long[] {i.cycles(), i.messages(), i.bytes(), i.errors(), i.minNs(), i.maxNs(),
                    i.firstStartNs(), i.lastEndNs()}) {
                out.putInt(8).putLong(v);
            }
            byte[] h = histograms.get(k);
            out.putInt(h.length).put(h);
        }
        if (out.hasRemaining()) {
            throw new IllegalStateException("interval rows of " + out.position() + " bytes, " + size + " expected");
        }
        return out.array();
    }

    /** The frame's records as binary COPY rows (no header or trailer). */
    static byte[] rows(IntervalFrame frame) {
        ByteBuffer in = frame.records();
        ByteBuffer out = ByteBuffer.allocate(frame.count() * COPY_ROW_BYTES);
        for (int i = 0, at = 0; i < frame.count(); i++, at += TraceRecord.BYTES) {
            out.putShort((short) 8);
            out.putInt(8).putLong(frame.runId());
            out.putInt(4).putInt(in.getInt(at));          // thread
            out.putInt(8).putLong(in.getLong(at + 8));    // cycle
            out.putInt(8).putLong(in.getLong(at + 16));   // start_ns
            out.putInt(8).putLong(in.getLong(at + 24));   // end_ns
            out.putInt(8).putLong(in.getLong(at + 32));   // bytes
            out.putInt(8).putLong(in.getLong(at + 40));   // messages
            out.putInt(4).putInt(in.getInt(at + 4));      // errors
        }
        return out.array();
    }

    /** The (thread, idx) of each of the frame's intervals, 12 bytes apiece (run_frame.interval_keys, V32). */
    static byte[] intervalKeys(IntervalFrame frame) {
        ByteBuffer keys = ByteBuffer.allocate(12 * frame.intervalCount());
        for (Interval i : frame.intervalFields()) {
            keys.putInt(i.thread()).putLong(i.index());
        }
        return keys.array();
    }

    /** The earliest end the frame carries: its intervals' last ends and its trace records' ends; null when empty. */
    static Long firstEnd(IntervalFrame frame) {
        long first = Long.MAX_VALUE;
        for (Interval i : frame.intervalFields()) {
            first = Math.min(first, i.lastEndNs());
        }
        ByteBuffer in = frame.records();
        for (int i = 0, at = 24; i < frame.count(); i++, at += TraceRecord.BYTES) {
            first = Math.min(first, in.getLong(at));
        }
        return first == Long.MAX_VALUE ? null : first;
    }

    private static Array longs(Connection c, List<IntervalFrame> frames, java.util.function.ToLongFunction<IntervalFrame> f)
            throws SQLException {
        return c.createArrayOf("bigint", frames.stream().map(x -> f.applyAsLong(x)).toArray(Long[]::new));
    }

    private record Key(long runId, long seq) {}

    private static Key key(IntervalFrame f) {
        return new Key(f.runId(), f.seq());
    }
}
