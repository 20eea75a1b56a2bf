package org.qplab.controller.live;

import java.util.List;

/**
 * A run's stored cycles over time, per thread, in slots of intervalNs by cycle end (ns since the
 * run's t0): the same per-thread numbers a live view receives per frame, so one chart draws both.
 */
public record RunTimeline(long runId, long intervalNs, List<LiveEvent.ThreadProgress> points) {}
