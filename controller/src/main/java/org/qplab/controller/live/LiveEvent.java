package org.qplab.controller.live;

import java.util.List;

/**
 * What a live view of a run receives: its status when the watch begins (every frame stored from then
 * on follows), progress after each stored frame, then the run's end.
 */
public sealed interface LiveEvent {

    long runId();

    /** The watch has begun (the run is QUEUED or RUNNING), or a queued run has started on its agent (RUNNING). */
    record Watching(long runId, String status) implements LiveEvent {}

    /**
     * One stored frame: its intervals, one per thread and interval. totalCycles: the run's cycles stored so
     * far (every cycle is in exactly one interval). Frames show in the order they were stored: mostly by seq, but
     * two stored at once may show the other way round.
     */
    record Progress(long runId, long seq, long totalCycles, List<ThreadProgress> threads) implements LiveEvent {}

    /**
     * What a thread did in an interval (or, on a timeline, in a slot of several): cycles and bytes, the time
     * span they cover (ns since the run's t0, so throughput = bytes / (lastEndNs - firstStartNs)), and the
     * median, p99 and p99.9 of their cycle times, from every cycle. interval: the first interval it covers.
     */
    record ThreadProgress(int thread, long interval, long cycles, long bytes, long firstStartNs, long lastEndNs,
                          long medianCycleNs, long p99CycleNs, long p999CycleNs) {}

    /** The run ended: FINISHED, FAILED or CANCELLED. */
    record End(long runId, String status) implements LiveEvent {}
}
