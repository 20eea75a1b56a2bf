package org.qplab.controller.ingest;

import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.qplab.protocol.Sample;
import org.qplab.protocol.SampleFrame;
import org.springframework.stereotype.Component;

/**
 * Stores sample frames with the PostgreSQL driver's COPY. Idempotent: the frame's (run, seq) is
 * recorded in sample_batch in the same transaction, so a frame replayed after a broken link is
 * recognised and skipped, never stored twice.
 */
@Component
public class SampleIngest {

    private final DataSource dataSource;

    public SampleIngest(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Stores the frame; false when it was stored before (a replay). Blocking. */
    public boolean store(SampleFrame frame) throws SQLException, IOException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                boolean fresh;
                try (PreparedStatement batch = c.prepareStatement(
                        "INSERT INTO sample_batch (run_id, seq, rows) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
                    batch.setLong(1, frame.runId());
                    batch.setLong(2, frame.seq());
                    batch.setInt(3, frame.samples().size());
                    fresh = batch.executeUpdate() == 1;
                }
                if (fresh && !frame.samples().isEmpty()) {
                    c.unwrap(PGConnection.class).getCopyAPI().copyIn(
                            "COPY sample (run_id, thread, cycle, start_ns, end_ns, bytes, messages, errors) FROM STDIN",
                            new StringReader(copyText(frame)));
                }
                c.commit();
                return fresh;
            } catch (SQLException | IOException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private static String copyText(SampleFrame frame) {
        StringBuilder text = new StringBuilder(frame.samples().size() * 64);
        String run = Long.toString(frame.runId());
        for (Sample s : frame.samples()) {
            text.append(run).append('\t').append(s.thread()).append('\t').append(s.cycle()).append('\t')
                    .append(s.startNs()).append('\t').append(s.endNs()).append('\t').append(s.bytes()).append('\t')
                    .append(s.messages()).append('\t').append(s.errors()).append('\n');
        }
        return text.toString();
    }
}
