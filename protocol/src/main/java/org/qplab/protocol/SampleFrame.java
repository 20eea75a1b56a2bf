package org.qplab.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A numbered batch of samples of one run, as a binary WebSocket frame.
 *
 * <pre>
 * offset size
 *   0     4  magic "QPBS"
 *   4     2  version (1)
 *   6     2  reserved (0)
 *   8     8  run id
 *  16     8  sequence number of the batch within the run (0, 1, 2, ...)
 *  24     4  record count n
 *  28     4  reserved (0)
 *  32   48n  records, the engine's qpb_sample layout
 * </pre>
 * Little-endian throughout, so the engine's records travel as they are: the agent copies them
 * from the ring in bulk and the controller reads them in place, with no object per record.
 */
public final class SampleFrame {

    public static final int MAGIC = 0x53425051; // "QPBS" read little-endian
    public static final short VERSION = 1;
    public static final int HEADER_BYTES = 32;
    /** The largest frame either side sends or accepts (the controller's WebSocket limit). */
    public static final int MAX_BYTES = 1 << 20;
    /** The most records one frame can carry. */
    public static final int MAX_RECORDS = (MAX_BYTES - HEADER_BYTES) / Sample.BYTES;

    private final long runId;
    private final long seq;
    private final ByteBuffer records;

    /** records: count × 48 bytes in the engine's layout (little-endian); not copied. */
    public SampleFrame(long runId, long seq, ByteBuffer records) {
        if (records.remaining() % Sample.BYTES != 0) {
            throw new IllegalArgumentException("records of " + records.remaining() + " bytes are not whole samples");
        }
        this.runId = runId;
        this.seq = seq;
        this.records = records.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    public static SampleFrame of(long runId, long seq, List<Sample> samples) {
        ByteBuffer records = ByteBuffer.allocate(samples.size() * Sample.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (Sample s : samples) {
            records.putInt(s.thread()).putInt(s.errors()).putLong(s.cycle()).putLong(s.startNs())
                    .putLong(s.endNs()).putLong(s.bytes()).putLong(s.messages());
        }
        return new SampleFrame(runId, seq, records.flip());
    }

    public long runId() {
        return runId;
    }

    public long seq() {
        return seq;
    }

    public int count() {
        return records.remaining() / Sample.BYTES;
    }

    /** The records, little-endian, read-only; record i starts at i × 48. */
    public ByteBuffer records() {
        return records.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    public Sample sample(int i) {
        int at = i * Sample.BYTES;
        return new Sample(records.getInt(at), records.getInt(at + 4), records.getLong(at + 8), records.getLong(at + 16),
                records.getLong(at + 24), records.getLong(at + 32), records.getLong(at + 40));
    }

    public List<Sample> samples() {
        List<Sample> samples = new ArrayList<>(count());
        for (int i = 0; i < count(); i++) {
            samples.add(sample(i));
        }
        return samples;
    }

    public ByteBuffer encode() {
        ByteBuffer buf = ByteBuffer.allocate(HEADER_BYTES + records.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort(VERSION).putShort((short) 0)
                .putLong(runId).putLong(seq).putInt(count()).putInt(0)
                .put(records.duplicate());
        // Same bytes, big-endian view: the JDK's WebSocket client masks payloads with getLong() in the
        // buffer's own byte order, which scrambles every 8 bytes of a little-endian buffer.
        return buf.flip().order(ByteOrder.BIG_ENDIAN);
    }

    /** Decodes a frame; a frame that is not a well-formed sample frame is refused, never half-read. */
    public static SampleFrame decode(ByteBuffer frame) {
        ByteBuffer buf = frame.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (buf.remaining() < HEADER_BYTES) {
            throw new IllegalArgumentException("sample frame of " + buf.remaining() + " bytes is shorter than its header");
        }
        int magic = buf.getInt();
        short version = buf.getShort();
        buf.getShort();
        if (magic != MAGIC || version != VERSION) {
            byte[] head = new byte[Math.min(16, frame.remaining())];
            frame.duplicate().get(head);
            throw new IllegalArgumentException("not a qplab sample frame v" + VERSION + " (magic 0x"
                    + Integer.toHexString(magic) + ", version " + version + ", first bytes " + HexFormat.of().formatHex(head) + ")");
        }
        long runId = buf.getLong();
        long seq = buf.getLong();
        int count = buf.getInt();
        buf.getInt();
        if (count < 0 || (long) count * Sample.BYTES != buf.remaining()) {
            throw new IllegalArgumentException("sample frame says " + count + " records but carries "
                    + buf.remaining() + " bytes of records");
        }
        return new SampleFrame(runId, seq, buf);
    }
}
