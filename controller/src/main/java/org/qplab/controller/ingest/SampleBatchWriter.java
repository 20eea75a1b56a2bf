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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.qplab.controller.analysis.CycleHistogram;
import org.qplab.protocol.Sample;
import org.qplab.protocol.SampleFrame;

/**
 * Writes a group of sample frames (from any agents and runs) in one transaction: claims their (run, seq) in
 * sample_batch, copies the rows of the frames it claimed with one binary COPY, adds their cycle times to
 * their runs' histograms (run_histogram: a run's distribution is there as soon as its cycles are, with no
 * scan of the sample table, whose rows of concurrent runs interleave), stamps when they became visible,
 * commits. A frame whose (run, seq) is already there (a replay after a broken link) is not
 * claimed and none of its rows are copied: never stored twice, even when the first copy is in flight in
 * another transaction (the claim waits for it). Blocking.
 */
final class SampleBatchWriter {

    private static final byte[] COPY_SIGNATURE = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);
    private static final int COPY_ROW_BYTES = 2 + 8 * 4 + 6 * 8 + 2 * 4;
    private static final int COPY_CHUNK = 64 * 1024;
    /** Stored histogram buckets counted in an array: up to 2^30 ns (bucket 23 * 128 + 256). */
    private static final int DENSE_BUCKETS = 23 * 128 + 256;
    private static final String COPY = "COPY sample (run_id, thread, cycle, start_ns, end_ns, bytes, messages, errors) "
            + "FROM STDIN (FORMAT binary)";

    private SampleBatchWriter() {
    }

    /** Stores the frames; per frame (in the given order) whether it was new. Commits, or rolls back and throws. */
    static List<Boolean> write(Connection c, List<SampleFrame> frames) throws SQLException {
        c.setAutoCommit(false);
        try {
            Set<Key> claimed = claim(c, frames);
            Set<Key> once = new HashSet<>();
            List<SampleFrame> fresh = frames.stream().filter(f -> claimed.contains(key(f)) && once.add(key(f))).toList();
            copy(c, fresh);
            addToHistograms(c, fresh);
            if (!fresh.isEmpty()) {
                try (PreparedStatement visible = c.prepareStatement("""
                        UPDATE sample_batch b SET received_at = clock_timestamp()
                        FROM unnest(?::bigint[], ?::bigint[]) AS k(run_id, seq)
                        WHERE b.run_id = k.run_id AND b.seq = k.seq""")) {
                    visible.setArray(1, longs(c, fresh, SampleFrame::runId));
                    visible.setArray(2, longs(c, fresh, SampleFrame::seq));
                    visible.executeUpdate();
                }
            }
            c.commit();
            List<Boolean> out = new ArrayList<>(frames.size());
            Set<Key> seen = new HashSet<>();
            for (SampleFrame f : frames) {
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
    private static Set<Key> claim(Connection c, List<SampleFrame> frames) throws SQLException {
        List<SampleFrame> sorted = new ArrayList<>(frames);
        sorted.sort(Comparator.comparingLong(SampleFrame::runId).thenComparingLong(SampleFrame::seq));
        Set<Key> claimed = new HashSet<>();
        try (PreparedStatement insert = c.prepareStatement("""
                INSERT INTO sample_batch (run_id, seq, rows, first_end_ns)
                SELECT r, s, n, e FROM unnest(?::bigint[], ?::bigint[], ?::int[], ?::bigint[])
                    WITH ORDINALITY AS f(r, s, n, e, o) ORDER BY o
                ON CONFLICT DO NOTHING RETURNING run_id, seq""")) {
            insert.setArray(1, longs(c, sorted, SampleFrame::runId));
            insert.setArray(2, longs(c, sorted, SampleFrame::seq));
            Integer[] rows = sorted.stream().map(SampleFrame::count).toArray(Integer[]::new);
            insert.setArray(3, c.createArrayOf("integer", rows));
            Long[] firstEnds = sorted.stream().map(f -> f.count() == 0 ? null : firstEnd(f)).toArray(Long[]::new);
            insert.setArray(4, c.createArrayOf("bigint", firstEnds));
            try (ResultSet rs = insert.executeQuery()) {
                while (rs.next()) {
                    claimed.add(new Key(rs.getLong(1), rs.getLong(2)));
                }
            }
        }
        return claimed;
    }

    /** One COPY stream for every row of the frames: PostgreSQL's binary format, read straight from the records. */
    private static void copy(Connection c, List<SampleFrame> frames) throws SQLException {
        int rows = frames.stream().mapToInt(SampleFrame::count).sum();
        if (rows == 0) {
            return;
        }
        CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY);
        byte[] header = ByteBuffer.allocate(COPY_SIGNATURE.length + 8).put(COPY_SIGNATURE).putInt(0).putInt(0).array();
        copy.writeToCopy(header, 0, header.length);
        for (SampleFrame frame : frames) {
            byte[] body = rows(frame);
            for (int at = 0; at < body.length; at += COPY_CHUNK) { // each a CopyData message the server reads whole
                copy.writeToCopy(body, at, Math.min(COPY_CHUNK, body.length - at));
            }
        }
        copy.writeToCopy(new byte[] {-1, -1}, 0, 2);
        copy.endCopy();
    }

    /** Adds the frames' cycle times to run_histogram, in (run, bucket) order (one lock order for every writer). */
    private static void addToHistograms(Connection c, List<SampleFrame> frames) throws SQLException {
        TreeMap<Long, TreeMap<Long, Long>> counts = new TreeMap<>();
        for (SampleFrame frame : frames) {
            TreeMap<Long, Long> run = counts.computeIfAbsent(frame.runId(), r -> new TreeMap<>());
            bucketCounts(frame).forEach((bucket, n) -> run.merge(bucket, n, Long::sum));
        }
        List<Long> runs = new ArrayList<>();
        List<Long> buckets = new ArrayList<>();
        List<Long> ns = new ArrayList<>();
        counts.forEach((run, byBucket) -> byBucket.forEach((bucket, n) -> {
            runs.add(run);
            buckets.add(bucket);
            ns.add(n);
        }));
        if (runs.isEmpty()) {
            return;
        }
        try (PreparedStatement add = c.prepareStatement("""
                INSERT INTO run_histogram (run_id, bucket, count)
                SELECT r, b, n FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) WITH ORDINALITY AS h(r, b, n, o) ORDER BY o
                ON CONFLICT (run_id, bucket) DO UPDATE SET count = run_histogram.count + excluded.count""")) {
            add.setArray(1, c.createArrayOf("bigint", runs.toArray()));
            add.setArray(2, c.createArrayOf("bigint", buckets.toArray()));
            add.setArray(3, c.createArrayOf("bigint", ns.toArray()));
            add.executeUpdate();
        }
    }

    /** How many of the frame's cycles fall in each stored histogram bucket. */
    static Map<Long, Long> bucketCounts(SampleFrame frame) {
        ByteBuffer in = frame.records();
        long[] dense = new long[DENSE_BUCKETS]; // cycles up to ~1 s: no boxing per record
        Map<Long, Long> out = new TreeMap<>();
        for (int i = 0, at = 0; i < frame.count(); i++, at += Sample.BYTES) {
            long bucket = CycleHistogram.storedBucket(in.getLong(at + 24) - in.getLong(at + 16));
            if (bucket < DENSE_BUCKETS) {
                dense[(int) bucket]++;
            } else {
                out.merge(bucket, 1L, Long::sum);
            }
        }
        for (int b = 0; b < DENSE_BUCKETS; b++) {
            if (dense[b] != 0) {
                out.put((long) b, dense[b]);
            }
        }
        return out;
    }

    /** The frame's records as binary COPY rows (no header or trailer). */
    static byte[] rows(SampleFrame frame) {
        ByteBuffer in = frame.records();
        ByteBuffer out = ByteBuffer.allocate(frame.count() * COPY_ROW_BYTES);
        for (int i = 0, at = 0; i < frame.count(); i++, at += Sample.BYTES) {
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

    /** The earliest cycle end in the frame (end_ns is at byte 24 of a record). */
    static long firstEnd(SampleFrame frame) {
        ByteBuffer in = frame.records();
        long first = Long.MAX_VALUE;
        for (int i = 0, at = 24; i < frame.count(); i++, at += Sample.BYTES) {
            first = Math.min(first, in.getLong(at));
        }
        return first;
    }

    private static Array longs(Connection c, List<SampleFrame> frames, java.util.function.ToLongFunction<SampleFrame> f)
            throws SQLException {
        return c.createArrayOf("bigint", frames.stream().map(x -> f.applyAsLong(x)).toArray(Long[]::new));
    }

    private record Key(long runId, long seq) {}

    private static Key key(SampleFrame f) {
        return new Key(f.runId(), f.seq());
    }
}
