package org.qplab.controller.analysis;

import java.util.List;
import java.util.Map;
import org.qplab.controller.api.BadRequest;
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
    Mono<CycleHistogram> histogram(@PathVariable long id, @RequestParam(defaultValue = "8") int binsPerOctave) {
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
