package org.qplab.controller.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The planner of search: anomalies against synthetic responses (AnomalySeeds, the bench's): the planted combination
 * is found and reduced to exactly its two dimensions, a smooth response has no anomaly, NIC counter warnings are
 * flagged and reduced too while host-wide ones are not, the budget holds, and the walk is a function of its seed.
 */
class AnomalySearchTests {

    private static AnomalySearch.Settings settings(long seed, int maxRuns) {
        return new AnomalySearch.Settings(AnomalySeeds.lists().dimensions(), seed, maxRuns, 2,
                AnomalySearch.Settings.DEFAULT_BELOW);
    }

    @Test
    void findsThePlantedCombinationAndReducesItToExactlyItsTwoDimensionsInNineOfTenSeeds() {
        int exact = 0;
        for (long seed = 1; seed <= 10; seed++) {
            AnomalySeeds.Outcome outcome = AnomalySeeds.drive(AnomalySeeds.lists(), seed, 60, 2, 0.03);
            exact += outcome.exact() ? 1 : 0;
            assertThat(outcome.runs()).as("seed %d", seed).isLessThanOrEqualTo(60);
            assertThat(outcome.others()).as("seed %d: %s", seed, outcome.report()).isZero();
        }
        assertThat(exact).isGreaterThanOrEqualTo(9);
    }

    @Test
    void reportsTheAnomalyWithItsResetsAndTheNeighbourThatExposedIt() {
        AnomalySeeds.Outcome outcome = AnomalySeeds.drive(AnomalySeeds.lists(), 1, 60, 2, 0.03);
        AnomalySearch.Anomaly anomaly = outcome.report().anomalies().get(0);
        assertThat(anomaly.point()).containsEntry("qps_per_thread", 8L).containsEntry("msg_size", 65536L);
        assertThat(anomaly.kinds()).containsExactly("below");
        assertThat(anomaly.value()).isLessThan(0.7 * anomaly.expected());
        assertThat(anomaly.minimalFeatures()).containsOnly(Map.entry("qps_per_thread", 8L),
                Map.entry("msg_size", 65536L));
        assertThat(anomaly.resets()).filteredOn(r -> !r.stillAnomalous()).extracting(AnomalySearch.Reset::dimension)
                .containsExactlyInAnyOrder("qps_per_thread", "msg_size");
        assertThat(anomaly.reduced()).isTrue();
        assertThat(outcome.report().stop()).isEqualTo("done");
    }

    @Test
    void aSmoothResponseHasNoAnomaly() {
        for (long seed = 1; seed <= 5; seed++) {
            AnomalySeeds.Driven driven = AnomalySeeds.drive(settings(seed, 60), AnomalySeeds.planted(seed, 0.03, 1.0),
                    p -> true);
            assertThat(driven.report().anomalies()).as("seed %d", seed).isEmpty();
            assertThat(driven.runCount()).isLessThanOrEqualTo(60);
        }
    }

    @Test
    void nicCounterWarningsAreFlaggedAndReducedAndHostWideOnesAreNot() {
        AnomalySeeds.Response base = AnomalySeeds.planted(3, 0.03, 1.0);
        AnomalySeeds.Response warned = (point, k) -> {
            AnomalySearch.RunValue run = base.run(point, k);
            List<String> warnings = new ArrayList<>(List.of("Tcp.RetransSegs moved by 2 (host-wide)"));
            if ((Long) point.get(2) >= 256) {
                warnings.add("hw_counters/rnr_nak_retry_err moved by 7");
            }
            return new AnomalySearch.RunValue(run.value(), warnings);
        };
        AnomalySeeds.Driven driven = AnomalySeeds.drive(settings(3, 60), warned, p -> true);
        assertThat(driven.report().anomalies()).isNotEmpty().allSatisfy(a -> {
            assertThat(a.kinds()).containsExactly("warned");
            assertThat(a.point()).containsEntry("tx_depth", 256L);
            assertThat(a.minimalFeatures()).containsOnly(Map.entry("tx_depth", 256L));
            assertThat(a.counters()).contains("hw_counters/rnr_nak_retry_err moved by 7");
        });
    }

    @Test
    void neverPlansMoreThanMaxRunsAndSaysWhenTheyRanOut() {
        for (int maxRuns : new int[] {11, 14, 20, 33}) {
            AnomalySeeds.Driven driven = AnomalySeeds.drive(settings(5, maxRuns),
                    AnomalySeeds.planted(5, 0.03, 0.4), p -> true);
            assertThat(driven.runCount()).as("max_runs %d", maxRuns).isLessThanOrEqualTo(maxRuns);
            assertThat(driven.report().runs()).isEqualTo(driven.runCount());
            assertThat(driven.report().stop()).isIn("done", "max_runs");
        }
    }

    @Test
    void isAFunctionOfItsSeedAndPlansOnlyWhatCanRun() {
        AnomalySeeds.Driven one = AnomalySeeds.drive(settings(9, 40), AnomalySeeds.planted(9, 0.03, 0.4), p -> true);
        AnomalySeeds.Driven again = AnomalySeeds.drive(settings(9, 40), AnomalySeeds.planted(9, 0.03, 0.4), p -> true);
        AnomalySeeds.Driven other = AnomalySeeds.drive(settings(10, 40), AnomalySeeds.planted(9, 0.03, 0.4), p -> true);
        assertThat(again.runs().keySet()).containsExactlyElementsOf(one.runs().keySet());
        assertThat(again.report()).isEqualTo(one.report());
        assertThat(other.runs().keySet()).isNotEqualTo(one.runs().keySet());

        // tx_depth 256 cannot run: never planned
        AnomalySeeds.Driven fenced = AnomalySeeds.drive(settings(9, 40), AnomalySeeds.planted(9, 0.03, 0.4),
                p -> p.get(2) != 3);
        assertThat(fenced.runs().keySet()).noneMatch(p -> p.get(2) == 3);
    }

    @Test
    void aFailedRunIsNotRunAgain() {
        AnomalySeeds.Response base = AnomalySeeds.planted(2, 0.03, 1.0);
        AnomalySeeds.Response failing = (point, k) -> (Long) point.get(0) == 16
                ? new AnomalySearch.RunValue(Double.NaN, List.of()) : base.run(point, k);
        AnomalySeeds.Driven driven = AnomalySeeds.drive(settings(2, 60), failing, p -> true);
        driven.runs().forEach((p, runs) -> {
            if (p.get(0) == 4) {
                assertThat(runs).as("%s", p).hasSize(1);
            }
        });
        assertThat(driven.report().anomalies()).isEmpty();
    }

    @Test
    void refusesObservationsThatAreNotPointsOfItsDimensions() {
        assertThatThrownBy(() -> AnomalySearch.next(settings(1, 60), List.of(new AnomalySearch.Observation(List.of(0, 0),
                List.of())), p -> true)).hasMessageContaining("is not one point of 3 dimensions");
        assertThatThrownBy(() -> new AnomalySearch.Dimension("tx_depth", List.of(1L, 2L), 2, true))
                .hasMessageContaining("reset index 2 outside its 2 values");
    }
}
