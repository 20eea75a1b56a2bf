package org.qplab.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A numbered batch of one run's statistics, as a binary WebSocket frame: interval records (every cycle
 * counted, at a rate that does not depend on the cycle rate) and, when the run asked for a trace, per-cycle
 * trace records.
 *
 * <pre>
 * offset size
 *   0     4  magic "QPBS"
 *   4     2  layout version (3; 2 is read too)
 *   6     2  reserved (0)
 *   8     8  run id
 *  16     8  sequence number of the batch within the run (0, 1, 2, ...)
 *  24     4  trace record count n
 *  28     4  interval count m
 *  32   48n  trace records, the engine's qpb_trace_record layout
 *   .     .  m intervals, to the end of the frame:
 *              v3: the interval's fields, varint-coded ({@link Interval#encode} without its histogram), then
 *                  the histogram as the database stores it: a varint byte length, then
 *                  {@link StoredHistogram#encode}'s bytes (the runs format only)
 *              v2: {@link Interval#encode} (the histogram as a varint pair list)
 * </pre>
 * Little-endian throughout, so the engine's trace records travel as they are. A frame of another layout
 * version is refused whole, naming the version.
 * <p>
 * Why v3: the controller stores each interval's histogram in the runs format; with v2 it decoded the pair list and
 * encoded the runs format again, about 7 µs of its CPU per interval (issue 38). A v3 frame's histogram is encoded
 * by the agent, and the controller decodes it once to check it, then stores the bytes it received
 * ({@link #storedHistogram}). A v3 frame carries no pair list: the runs format is the only one of the
 * database's two that the controller would store as it is, and one format per layout keeps what a frame may hold
 * plain. Agents of the previous release send v2, still read.
 */
public final class IntervalFrame {

    public static final int MAGIC = 0x53425051; // "QPBS" read little-endian
    /** The layout this side writes. */
    public static final short VERSION = 3;
    /** The oldest layout this side reads: v2, whose histograms are pair lists. */
    public static final short OLDEST_VERSION = 2;
    public static final int HEADER_BYTES = 32;
    /** The largest frame either side sends or accepts (the controller's WebSocket limit). */
    public static final int MAX_BYTES = 1 << 20;
    /** The most trace records one frame can carry. */
    public static final int MAX_RECORDS = (MAX_BYTES - HEADER_BYTES) / TraceRecord.BYTES;

    private final long runId;
    private final long seq;
    private final ByteBuffer records;
    /** The intervals whole; null until asked for when the frame was decoded from v3 (see {@link #intervalFields}). */
    private volatile List<Interval> intervals;
    /** The intervals, and for a decoded v3 frame without their histograms' arrays (empty): what storing needs. */
    private final List<Interval> fields;
    /** Each interval's histogram in the runs format, as received or as given; null: encoded when asked for. */
    private final List<byte[]> histograms;
    private volatile ByteBuffer encoded; // built once: the outbox sizes a frame, the link sends it

    /** records: count × 48 bytes in the engine's layout (little-endian), not copied; intervals: not copied. */
    public IntervalFrame(long runId, long seq, ByteBuffer records, List<Interval> intervals) {
        this(runId, seq, records, intervals, null);
    }

    /**
     * histograms: each interval's histogram as {@link StoredHistogram#encode} wrote it (the agent encodes them once, to
     * size its frames), not copied, not checked; null: encoded when the frame is.
     */
    public IntervalFrame(long runId, long seq, ByteBuffer records, List<Interval> intervals, List<byte[]> histograms) {
        if (records.remaining() % TraceRecord.BYTES != 0) {
            throw new IllegalArgumentException("records of " + records.remaining() + " bytes are not whole trace records");
        }
        if (histograms != null && histograms.size() != intervals.size()) {
            throw new IllegalArgumentException(histograms.size() + " histograms for " + intervals.size() + " intervals");
        }
        this.runId = runId;
        this.seq = seq;
        this.records = records.slice().order(ByteOrder.LITTLE_ENDIAN);
        this.intervals = List.copyOf(intervals);
        this.fields = this.intervals;
        this.histograms = histograms == null ? null : List.copyOf(histograms);
    }

    /** A decoded v3 frame: fields' histograms are empty, histograms (checked) hold them. */
    private IntervalFrame(long runId, long seq, ByteBuffer records, List<Interval> fields, List<byte[]> histograms,
            Void decoded) {
        this.runId = runId;
        this.seq = seq;
        this.records = records.slice().order(ByteOrder.LITTLE_ENDIAN);
        this.fields = List.copyOf(fields);
        this.histograms = List.copyOf(histograms);
    }

    /** A frame of intervals only. */
    public IntervalFrame(long runId, long seq, List<Interval> intervals) {
        this(runId, seq, ByteBuffer.allocate(0), intervals);
    }

    public static IntervalFrame of(long runId, long seq, List<TraceRecord> trace, List<Interval> intervals) {
        ByteBuffer records = ByteBuffer.allocate(trace.size() * TraceRecord.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (TraceRecord s : trace) {
            records.putInt(s.thread()).putInt(s.errors()).putLong(s.cycle()).putLong(s.startNs())
                    .putLong(s.endNs()).putLong(s.bytes()).putLong(s.messages());
        }
        return new IntervalFrame(runId, seq, records.flip(), intervals);
    }

    public long runId() {
        return runId;
    }

    public long seq() {
        return seq;
    }

    /** Trace records carried. */
    public int count() {
        return records.remaining() / TraceRecord.BYTES;
    }

    /** The intervals, histograms included (a decoded v3 frame decodes them the first time it is asked). */
    public List<Interval> intervals() {
        List<Interval> whole = intervals;
        if (whole == null) { // two threads may both decode: the same intervals either way
            List<Interval> decoded = new ArrayList<>(fields.size());
            for (int k = 0; k < fields.size(); k++) {
                Interval.Histogram h = StoredHistogram.decode(histograms.get(k));
                decoded.add(fields.get(k).withHistogram(h.buckets(), h.counts()));
            }
            whole = List.copyOf(decoded);
            intervals = whole;
        }
        return whole;
    }

    /**
     * The intervals' fields: the intervals in order, but those of a frame decoded from v3 with empty histograms (their
     * buckets are in {@link #storedHistogram}, checked when the frame was decoded). What storing a frame reads: the
     * controller does not build a few KB of arrays per interval that only a live watcher of the run would read
     * (issue 38). {@link #intervals} has them whole.
     */
    public List<Interval> intervalFields() {
        return fields;
    }

    /** How many intervals it carries. */
    public int intervalCount() {
        return fields.size();
    }

    /**
     * Interval k's histogram in the runs format, as the database stores it: the bytes a v3 frame carried (checked when
     * it was decoded), else encoded now.
     */
    public byte[] storedHistogram(int k) {
        if (histograms != null) {
            return histograms.get(k);
        }
        Interval i = fields.get(k);
        return StoredHistogram.encode(i.buckets(), i.counts());
    }

    /** The cycles its intervals count. */
    public long cycles() {
        long n = 0;
        for (Interval i : fields) {
            n += i.cycles();
        }
        return n;
    }

    /** The trace records, little-endian, read-only; record i starts at i × 48. */
    public ByteBuffer records() {
        return records.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    public TraceRecord traceRecord(int i) {
        int at = i * TraceRecord.BYTES;
        return new TraceRecord(records.getInt(at), records.getInt(at + 4), records.getLong(at + 8), records.getLong(at + 16),
                records.getLong(at + 24), records.getLong(at + 32), records.getLong(at + 40));
    }

    public List<TraceRecord> traceRecords() {
        List<TraceRecord> trace = new ArrayList<>(count());
        for (int i = 0; i < count(); i++) {
            trace.add(traceRecord(i));
        }
        return trace;
    }

    /** The frame's bytes in layout {@link #VERSION} (a fresh view each call; big-endian, see below). */
    public ByteBuffer encode() {
        ByteBuffer e = encoded;
        if (e == null) {
            e = build(VERSION);
            encoded = e;
        }
        return e.duplicate();
    }

    /**
     * The frame's bytes in a layout this side reads ({@link #OLDEST_VERSION} to {@link #VERSION}), built each call:
     * for tests and for benchmarks that stand in for an earlier release's agents.
     */
    public ByteBuffer encode(int layout) {
        if (layout == VERSION) {
            return encode();
        }
        if (!reads(layout)) {
            throw new IllegalArgumentException("frame layout v" + layout + " (this side writes v" + OLDEST_VERSION + " to v"
                    + VERSION + ")");
        }
        return build(layout);
    }

    private ByteBuffer build(int layout) {
        int most = HEADER_BYTES + records.remaining();
        List<Interval> intervals = layout == 2 ? intervals() : fields;
        byte[][] stored = new byte[intervals.size()][];
        for (int k = 0; k < intervals.size(); k++) {
            if (layout == 2) {
                most += intervals.get(k).maxEncodedBytes();
            } else {
                stored[k] = storedHistogram(k);
                most += maxIntervalBytes(stored[k].length);
            }
        }
        ByteBuffer buf = ByteBuffer.allocate(most).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort((short) layout).putShort((short) 0)
                .putLong(runId).putLong(seq).putInt(count()).putInt(intervals.size())
                .put(records.duplicate());
        for (int k = 0; k < intervals.size(); k++) {
            if (layout == 2) {
                intervals.get(k).encode(buf);
            } else {
                intervals.get(k).encodeFields(buf);
                Varint.put(buf, stored[k].length);
                buf.put(stored[k]);
            }
        }
        // Same bytes, big-endian view: the JDK's WebSocket client masks payloads with getLong() in the
        // buffer's own byte order, which scrambles every 8 bytes of a little-endian buffer.
        return buf.flip().order(ByteOrder.BIG_ENDIAN);
    }

    /** The bytes {@link #encode} takes. */
    public int encodedBytes() {
        return encode().remaining();
    }

    /** At most the bytes a frame of these intervals and trace records takes. */
    public static int maxBytes(int records, int intervalBytes) {
        return HEADER_BYTES + records * TraceRecord.BYTES + intervalBytes;
    }

    /**
     * At most the bytes an interval takes in a v3 frame whose histogram ({@link StoredHistogram#encode}'s bytes) takes
     * histogramBytes: its fields, the length, the histogram. The agent encodes each histogram before it adds the
     * interval to a frame and sizes the frame by this: a bound from the bucket count alone would be about 36 bytes a
     * bucket (up to three numbers a bucket, each at most an escape's 12 bytes), some 30 times what a histogram takes.
     */
    public static int maxIntervalBytes(int histogramBytes) {
        return Interval.FIELDS_MAX_BYTES + Varint.MAX_BYTES + histogramBytes;
    }

    /** Whether this side reads frames of that layout version. */
    public static boolean reads(int version) {
        return version >= OLDEST_VERSION && version <= VERSION;
    }

    /** Decodes a frame; a frame that is not well-formed is refused, never half-read. */
    public static IntervalFrame decode(ByteBuffer frame) {
        ByteBuffer buf = frame.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (buf.remaining() < HEADER_BYTES) {
            throw new IllegalArgumentException("frame of " + buf.remaining() + " bytes is shorter than its header");
        }
        int magic = buf.getInt();
        short version = buf.getShort();
        buf.getShort();
        if (magic != MAGIC) {
            byte[] head = new byte[Math.min(16, frame.remaining())];
            frame.duplicate().get(head);
            throw new IllegalArgumentException("not a qplab frame (magic 0x" + Integer.toHexString(magic)
                    + ", first bytes " + HexFormat.of().formatHex(head) + ")");
        }
        if (!reads(version)) {
            throw new UnsupportedLayoutException(version);
        }
        long runId = buf.getLong();
        long seq = buf.getLong();
        int count = buf.getInt();
        int intervalCount = buf.getInt();
        if (count < 0 || (long) count * TraceRecord.BYTES > buf.remaining()) {
            throw new IllegalArgumentException("frame says " + count + " trace records but carries "
                    + buf.remaining() + " bytes after its header");
        }
        ByteBuffer records = buf.slice(buf.position(), count * TraceRecord.BYTES);
        buf.position(buf.position() + count * TraceRecord.BYTES);
        if (intervalCount < 0 || intervalCount > buf.remaining()) {
            throw new IllegalArgumentException("frame says " + intervalCount + " intervals but carries "
                    + buf.remaining() + " bytes of them");
        }
        List<Interval> intervals = new ArrayList<>(intervalCount);
        List<byte[]> histograms = version == 2 ? null : new ArrayList<>(intervalCount);
        for (int i = 0; i < intervalCount; i++) {
            try {
                intervals.add(version == 2 ? Interval.decode(buf) : Interval.decode(buf, in -> checkedHistogram(in, histograms)));
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw new IllegalArgumentException("frame " + seq + " of run " + runId + ", interval " + i
                        + " of " + intervalCount + ": " + e.getMessage());
            }
        }
        if (buf.hasRemaining()) {
            throw new IllegalArgumentException("frame " + seq + " of run " + runId + " has " + buf.remaining()
                    + " bytes after its " + intervalCount + " intervals");
        }
        return version == 2 ? new IntervalFrame(runId, seq, records, intervals) : new IntervalFrame(runId, seq, records,
                intervals, histograms, null);
    }

    private static final int[] NO_BUCKETS = {};
    private static final long[] NO_COUNTS = {};

    /**
     * Reads a v3 interval's histogram: its length, its bytes (kept in histograms), checked; the histogram returned
     * has its total but no buckets ({@link #intervalFields}).
     */
    private static Interval.Histogram checkedHistogram(ByteBuffer in, List<byte[]> histograms) {
        int length = Varint.getInt(in, "histogram length");
        if (length > in.remaining()) {
            throw new IllegalArgumentException("a histogram of " + length + " bytes, but the frame ends after "
                    + in.remaining());
        }
        byte[] stored = new byte[length];
        in.get(stored);
        if (length < 2 || stored[0] != 0 || stored[1] != StoredHistogram.RUNS) {
            throw new IllegalArgumentException("a histogram not in the runs format (v3 frames carry only that)");
        }
        long total = StoredHistogram.checkRuns(stored);
        histograms.add(stored);
        return new Interval.Histogram(NO_BUCKETS, NO_COUNTS, total);
    }

    /** A frame of a layout version this side does not read: the agent and the controller are of different releases. */
    public static final class UnsupportedLayoutException extends IllegalArgumentException {

        private final int version;

        public UnsupportedLayoutException(int version) {
            // short enough for a WebSocket close reason (123 bytes): that is how an agent learns it
            super("frame layout v" + version + " is not supported here (reads v" + OLDEST_VERSION + " and v" + VERSION
                    + "): run the agent of the controller's release");
            this.version = version;
        }

        public int version() {
            return version;
        }
    }
}
