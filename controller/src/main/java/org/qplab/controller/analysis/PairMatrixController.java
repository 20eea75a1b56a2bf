package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.experiment.PairRules;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/experiments/{id}/pairs?metric=bw_avg_bps&bad_below=0.93&bad_above=2.1 */
@RestController
@Tag(name = ApiTags.ANALYSIS)
class PairMatrixController {

    private final Jdbc jdbc;
    private final CurveRepository runs;

    PairMatrixController(Jdbc jdbc, CurveRepository runs) {
        this.jdbc = jdbc;
        this.runs = runs;
    }

    @GetMapping("/api/experiments/{id}/pairs")
    @Operation(operationId = "getExperimentPairs", summary = "An experiment's host pairs judged against the best",
            description = "For an experiment whose runs the matrix placed on client/server pairs (hosts: all_pairs, "
                    + "{group: [...]} or {pairs: [...]}): per configuration (the runs' parameters other than hosts), "
                    + "every pair's median of the metric over its finished runs, the best pair, and each pair judged "
                    + "as ClusterKit judges a fabric: bad when its median is below bad_below x the best (bandwidth, "
                    + "rates: higher is better) or above bad_above x the best (times), in every round it ran (a bad "
                    + "pair is retested up to the matrix's retests times; one good round clears it). The host x host "
                    + "heatmap of the experiment page. An experiment without finished pair runs has no configurations.")
    @ApiResponse(responseCode = "200", description = "The pairs, judged.")
    Mono<PairMatrix> pairs(@PathVariable long id,
                           @io.swagger.v3.oas.annotations.Parameter(description = "The metric (as the curve's y; "
                                   + "default: the runs' own, bw_avg_bps, latency_typical_us for latency runs, iops "
                                   + "for nvmeof).")
                           @RequestParam(required = false) String metric,
                           @io.swagger.v3.oas.annotations.Parameter(description = "Bad below this fraction of the "
                                   + "best (metrics where higher is better), 0 < bad_below <= 1; default: the "
                                   + "matrix's bad_below, else 0.93.")
                           @RequestParam(name = "bad_below", required = false) Double badBelow,
                           @io.swagger.v3.oas.annotations.Parameter(description = "Bad above this multiple of the "
                                   + "best (times), bad_above >= 1; default: the matrix's bad_above, else 2.1.")
                           @RequestParam(name = "bad_above", required = false) Double badAbove) {
        List<Violation> problems = new ArrayList<>();
        Metric chosen = metric == null ? null : Metric.byName(metric).orElse(null);
        if (metric != null && chosen == null) {
            problems.add(new Violation("metric", "must be one of " + Metric.names() + ", got " + metric));
        }
        if (badBelow != null && !(badBelow > 0 && badBelow <= 1)) {
            problems.add(new Violation("bad_below", "must be a fraction of the best, 0 < bad_below <= 1, got " + badBelow));
        }
        if (badAbove != null && !(badAbove >= 1 && Double.isFinite(badAbove))) {
            problems.add(new Violation("bad_above", "must be a multiple of the best, >= 1, got " + badAbove));
        }
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid pairs request", problems));
        }
        return jdbc.call(() -> {
            PairRules rules = PairRules.of(runs.matrix(id));
            return PairMatrix.of(runs, id, chosen, badBelow != null ? badBelow : rules.badBelow(),
                    badAbove != null ? badAbove : rules.badAbove());
        });
    }
}
