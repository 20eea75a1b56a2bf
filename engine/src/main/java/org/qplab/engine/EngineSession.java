package org.qplab.engine;

import java.time.Duration;
import java.util.List;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import org.qplab.protocol.Interval;
import org.qplab.protocol.TraceRecord;

/**
 * One benchmark run in the native engine. Owns the native session; not thread-safe except that
 * {@link #stop()} may be called from any thread. Every call blocks: never call it on an event loop.
 */
public final class EngineSession implements RunSession {

    private static final int DRAIN_CHUNK = 4096;
    /** Bytes of interval records taken per call: the engine needs room for its largest (QPB_INTERVAL_MAX_BYTES). */
    private static final int INTERVAL_DRAIN_BYTES = 1 << 20;
    /** The engine's QPB_INTERVAL_MAX_BYTES: a call that leaves more room than this took every record waiting. */
    private static final int INTERVAL_MAX_BYTES = 118_872;
    private static final int INTERVAL_HEADER_BYTES = 88;
    private static final int BUCKET_BYTES = 16;

    private final QpbLibrary lib;
    private final Pointer handle;
    private final Pointer drainBuffer;
    private final long[] offsets;
    private final NativeInterval interval;
    private Pointer intervalBuffer; // allocated on the first drain of intervals
    private volatile boolean closed;

