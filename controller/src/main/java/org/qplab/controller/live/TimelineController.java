package org.qplab.controller.live;

import java.util.List;
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

/** GET /api/runs/{id}/timeline?slots=100: throughput and cycle time over time, per thread, from stored samples. */
@RestController
class TimelineController {

    static final int MAX_SLOTS = 1000;

    private final Jdbc jdbc;
    private final JdbcClient sql;

    TimelineController(Jdbc jdbc, JdbcClient sql) {
        this.jdbc = jdbc;
        this.sql = sql;
    }

    @GetMapping("/api/runs/{id}/timeline")
    Mono<RunTimeline> timeline(@PathVariable long id, @RequestParam(defaultValue = "100") int slots) {
        if (slots < 1 || slots > MAX_SLOTS) {
            return Mono.error(new BadRequest("invalid timeline request", List.of(new Violation("slots",
                    "must be between 1 and " + MAX_SLOTS + ", got " + slots))));
        }
        return jdbc.call(() -> {
            sql.sql("SELECT 1 FROM run WHERE id = ?").param(id).query(Integer.class).optional()
                    .orElseThrow(() -> new NotFound("no run " + id));
            long lastEnd = sql.sql("SELECT coalesce(max(end_ns), 0) FROM sample WHERE run_id = ?").param(id)
                    .query(Long.class).single();
            long interval = Math.max(1, (lastEnd + slots - 1) / slots);
            List<LiveEvent.ThreadProgress> points = sql.sql("""
                            SELECT thread, count(*), sum(bytes), min(start_ns), max(end_ns),
                                   percentile_disc(0.5) WITHIN GROUP (ORDER BY end_ns - start_ns)
                            FROM (SELECT thread, bytes, start_ns, end_ns, end_ns / ? AS slot FROM sample WHERE run_id = ?) s
                            GROUP BY thread, slot ORDER BY thread, slot""")
                    .params(interval, id)
                    .query((rs, i) -> new LiveEvent.ThreadProgress(rs.getInt(1), rs.getLong(2), rs.getLong(3),
                            rs.getLong(4), rs.getLong(5), rs.getLong(6)))
                    .list();
            return new RunTimeline(id, interval, points);
        });
    }
}
