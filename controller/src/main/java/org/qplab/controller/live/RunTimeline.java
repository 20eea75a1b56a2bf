package org.qplab.controller.live;

import java.util.List;

/**
 * A run over time, from its stored intervals: per thread and slot of intervalNs (by interval, from the run's
 * t0) the same numbers a live view receives per interval, so one chart draws both; and per slot over every
 * thread, the cycle-time percentiles (where a run's tail grew). Every cycle of the run is in exactly one slot.
 */
public record RunTimeline(long runId, long intervalNs, List<LiveEvent.ThreadProgress> points, List<Slot> percentiles) {

    /** The slot [fromNs, toNs) of every thread: its cycles and their median, p99, p99.9 and longest cycle time. */
    public record Slot(long fromNs, long toNs, long cycles, long medianCycleNs, long p99CycleNs, long p999CycleNs,
                       long maxCycleNs) {}
}
