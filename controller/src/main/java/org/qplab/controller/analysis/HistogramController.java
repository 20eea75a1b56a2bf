package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/runs/{id}/histogram?binsPerOctave=8: a run's cycle-time distribution, the sum of its intervals. */
@RestController
@Tag(name = ApiTags.ANALYSIS)
class HistogramController {

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final RunHistograms histograms;

    HistogramController(Jdbc jdbc, JdbcClient sql, RunHistograms histograms) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.histograms = histograms;
    }

    @GetMapping("/api/runs/{id}/histogram")
    @Operation(operationId = "getRunHistogram", summary = "A run's cycle-time histogram",
            description = "The distribution of the run's cycle times, the sum of its intervals' histograms: bins "
                    + "[lowNs, highNs) with their counts, binsPerOctave bins per doubling of time. 404 while a queued "
                    + "or running run has no interval stored yet.")
    @ApiResponse(responseCode = "200", description = "The histogram.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<CycleHistogram> histogram(@PathVariable long id,
                                   @Parameter(description = "Bins per doubling of the cycle time: a power of two "
                                           + "from 1 to 128.")
                                   @RequestParam(defaultValue = "8") int binsPerOctave) {
        if (!CycleHistogram.validBinsPerOctave(binsPerOctave)) {
            return Mono.error(new BadRequest("invalid histogram request", List.of(new Violation("binsPerOctave",
                    "must be a power of two from 1 to 128, got " + binsPerOctave))));
        }
        return jdbc.call(() -> {
            String status = sql.sql("SELECT status FROM run WHERE id = ?").param(id).query(String.class).optional()
                    .orElseThrow(() -> new NotFound("no run " + id));
            Map<Long, Long> stored = histograms.of(id);
            if (stored.isEmpty() && (status.equals("QUEUED") || status.equals("RUNNING"))) {
                throw new NotFound("run " + id + " has no histogram yet (status " + status + "): no interval of it is "
                        + "stored yet");
            }
            return CycleHistogram.of(id, stored, binsPerOctave);
        });
    }
}
