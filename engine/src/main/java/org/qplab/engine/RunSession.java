package org.qplab.engine;

import java.time.Duration;
import java.util.List;
import org.qplab.protocol.Interval;

/**
 * One side of a run as the agent drives it (RunExecutor, FrameBatcher): the native engine's
 * {@link EngineSession}, or a provider the agent runs itself (nvmeof: the kernel's NVMe-oF target and
 * initiator, fio). Not thread-safe except that {@link #stop()} may be called from any thread; every call
 * blocks. A failure is an {@link EngineException}: its status says whether trying again may succeed.
 */
public interface RunSession extends AutoCloseable {

    /** The JSON the peer's {@link #connect} takes (a pair run's prepare step). */
    String localEndpoint();

    /** Connects to the peer's endpoint (a server waits here for its client). */
    void connect(String peerEndpointJson);

    void start();

    /** Waits up to timeout for the run to end; true once it has ended. */
    boolean awaitEnd(Duration timeout);

    /** Copies up to max trace records into dest at offset (the frame layout); returns how many. */
    int drainRaw(byte[] dest, int offset, int max);

    /** Appends the intervals closed since the last call to into; returns how many. */
    int drainIntervals(List<Interval> into);

    /** Asks the run to stop early; safe from any thread while the session is open. */
    void stop();

    /** The summary JSON of the ended run (qpb.h's shape; a string "error" key: it failed while running). */
    String summaryJson();

    /**
     * How often the agent waits for the run's end and drains its intervals while it runs: the engine's rings every
     * 5 ms; a session whose intervals are seconds apart (fio's status dumps) may be polled less often.
     */
    default Duration drainInterval() {
        return Duration.ofMillis(5);
    }

    /**
     * How long, after a stop or while its teardown runs, the session may take before the agent counts its thread
     * as stuck (EngineWatch): the engine bounds its own waits within 20 s.
     */
    default Duration stuckAfter() {
        return Duration.ofSeconds(20);
    }

    /** Tears down everything the session made; never throws. */
    @Override
    void close();
}
