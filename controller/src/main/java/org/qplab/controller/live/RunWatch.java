package org.qplab.controller.live;

import java.util.Optional;
import java.util.TreeSet;

/**
 * One watch of a run: which of its frames it has accounted for (stored before it began, or shown since), the run's
 * cycles stored so far and the status it last showed. Told the same frame or status twice (by this controller's
 * ingest and by the database), it shows it once. An agent numbers a run's frames 0, 1, 2, ...; several writers store
 * them, so one may become visible before a lower one: the watch keeps every seq below {@link #next()} and the few
 * above it it has seen. Thread-safe.
 */
final class RunWatch {

    private final long runId;
    private long next;
    private final TreeSet<Long> above = new TreeSet<>();
    private long total;
    private String status;

    /** A watch that begins with the run in status, its frames seq 0 .. next-1 and above stored (total cycles). */
    RunWatch(long runId, String status, long next, Iterable<Long> above, long total) {
        this.runId = runId;
        this.status = status;
        this.next = next;
        this.total = total;
        above.forEach(this.above::add);
    }

    long runId() {
        return runId;
    }

    synchronized String status() {
        return status;
    }

    /** Every frame below this seq is accounted for. */
    synchronized long next() {
        return next;
    }

    /** The frame was stored before the watch began or has been shown. */
    synchronized boolean accounted(long seq) {
        return seq < next || above.contains(seq);
    }

    /** What to show for the signal: a frame's progress or a changed status, once; empty when it is nothing new. */
    synchronized Optional<LiveEvent> show(RunSignal signal) {
        if (signal instanceof RunSignal.Frame f) {
            if (accounted(f.seq())) {
                return Optional.empty();
            }
            above.add(f.seq());
            while (above.remove(next)) {
                next++;
            }
            total += f.cycles();
            return Optional.of(new LiveEvent.Progress(runId, f.seq(), total, f.threads()));
        }
        RunSignal.Status s = (RunSignal.Status) signal;
        if (s.status().equals(status) || new RunSignal.Status(status).ended()) {
            return Optional.empty(); // nothing changed, or the end was shown already
        }
        status = s.status();
        return Optional.of(s.ended() ? new LiveEvent.End(runId, status) : new LiveEvent.Watching(runId, status));
    }
}
