package org.qplab.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.protocol.Interval;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** The engine's latency mode (spec "mode":"latency", perftest's *_lat) through jnr-ffi, tcp in loopback. */
class EngineLatencyIntegrationTests {

    private final ObjectMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void engineLoads() {
        assertThat(Engine.isAvailable()).as("engine loads: %s", Engine.unavailabilityCause()).isTrue();
    }

    @Test
    void tcpLoopbackPingPongRecordsEveryIterationAsOneCycleWithItsLatency() {
        int threads = 2;
        int iterations = 300;
        List<Interval> intervals = new ArrayList<>();
        Map<?, ?> summary;
        try (EngineSession session = EngineSession.create("""
                {"provider":"tcp","mode":"latency","threads":%d,"msg_size":64,"iterations":%d,"warmup_cycles":10,
                 "interval_ms":10}""".formatted(threads, iterations))) {
            session.start();
            boolean ended = false;
            for (int i = 0; i < 1500 && !ended; i++) {
                ended = session.awaitEnd(Duration.ofMillis(20));
                session.drainIntervals(intervals);
            }
            assertThat(ended).as("run ends within 30 s").isTrue();
            while (session.drainIntervals(intervals) > 0) {
                // each thread's last interval closes as it ends
            }
            summary = json.readValue(session.summaryJson(), Map.class);
        }

        assertThat(summary.get("status")).isEqualTo("ok");
        assertThat(summary.get("mode")).isEqualTo("latency");
        assertThat(summary.get("iterations")).isEqualTo(iterations);
        assertThat(summary.get("tx_depth")).as("one message in flight per thread").isEqualTo(1);
        assertThat(((Number) summary.get("cycles")).longValue()).isEqualTo((long) threads * iterations)
                .isEqualTo(intervals.stream().mapToLong(Interval::cycles).sum());
        assertOrderedLatencies(summary);
        // the figures are the cycle times, in µs: what the histograms and charts over cycle_ns show
        Map<?, ?> cycleNs = (Map<?, ?>) summary.get("cycle_ns");
        Map<?, ?> latency = (Map<?, ?>) summary.get("latency_us");
        assertThat(number(latency, "min") * 1e3).isCloseTo(number(cycleNs, "min"), within(0.01));
        assertThat(number(latency, "max") * 1e3).isCloseTo(number(cycleNs, "max"), within(0.01));
        assertThat(number(latency, "typical") * 1e3).isCloseTo(number(cycleNs, "median"), within(0.01));
        assertThat(intervals.stream().mapToLong(Interval::minNs).min().orElseThrow()).isEqualTo((long) number(cycleNs, "min"));
        List<?> perThread = (List<?>) summary.get("per_thread");
        assertThat(perThread).hasSize(threads).allSatisfy(t -> {
            Map<?, ?> thread = (Map<?, ?>) t;
            assertThat(thread.get("cycles")).isEqualTo(iterations);
            assertOrderedLatencies(thread);
        });
    }

    @Test
    void aLatencySpecWithSeveralQpsPerThreadIsRefusedNamingTheField() {
        List<SpecViolation> violations = Engine.checkSpec(
                "{\"provider\":\"tcp\",\"mode\":\"latency\",\"msg_size\":64,\"qps_per_thread\":4}");

        assertThat(violations).singleElement().satisfies(v -> {
            assertThat(v.field()).isEqualTo("qps_per_thread");
            assertThat(v.message()).startsWith("mode latency: qps_per_thread 4 > 1 (one ping-pong per thread");
        });
    }

    private static void assertOrderedLatencies(Map<?, ?> owner) {
        Map<?, ?> l = (Map<?, ?>) owner.get("latency_us");
        assertThat(l).as("latency_us of %s", owner).isNotNull();
        assertThat(number(l, "min")).isPositive();
        assertThat(number(l, "min")).isLessThanOrEqualTo(number(l, "typical"));
        assertThat(number(l, "typical")).isLessThanOrEqualTo(number(l, "p99"));
        assertThat(number(l, "p99")).isLessThanOrEqualTo(number(l, "p999"));
        assertThat(number(l, "p999")).isLessThanOrEqualTo(number(l, "max"));
        assertThat(number(l, "avg")).isBetween(number(l, "min"), number(l, "max"));
        assertThat(number(l, "stdev")).isNotNegative();
    }

    private static double number(Map<?, ?> map, String key) {
        return ((Number) map.get(key)).doubleValue();
    }
}
