package org.qplab.controller.agent;

import java.util.concurrent.CompletableFuture;
import org.qplab.protocol.IntervalFrame;

/** Where the gateway hands the frames agents send (the ingest); an agent's frame is acknowledged once stored. */
public interface FrameStore {

    /**
     * Stores the frame without blocking. The future completes once the frame is committed and whoever watches its run
     * has seen it (true), or when it had been stored before (false: a replay); it fails when the frame could not be
     * stored.
     */
    CompletableFuture<Boolean> store(IntervalFrame frame);
}
