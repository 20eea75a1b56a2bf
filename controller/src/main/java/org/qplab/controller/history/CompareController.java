package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.BadRequest;
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
class CompareController {

    private final Jdbc jdbc;
    private final ComparisonService comparisons;

    CompareController(Jdbc jdbc, ComparisonService comparisons) {
        this.jdbc = jdbc;
        this.comparisons = comparisons;
    }

    @GetMapping("/api/compare")
    Mono<Comparison> compare(@RequestParam long baseline, @RequestParam long candidate,
                             @RequestParam(defaultValue = "0.01") double alpha,
                             @RequestParam(defaultValue = "5") double threshold) {
        return checked(alpha, threshold, new ArrayList<>())
                .then(jdbc.call(() -> comparisons.compare(baseline, candidate, alpha, threshold)));
    }

    /** Two runs, whatever their parameters (those that differ are listed): 409 unless both finished. */
    @GetMapping("/api/compare/runs")
    Mono<Comparison> compareRuns(@RequestParam long baseline, @RequestParam long candidate,
                                 @RequestParam(defaultValue = "0.01") double alpha,
                                 @RequestParam(defaultValue = "5") double threshold) {
        return checked(alpha, threshold, new ArrayList<>())
                .then(jdbc.call(() -> comparisons.compareRuns(baseline, candidate, alpha, threshold)));
    }

    /** An experiment's finished runs (or one run) against the baselines of their fingerprints. */
    @GetMapping("/api/compare/baselines")
    Mono<BaselineComparison> againstBaselines(@RequestParam(required = false) Long experiment,
                                              @RequestParam(required = false) Long run,
                                              @RequestParam(defaultValue = "0.01") double alpha,
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
