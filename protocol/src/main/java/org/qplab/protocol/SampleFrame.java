package org.qplab.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
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
 * Little-endian throughout, so records are copied from the engine's ring as they are.
 */
public record SampleFrame(long runId, long seq, List<Sample> samples) {

    public static final int MAGIC = 0x53425051; // "QPBS" read little-endian
    public static final short VERSION = 1;
    public static final int HEADER_BYTES = 32;
    /** The largest frame either side sends or accepts (the controller's WebSocket limit). */
    public static final int MAX_BYTES = 1 << 20;
    /** The most records one frame can carry. */
    public static final int MAX_RECORDS = (MAX_BYTES - HEADER_BYTES) / Sample.BYTES;

    public SampleFrame {
        samples = List.copyOf(samples);
    }

    public ByteBuffer encode() {
        ByteBuffer buf = ByteBuffer.allocate(HEADER_BYTES + Sample.BYTES * samples.size())
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort(VERSION).putShort((short) 0)
                .putLong(runId).putLong(seq).putInt(samples.size()).putInt(0);
        for (Sample s : samples) {
            buf.putInt(s.thread()).putInt(s.errors()).putLong(s.cycle()).putLong(s.startNs())
                    .putLong(s.endNs()).putLong(s.bytes()).putLong(s.messages());
        }
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
            throw new IllegalArgumentException("not a qplab sample frame v" + VERSION
                    + " (magic 0x" + Integer.toHexString(magic) + ", version " + version + ", first bytes "
                    + java.util.HexFormat.of().formatHex(firstBytes(frame)) + ")");
        }
        long runId = buf.getLong();
        long seq = buf.getLong();
        int count = buf.getInt();
        buf.getInt();
        if (count < 0 || (long) count * Sample.BYTES != buf.remaining()) {
            throw new IllegalArgumentException("sample frame says " + count + " records but carries "
                    + buf.remaining() + " bytes of records");
        }
        List<Sample> samples = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            samples.add(new Sample(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(),
                    buf.getLong(), buf.getLong(), buf.getLong()));
        }
        return new SampleFrame(runId, seq, samples);
    }

    private static byte[] firstBytes(ByteBuffer frame) {
        byte[] head = new byte[Math.min(16, frame.remaining())];
        frame.duplicate().get(head);
        return head;
    }
}
