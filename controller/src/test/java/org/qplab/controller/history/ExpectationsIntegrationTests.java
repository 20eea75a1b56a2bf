package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.cli.QplabCli;
import org.qplab.controller.cli.QplabCli.Result;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * A matrix's expect rules on real runs (a real agent, the tcp provider on loopback), as a CI pipeline sees them
 * through ./qplab submit --wait: its exit code and what it prints, and the verdicts the run and experiment APIs show.
 * No rule depends on how fast this machine is: the absolute limits are far on either side of any rate, and the
 * relative ones compare paced runs (2000 cycles/s) of one fingerprint, whose rates agree to well within 2×.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SuppressWarnings("unchecked")
class ExpectationsIntegrationTests extends ControllerIntegrationTest {

    private static final String PACED = "base: {provider: tcp, msg_size: 4K, duration_ms: 300, rate_limit: 2000}\n";

    private AgentProcess agent;
    @TempDir
    Path dir;


    @BeforeAll
    void startTheAgent() throws Exception {
        agent = AgentProcess.start(port, "expect-agent", TOKEN);
    }

    @AfterAll
    void stopTheAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void aRunThatMeetsOneRuleAndMissesAnotherFailsAndSubmitWaitExitsThreeNamingTheRuleAndTheValue() throws Exception {
        Result result = submitAndWait("""
                name: one rule met, one missed
                base: {provider: tcp, msg_size: 4K, iterations: 200}
                expect:
                  bw_avg_bps: "> 0"
                  bw_avg_gbps: ">= 1e6"
                  latency_p99_us: "<= 1000"
                """);

        long experiment = Long.parseLong(result.out().strip());
        Map<String, Object> run = single(runs(experiment));
        long runId = ((Number) run.get("id")).longValue();
        double bw = jdbc.sql("SELECT bw_avg_bps FROM run_summary WHERE run_id = ?").param(runId).query(Double.class).single();
        String gbps = ExpectRule.format(bw * 8e-9);
        assertThat(result.exit()).as("stderr: %s\nagent: %s", result.err(), agent.log()).isEqualTo(3);
        assertThat(result.err()).contains("FINISHED, 1/1 runs done, 0 failed\n",
                "expectations: FAIL (0 runs passed, 1 failed, 0 not judged)\n",
                "  run " + runId + ": bw_avg_gbps >= 1000000 failed: measured " + gbps + " Gbit/s\n");
        assertThat(result.err()).as("a rule that passed is not listed").doesNotContain("bw_avg_bps > 0");

        Map<String, Object> expectation = (Map<String, Object>) run.get("expectation");
        assertThat(expectation).containsEntry("verdict", "FAIL");
        List<Map<String, Object>> rules = (List<Map<String, Object>>) expectation.get("rules");
        assertThat(rules).extracting(r -> r.get("rule") + " " + r.get("result") + " " + r.get("unit")).containsExactly(
                "bw_avg_bps > 0 PASS B/s", "bw_avg_gbps >= 1000000 FAIL Gbit/s", "latency_p99_us <= 1000 NOT_MEASURED µs");
        assertThat(number(rules.get(0), "measured")).isCloseTo(bw, within(bw * 1e-12));
        assertThat(number(rules.get(1), "measured")).isCloseTo(bw * 8e-9, within(bw * 1e-20));
        assertThat(number(rules.get(1), "limit")).isEqualTo(1e6);
        assertThat(rules.get(2)).containsEntry("message",
                "latency_p99_us <= 1000 does not apply: this run does not measure latency_p99_us");

        Map<String, Object> expectations = (Map<String, Object>) get("/api/experiments/" + experiment).get("expectations");
        assertThat(expectations).containsEntry("verdict", "FAIL").containsEntry("runsPassed", 0)
                .containsEntry("runsFailed", 1).containsEntry("runsNotJudged", 0).containsEntry("runsPending", 0);
        assertThat((List<Map<String, Object>>) expectations.get("failures")).singleElement().satisfies(f -> assertThat(f)
                .containsEntry("runId", (int) runId).containsEntry("result", "FAIL")
                .containsEntry("rule", "bw_avg_gbps >= 1000000"));
        assertThat(jdbc.sql("SELECT verdict FROM run_expectation WHERE run_id = ?").param(runId).query(String.class)
                .single()).isEqualTo("FAIL");
    }

