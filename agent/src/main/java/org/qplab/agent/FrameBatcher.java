package org.qplab.agent;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.qplab.engine.RunSession;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import org.qplab.protocol.StoredHistogram;
import org.qplab.protocol.TraceRecord;

/**
 * Collects what a running session hands over — its closed intervals and, when the run asked for a
 * trace, its trace records — into numbered frames of one run. A frame goes out when it is full
 * ({@link IntervalFrame#MAX_BYTES}) or when what it holds has waited {@link #MAX_DELAY}: the threads of a run
 * close their intervals at the same moments, so one frame usually carries one interval of every thread.
 * Engine thread only.
 */
final class FrameBatcher {

    /** The oldest interval or record of a frame waits at most this long for others to join it. */
    static final Duration MAX_DELAY = Duration.ofMillis(20);
    /** Trace records of one frame, at most (384 KiB). */
    static final int MAX_RECORDS = Math.min(8192, IntervalFrame.MAX_RECORDS);

    private final long runId;
    private final Consumer<IntervalFrame> out;
    private final byte[] records = new byte[MAX_RECORDS * TraceRecord.BYTES];
    private final List<Interval> drained = new ArrayList<>();
    private final List<Interval> intervals = new ArrayList<>();
    private final List<byte[]> histograms = new ArrayList<>(); // the intervals' in the runs format
    private int filled;
    private int intervalBytes;
    private long oldest;
    private long seq;

    FrameBatcher(long runId, Consumer<IntervalFrame> out) {
        this.runId = runId;
        this.out = out;
    }

    /** Frames sent so far (seq 0 .. sent-1). */
    long sent() {
        return seq;
    }

    /** Takes everything the session has ready and sends the frames that are due; ended: send what is left. */
    void drain(RunSession session, boolean ended) {
        int n;
        do {
            n = session.drainRaw(records, filled * TraceRecord.BYTES, MAX_RECORDS - filled);
            note(n);
            filled += n;
            if (filled == MAX_RECORDS) {
                flush();
            }
        } while (n > 0);
        drained.clear();
        session.drainIntervals(drained);
        for (Interval i : drained) {
            // encoded here, once: its size is what the frame's is reckoned by, and the frame carries these bytes
            byte[] histogram = StoredHistogram.encode(i.buckets(), i.counts());
            int bytes = IntervalFrame.maxIntervalBytes(histogram.length);
            if (IntervalFrame.maxBytes(filled, intervalBytes + bytes) > IntervalFrame.MAX_BYTES) {
                flush();
            }
            note(1);
            intervals.add(i);
            histograms.add(histogram);
            intervalBytes += bytes;
        }
        if (ended || (filled + intervals.size() > 0 && System.nanoTime() - oldest >= MAX_DELAY.toNanos())) {
            flush();
        }
    }

    private void note(int added) {
        if (added > 0 && filled == 0 && intervals.isEmpty()) {
            oldest = System.nanoTime();
        }
    }

    private void flush() {
        if (filled == 0 && intervals.isEmpty()) {
            return;
        }
        out.accept(new IntervalFrame(runId, seq++, ByteBuffer.wrap(Arrays.copyOf(records, filled * TraceRecord.BYTES)),
                intervals, histograms));
        filled = 0;
        intervals.clear();
        histograms.clear();
        intervalBytes = 0;
    }
}
