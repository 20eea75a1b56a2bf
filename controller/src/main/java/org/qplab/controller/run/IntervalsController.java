package org.qplab.controller.run;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Csv;
import org.qplab.controller.api.ErrorResponses;
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
@Tag(name = ApiTags.RUNS)
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
    @Operation(operationId = "listRunIntervals", summary = "A run's intervals, a page",
            description = "The run's statistics intervals as stored, in (thread, interval) order: per thread and "
                    + "interval (interval_ms long, from the run's t0) its cycles, messages, bytes and errors, the span "
                    + "they cover, min, max, median, p99 and p99.9 cycle times and the histogram's buckets, all in "
                    + "nanoseconds. The next page starts at fromThread/fromIndex = the last one's thread and interval "
                    + "+ 1; a page shorter than limit is the last.")
    @ApiResponse(responseCode = "200", description = "Up to limit intervals.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<List<IntervalView>> page(@PathVariable long id,
                                  @Parameter(description = "The first thread of the page.")
                                  @RequestParam(defaultValue = "0") int fromThread,
                                  @Parameter(description = "The first interval of fromThread in the page.")
                                  @RequestParam(defaultValue = "0") long fromIndex,
                                  @Parameter(description = "The most intervals in the page, 1 to 100000.")
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
    @Operation(operationId = "exportRunIntervalsCsv", summary = "A run's intervals as CSV",
            description = "Every interval of the run, one line each in (thread, interval) order, as a download: "
                    + "thread, interval, span, from and to, cycles, messages, bytes, errors, min, max, first start, "
                    + "last end, median, p99 and p99.9, with their units ([ns]) in the header; the histogram as "
                    + "low_ns:count pairs.")
    @ApiResponse(responseCode = "200", description = "The intervals, RFC 4180 CSV with a header line.",
            headers = @Header(name = "Content-Disposition",
                    description = "attachment; filename=\"run-{id}-intervals.csv\"", schema = @Schema(type = "string")),
            content = @Content(mediaType = "text/csv", schema = @Schema(type = "string", format = "binary")))
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
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