    private EngineSession(QpbLibrary lib, Pointer handle) {
        this.lib = lib;
        this.handle = handle;
        NativeTraceRecord layout = new NativeTraceRecord(jnr.ffi.Runtime.getRuntime(lib));
        this.offsets = new long[] {layout.thread.offset(), layout.errors.offset(), layout.cycle.offset(),
                layout.startNs.offset(), layout.endNs.offset(), layout.bytes.offset(), layout.messages.offset()};
        this.drainBuffer = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(lib), DRAIN_CHUNK * TraceRecord.BYTES);
        this.interval = new NativeInterval(jnr.ffi.Runtime.getRuntime(lib));
    }

    /** Creates a session from an engine spec (see qpb.h); an invalid spec throws with every violation. */
    public static EngineSession create(String specJson) {
        QpbLibrary lib = Engine.library();
        byte[] err = new byte[4096];
        Pointer handle = lib.qpb_session_create(specJson, err, err.length);
        if (handle == null || handle.address() == 0) {
            int end = 0;
            while (end < err.length && err[end] != 0) {
                end++;
            }
            throw new EngineException("qpb_session_create", 1, new String(err, 0, end, java.nio.charset.StandardCharsets.UTF_8));
        }
        return new EngineSession(lib, handle);
    }

    @Override
    public String localEndpoint() {
        return Engine.readString((buf, len) -> lib.qpb_local_endpoint(handle, buf, len), "qpb_local_endpoint", this);
    }

    @Override
    public void connect(String peerEndpointJson) {
        check("qpb_connect", lib.qpb_connect(handle, peerEndpointJson));
    }

    @Override
    public void start() {
        check("qpb_start", lib.qpb_start(handle));
    }

    /** Appends up to max records from the engine's rings to into; returns how many. */
    public int drain(List<TraceRecord> into, int max) {
        int total = 0;
        while (total < max) {
            int n = lib.qpb_drain(handle, drainBuffer, Math.min(DRAIN_CHUNK, max - total));
            if (n < 0) {
                throw new EngineException("qpb_drain", -n, lastError());
            }
            for (int i = 0; i < n; i++) {
                long base = (long) i * TraceRecord.BYTES;
                into.add(new TraceRecord(
                        drainBuffer.getInt(base + offsets[0]),
                        drainBuffer.getInt(base + offsets[1]),
                        drainBuffer.getLong(base + offsets[2]),
                        drainBuffer.getLong(base + offsets[3]),
                        drainBuffer.getLong(base + offsets[4]),
                        drainBuffer.getLong(base + offsets[5]),
                        drainBuffer.getLong(base + offsets[6])));
            }
            total += n;
            if (n < DRAIN_CHUNK) {
                break;
            }
        }
        return total;
    }

    /**
     * Copies up to max records from the engine's rings into dest at offset, as they are in native
     * memory (the frame layout), and returns how many. The agent's hot path: no object per record.
     */
    @Override
    public int drainRaw(byte[] dest, int offset, int max) {
        int total = 0;
        while (total < max) {
            int n = lib.qpb_drain(handle, drainBuffer, Math.min(DRAIN_CHUNK, max - total));
            if (n < 0) {
                throw new EngineException("qpb_drain", -n, lastError());
            }
            drainBuffer.get(0, dest, offset + total * TraceRecord.BYTES, n * TraceRecord.BYTES);
            total += n;
            if (n < DRAIN_CHUNK) {
                break;
            }
        }
        return total;
    }

    /**
     * Appends the interval records the engine has closed since the last call to into; returns how many. After
     * the run has ended, call it until it returns 0: each thread's last interval closes as the thread ends.
     */
    @Override
    public int drainIntervals(List<Interval> into) {
        if (intervalBuffer == null) {
            intervalBuffer = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(lib), INTERVAL_DRAIN_BYTES);
        }
        int total = 0;
        int n;
        do {
            n = lib.qpb_drain_intervals(handle, intervalBuffer, INTERVAL_DRAIN_BYTES);
            if (n < 0) {
                throw new EngineException("qpb_drain_intervals", -n, lastError());
            }
            for (int at = 0; at < n; total++) {
                at += read(intervalBuffer, at, into);
            }
        } while (n > INTERVAL_DRAIN_BYTES - INTERVAL_MAX_BYTES); // the next record may not have fitted
        return total;
    }

    /** Reads the record at at into into; returns its size. */
    private int read(Pointer buf, int at, List<Interval> into) {
        int size = buf.getInt(at + interval.size.offset());
        int pairs = buf.getInt(at + interval.buckets.offset());
        if (size != INTERVAL_HEADER_BYTES + pairs * BUCKET_BYTES) {
            throw new EngineException("qpb_drain_intervals", 3, "an interval record of " + size + " bytes with "
                    + pairs + " buckets: the engine library does not match this agent");
        }
        int[] buckets = new int[pairs];
        long[] counts = new long[pairs];
        for (int k = 0, p = at + INTERVAL_HEADER_BYTES; k < pairs; k++, p += BUCKET_BYTES) {
            buckets[k] = buf.getInt(p);
            counts[k] = buf.getLong(p + 8);
        }
        into.add(new Interval(buf.getInt(at + interval.thread.offset()), buf.getLong(at + interval.index.offset()),
                buf.getInt(at + interval.span.offset()), buf.getLong(at + interval.cycles.offset()),
                buf.getLong(at + interval.messages.offset()), buf.getLong(at + interval.bytes.offset()),
                buf.getLong(at + interval.errors.offset()), buf.getLong(at + interval.minNs.offset()),
                buf.getLong(at + interval.maxNs.offset()), buf.getLong(at + interval.firstStartNs.offset()),
                buf.getLong(at + interval.lastEndNs.offset()), buckets, counts));
        return size;
    }

    /** Waits up to timeout for the run to end; true once it has ended. */
    @Override
    public boolean awaitEnd(Duration timeout) {
        int status = lib.qpb_wait(handle, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        if (status == QpbLibrary.QPB_ETIMEOUT) {
            return false;
        }
        check("qpb_wait", status);
        return true;
    }

    /** Asks the run to stop early; safe from any thread while the session is open. */
    @Override
    public synchronized void stop() {
        if (!closed) {
            lib.qpb_stop(handle);
        }
    }

    /** The engine's summary JSON of the ended run. */
    @Override
    public String summaryJson() {
        return Engine.readString((buf, len) -> lib.qpb_summary(handle, buf, len), "qpb_summary", this);
    }

    String lastError() {
        String message = lib.qpb_last_error(handle);
        return message == null ? "" : message;
    }

    private void check(String call, int status) {
        if (status != QpbLibrary.QPB_OK) {
            throw new EngineException(call, status, lastError());
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            lib.qpb_session_destroy(handle);
        }
    }
}
