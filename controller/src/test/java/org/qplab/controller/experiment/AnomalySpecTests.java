package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;

/**
 * search: {anomalies: [...]} as a matrix writes it: its dimensions' values (the matrix's lists, else the default
 * ladders the provider takes), their reset values (base, else the provider's default), its first run, and what it
 * refuses; and the matrix's overrides, which plant an anomaly or inline small messages.
 */
class AnomalySpecTests {

    private final YamlMatrices matrices = YamlMatrices.withoutHosts();

    @Test
    void startsWithTheBasePointOnceAndTakesValuesFromTheMatrixListsOrTheDefaultLadders() {
        Matrix matrix = matrices.expand("""
                base: {provider: tcp, duration_ms: 100, msg_size: 4K, tx_depth: 16}
                dimensions: {msg_size: [1K, 64K], qps_per_thread: [2, 8]}
                search: {anomalies: [qps_per_thread, msg_size, tx_depth], seed: 4}
                repeats: 3
                """);
        assertThat(matrix.runs()).as("the walk's first point, once: repeats confirm what it flags").singleElement()
                .satisfies(r -> assertThat(r.params()).containsEntry("qps_per_thread", 1L)
                        .containsEntry("msg_size", 4096L).containsEntry("tx_depth", 16L)
                        .containsEntry("duration_ms", 100L));
        AnomalySpec spec = SearchSpec.of(matrix.source()).anomalies();
        assertThat(spec.names()).containsExactly("qps_per_thread", "msg_size", "tx_depth");
        assertThat(spec.values().get(0)).as("the list, with the provider's default as reset").containsExactly(1L, 2L, 8L);
        assertThat(spec.values().get(1)).as("the list, with base's value as reset").containsExactly(1024L, 4096L, 65536L);
        assertThat(spec.values().get(2)).as("the default ladder").containsExactly(1L, 4L, 16L, 64L, 256L, 1024L);
        assertThat(spec.resets()).containsExactly(1L, 4096L, 16L);
        assertThat(spec.seed()).isEqualTo(4);
        assertThat(spec.below()).isEqualTo(0.7);
        assertThat(SearchSpec.of(matrix.source()).maxRuns()).isEqualTo(60);
        assertThat(spec.indices(spec.point(List.of(2, 0, 3)))).containsExactly(2, 0, 3);
    }

    @Test
    void overridesSetWhatMatchingPointsTakeInTheGridAndInTheSearch() {
        Matrix grid = matrices.expand("""
                base: {provider: tcp, iterations: 10}
                dimensions: {msg_size: [64, 4K], qps_per_thread: [1, 8]}
                overrides: [{when: {qps_per_thread: 8, msg_size: {ge: 4K}}, set: {rate_limit: 100}}]
                """);
        assertThat(grid.runs()).extracting(r -> r.params().get("qps_per_thread") + "/" + r.params().get("msg_size") + "/"
                + r.params().get("rate_limit")).containsExactlyInAnyOrder("1/64/null", "1/4096/null", "8/64/null",
                "8/4096/100");
        Matrix search = matrices.expand("""
                base: {provider: tcp, msg_size: 4K}
                dimensions: {qps_per_thread: [1, 8]}
                search: {anomalies: [qps_per_thread]}
                overrides: [{when: {qps_per_thread: 8}, set: {rate_limit: 100}}]
                """);
        AnomalySpec spec = SearchSpec.of(search.source()).anomalies();
        assertThat(spec.point(List.of(1))).containsEntry("rate_limit", 100L);
        assertThat(spec.point(List.of(0))).doesNotContainKey("rate_limit");
        assertThat(matrices.expand("base: {provider: tcp, msg_size: 64}\noverrides: []").runs()).hasSize(1);

        Matrix knee = matrices.expand("""
                base: {provider: tcp, msg_size: 64K}
                search: {knee: threads, low: 1, high: 16}
                overrides: [{when: {threads: {ge: 8}}, set: {rate_limit: 100}}]
                """);
        assertThat(knee.runs()).extracting(r -> r.params().get("threads") + "/" + r.params().get("rate_limit"))
                .containsExactly("1/null", "3/null", "6/null", "16/100");
        SearchSpec kneeSpec = SearchSpec.of(knee.source());
        assertThat(kneeSpec.at(SearchSpec.base(knee.source()), 12)).containsEntry("rate_limit", 100L)
                .containsEntry("msg_size", 65536L);
        assertThat(kneeSpec.at(SearchSpec.base(knee.source()), 4)).doesNotContainKey("rate_limit");
    }

    @Test
    void refusesWhatItCannotSearchNamingTheField() {
        List<Violation> violations = matrices.violationsOf("""
                base: {provider: tcp, msg_size: 4K, mode: latency}
                dimensions: {threads: [1, 2], qps_per_thread: [1, 2]}
                zips: {z: {tx_depth: [1, 2]}}
                search: {anomalies: [threads, cq_mode, msg_size, msg_size], max_runs: 20000, max_minutes: 0, below: 1, x: 1}
                """);
        assertThat(violations).extracting(Violation::field).contains("search.anomalies[0]", "search.anomalies[1]",
                "search.anomalies[3]", "dimensions.qps_per_thread", "zips", "base.mode", "search.max_runs",
                "search.max_minutes", "search.below", "search.x");
        assertThat(matrices.violationsOf("base: {provider: tcp, msg_size: 4K}\nsearch: {anomalies: []}"))
                .extracting(Violation::field).containsExactly("search.anomalies");
        assertThat(matrices.violationsOf("base: {provider: tcp, msg_size: 4K}\nsearch: {anomalies: [msg_size], "
                + "max_runs: 5}\nrepeats: 3")).extracting(Violation::field, Violation::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("search.max_runs", "must leave room to examine one "
                        + "anomaly (its repeats, each dimension's reset with its repeats and a neighbour): at least 7, "
                        + "got 5"));
    }

    @Test
    void refusesAnOverrideThatIsNotWhenAndSetOfKnownParameters() {
        List<Violation> violations = matrices.violationsOf("""
                base: {provider: tcp, msg_size: 4K}
                overrides: [{when: {msg_szie: 4K}, set: {rate_limit: fast}}, {set: {rate_limit: 1}}, 7,
                            {when: {msg_size: 4K}, set: {tx_depth: [1, 2]}, also: 1}]
                """);
        assertThat(violations).extracting(Violation::field).containsExactlyInAnyOrder("overrides[0].when.msg_szie",
                "overrides[0].set.rate_limit", "overrides[1].when", "overrides[2]", "overrides[3].also",
                "overrides[3].set.tx_depth");
        assertThat(matrices.violationsOf("base: {provider: tcp, msg_size: 4K}\noverrides: {when: 1}"))
                .extracting(Violation::field).containsExactly("overrides");
    }
}
