package org.qplab.controller.live;

import java.util.List;

/**
 * What a watch of a run hears, from this controller's ingest ({@link LiveRuns}) or from the database
 * ({@link StoredRuns}): a stored frame, or the run's status. {@link RunWatch} turns them into {@link LiveEvent}s, once
 * each whichever source told first.
 */
sealed interface RunSignal {

    /** A stored frame: its seq, the cycles its intervals count, and its intervals in (thread, interval) order. */
    record Frame(long seq, long cycles, List<LiveEvent.ThreadProgress> threads) implements RunSignal {}

    /** The run's status: QUEUED or RUNNING, or its end (FINISHED, FAILED, CANCELLED). */
    record Status(String status) implements RunSignal {

        boolean ended() {
            return !status.equals("QUEUED") && !status.equals("RUNNING");
        }
    }
}