    @Test
    void anExperimentWhoseRunsAllMeetTheirRulesPassesAndSubmitWaitExitsZero() throws Exception {
        Result result = submitAndWait("""
                name: every rule met
                base: {provider: tcp, iterations: 200}
                dimensions: {msg_size: [64, 4K]}
                expect: {bw_avg_gbps: "> 0", msg_rate: ["> 0", "< 1e12"]}
                """);

        assertThat(result.exit()).as("stderr: %s\nagent: %s", result.err(), agent.log()).isZero();
        assertThat(result.err()).contains("expectations: PASS (2 runs passed, 0 failed, 0 not judged)\n");
        long experiment = Long.parseLong(result.out().strip());
        assertThat(runs(experiment))
                .extracting(r -> ((Map<String, Object>) r.get("expectation")).get("verdict")).containsExactly("PASS", "PASS");
        assertThat((Map<String, Object>) get("/api/experiments/" + experiment).get("expectations"))
                .containsEntry("verdict", "PASS").containsEntry("failures", List.of());
    }

    /**
     * Without a baseline a relative rule is not judged, and says so (exit 4), rather than passing; once a run of the
     * fingerprint is marked, the next runs are held to it: 0.5 × its rate passes, 2 × fails.
     */
    @Test
    void relativeRulesAreNotJudgedWithoutABaselineThenHoldLaterRunsToIt() throws Exception {
        Result first = submitAndWait("name: paced, no baseline yet\n" + PACED + "expect: {msg_rate: \">= 0.5 * baseline\"}\n");
        assertThat(first.exit()).as("stderr: %s\nagent: %s", first.err(), agent.log()).isEqualTo(4);
        long firstRun = runOf(first);
        assertThat(first.err()).contains("expectations: NOT_JUDGED (0 runs passed, 0 failed, 1 not judged)\n",
                "  run " + firstRun + ": msg_rate >= 0.5 * baseline not judged: this run's fingerprint has no baseline");

        http().put().uri("/api/runs/{id}/baseline", firstRun).exchange().expectStatus().isOk();
        double baseline = jdbc.sql("SELECT msg_rate FROM run_summary WHERE run_id = ?").param(firstRun)
                .query(Double.class).single();

        Result met = submitAndWait("name: paced, half the baseline\n" + PACED + "expect: {msg_rate: \">= 0.5 * baseline\"}\n");
        assertThat(met.exit()).as("stderr: %s", met.err()).isZero();
        Map<String, Object> rule = ((List<Map<String, Object>>) ((Map<String, Object>) single(runs(
                Long.parseLong(met.out().strip()))).get("expectation")).get("rules")).get(0);
        assertThat(rule).containsEntry("result", "PASS").containsEntry("baselineRunId", (int) firstRun);
        assertThat(number(rule, "baseline")).isCloseTo(baseline, within(baseline * 1e-12));
        assertThat(number(rule, "limit")).isCloseTo(0.5 * baseline, within(baseline * 1e-12));

        Result missed = submitAndWait("name: paced, twice the baseline\n" + PACED
                + "expect: {msg_rate: \">= 2 * baseline\"}\n");
        assertThat(missed.exit()).as("stderr: %s", missed.err()).isEqualTo(3);
        long missedRun = runOf(missed);
        assertThat(missed.err()).contains("  run " + missedRun + ": msg_rate >= 2 * baseline failed: measured ",
                ", limit " + ExpectRule.format(2 * baseline) + " msg/s (2 × baseline run " + firstRun + "'s "
                        + ExpectRule.format(baseline) + ")");
    }

    @Test
    void aBadRuleIsA400NamingItWithEveryOtherViolation() {
        Map<String, Object> refused = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType(
                        "application/yaml"))
                .bodyValue("base: {msg_size: 0}\nexpect: {bw_avg_gpbs: \">= 90\", latency_p99_us: \"5\"}\n").exchange()
                .expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(list(refused.get("violations"))).extracting(v -> (String) v.get("field"))
                .contains("expect.bw_avg_gpbs", "expect.latency_p99_us", "base.msg_size");
        assertThat(list(refused.get("violations"))).filteredOn(v -> v.get("field").equals("expect.bw_avg_gpbs"))
                .singleElement().satisfies(v -> assertThat((String) v.get("message"))
                        .startsWith("unknown metric; did you mean bw_avg_gbps?"));
        assertThat(count("experiment WHERE name = 'experiment'")).as("nothing stored").isZero();
    }

    private long runOf(Result result) {
        return ((Number) single(runs(Long.parseLong(result.out().strip()))).get("id"))
                .longValue();
    }

    private Result submitAndWait(String matrix) throws IOException, InterruptedException {
        Path file = Files.createTempFile(dir, "matrix", ".yaml");
        Files.writeString(file, matrix);
        return QplabCli.run(port, adminToken(), "submit", file.toString(), "--wait");
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }

    private List<Map<String, Object>> runs(long experiment) {
        return http().get().uri("/api/experiments/{id}/runs", experiment).exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
    }

    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }

    private static Map<String, Object> single(Object value) {
        assertThat(list(value)).hasSize(1);
        return list(value).get(0);
    }

    private static double number(Map<String, Object> map, String key) {
        return ((Number) map.get(key)).doubleValue();
    }
}
