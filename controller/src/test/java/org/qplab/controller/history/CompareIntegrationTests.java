package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.controller.ingest.SampleIngest;
import org.springframework.beans.factory.annotation.Autowired;

/** The compare endpoint over runs whose cycles were stored through the real ingest path. */
class CompareIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private SampleIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    void flagsAFivePercentSlowerCandidateAsARegressionAndNamesTheHostDifference() throws Exception {
        long baseline = experiment("[4096]", 11, 1.0, "6.18.0");
        long slower = experiment("[4096]", 12, 1.05, "6.19.0");

        Map<String, Object> comparison = http().get().uri("/api/compare?baseline={a}&candidate={b}", baseline, slower)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();

        List<Map<String, Object>> points = list(comparison.get("points"));
        assertThat(points).hasSize(1);
        Map<String, Object> point = points.get(0);
        assertThat(point.get("verdict")).isEqualTo("regression");
        assertThat(((Number) point.get("cycleMedianChangePercent")).doubleValue()).isCloseTo(5.0, within(1.5));
        assertThat(((Number) point.get("bwChangePercent")).doubleValue()).isCloseTo(-4.8, within(1.5));
        assertThat(((Number) point.get("pValue")).doubleValue()).isLessThan(0.001);
        assertThat(list(comparison.get("hostMismatches"))).singleElement()
                .satisfies(m -> assertThat(m).containsEntry("fact", "kernel")
                        .containsEntry("baseline", List.of("6.18.0")).containsEntry("candidate", List.of("6.19.0")));
    }

    @Test
    void findsNoChangeBetweenTwoDrawsOfTheSameDistributionAndListsUnpairedPoints() throws Exception {
        long baseline = experiment("[4096]", 21, 1.0, "6.18.0");
        long same = experiment("[4096, 65536]", 22, 1.0, "6.18.0");

        Map<String, Object> comparison = http().get().uri("/api/compare?baseline={a}&candidate={b}", baseline, same)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();

        assertThat(list(comparison.get("points"))).singleElement()
                .satisfies(p -> assertThat(p.get("verdict")).isEqualTo("no change"));
        assertThat(list(comparison.get("hostMismatches"))).isEmpty();
        assertThat(list(comparison.get("baselineOnly"))).isEmpty();
        assertThat(list(comparison.get("candidateOnly"))).singleElement()
                .satisfies(params -> assertThat(params).containsEntry("msg_size", 65536));
    }

    @Test
    void histogramBucketsAreMonotoneAndNarrowEverywhere() {
        assertThat(jdbc.sql("""
                SELECT bool_and(qplab_cycle_bucket(x) <= qplab_cycle_bucket(x + 1)) FROM generate_series(0::bigint, 200000) x""")
                .query(Boolean.class).single()).as("monotone over 0..200000 ns").isTrue();
        // around every power of two up to 2^40 ns (18 minutes): monotone, and a bucket spans <= 1/128 of its value
        assertThat(jdbc.sql("""
                SELECT bool_and(qplab_cycle_bucket(v) <= qplab_cycle_bucket(v + 1)
                                AND qplab_cycle_bucket(v) < qplab_cycle_bucket(v + greatest(1, v / 128) + 1))
                FROM generate_series(8, 40) k, generate_series(-3, 3) d, LATERAL (SELECT (1::bigint << k) + d AS v) x""")
                .query(Boolean.class).single()).isTrue();
    }

    @Test
    void refusesABadConfidenceAndAnUnknownExperiment() {
        http().get().uri("/api/compare?baseline=1&candidate=2&alpha=2").exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("alpha");
        http().get().uri("/api/compare?baseline=987654&candidate=987655").exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("no experiment 987654");
    }

    private long experiment(String sizes, long seed, double scale, String kernel) throws Exception {
        return new StoredExperiments(http(), jdbc, ingest, outcomes).create(sizes, seed, scale, kernel);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }
}
