package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.search.KneeSearch;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/experiments/{id}/search: a knee search's points so far and where it found the knee or cliff. */
@RestController
@Tag(name = ApiTags.ANALYSIS)
class SearchController {

    private final Jdbc jdbc;
    private final JdbcClient db;
    private final SearchPoints points;

    SearchController(Jdbc jdbc, JdbcClient db, SearchPoints points) {
        this.jdbc = jdbc;
        this.db = db;
        this.points = points;
    }

    @Schema(description = "A knee search: what it sweeps, every value measured so far, and how it ended.")
    record SearchView(
            @Schema(description = "The swept dimension.", example = "threads") String dimension,
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
                    nullable = true) String stopped) {
    }

    @GetMapping("/api/experiments/{id}/search")
    @Operation(operationId = "getExperimentSearch", summary = "A knee search's points and result",
            description = "For an experiment whose matrix has search: {knee: dimension, low, high, ...}: the values of "
                    + "the dimension measured so far (each the median of the runs' metric over its finished repeats), "
                    + "and, once it ended, where the knee (the gain per doubling falls below knee_gain of the best "
                    + "step's) or a cliff (the metric falls) lies, with its bracket. A cancelled search keeps its "
                    + "points and says where it stopped.")
    @ApiResponse(responseCode = "200", description = "The search.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<SearchView> search(@PathVariable long id) {
        return jdbc.call(() -> {
            String status = db.sql("SELECT status FROM experiment WHERE id = ?").param(id).query(String.class)
                    .optional().orElseThrow(() -> new NotFound("no experiment " + id));
            SearchPoints.Seen seen = points.of(id);
            if (seen == null) {
                throw new NotFound("experiment " + id + " has no search (its matrix has no search: {knee: ...})");
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
            return new SearchView(seen.spec().dimension(), seen.metric().name(), seen.metric().unit(),
                    seen.metric().higherIsBetter(), seen.spec().low(), seen.spec().high(), seen.spec().resolution(),
                    seen.spec().kneeGain(), seen.spec().maxRuns(), seen.repeats(), runs, seen.points(), state, result,
                    stopped);
        });
    }
}
