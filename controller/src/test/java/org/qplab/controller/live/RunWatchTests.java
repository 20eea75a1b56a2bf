package org.qplab.controller.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One watch told each frame and status by two sources (this controller's ingest and the database) shows each once. */
class RunWatchTests {

    private static final List<LiveEvent.ThreadProgress> THREADS =
            List.of(new LiveEvent.ThreadProgress(0, 7, 10, 40960, 0, 100, 5, 9, 9));

    private static RunSignal.Frame frame(long seq, long cycles) {
        return new RunSignal.Frame(seq, cycles, THREADS);
    }

    @Test
    void aFrameToldTwiceShowsOnceAndTotalsCountWhatWasStoredBeforeTheWatch() {
        RunWatch watch = new RunWatch(3, "RUNNING", 2, List.of(), 500); // frames 0 and 1 stored, 500 cycles
        assertThat(watch.show(frame(1, 250))).as("stored before the watch began").isEmpty();
        assertThat(watch.show(frame(2, 100))).contains(new LiveEvent.Progress(3, 2, 600, THREADS));
        assertThat(watch.show(frame(2, 100))).as("the database tells it again").isEmpty();
        assertThat(watch.show(frame(3, 50))).contains(new LiveEvent.Progress(3, 3, 650, THREADS));
        assertThat(watch.next()).isEqualTo(4);
    }

    @Test
    void framesStoredOutOfOrderEachShowOnce() {
        RunWatch watch = new RunWatch(3, "RUNNING", 0, List.of(2L), 30); // frame 2 was stored before 0 and 1
        assertThat(watch.accounted(2)).isTrue();
        assertThat(watch.show(frame(1, 10)).map(e -> ((LiveEvent.Progress) e).totalCycles())).contains(40L);
        assertThat(watch.next()).as("frame 0 is still missing").isZero();
        assertThat(watch.show(frame(0, 10)).map(e -> ((LiveEvent.Progress) e).totalCycles())).contains(50L);
        assertThat(watch.next()).as("0, 1 and 2 all accounted for").isEqualTo(3);
        assertThat(watch.show(frame(1, 10))).isEmpty();
        assertThat(watch.show(frame(2, 30))).isEmpty();
    }

    @Test
    void aStatusShowsWhenItChangesAndNothingAfterTheEnd() {
        RunWatch watch = new RunWatch(3, "QUEUED", 0, List.of(), 0);
        assertThat(watch.show(new RunSignal.Status("QUEUED"))).isEmpty();
        assertThat(watch.show(new RunSignal.Status("RUNNING"))).contains(new LiveEvent.Watching(3, "RUNNING"));
        assertThat(watch.show(new RunSignal.Status("RUNNING"))).as("both sources tell the start").isEmpty();
        assertThat(watch.show(new RunSignal.Status("FINISHED"))).contains(new LiveEvent.End(3, "FINISHED"));
        assertThat(watch.show(new RunSignal.Status("FINISHED"))).isEmpty();
        assertThat(watch.show(new RunSignal.Status("FAILED"))).as("one end only").isEqualTo(Optional.empty());
    }
}
