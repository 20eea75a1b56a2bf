package org.qplab.controller.ingest;

import java.util.concurrent.CompletableFuture;
import org.qplab.controller.agent.FrameStore;
import org.qplab.controller.live.LiveRuns;
import org.qplab.protocol.IntervalFrame;
import org.springframework.stereotype.Component;

/**
 * The frames agents send: stored by the group commit ({@link FrameIngest}), then shown to whoever watches the run,
 * before the agent is acknowledged. A run's end, stored after its frames, so reaches a live watcher after them.
 */
@Component
class FrameIntake implements FrameStore {

    private final FrameIngest ingest;
    private final LiveRuns live;

    FrameIntake(FrameIngest ingest, LiveRuns live) {
        this.ingest = ingest;
        this.live = live;
    }

    @Override
    public CompletableFuture<Boolean> store(IntervalFrame frame) {
        return ingest.submit(frame).thenApply(fresh -> {
            if (fresh) {
                live.stored(frame); // not for a replay: its watchers saw it the first time
            }
            return fresh;
        });
    }
}
