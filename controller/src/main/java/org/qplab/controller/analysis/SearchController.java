package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.search.AnomalySearch;
import org.qplab.controller.search.KneeSearch;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * GET /api/experiments/{id}/search: a knee search's points so far and where it found the knee or cliff; an anomaly
 * search's report (the anomalies found so far, each with its minimal feature set).
 */
@RestController
@Tag(name = ApiTags.ANALYSIS)
class SearchController {

    private final Jdbc jdbc;
    private final JdbcClient db;
    private final SearchPoints points;
    private final AnomalyPoints anomalies;

    SearchController(Jdbc jdbc, JdbcClient db, SearchPoints points, AnomalyPoints anomalies) {
        this.jdbc = jdbc;
        this.db = db;
        this.points = points;
        this.anomalies = anomalies;
    }

    @Schema(description = "One dimension an anomaly search walks: its values and the value a reduction resets it to.")
    record WalkedDimension(String name, List<Object> values, Object reset) {
    }

    @Schema(description = "An anomaly search: the dimensions it walks, its bounds, and its report so far.")
    record AnomaliesView(List<WalkedDimension> dimensions, long seed,
            @Schema(description = "A point under this fraction of its neighbours' best expectation is an anomaly.")
            double below,
            @Schema(description = "The wall-clock limit, from the first run's start.") int maxMinutes,
            @Schema(description = "The anomalies found so far (each with its minimal feature set and the counters "
                    + "that warned), runs and points used, candidates dismissed by their repeats, and why it stopped: "
                    + "running, done, max_runs or max_minutes.") AnomalySearch.Report report) {
    }

    @Schema(description = "A search: a knee (what it sweeps, every value measured so far, and how it ended) or "
            + "anomalies (the knee's fields empty; anomalies set).")
    record SearchView(
            @Schema(allowableValues = {"knee", "anomalies"}) String kind,
            @Schema(description = "The swept dimension (knee).", example = "threads", nullable = true) String dimension,
            @Schema(description = "The metric judged (the runs' own).", example = "bw_avg_bps") String metric,
            @Schema(description = "Its unit.", example = "B/s") String unit,
            @Schema(description = "Whether a larger value is better.") boolean higherIsBetter,
            long low, long high,
            @Schema(description = "The bracket is fine enough when its ends are within 1 + resolution of each other, "
                    + "or adjacent integers.") double resolution,
            @Schema(description = "Past the knee, a step's gain per doubling is below this fraction of the best step's.")
            double kneeGain,
            @Schema(description = "The most runs the search may make.") int maxRuns,
            int repeats,
            @Schema(description = "Runs made so far (every try, failed ones too).") int runs,
            @Schema(description = "Each value measured: the median over its finished repeats, their min, max and count.")
            List<SearchPoints.Point> points,
            @Schema(allowableValues = {"running", "done", "stopped"}, description = "running: points are still planned "
                    + "or measured; done: it found its answer (result); stopped: the experiment ended without one "
                    + "(cancelled or failed), with the points it had.") String state,
            @Schema(description = "Where the knee (the gain flattens) or cliff (the metric falls) lies, once done.",
                    nullable = true) KneeSearch.Result result,
            @Schema(description = "For a stopped search, where it stopped and what it would have run next.",
                    nullable = true) String stopped,
            @Schema(description = "An anomaly search's dimensions and report.", nullable = true)
            AnomaliesView anomalies) {
    }

