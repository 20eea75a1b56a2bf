package org.qplab.controller.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * How a finished run met its experiment's expect rules (stored in run_expectation when it finished): FAIL when a rule
 * failed; NOT_JUDGED when a relative rule had no baseline to hold it to (or a rule could not be read), or no rule
 * applied to the run; PASS otherwise.
 */
@Schema(description = "How a finished run met its experiment's expect rules, judged when it finished: FAIL when a "
        + "rule failed; NOT_JUDGED when a relative rule found no baseline of the run's fingerprint, or none of the "
        + "rules applied to the run (it does not measure their metrics); PASS otherwise. Each rule's result is listed.")
public record RunExpectation(
        @Schema(allowableValues = {"PASS", "FAIL", "NOT_JUDGED"}) String verdict,
        OffsetDateTime judgedAt,
        List<Rule> rules) {

    /** The run's verdict from its rules' results. */
    public static String verdictOf(List<Rule> rules) {
        if (rules.stream().anyMatch(r -> r.result().equals("FAIL"))) {
            return "FAIL";
        }
        if (rules.stream().anyMatch(r -> !List.of("PASS", "NOT_MEASURED").contains(r.result()))
                || rules.stream().noneMatch(r -> r.result().equals("PASS"))) {
            return "NOT_JUDGED";
        }
        return "PASS";
    }

    /**
     * One rule's result: the rule as written, the measured value and the limit held to (in the rule's unit), the
     * baseline's value and run for a relative rule, and what happened in words.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "RunExpectationRule", description = "One expect rule's result for the run. result: PASS or FAIL; "
            + "NO_BASELINE (a relative rule, and the run's fingerprint has no baseline marked: not judged); "
            + "NOT_MEASURED (the run does not measure the metric, as a bandwidth run has no latency: the rule does not "
            + "apply); UNREADABLE (a rule this controller no longer reads: not judged). measured, limit and baseline are in unit.")
    public record Rule(
            @Schema(example = "bw_avg_gbps >= 90") String rule,
            @Schema(description = "The run-level metric read.", example = "bw_avg_bps") String metric,
            @Schema(description = "The unit of measured, limit and baseline: the one the rule's name says, else the "
                    + "metric's own (bw_avg: B/s).", example = "Gbit/s") String unit,
            @Schema(allowableValues = {"PASS", "FAIL", "NO_BASELINE", "NOT_MEASURED", "UNREADABLE"}) String result,
            Double measured, Double limit, Double baseline, Long baselineRunId,
            @Schema(example = "bw_avg_gbps >= 90 failed: measured 4.21 Gbit/s") String message) {}
}
