package org.qplab.controller.run;

import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Csv;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A run's intervals as stored: GET /api/runs/{id}/intervals (JSON, a page in (thread, interval) order; the
 * next page starts at fromThread/fromIndex = the last one's thread and interval + 1) and
 * GET /api/runs/{id}/intervals.csv (all of them, one line each, units in the header).
 */
@RestController
class IntervalsController {

    static final int MAX_PER_PAGE = 100_000;

    /** One interval with its percentiles and its histogram's buckets as times. */
    record IntervalView(int thread, long index, int span, long fromNs, long toNs, long cycles, long messages, long bytes,
                        long errors, long minNs, long maxNs, long firstStartNs, long lastEndNs, long medianNs, long p99Ns,
                        long p999Ns, List<Bucket> buckets) {}

    /** cycles whose time t satisfies lowNs ≤ t &lt; highNs. */
    record Bucket(long lowNs, long highNs, long count) {}

    private final Jdbc jdbc;
    private final RunIntervals intervals;
    private final RunRepository runs;

    IntervalsController(Jdbc jdbc, RunIntervals intervals, RunRepository runs) {
        this.jdbc = jdbc;
        this.intervals = intervals;
        this.runs = runs;
    }

    @GetMapping("/api/runs/{id}/intervals")
    Mono<List<IntervalView>> page(@PathVariable long id, @RequestParam(defaultValue = "0") int fromThread,
                                  @RequestParam(defaultValue = "0") long fromIndex,
                                  @RequestParam(defaultValue = "10000") int limit) {
        if (limit < 1 || limit > MAX_PER_PAGE) {
            return Mono.error(new BadRequest("bad request", List.of(new Violation("limit",
                    "must be between 1 and " + MAX_PER_PAGE + ", got " + limit))));
        }
        return jdbc.call(() -> {
            existing(id);
            long ns = intervals.intervalNs(id);
            return intervals.page(id, fromThread, fromIndex, limit).stream().map(i -> view(i, ns)).toList();
        });
    }

    @GetMapping("/api/runs/{id}/intervals.csv")
    Mono<ResponseEntity<String>> csv(@PathVariable long id) {
        return jdbc.call(() -> {
            existing(id);
            long ns = intervals.intervalNs(id);
            Csv out = new Csv().row("thread", "interval", "span", "from [ns]", "to [ns]", "cycles", "messages", "bytes",
                    "errors", "min [ns]", "max [ns]", "first_start [ns]", "last_end [ns]", "median [ns]", "p99 [ns]",
                    "p99.9 [ns]", "histogram [low_ns:count ...]");
            for (Interval i : intervals.all(id)) {
                IntervalView v = view(i, ns);
                StringBuilder histogram = new StringBuilder();
                for (Bucket b : v.buckets()) {
                    histogram.append(histogram.isEmpty() ? "" : " ").append(b.lowNs()).append(':').append(b.count());
                }
                out.row(v.thread(), v.index(), v.span(), v.fromNs(), v.toNs(), v.cycles(), v.messages(), v.bytes(),
                        v.errors(), v.minNs(), v.maxNs(), v.firstStartNs(), v.lastEndNs(), v.medianNs(), v.p99Ns(),
                        v.p999Ns(), histogram);
            }
            return ResponseEntity.ok().contentType(Csv.MEDIA_TYPE)
                    .header("Content-Disposition", "attachment; filename=\"run-" + id + "-intervals.csv\"")
                    .body(out.toString());
        });
    }

    static IntervalView view(Interval i, long intervalNs) {
        List<Bucket> buckets = new ArrayList<>(i.buckets().length);
        for (int k = 0; k < i.buckets().length; k++) {
            buckets.add(new Bucket(CycleBuckets.lowNs(i.buckets()[k]), CycleBuckets.highNs(i.buckets()[k]), i.counts()[k]));
        }
        return new IntervalView(i.thread(), i.index(), i.span(), i.index() * intervalNs,
                (i.index() + i.span()) * intervalNs, i.cycles(), i.messages(), i.bytes(), i.errors(), i.minNs(),
                i.maxNs(), i.firstStartNs(), i.lastEndNs(), i.percentileNs(0.5), i.percentileNs(0.99),
                i.percentileNs(0.999), buckets);
    }

    private void existing(long id) {
        runs.find(id).orElseThrow(() -> new NotFound("no run " + id));
    }
}
