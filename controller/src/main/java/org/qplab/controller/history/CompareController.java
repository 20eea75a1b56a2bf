package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * GET /api/compare?baseline=ID&candidate=ID (experiments), /api/compare/runs?baseline=RUN&candidate=RUN,
 * /api/compare/baselines?experiment=ID or ?run=RUN; each takes [&alpha=0.01][&threshold=5].
 */
@RestController
@Tag(name = ApiTags.HISTORY)
class CompareController {

    private static final String VERDICT = "Each point has the change of the mean bandwidth and of the median cycle "
            + "time in %, the Mann-Whitney p-value of the cycle times, and a verdict: regression or improvement "
            + "(cycles slower or faster by at least threshold %, p < alpha) or no change.";
    private static final String ALPHA = "The significance level of the Mann-Whitney test on cycle times, between 0 "
            + "and 1 (exclusive).";
    private static final String THRESHOLD = "The smallest change of the median cycle time, in %, that counts as a "
            + "regression or an improvement.";

    private final Jdbc jdbc;
    private final ComparisonService comparisons;

    CompareController(Jdbc jdbc, ComparisonService comparisons) {
        this.jdbc = jdbc;
        this.comparisons = comparisons;
    }

    @GetMapping("/api/compare")
    @Operation(operationId = "compareExperiments", summary = "Compare two experiments",
            description = "The finished runs of two experiments, paired by equal parameters (repeats pooled). "
                    + VERDICT + " Points only one side has are listed apart, and so are host facts that differ "
                    + "between the sides (then like is not compared with like).")
    @ApiResponse(responseCode = "200", description = "The comparison.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Comparison> compare(@Parameter(description = "The experiment compared against.") @RequestParam long baseline,
                             @Parameter(description = "The experiment compared.") @RequestParam long candidate,
                             @Parameter(description = ALPHA) @RequestParam(defaultValue = "0.01") double alpha,
                             @Parameter(description = THRESHOLD) @RequestParam(defaultValue = "5") double threshold) {
        return checked(alpha, threshold, new ArrayList<>())
                .then(jdbc.call(() -> comparisons.compare(baseline, candidate, alpha, threshold)));
    }

    /** Two runs, whatever their parameters (those that differ are listed): 409 unless both finished. */
    @GetMapping("/api/compare/runs")
    @Operation(operationId = "compareRuns", summary = "Compare two runs",
            description = "Two finished runs as one point, whatever their parameters (those that differ are listed "
                    + "in paramMismatches). " + VERDICT + " 409 unless both finished.")
    @ApiResponse(responseCode = "200", description = "The comparison.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Comparison> compareRuns(@Parameter(description = "The run compared against.") @RequestParam long baseline,
                                 @Parameter(description = "The run compared.") @RequestParam long candidate,
                                 @Parameter(description = ALPHA) @RequestParam(defaultValue = "0.01") double alpha,
                                 @Parameter(description = THRESHOLD)
                                 @RequestParam(defaultValue = "5") double threshold) {
        return checked(alpha, threshold, new ArrayList<>())
                .then(jdbc.call(() -> comparisons.compareRuns(baseline, candidate, alpha, threshold)));
    }

    /** An experiment's finished runs (or one run) against the baselines of their fingerprints. */
    @GetMapping("/api/compare/baselines")
    @Operation(operationId = "compareWithBaselines", summary = "Compare with the baselines",
            description = "An experiment's finished runs, or one run, against the baselines of their fingerprints: "
                    + "one point per fingerprint that has a baseline. " + VERDICT + " Runs whose fingerprint has no "
                    + "baseline are listed apart. Give either experiment or run; 409 for a run that has not finished.")
    @ApiResponse(responseCode = "200", description = "The comparison.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<BaselineComparison> againstBaselines(@Parameter(description = "The experiment whose finished runs compare.")
                                              @RequestParam(required = false) Long experiment,
                                              @Parameter(description = "The run that compares.")
                                              @RequestParam(required = false) Long run,
                                              @Parameter(description = ALPHA)
                                              @RequestParam(defaultValue = "0.01") double alpha,
                                              @Parameter(description = THRESHOLD)
                                              @RequestParam(defaultValue = "5") double threshold) {
        List<Violation> problems = new ArrayList<>();
        if ((experiment == null) == (run == null)) {
            problems.add(new Violation("experiment", "give either experiment=ID or run=ID"));
        }
        return checked(alpha, threshold, problems)
                .then(jdbc.call(() -> comparisons.againstBaselines(experiment, run, alpha, threshold)));
    }

    private static Mono<Void> checked(double alpha, double threshold, List<Violation> problems) {
        if (!(alpha > 0 && alpha < 1)) {
            problems.add(new Violation("alpha", "must be between 0 and 1 (exclusive), got " + alpha));
        }
        if (!(threshold >= 0)) {
            problems.add(new Violation("threshold", "must be a percentage >= 0, got " + threshold));
        }
        return problems.isEmpty() ? Mono.empty() : Mono.error(new BadRequest("invalid comparison", problems));
    }
}
