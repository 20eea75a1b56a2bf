package org.qplab.controller.analysis;

import java.util.LinkedHashMap;
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

/** GET /api/runs/{id}/histogram?binsPerOctave=8: a finished run's cycle-time distribution. */
@RestController
class HistogramController {

    private final Jdbc jdbc;
    private final JdbcClient sql;

    HistogramController(Jdbc jdbc, JdbcClient sql) {
        this.jdbc = jdbc;
        this.sql = sql;
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
            Map<Long, Long> stored = new LinkedHashMap<>();
            sql.sql("SELECT bucket, count FROM run_histogram WHERE run_id = ? ORDER BY bucket").param(id)
                    .query((rs, i) -> stored.put(rs.getLong(1), rs.getLong(2))).list();
            if (stored.isEmpty() && (status.equals("QUEUED") || status.equals("RUNNING"))) {
                throw new NotFound("run " + id + " has no histogram yet (status " + status + "): it is stored when the run ends");
            }
            return CycleHistogram.of(id, stored, binsPerOctave);
        });
    }
}
