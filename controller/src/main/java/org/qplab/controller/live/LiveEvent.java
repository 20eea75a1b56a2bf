package org.qplab.controller.live;

import java.util.List;

/**
 * What a live view of a run receives: its status when the watch begins (every frame stored from then
 * on follows), progress after each stored frame, then the run's end.
 */
public sealed interface LiveEvent {

    long runId();

    /** The watch has begun: the run is QUEUED or RUNNING. */
    record Watching(long runId, String status) implements LiveEvent {}

    /**
     * One stored frame, per thread: cycles and bytes it carried, the time span they cover (ns since
     * the run's t0, so throughput = bytes / (lastEndNs - firstStartNs)) and their median cycle time.
     */
    record Progress(long runId, long seq, long totalCycles, List<ThreadProgress> threads) implements LiveEvent {}

    record ThreadProgress(int thread, long cycles, long bytes, long firstStartNs, long lastEndNs, long medianCycleNs) {}

    /** The run ended: FINISHED, FAILED or CANCELLED. */
    record End(long runId, String status) implements LiveEvent {}
}
