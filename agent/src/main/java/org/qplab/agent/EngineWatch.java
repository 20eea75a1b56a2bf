package org.qplab.agent;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.qplab.agent.log.Log;

/**
 * Whether the agent's engine thread is stuck: a run that was told to stop and has not ended, or a
 * session whose teardown has not returned, for longer than {@link #STUCK_AFTER}. The engine bounds
 * its own waits (a stopped run ends within 5 s, every control-socket wait has a timeout), so past
 * that a verbs call is not returning — e.g. {@code ibv_destroy_qp} while the device's link cannot
 * transmit. Work the controller sends meanwhile would only queue behind it, each run failing one
 * prepare timeout later; the agent refuses it at once instead, saying why.
 */
final class EngineWatch {

    static final Duration STUCK_AFTER = Duration.ofSeconds(20);

    /** What the engine thread is waiting for, since when (nanoTime). */
    private record Busy(long runId, boolean teardown, long sinceNs, long limitNs) { }

    private final LongSupplier nanoClock;
    private final long stuckAfterNs;
    private volatile Busy busy;
    private volatile boolean reported;

    EngineWatch() {
        this(System::nanoTime, STUCK_AFTER);
    }

    EngineWatch(LongSupplier nanoClock, Duration stuckAfter) {
        this.nanoClock = nanoClock;
        this.stuckAfterNs = stuckAfter.toNanos();
    }

    /** A cancel reached the running run: it should end within the engine's stop grace. */
    void stopRequested(long runId) {
        stopRequested(runId, null);
    }

    /** The same for a session that may take longer than the engine (limit; null: the watch's own). */
    void stopRequested(long runId, Duration limit) {
        Busy now = busy;
        if (now == null || now.runId() != runId) { // a second cancel keeps the first one's time
            busy = new Busy(runId, false, nanoClock.getAsLong(), limitNs(limit));
        }
    }

    /** The engine thread starts destroying the run's session. */
    void tearingDown(long runId) {
        tearingDown(runId, null);
    }

    /** The same for a session whose teardown may take longer than the engine's (limit; null: the watch's own). */
    void tearingDown(long runId, Duration limit) {
        busy = new Busy(runId, true, nanoClock.getAsLong(), limitNs(limit));
    }

    private long limitNs(Duration limit) {
        return limit == null ? stuckAfterNs : Math.max(stuckAfterNs, limit.toNanos());
    }

    /** The engine thread is done with what it was waiting for. */
    void idle() {
        busy = null;
        reported = false;
    }

    /** Why the engine takes no run now, or null when it is not stuck. */
    String stuck() {
        Busy now = busy;
        if (now == null) {
            return null;
        }
        long seconds = Duration.ofNanos(nanoClock.getAsLong() - now.sinceNs()).toSeconds();
        if (seconds * 1_000_000_000L < now.limitNs()) {
            return null;
        }
        String what = now.teardown()
                ? "tearing down run " + now.runId() + "'s session has not returned for " + seconds + " s"
                : "run " + now.runId() + " has not ended " + seconds + " s after it was told to stop";
        String reason = "the engine on this agent is stuck: " + what + " (a verbs call that does not return, e.g. while "
                + "the RDMA device's link cannot transmit); this agent takes no run until it is restarted "
                + "(stop and deploy it again, or restart the process on its host)";
        if (!reported) {
            reported = true;
            Log.info(reason);
        }
        return reason;
    }
}
