package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.experiment.Parameter;
import org.qplab.controller.api.Violation;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/experiments/{id}/curve?x=msg_size&y=bw_avg_bps&series=threads */
@RestController
@Tag(name = ApiTags.ANALYSIS)
class CurveController {

    /**
     * The metrics a curve can plot, by API name → their SQL over run_summary s (and run r). The latency_*
     * metrics are microseconds from the latency a latency run reports (its summary's latency_us: perftest's
     * *_lat numbers, half the round trip for send and write), or the t_*_us an imported perftest *_lat run
     * reported; a bandwidth run has none, so it adds no point rather than passing its cycle time (a
     * post-and-poll round with many messages in flight) off as a latency.
     */
    static final Map<String, String> METRICS = Map.ofEntries(
            Map.entry("bw_avg_bps", "s.bw_avg_bps"), Map.entry("bw_peak_bps", "s.bw_peak_bps"),
            Map.entry("msg_rate", "s.msg_rate"), Map.entry("iops", "s.msg_rate"),
            Map.entry("cycle_median_ns", "s.cycle_median_ns"), Map.entry("cycle_p99_ns", "s.cycle_p99_ns"),
            Map.entry("cycle_p999_ns", "(s.summary -> 'cycle_ns' ->> 'p999')::double precision"),
            // what both sides sent: the client's, plus the server's in a bidirectional run (a server that only
            // receives sends nothing; its summary then says what it received)
            Map.entry("bw_sum_bps", "(s.bw_avg_bps + CASE WHEN (r.server_summary ->> 'bidirectional')::boolean "
                    + "THEN (r.server_summary ->> 'bw_avg_bps')::double precision ELSE 0 END)"),
            latency("min", "t_min_us"), latency("typical", "t_typical_us"), latency("avg", "t_avg_us"),
            latency("p99", "t_p99_us"), latency("p999", "t_p999_us"), latency("max", "t_max_us"));

    private static Map.Entry<String, String> latency(String statistic, String perftestKey) {
        return Map.entry("latency_" + statistic + "_us", "coalesce((s.summary -> 'latency_us' ->> '" + statistic
                + "')::double precision, (s.summary ->> '" + perftestKey + "')::double precision)");
    }

    private final Jdbc jdbc;
    private final CurveRepository curves;

    CurveController(Jdbc jdbc, CurveRepository curves) {
        this.jdbc = jdbc;
        this.curves = curves;
    }

    @GetMapping("/api/experiments/{id}/curve")
    @Operation(operationId = "getExperimentCurve", summary = "One metric of an experiment against a parameter",
            description = "A curve of the experiment's finished runs: metric y against numeric parameter x, one "
                    + "series per value of parameter series. Each point is the mean of y over the runs at it (repeats "
                    + "and any parameter on neither axis pooled), with their count and min..max. bw_avg_bps and "
                    + "bw_peak_bps are bytes per second (the client's), bw_sum_bps the bytes per second both sides "
                    + "sent (a bidirectional run's client plus server; otherwise the client's), msg_rate messages per "
                    + "second, cycle_* nanoseconds (the time of one cycle of every run), latency_* microseconds "
                    + "(latency runs only, mode latency or an imported perftest *_lat: min, typical = median, avg, "
                    + "p99, p999, max; half the round trip for send and write, as perftest reports them; bandwidth "
                    + "runs add no point), iops I/Os per second (an nvmeof run's fio IOPS, its msg_rate; its "
                    + "latency_* are fio's completion latency, its bw_* fio's bytes per second). x may also be a "
                    + "metric (latency percentiles against iops): then each point is one matrix point's runs (its "
                    + "repeats, and the host pairs it ran on, pooled), at the mean of x and the mean of y, min..max "
                    + "of y. An experiment that does not exist, or has no finished run yet, has no points.")
    @ApiResponse(responseCode = "200", description = "The curve.")
    Mono<Curve> curve(@PathVariable long id,
                      @io.swagger.v3.oas.annotations.Parameter(description = "The x axis: a numeric parameter "
                              + "(msg_size, threads, qps_per_thread, tx_depth, iodepth, bs, numjobs, ...), or a "
                              + "metric (one of y's; each point then one matrix point's runs).")
                      @RequestParam(defaultValue = "msg_size") String x,
                      @io.swagger.v3.oas.annotations.Parameter(description = "The metric: bw_avg_bps, bw_peak_bps, "
                              + "bw_sum_bps, msg_rate, iops, cycle_median_ns, cycle_p99_ns, cycle_p999_ns, latency_min_us, "
                              + "latency_typical_us, latency_avg_us, latency_p99_us, latency_p999_us or "
                              + "latency_max_us.")
                      @RequestParam(defaultValue = "bw_avg_bps") String y,
                      @io.swagger.v3.oas.annotations.Parameter(description = "The parameter whose values make the "
                              + "series, or several separated by commas (transport,op): each combination of their "
                              + "values is a series, named by the values joined by spaces (\"rc send\").")
                      @RequestParam(defaultValue = "threads") String series) {
        List<Violation> problems = new ArrayList<>();
        boolean metricX = METRICS.containsKey(x);
        if (!metricX && Parameter.byKey(x).filter(Parameter::numeric).isEmpty()) {
            problems.add(new Violation("x", "must be a numeric parameter (msg_size, threads, qps_per_thread, iodepth, "
                    + "bs, ...) or a metric (" + String.join(", ", new TreeSet<>(METRICS.keySet())) + "), got " + x));
        }
        if (!METRICS.containsKey(y)) {
            problems.add(new Violation("y", "must be one of " + new TreeSet<>(METRICS.keySet()) + ", got " + y));
        }
        List<String> seriesKeys = List.of(series.split(",", -1));
        if (seriesKeys.stream().anyMatch(key -> Parameter.byKey(key).isEmpty())) {
            problems.add(new Violation("series", "must be a parameter, or several separated by commas ("
                    + Parameter.knownKeys() + "), got " + series));
        }
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid curve request", problems));
        }
        return jdbc.call(() -> new Curve(x, y, series, metricX
                ? curves.pointsAgainstMetric(id, METRICS.get(x), seriesKeys, METRICS.get(y))
                : curves.points(id, x, seriesKeys, METRICS.get(y))));
    }
}
