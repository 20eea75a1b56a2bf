package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.analysis.CurveRepository;
import org.qplab.controller.analysis.Metric;
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
 * GET /api/compare?baseline=ID&candidate=ID[&across=tx_depth] (experiments), /api/compare/runs?baseline=RUN&candidate=RUN,
 * /api/compare/baselines?experiment=ID or ?run=RUN; each takes [&alpha=0.01][&threshold=5][&metric=].
 */
@RestController
@Tag(name = ApiTags.HISTORY)
class CompareController {

    private static final String VERDICT = "Each point is judged over its runs, the unit of replication (cycles of "
            + "one run are not independent evidence): on its metric's per-run values (bw_avg_bps, or "
            + "latency_typical_us for latency runs, iops for nvmeof runs, unless metric says), with at least "
            + RunLevelTest.MIN_RUNS + " runs a side by Welch's t-test on their logs, with how far the baseline "
            + "fingerprint's earlier experiments drift apart added when it has at least "
            + RunLevelTest.MIN_DRIFT_EXPERIMENTS + " (method welch-log+drift); with fewer runs, against the spread "
            + "of the fingerprint's earlier runs when it has at least " + RunLevelTest.MIN_HISTORY
            + " (method history), else the verdict is 'inconclusive: N runs per side'. The change is the ratio of "
            + "the geometric means in %, with its confidence interval at 1 - alpha. The verdict is regression or "
            + "improvement only when p < alpha and |change| > threshold, else no change. Every metric both sides "
            + "measured is judged the same way (judgments); the pooled cycle-time percentiles (shape) show the "
            + "distribution, not the significance.";
    private static final String ALPHA = "The significance level of the test over runs, in (0, 0.5]; the confidence "
            + "intervals are at 1 - alpha.";
    private static final String THRESHOLD = "The smallest change, in %, that counts as a regression or an improvement.";
    private static final String METRIC = "The metric the verdict judges: bw_avg_bps, msg_rate, iops, "
            + "latency_typical_us, latency_p99_us, cycle_median_ns or cycle_p99_ns (default: by the runs' kind).";

    private final Jdbc jdbc;
    private final ComparisonService comparisons;

    CompareController(Jdbc jdbc, ComparisonService comparisons) {
        this.jdbc = jdbc;
        this.comparisons = comparisons;
    }

    @GetMapping("/api/compare")
    @Operation(operationId = "compareExperiments", summary = "Compare two experiments",
            description = "The finished runs of two experiments, paired by configuration: equal parameters (and "
                    + "hosts), but for those named in across (e.g. across=tx_depth pairs 128 with 256; with several "
                    + "values a side, every pair). " + VERDICT + " Points only one side has are listed apart, with the "
                    + "parameters whose values the two sides do not share (suggestAcross), and so are host facts that "
                    + "differ between the sides (then like is not compared with like).")
    @ApiResponse(responseCode = "200", description = "The comparison.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Comparison> compare(@Parameter(description = "The experiment compared against.") @RequestParam long baseline,
                             @Parameter(description = "The experiment compared.") @RequestParam long candidate,
                             @Parameter(description = ALPHA) @RequestParam(defaultValue = "0.01") double alpha,
                             @Parameter(description = THRESHOLD) @RequestParam(defaultValue = "5") double threshold,
                             @Parameter(description = "Parameters allowed to differ between paired points, separated "
                                     + "by commas (tx_depth, or hosts: where the runs were placed).")
                             @RequestParam(required = false) String across,
                             @Parameter(description = METRIC) @RequestParam(required = false) String metric) {
        List<Violation> problems = new ArrayList<>();
        List<String> acrossKeys = across(across, problems);
        return checked(alpha, threshold, metric, problems).then(jdbc.call(() -> comparisons.compare(baseline, candidate,
                new ComparisonService.Options(alpha, threshold, acrossKeys, metric))));
    }

    /** Two runs, whatever their parameters (those that differ are listed): 409 unless both finished. */
    @GetMapping("/api/compare/runs")
    @Operation(operationId = "compareRuns", summary = "Compare two runs",
            description = "Two finished runs as one point, whatever their parameters (those that differ are listed "
                    + "in paramMismatches). " + VERDICT + " One run a side: the history, or inconclusive. 409 unless "
                    + "both finished.")
    @ApiResponse(responseCode = "200", description = "The comparison.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Comparison> compareRuns(@Parameter(description = "The run compared against.") @RequestParam long baseline,
                                 @Parameter(description = "The run compared.") @RequestParam long candidate,
                                 @Parameter(description = ALPHA) @RequestParam(defaultValue = "0.01") double alpha,
                                 @Parameter(description = THRESHOLD)
                                 @RequestParam(defaultValue = "5") double threshold,
                                 @Parameter(description = METRIC) @RequestParam(required = false) String metric) {
        return checked(alpha, threshold, metric, new ArrayList<>()).then(jdbc.call(() -> comparisons.compareRuns(
                baseline, candidate, new ComparisonService.Options(alpha, threshold, List.of(), metric))));
    }

    /** An experiment's finished runs (or one run) against the baselines of their fingerprints. */
    @GetMapping("/api/compare/baselines")
    @Operation(operationId = "compareWithBaselines", summary = "Compare with the baselines",
            description = "An experiment's finished runs, or one run, against the baselines of their fingerprints: "
                    + "one point per fingerprint that has a baseline (one run: judged against the fingerprint's "
                    + "history when it holds enough, else inconclusive). " + VERDICT + " Runs whose fingerprint has no "
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
                                              @RequestParam(defaultValue = "5") double threshold,
                                              @Parameter(description = METRIC)
                                              @RequestParam(required = false) String metric) {
        List<Violation> problems = new ArrayList<>();
        if ((experiment == null) == (run == null)) {
            problems.add(new Violation("experiment", "give either experiment=ID or run=ID"));
        }
        return checked(alpha, threshold, metric, problems).then(jdbc.call(() -> comparisons.againstBaselines(
                experiment, run, new ComparisonService.Options(alpha, threshold, List.of(), metric))));
    }

    /** The across parameters: each a run parameter or hosts, else a violation naming it. */
    private static List<String> across(String across, List<Violation> problems) {
        if (across == null || across.isBlank()) {
            return List.of();
        }
        List<String> keys = new ArrayList<>();
        for (String key : across.split(",")) {
            String name = key.trim();
            if (org.qplab.controller.experiment.ProviderKeys.byKey(name).isEmpty() && !name.equals(CurveRepository.HOSTS)) {
                problems.add(new Violation("across", "unknown parameter '" + name + "': across names run parameters ("
                        + org.qplab.controller.experiment.ProviderKeys.knownKeys() + ") or hosts"));
            } else if (!keys.contains(name)) {
                keys.add(name);
            }
        }
        return keys;
    }

    private static Mono<Void> checked(double alpha, double threshold, String metric, List<Violation> problems) {
        if (!(alpha > 0 && alpha <= 0.5)) {
            problems.add(new Violation("alpha", "must be in (0, 0.5] (0.01: a 1 % chance that a change is noise), got "
                    + alpha));
        }
        if (!(threshold >= 0) || Double.isInfinite(threshold)) {
            problems.add(new Violation("threshold", "must be a percentage >= 0, got " + threshold));
        }
        if (metric != null && !Metric.JUDGED.contains(metric)) {
            problems.add(new Violation("metric", "must be one of " + String.join(", ", Metric.JUDGED) + ", got " + metric));
        }
        return problems.isEmpty() ? Mono.empty() : Mono.error(new BadRequest("invalid comparison", problems));
    }
}
