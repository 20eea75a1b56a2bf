package org.qplab.protocol;

/**
 * One engine record: one cycle of one thread (the C struct {@code qpb_trace_record}).
 * Times are nanoseconds since the run's t0 on the engine's monotonic clock.
 */
public record TraceRecord(int thread, int errors, long cycle, long startNs, long endNs, long bytes, long messages) {

    /** Size of one record in a frame and in the engine's ring, in bytes. */
    public static final int BYTES = 48;
}
