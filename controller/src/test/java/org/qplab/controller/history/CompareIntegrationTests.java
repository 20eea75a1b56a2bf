package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/** The compare endpoint over runs whose cycles were stored through the real ingest path. */
class CompareIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    /**
     * Five runs a side, each run's cycles 2 % apart from run to run: a candidate 10 % slower per cycle has 9.1 %
     * less bandwidth; Welch's t over the runs' logs finds it, and its 99 % interval holds the injected change.
     */
    @Test
    void flagsATenPercentSlowerCandidateOverFiveRunsASideAndNamesTheHostDifference() throws Exception {
        long baseline = experiment("[4096]", 11, 1.0, "6.18.0-slower", 5, 0.02);
        long slower = experiment("[4096]", 12, 1.10, "6.19.0-slower", 5, 0.02);

        Map<String, Object> comparison = compare("baseline=" + baseline + "&candidate=" + slower);

        assertThat(comparison).containsEntry("confidence", 0.99).containsEntry("minRuns", 3);
        Map<String, Object> point = single(comparison.get("points"));
        assertThat(point).containsEntry("metric", "bw_avg_bps").containsEntry("method", "welch-log")
                .containsEntry("verdict", "regression");
        double injected = (1 / 1.10 - 1) * 100;
        assertThat(number(point, "changePercent")).isCloseTo(injected, within(2.0));
        assertThat(number(point, "ciLowPercent")).isLessThan(injected);
        assertThat(number(point, "ciHighPercent")).isGreaterThan(injected).isLessThan(-5);
        assertThat(number(point, "pValue")).isLessThan(0.01);
        assertThat(number(point, "cycleMedianChangePercent")).as("the runs' cycle medians").isCloseTo(10, within(2.5));
        Map<String, Object> bandwidth = list(point.get("judgments")).get(0);
        assertThat(bandwidth).containsEntry("metric", "bw_avg_bps").containsEntry("unit", "B/s")
                .containsEntry("higherIsBetter", true);
        Map<?, ?> runs = (Map<?, ?>) bandwidth.get("baseline");
        assertThat(runs.get("n")).isEqualTo(5);
        assertThat((List<?>) runs.get("values")).hasSize(5);
        assertThat(((Number) runs.get("cvPercent")).doubleValue()).as("run-to-run scatter").isBetween(0.3, 6.0);
        assertThat(((Map<?, ?>) point.get("baseline")).get("shape")).as("the pooled cycle times' percentiles")
                .satisfies(shape -> assertThat(((Number) ((Map<?, ?>) shape).get("p50Ns")).doubleValue())
                        .isCloseTo(100_000, within(5_000.0)));
        assertThat(list(comparison.get("hostMismatches"))).singleElement()
                .satisfies(m -> assertThat(m).containsEntry("fact", "kernel")
                        .containsEntry("baseline", List.of("6.18.0-slower")).containsEntry("candidate", List.of("6.19.0-slower")));
    }

    /**
     * Two draws of one configuration, 5 runs each with 5 % run-to-run scatter: no verdict, however many cycles
     * the runs hold (every one of the 25,000 a side is in the pooled shape, none is evidence of a change).
     */
    @Test
    void findsNoChangeBetweenTwoDrawsOfTheSameConfigurationAndListsUnpairedPoints() throws Exception {
        long baseline = experiment("[4096]", 21, 1.0, "6.18.0-same", 5, 0.05);
        long same = experiment("[4096, 65536]", 22, 1.0, "6.18.0-same", 5, 0.05);

        Map<String, Object> comparison = compare("baseline=" + baseline + "&candidate=" + same);

        Map<String, Object> point = single(comparison.get("points"));
        assertThat(point.get("verdict")).isEqualTo("no change");
        assertThat(number(point, "pValue")).isGreaterThan(0.01);
        assertThat(number(point, "ciLowPercent")).isLessThan(0);
        assertThat(number(point, "ciHighPercent")).isGreaterThan(0);
        assertThat(((Map<?, ?>) point.get("baseline")).get("cycles")).isEqualTo(5 * StoredExperiments.CYCLES);
        assertThat(list(comparison.get("hostMismatches"))).isEmpty();
        assertThat(list(comparison.get("baselineOnly"))).isEmpty();
        assertThat(list(comparison.get("candidateOnly"))).singleElement()
                .satisfies(params -> assertThat(params).containsEntry("msg_size", 65536));
    }

    /**
     * One run a side decides nothing until the baseline's fingerprint has five runs before the candidate's: then
     * their spread is the noise model. (The candidates run on another kernel, so they are not in that history.)
     */
    @Test
    void oneRunASideIsInconclusiveUntilTheFingerprintHasAHistory() throws Exception {
        long baseline = experiment("[4096]", 41, 1.0, "6.18.0-history", 1, 0.03);
        long candidate = experiment("[4096]", 42, 2.0, "6.19.0-history", 1, 0.03);

        Map<String, Object> point = single(compare("baseline=" + baseline + "&candidate=" + candidate).get("points"));
        assertThat(point).containsEntry("verdict", "inconclusive: 1 run per side").doesNotContainKey("pValue")
                .doesNotContainKey("ciLowPercent");
        assertThat(number(point, "changePercent")).as("still says how far apart the two runs are").isCloseTo(-50, within(10.0));

        for (int i = 0; i < 4; i++) {
            experiment("[4096]", 43 + i, 1.0, "6.18.0-history", 1, 0.03);
        }
        long later = experiment("[4096]", 47, 2.0, "6.19.0-history", 1, 0.03);
        Map<String, Object> judged = single(compare("baseline=" + baseline + "&candidate=" + later).get("points"));
        assertThat(judged).containsEntry("method", "history").containsEntry("noiseRuns", 5)
                .containsEntry("verdict", "regression");
        assertThat(number(judged, "ciLowPercent")).isLessThan(-50 + 15);
        assertThat(number(judged, "ciHighPercent")).isGreaterThan(-50 - 15).isLessThan(0);
    }

    /**
     * A machine whose experiments of one configuration drift apart (their means 0.8-1.3x, each one's runs within
     * 2 %): a 20 % shift between the next two is what its experiments do, not a regression. Without the earlier
     * experiments the runs alone would call it one.
     */
    @Test
    void aShiftWithinHowFarTheFingerprintsExperimentsDriftIsNoRegression() throws Exception {
        long alone = experiment("[4096]", 91, 1.0, "6.18.0-drift-alone", 5, 0.02);
        long aloneShifted = experiment("[4096]", 92, 1.25, "6.18.0-drift-alone", 5, 0.02);
        assertThat(single(compare("baseline=" + alone + "&candidate=" + aloneShifted).get("points")))
                .as("no earlier experiments: the runs alone").containsEntry("method", "welch-log")
                .containsEntry("verdict", "regression");

        double[] drift = {1.0, 1.3, 0.8, 1.15};
        for (int i = 0; i < drift.length; i++) {
            experiment("[4096]", 93 + i, drift[i], "6.18.0-drift", 5, 0.02);
        }
        long baseline = experiment("[4096]", 97, 1.0, "6.18.0-drift", 5, 0.02);
        long shifted = experiment("[4096]", 98, 1.25, "6.18.0-drift", 5, 0.02);
        Map<String, Object> point = single(compare("baseline=" + baseline + "&candidate=" + shifted).get("points"));
        assertThat(point).containsEntry("method", "welch-log+drift").containsEntry("noiseExperiments", 5)
                .containsEntry("verdict", "no change");
        assertThat(number(point, "driftPercent")).as("sd of the experiments' mean logs, less their runs' share")
                .isBetween(10.0, 30.0);
        assertThat(number(point, "changePercent")).isCloseTo(-20, within(3.0));
        assertThat(number(point, "ciLowPercent")).isLessThan(-20);
        assertThat(number(point, "ciHighPercent")).isGreaterThan(0);
    }

    /** Experiments that differ in one parameter pair only when it is named in across; the response suggests it. */
    @Test
    @SuppressWarnings("unchecked")
    void acrossPairsExperimentsThatDifferInOneParameter() throws Exception {
        long small = experiment("[4096]", 51, 1.0, "6.18.0-across", 3, 0.02);
        long large = experiment("[65536]", 52, 1.0, "6.18.0-across", 3, 0.02);

        Map<String, Object> apart = compare("baseline=" + small + "&candidate=" + large);
        assertThat(list(apart.get("points"))).isEmpty();
        assertThat((List<Object>) apart.get("suggestAcross")).containsExactly("msg_size");

        Map<String, Object> across = compare("baseline=" + small + "&candidate=" + large + "&across=msg_size");
        assertThat((List<Object>) across.get("across")).containsExactly("msg_size");
        Map<String, Object> point = single(across.get("points"));
        assertThat(list(point.get("differing"))).singleElement().satisfies(d -> assertThat(d)
                .containsEntry("param", "msg_size").containsEntry("baseline", 4096).containsEntry("candidate", 65536));
        assertThat(point.get("verdict")).as("16 x the bytes in the same cycle time").isEqualTo("improvement");
        assertThat(number(point, "changePercent")).isCloseTo(1500, within(200.0));
        assertThat(list(across.get("baselineOnly"))).isEmpty();
    }

    /**
     * Runs stored before the engine had mode and bidirectional did not record them; they ran as bw, one way,
     * so they pair with today's runs of the same point, and a run comparison lists no parameter that differs.
     */
    @Test
    void pairsRunsStoredBeforeModeExistedWithTodaysRuns() throws Exception {
        long old = experiment("[4096]", 31, 1.0, "6.18.0-mode", 3, 0.02);
        long today = experiment("[4096]", 32, 1.0, "6.18.0-mode", 3, 0.02);
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
        long baseline = experiment("[4096]", 31, 1.0, "6.18.0-counters");
        long flapped = experiment("[4096]", 32, 1.0, "6.18.0-counters");
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
    void refusesABadConfidenceThresholdAcrossOrMetricAndAnUnknownExperiment() {
        Map<String, Object> refused = http().get()
                .uri("/api/compare?baseline=1&candidate=2&alpha=0.6&threshold=-1&across=tx_depth,nope&metric=speed")
                .exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(list(refused.get("violations"))).extracting(v -> v.get("field") + ": " + v.get("message"))
                .containsExactly("across: unknown parameter 'nope': across names run parameters ("
                                + org.qplab.controller.experiment.ProviderKeys.knownKeys() + ") or hosts",
                        "alpha: must be in (0, 0.5] (0.01: a 1 % chance that a change is noise), got 0.6",
                        "threshold: must be a percentage >= 0, got -1.0",
                        "metric: must be one of bw_avg_bps, msg_rate, iops, latency_typical_us, latency_p99_us, "
                                + "cycle_median_ns, cycle_p99_ns, got speed");
        http().get().uri("/api/compare?baseline=1&candidate=2&alpha=0").exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("alpha");
        http().get().uri("/api/compare?baseline=987654&candidate=987655").exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("no experiment 987654");
    }

    private long experiment(String sizes, long seed, double scale, String kernel) throws Exception {
        return new StoredExperiments(http(), jdbc, ingest, outcomes).create(sizes, seed, scale, kernel);
    }

    private long experiment(String sizes, long seed, double scale, String kernel, int repeats, double runScatter)
            throws Exception {
        return new StoredExperiments(http(), jdbc, ingest, outcomes).create(sizes, seed, scale, kernel, repeats, runScatter);
    }

    private Map<String, Object> compare(String query) {
        return http().get().uri("/api/compare?" + query).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    private static Map<String, Object> single(Object points) {
        List<Map<String, Object>> list = list(points);
        assertThat(list).hasSize(1);
        return list.get(0);
    }

    private static double number(Map<String, Object> map, String key) {
        assertThat(map).containsKey(key);
        return ((Number) map.get(key)).doubleValue();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }
}
