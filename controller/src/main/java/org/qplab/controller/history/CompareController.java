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

/** GET /api/compare?baseline=ID&candidate=ID[&alpha=0.01][&threshold=5] */
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
        List<Violation> problems = new ArrayList<>();
        if (!(alpha > 0 && alpha < 1)) {
            problems.add(new Violation("alpha", "must be between 0 and 1 (exclusive), got " + alpha));
        }
        if (!(threshold >= 0)) {
            problems.add(new Violation("threshold", "must be a percentage >= 0, got " + threshold));
        }
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid comparison", problems));
        }
        return jdbc.call(() -> comparisons.compare(baseline, candidate, alpha, threshold));
    }
}
