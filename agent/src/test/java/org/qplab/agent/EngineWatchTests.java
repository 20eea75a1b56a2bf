package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EngineWatchTests {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final EngineWatch watch = new EngineWatch(now::get, Duration.ofSeconds(20));

    private void advance(int seconds) {
        now.addAndGet(Duration.ofSeconds(seconds).toNanos());
    }

    @Test
    void aStoppedRunIsStuckOnlyOnceItOutlivesTheLimitAndTheReasonNamesItAndWhatToDo() {
        assertThat(watch.stuck()).as("idle").isNull();
        watch.stopRequested(16);
        advance(19);
        assertThat(watch.stuck()).as("19 s after the stop, within the limit").isNull();
        advance(6);
        assertThat(watch.stuck()).isEqualTo("the engine on this agent is stuck: run 16 has not ended 25 s after it was "
                + "told to stop (a verbs call that does not return, e.g. while the RDMA device's link cannot transmit); "
                + "this agent takes no run until it is restarted (stop and deploy it again, or restart the process on its host)");
    }

    @Test
    void aSecondCancelOfTheSameRunKeepsTheFirstOnesTime() {
        watch.stopRequested(16);
        advance(15);
        watch.stopRequested(16);
        advance(10);
        assertThat(watch.stuck()).contains("run 16 has not ended 25 s after it was told to stop");
    }

    @Test
    void aTeardownThatDoesNotReturnIsStuckAndARunThatEndsInTimeIsNot() {
        watch.stopRequested(16);
        advance(4);
        watch.tearingDown(16); // the run ended 4 s after the stop: its session is destroyed now
        advance(19);
        assertThat(watch.stuck()).isNull();
        advance(2);
        assertThat(watch.stuck()).contains("tearing down run 16's session has not returned for 21 s");
        watch.idle(); // it returned after all
        assertThat(watch.stuck()).isNull();
        advance(60);
        assertThat(watch.stuck()).as("idle for a minute").isNull();
    }

    @Test
    void aSessionThatMayTakeLongerIsGivenItsOwnLimit() {
        watch.tearingDown(17, Duration.ofSeconds(90)); // an nvmeof teardown: fio's grace, nvme disconnect, configfs
        advance(60);
        assertThat(watch.stuck()).as("60 s into a teardown allowed 90 s").isNull();
        advance(31);
        assertThat(watch.stuck()).contains("tearing down run 17's session has not returned for 91 s");
    }
}
