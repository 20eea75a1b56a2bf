package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.engine.EngineSession;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import tools.jackson.databind.json.JsonMapper;

/** The frames a run goes out in: every interval once, in numbered frames, each within the frame limit. */
class FrameBatcherIntegrationTests {

    @Test
    void aRunsIntervalsAndTraceGoOutOnceInNumberedFramesThatAddUpToTheSummary() {
        List<IntervalFrame> frames = new ArrayList<>();
        FrameBatcher batcher = new FrameBatcher(42, frames::add);
        Map<?, ?> summary;
        try (EngineSession session = EngineSession.create("""
                {"provider":"tcp","role":"loopback","threads":3,"msg_size":256,"duration_ms":600,"interval_ms":20,
                 "trace_first":5000}""")) {
            session.start();
            boolean ended = false;
            for (int i = 0; i < 3000 && !ended; i++) {
                ended = session.awaitEnd(Duration.ofMillis(5));
                batcher.drain(session, ended);
            }
            assertThat(ended).isTrue();
            summary = JsonMapper.builder().build().readValue(session.summaryJson(), Map.class);
        }

        assertThat(frames).extracting(IntervalFrame::seq).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, batcher.sent()).boxed().toList());
        assertThat(frames).allSatisfy(f -> {
            assertThat(f.runId()).isEqualTo(42);
            assertThat(f.encodedBytes()).isLessThanOrEqualTo(IntervalFrame.MAX_BYTES);
        });
        List<Interval> intervals = frames.stream().flatMap(f -> f.intervals().stream()).toList();
        assertThat(intervals.stream().mapToLong(Interval::cycles).sum()).as("every cycle, once")
                .isEqualTo(((Number) summary.get("cycles")).longValue());
        assertThat(intervals.stream().map(i -> i.thread() + "/" + i.index()).distinct()).hasSize(intervals.size())
                .hasSize(((Number) summary.get("intervals")).intValue());
        assertThat(frames.stream().mapToInt(IntervalFrame::count).sum()).as("the trace: 5,000 cycles of each thread")
                .isEqualTo(((Number) summary.get("traced")).intValue()).isEqualTo(15_000);
        // 30 intervals of 20 ms: the three threads' intervals of one moment travel together, most frames carry 3
        assertThat(frames.size()).isLessThan(intervals.size());
    }
}
