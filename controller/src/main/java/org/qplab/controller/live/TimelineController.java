package org.qplab.controller.live;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.qplab.controller.analysis.MergedHistogram;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.run.RunIntervals;
import org.qplab.protocol.Interval;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * GET /api/runs/{id}/timeline?slots=100: throughput and cycle-time percentiles over time, per thread and over
 * every thread, from the run's stored intervals.
 */
@RestController
@Tag(name = ApiTags.RUNS)
class TimelineController {

    static final int MAX_SLOTS = 1000;

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final RunIntervals intervals;

    TimelineController(Jdbc jdbc, JdbcClient sql, RunIntervals intervals) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.intervals = intervals;
    }

    @GetMapping("/api/runs/{id}/timeline")
    @Operation(operationId = "getRunTimeline", summary = "A run over time",
            description = "Throughput and cycle-time percentiles over time, from the run's stored intervals "
                    + "grouped into at most slots slots of whole intervals (intervalNs each): per thread and slot the "
                    + "numbers a live view receives (cycles, bytes, time span, median, p99, p99.9 in ns), and per slot "
                    + "over every thread the median, p99, p99.9 and longest cycle time.")
    @ApiResponse(responseCode = "200", description = "The timeline.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<RunTimeline> timeline(@PathVariable long id,
                               @Parameter(description = "The most slots, 1 to 1000.")
                               @RequestParam(defaultValue = "100") int slots) {
        if (slots < 1 || slots > MAX_SLOTS) {
            return Mono.error(new BadRequest("invalid timeline request", List.of(new Violation("slots",
                    "must be between 1 and " + MAX_SLOTS + ", got " + slots))));
        }
        return jdbc.call(() -> {
            sql.sql("SELECT 1 FROM run WHERE id = ?").param(id).query(Integer.class).optional()
                    .orElseThrow(() -> new NotFound("no run " + id));
            return of(id, intervals.intervalNs(id), intervals.all(id), slots);
        });
    }

    /** Groups a run's intervals (in thread, index order) into at most slots slots of whole intervals. */
    static RunTimeline of(long runId, long intervalNs, List<Interval> all, int slots) {
        long last = all.stream().mapToLong(i -> i.index() + i.span() - 1).max().orElse(0);
        long perSlot = Math.max(1, (last + slots) / slots); // intervals per slot: slot s holds [s, s + 1) x perSlot
        long slotNs = perSlot * intervalNs;
        MergedHistogram h = new MergedHistogram();
        List<LiveEvent.ThreadProgress> points = new ArrayList<>();
        for (List<Interval> group : slots(all, perSlot, true)) {
            group.forEach(h::add);
            Interval first = group.get(0);
            points.add(new LiveEvent.ThreadProgress(first.thread(), first.index() / perSlot * perSlot, h.cycles(),
                    h.bytes(), h.firstStartNs(), h.lastEndNs(), h.percentileNs(0.5), h.percentileNs(0.99),
                    h.percentileNs(0.999)));
            h.clear();
        }
        List<Interval> byTime = new ArrayList<>(all);
        byTime.sort(Comparator.comparingLong(Interval::index));
        List<RunTimeline.Slot> percentiles = new ArrayList<>();
        for (List<Interval> group : slots(byTime, perSlot, false)) {
            group.forEach(h::add);
            long slot = group.get(0).index() / perSlot;
            percentiles.add(new RunTimeline.Slot(slot * slotNs, (slot + 1) * slotNs, h.cycles(), h.percentileNs(0.5),
                    h.percentileNs(0.99), h.percentileNs(0.999), h.maxNs()));
            h.clear();
        }
        return new RunTimeline(runId, slotNs, points, percentiles);
    }

    /** Runs of consecutive intervals in the same slot (and, perThread, of the same thread). */
    private static List<List<Interval>> slots(List<Interval> sorted, long perSlot, boolean perThread) {
        List<List<Interval>> groups = new ArrayList<>();
        for (int k = 0; k < sorted.size();) {
            Interval first = sorted.get(k);
            int end = k;
            while (end < sorted.size() && sorted.get(end).index() / perSlot == first.index() / perSlot
                    && (!perThread || sorted.get(end).thread() == first.thread())) {
                end++;
            }
            groups.add(sorted.subList(k, end));
            k = end;
        }
        return groups;
    }
}
