package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.api.Violation;
import org.qplab.controller.run.Fingerprint;
import org.qplab.controller.run.RunExpectation;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectMapper;

/**
 * Judges a finished run against its experiment's expect rules ({@link ExpectRules}) and stores the result in
 * run_expectation, once: an absolute rule against its number, a relative one against the value of the run marked as
 * its fingerprint's baseline at that moment. A relative rule without a baseline is not judged (NO_BASELINE), and says
 * so, rather than passing; a rule on a metric the run does not measure does not apply to it (NOT_MEASURED).
 * Blocking; called in the transaction that ends the run, so whoever sees it FINISHED sees its verdict too.
 */
@Component
public class Expectations {

    private record Judged(Map<String, Object> params, Map<String, Object> hostFacts, String expect) {}

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public Expectations(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** Judges the run if its experiment has expect rules; a run judged before keeps its verdict. */
    @SuppressWarnings("unchecked")
    public void judge(long runId) {
        Judged run = jdbc.sql("""
                        SELECT r.params::text, r.host_facts::text, (e.matrix -> 'expect')::text
                        FROM run r JOIN experiment e ON e.id = r.experiment_id WHERE r.id = ?""")
                .param(runId).query((rs, i) -> new Judged(json.readValue(rs.getString(1), Map.class),
                        rs.getString(2) == null ? null : json.readValue(rs.getString(2), Map.class), rs.getString(3)))
                .optional().orElse(null);
        if (run == null || run.expect() == null) {
            return;
        }
        List<Violation> unreadable = new ArrayList<>();
        List<ExpectRule> rules = ExpectRules.read(json.readTree(run.expect()), unreadable);
        if (rules.isEmpty() && unreadable.isEmpty()) {
            return;
        }
        Long baselineRun = run.hostFacts() == null ? null : first(jdbc.sql(
                        "SELECT run_id FROM run_baseline WHERE fingerprint = ?")
                .param(Fingerprint.of(run.params(), run.hostFacts())).query((rs, i) -> rs.getLong(1)).list());
        List<RunExpectation.Rule> results = new ArrayList<>();
        for (ExpectRule rule : rules) {
            results.add(judge(rule, runId, run.params(), baselineRun));
        }
        for (Violation v : unreadable) { // a rule this controller no longer reads (checked when it was submitted)
            results.add(new RunExpectation.Rule(v.field(), null, null, "UNREADABLE", null, null, null, null,
                    v.field() + " not judged: " + v.message()));
        }
        jdbc.sql("""
                        INSERT INTO run_expectation (run_id, verdict, rules) VALUES (?, ?, CAST(? AS jsonb))
                        ON CONFLICT (run_id) DO NOTHING""")
                .params(runId, RunExpectation.verdictOf(results), json.writeValueAsString(results)).update();
    }

    private RunExpectation.Rule judge(ExpectRule rule, long runId, Map<String, Object> params, Long baselineRun) {
        Metric metric = rule.metric();
        String unit = rule.unit() != null ? rule.unit() : metric.unit();
        Double measured = metric.name().equals(Metric.notMeasured(params)) ? null : value(metric, runId, rule.scale());
        if (measured == null) {
            return new RunExpectation.Rule(rule.text(), metric.name(), unit, "NOT_MEASURED", null, null, null, null,
                    rule.text() + " does not apply: this run does not measure " + metric.name());
        }
        Double baseline = null;
        if (rule.relative()) {
            baseline = baselineRun == null ? null : value(metric, baselineRun, rule.scale());
            if (baseline == null) {
                return new RunExpectation.Rule(rule.text(), metric.name(), unit, "NO_BASELINE", measured, null, null,
                        baselineRun, rule.text() + " not judged: " + (baselineRun == null
                        ? "this run's fingerprint has no baseline (PUT /api/runs/{id}/baseline marks one)"
                        : "its baseline, run " + baselineRun + ", does not measure " + metric.name())
                        + "; measured " + ExpectRule.format(measured) + " " + unit);
            }
        }
        double limit = rule.limit(baseline == null ? 0 : baseline);
        boolean passed = rule.holds(measured, limit);
        String message = rule.text() + (passed ? " passed" : " failed") + ": measured " + ExpectRule.format(measured)
                + " " + unit + (rule.relative() ? ", limit " + ExpectRule.format(limit) + " " + unit + " ("
                + ExpectRule.format(rule.number()) + " × baseline run " + baselineRun + "'s "
                + ExpectRule.format(baseline) + ")" : "");
        return new RunExpectation.Rule(rule.text(), metric.name(), unit, passed ? "PASS" : "FAIL", measured, limit,
                baseline, rule.relative() ? baselineRun : null, message);
    }

    /** The metric of a run in the rule's unit; null when the run did not measure it. */
    private Double value(Metric metric, long runId, double scale) {
        Double value = first(jdbc.sql("SELECT " + metric.sql()
                        + " FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.id = ?")
                .param(runId).query((rs, i) -> rs.getObject(1) == null ? null : rs.getDouble(1)).list());
        return value == null ? null : value * scale;
    }

    private static <T> T first(List<T> list) {
        return list.isEmpty() ? null : list.get(0);
    }
}
