package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How long a matrix would take: by planned length, by the cycle rate of similar runs, by the same runs, or unknown. */
class DurationEstimateTests {

    private final YamlMatrices matrices = YamlMatrices.withoutHosts();

    /** A history that answers from fixed figures, and records what it was asked. */
    private static final class Fixed implements DurationEstimate.History {
        final Map<Integer, DurationEstimate.Same> same = new HashMap<>();
        final Map<Integer, DurationEstimate.Similar> similar = new HashMap<>();
        final Map<String, DurationEstimate.Overhead> overhead = new HashMap<>();
        List<Map<String, Object>> askedAlike;

        @Override
        public Map<Integer, DurationEstimate.Same> same(List<Map<String, Object>> points) {
            return same;
        }

        @Override
        public Map<Integer, DurationEstimate.Similar> similar(List<Map<String, Object>> points, List<String> keys) {
            askedAlike = points;
            return similar;
        }

        @Override
        public Map<String, DurationEstimate.Overhead> overhead() {
            return overhead;
        }
    }

    @Test
    void timeBasedRunsTakeTheirDurationPlusTheMeasuredOverhead() {
        Fixed history = new Fixed();
        history.overhead.put("tcp", new DurationEstimate.Overhead(40, 0.5));
        Matrix matrix = matrices.expand("name: t\nbase: {provider: tcp, duration_ms: 2000}\n"
                + "dimensions: {msg_size: [64, 4096]}\nrepeats: 3\n");
        RunsEstimate estimate = DurationEstimate.of(matrix, history);
        assertThat(estimate.seconds()).isEqualTo(6 * 2.5);
        assertThat(estimate.estimatedRuns()).isEqualTo(6);
        assertThat(estimate.unknownRuns()).isZero();
        assertThat(estimate.basis()).isEqualTo("one after another; 6 runs by duration_ms; plus each run's overhead "
                + "(start to end beyond its measured time), measured over the last 40 runs of the provider");

        RunsEstimate bare = DurationEstimate.of(matrix, DurationEstimate.NONE);
        assertThat(bare.seconds()).isEqualTo(12.0);
        assertThat(bare.basis()).endsWith("no overhead added (no run has finished here)");
    }

    @Test
    void runsByCountTakeTheCycleRateOfSimilarRunsElseAreUnknown() {
        Fixed history = new Fixed();
        history.similar.put(0, new DurationEstimate.Similar(5, 1_000_000, 1.5));
        Matrix matrix = matrices.expand("name: t\nbase: {provider: tcp, msg_size: 64, iterations: 2000000}\n"
                + "dimensions: {threads: [1, 2]}\n");
        RunsEstimate estimate = DurationEstimate.of(matrix, history);
        assertThat(estimate.seconds()).as("2 M cycles at 1 M/s + 1.5 s").isEqualTo(3.5);
        assertThat(estimate.estimatedRuns()).isEqualTo(1);
        assertThat(estimate.unknownRuns()).isEqualTo(1);
        assertThat(estimate.basis()).contains("1 run from the cycle rate of similar finished runs")
                .contains("1 run unknown: they end by count and no similar run has finished here")
                .contains("measured over 5 runs alike but for their length");
        assertThat(history.askedAlike).as("alike but for the length keys").allSatisfy(p ->
                assertThat(p).doesNotContainKeys("iterations", "duration_ms", "warmup_cycles").containsKey("threads"));

        RunsEstimate none = DurationEstimate.of(matrix, DurationEstimate.NONE);
        assertThat(none.seconds()).isNull();
        assertThat(none.unknownRuns()).isEqualTo(2);
    }

    @Test
    void finishedRunsOfTheSameParametersComeFirstAndNvmeofAsksItsProviderForItsRuntime() {
        Fixed history = new Fixed();
        history.same.put(0, new DurationEstimate.Same(3, 7.0));
        Matrix matrix = matrices.expand("name: t\nbase: {provider: tcp, msg_size: 64, duration_ms: 2000}\nrepeats: 2\n");
        assertThat(DurationEstimate.of(matrix, history)).isEqualTo(new RunsEstimate(14.0, 2, 0,
                "one after another; 2 runs from 3 runs finished here with the same parameters"));

        Matrix nvmeof = matrices.expand("name: n\nbase: {provider: nvmeof, transport: local, runtime_ms: 3000}\n"
                + "hosts: {loopback: [t]}\n");
        assertThat(DurationEstimate.of(nvmeof, DurationEstimate.NONE).seconds()).isEqualTo(3.0);
        assertThat(DurationEstimate.of(nvmeof, DurationEstimate.NONE).basis()).startsWith("one after another; 1 run by "
                + "runtime_ms");
    }
}
