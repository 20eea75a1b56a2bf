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

    /**
     * Runs stored before the engine had mode and bidirectional did not record them; they ran as bw, one way,
     * so they pair with today's runs of the same point, and a run comparison lists no parameter that differs.
     */
    @Test
    void pairsRunsStoredBeforeModeExistedWithTodaysRuns() throws Exception {
        long old = experiment("[4096]", 31, 1.0, "6.18.0");
        long today = experiment("[4096]", 32, 1.0, "6.18.0");
        jdbc.sql("UPDATE run SET params = params - 'mode' - 'bidirectional' WHERE experiment_id = ?").param(old).update();
        assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ? AND params ->> 'mode' = 'bw'").param(today)
                .query(Long.class).single()).as("today's runs record their mode").isPositive();

        Map<String, Object> comparison = http().get().uri("/api/compare?baseline={a}&candidate={b}", old, today)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(list(comparison.get("points"))).singleElement()
                .satisfies(p -> assertThat(p.get("verdict")).isEqualTo("no change"));
        assertThat(list(comparison.get("baselineOnly"))).isEmpty();
        assertThat(list(comparison.get("candidateOnly"))).isEmpty();

        long oldRun = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(old).query(Long.class).single();
        long todayRun = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(today).query(Long.class).single();
        Map<String, Object> runs = http().get().uri("/api/compare/runs?baseline={a}&candidate={b}", oldRun, todayRun)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(list(runs.get("paramMismatches"))).isEmpty();
    }

    /**
     * The counters of both sides of a pair run, as the engine writes them into each summary: the comparison
     * lists those whose deltas differ, retransmission counters the summaries warned about first; the run API
     * shows the receiving side's summary beside the run's own.
     */
    @Test
    @SuppressWarnings("unchecked")
    void listsTheCounterDeltasThatDifferWarningsFirst() throws Exception {
        long baseline = experiment("[4096]", 31, 1.0, "6.18.0");
        long flapped = experiment("[4096]", 32, 1.0, "6.18.0");
        counters(baseline, "{\"hw_counters/sent_pkts\": 20000, \"hw_counters/completer_retry_err\": 0, "
                + "\"hw_counters/rcvd_pkts\": 5000}", "[]", "{\"hw_counters/duplicate_request\": 0}", "[]");
        counters(flapped, "{\"hw_counters/sent_pkts\": 20168, \"hw_counters/completer_retry_err\": 42, "
                + "\"hw_counters/rcvd_pkts\": 5000}", "[\"hw_counters/completer_retry_err moved by 42\"]",
                "{\"hw_counters/duplicate_request\": 672}", "[\"hw_counters/duplicate_request moved by 672\"]");

        Map<String, Object> comparison = http().get().uri("/api/compare?baseline={a}&candidate={b}", baseline, flapped)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        List<Map<String, Object>> changes = (List<Map<String, Object>>) list(comparison.get("points")).get(0).get("counterChanges");
        assertThat(changes).extracting(c -> c.get("side") + " " + c.get("counter") + " " + c.get("baseline") + " -> "
                        + c.get("candidate") + (Boolean.TRUE.equals(c.get("warning")) ? " (warning)" : ""))
                .as("rcvd_pkts moved as much on both: not listed")
                .containsExactly("client hw_counters/completer_retry_err 0.0 -> 42.0 (warning)",
                        "server hw_counters/duplicate_request 0.0 -> 672.0 (warning)",
                        "client hw_counters/sent_pkts 20000.0 -> 20168.0");

        long run = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(flapped).query(Long.class).single();
        Map<String, Object> shown = http().get().uri("/api/runs/{id}", run).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat((List<Object>) ((Map<String, Object>) shown.get("serverSummary")).get("warnings"))
                .containsExactly("hw_counters/duplicate_request moved by 672");
        assertThat((Map<String, Object>) ((Map<String, Object>) shown.get("summary")).get("counters"))
                .containsEntry("source", "sysfs");
    }

    /** Gives every run of the experiment these counter deltas and warnings, client and server side. */
    private void counters(long experimentId, String clientDeltas, String clientWarnings, String serverDeltas,
                          String serverWarnings) {
        String counters = "jsonb_build_object('source', 'sysfs', 'device', 'rxe0', 'port', 1, 'deltas', ?::jsonb)";
        jdbc.sql("UPDATE run_summary s SET summary = s.summary || jsonb_build_object('counters', " + counters
                        + ", 'warnings', ?::jsonb) FROM run r WHERE r.id = s.run_id AND r.experiment_id = ?")
                .params(clientDeltas, clientWarnings, experimentId).update();
        jdbc.sql("UPDATE run SET server_summary = jsonb_build_object('side', 'receiver', 'counters', " + counters
                        + ", 'warnings', ?::jsonb) WHERE experiment_id = ?")
                .params(serverDeltas, serverWarnings, experimentId).update();
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