    @GetMapping("/api/experiments/{id}/search")
    @Operation(operationId = "getExperimentSearch", summary = "A search's points and result",
            description = "For an experiment whose matrix has search: {knee: dimension, low, high, ...}: the values of "
                    + "the dimension measured so far (each the median of the runs' metric over its finished repeats), "
                    + "and, once it ended, where the knee (the gain per doubling falls below knee_gain of the best "
                    + "step's) or a cliff (the metric falls) lies, with its bracket. For search: {anomalies: [...]}: "
                    + "each anomaly found (a point below its neighbours' best, or whose NIC counters warned) with its "
                    + "minimal feature set. A cancelled search keeps its points and says where it stopped.")
    @ApiResponse(responseCode = "200", description = "The search.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<SearchView> search(@PathVariable long id) {
        return jdbc.call(() -> {
            String status = db.sql("SELECT status FROM experiment WHERE id = ?").param(id).query(String.class)
                    .optional().orElseThrow(() -> new NotFound("no experiment " + id));
            AnomalyPoints.Seen walk = anomalies.of(id);
            if (walk != null) {
                return anomalies(walk, status, anomalies.result(id));
            }
            SearchPoints.Seen seen = points.of(id);
            if (seen == null) {
                throw new NotFound("experiment " + id + " has no search (its matrix has no search: {knee: ...} or "
                        + "{anomalies: [...]})");
            }
            int runs = db.sql("SELECT count(*) FROM run WHERE experiment_id = ?").param(id).query(Integer.class).single();
            KneeSearch.Result result = points.result(id);
            String state = result != null ? "done" : List.of("QUEUED", "RUNNING").contains(status) ? "running" : "stopped";
            String stopped = null;
            if (state.equals("stopped")) {
                KneeSearch.Step step = KneeSearch.next(seen.settings(), seen.observations());
                stopped = "the experiment was " + status.toLowerCase() + " after " + seen.points().size()
                        + " measured value" + (seen.points().size() == 1 ? "" : "s") + " of " + seen.spec().dimension()
                        + (step.result() == null ? "; next it would have run " + step.next()
                        : "; its points say: " + step.result().why());
            }
            return new SearchView("knee", seen.spec().dimension(), seen.metric().name(), seen.metric().unit(),
                    seen.metric().higherIsBetter(), seen.spec().low(), seen.spec().high(), seen.spec().resolution(),
                    seen.spec().kneeGain(), seen.spec().maxRuns(), seen.repeats(), runs, seen.points(), state, result,
                    stopped, null);
        });
    }

    private SearchView anomalies(AnomalyPoints.Seen seen, String status, AnomalySearch.Report stored) {
        AnomalySearch.Step step = seen.step();
        AnomalySearch.Report report = stored != null ? stored : step.report();
        String state = stored != null ? "done" : List.of("QUEUED", "RUNNING").contains(status) ? "running" : "stopped";
        String stopped = null;
        if (state.equals("stopped")) {
            stopped = "the experiment was " + status.toLowerCase() + " after " + seen.runs() + " run"
                    + (seen.runs() == 1 ? "" : "s") + " (" + report.points() + " points measured, "
                    + report.anomalies().size() + " anomal" + (report.anomalies().size() == 1 ? "y" : "ies") + " found)"
                    + (step.next().isEmpty() ? "; " + report.why()
                    : "; next it would have run " + step.next().stream().map(r -> seen.anomalies().point(r.at())
                    .entrySet().stream().filter(e -> seen.anomalies().names().contains(e.getKey()))
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")) + " x" + r.runs())
                    .collect(Collectors.joining("; ")));
        }
        List<WalkedDimension> dimensions = new ArrayList<>();
        for (int d = 0; d < seen.anomalies().names().size(); d++) {
            dimensions.add(new WalkedDimension(seen.anomalies().names().get(d), seen.anomalies().values().get(d),
                    seen.anomalies().resets().get(d)));
        }
        return new SearchView("anomalies", null, seen.metric().name(), seen.metric().unit(),
                seen.metric().higherIsBetter(), 0, 0, 0, 0, seen.spec().maxRuns(), seen.repeats(), seen.runs(),
                List.of(), state, null, stopped, new AnomaliesView(dimensions, seen.anomalies().seed(),
                seen.anomalies().below(), seen.anomalies().maxMinutes(), report));
    }
}
