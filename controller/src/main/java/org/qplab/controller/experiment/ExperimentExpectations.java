package org.qplab.controller.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * How an experiment's runs met its expect rules, from their stored verdicts (run_expectation): FAIL once a run
 * failed; PENDING while runs are still to end; NOT_JUDGED when a run was not judged (no baseline for a relative rule,
 * no rule applied) or ended without a measurement (FAILED, CANCELLED); PASS when every run passed. The runs counted
 * are the experiment's current ones (a retried try is not). failures: the first rules that failed or were not judged.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "How the experiment's runs met its expect rules: FAIL once a run failed one; PENDING while runs "
        + "are still to end; NOT_JUDGED when a run was not judged (a relative rule without a baseline, no rule that "
        + "applies to it) or ended without a measurement (FAILED, CANCELLED); PASS when every run passed. failures "
        + "(only in GET /api/experiments/{id}): the first " + ExperimentExpectations.MAX_FAILURES
        + " rules that failed or were not judged, in run order.")
public record ExperimentExpectations(
        @Schema(allowableValues = {"PASS", "FAIL", "NOT_JUDGED", "PENDING"}) String verdict,
        int runsPassed, int runsFailed, int runsNotJudged, int runsPending,
        List<Failure> failures) {

    /** The most failures an experiment lists. */
    public static final int MAX_FAILURES = 50;

    /** One rule of one run that failed (FAIL) or could not be judged (NO_BASELINE, ...), with what was measured. */
    @Schema(name = "ExpectationFailure", description = "A rule of a run that failed or was not judged.")
    public record Failure(long runId, @Schema(example = "FAIL") String result,
                          @Schema(example = "bw_avg_gbps >= 90") String rule,
                          @Schema(example = "bw_avg_gbps >= 90 failed: measured 4.21 Gbit/s") String message) {}

    static String verdict(int failed, int pending, int notJudged) {
        return failed > 0 ? "FAIL" : pending > 0 ? "PENDING" : notJudged > 0 ? "NOT_JUDGED" : "PASS";
    }

    ExperimentExpectations withFailures(List<Failure> failures) {
        return new ExperimentExpectations(verdict, runsPassed, runsFailed, runsNotJudged, runsPending,
                List.copyOf(failures));
    }
}
