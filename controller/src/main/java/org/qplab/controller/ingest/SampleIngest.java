package org.qplab.controller.ingest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.qplab.controller.metrics.QplabMetrics;
import org.qplab.protocol.Sample;
import org.qplab.protocol.SampleFrame;
import org.springframework.stereotype.Component;

/**
 * Stores sample frames with the PostgreSQL driver's COPY (binary format). Idempotent: the frame's (run, seq) is
 * recorded in sample_batch in the same transaction, so a frame replayed after a broken link is
 * recognised and skipped, never stored twice.
 */
@Component
public class SampleIngest {

    private final DataSource dataSource;
    private final QplabMetrics metrics;

    public SampleIngest(DataSource dataSource, QplabMetrics metrics) {
        this.dataSource = dataSource;
        this.metrics = metrics;
    }

    /** Stores the frame; false when it was stored before (a replay). Blocking. */
    public boolean store(SampleFrame frame) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                boolean fresh;
                try (PreparedStatement batch = c.prepareStatement(
                        "INSERT INTO sample_batch (run_id, seq, rows) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
                    batch.setLong(1, frame.runId());
                    batch.setLong(2, frame.seq());
                    batch.setInt(3, frame.count());
                    fresh = batch.executeUpdate() == 1;
                }
                if (fresh && frame.count() > 0) {
                    byte[] rows = binaryCopy(frame);
                    CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(
                            "COPY sample (run_id, thread, cycle, start_ns, end_ns, bytes, messages, errors) FROM STDIN (FORMAT binary)");
                    copy.writeToCopy(rows, 0, rows.length);
                    copy.endCopy();
                }
                c.commit();
                metrics.ingested(frame.count(), fresh);
                return fresh;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private static final byte[] COPY_SIGNATURE = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);
    private static final int COPY_ROW_BYTES = 2 + 8 * 4 + 6 * 8 + 2 * 4;

    /** PostgreSQL's binary COPY format, read straight from the frame's records: no text, no object per row. */
    static byte[] binaryCopy(SampleFrame frame) {
        ByteBuffer in = frame.records();
        int rows = frame.count();
        ByteBuffer out = ByteBuffer.allocate(COPY_SIGNATURE.length + 8 + rows * COPY_ROW_BYTES + 2);
        out.put(COPY_SIGNATURE).putInt(0).putInt(0);
        for (int i = 0, at = 0; i < rows; i++, at += Sample.BYTES) {
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
        out.putShort((short) -1);
        return out.array();
    }
}
