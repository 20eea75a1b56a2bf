package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.enums.Explode;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.enums.ParameterStyle;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.experiment.ProviderKey;
import org.qplab.controller.experiment.ProviderKeys;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/experiments/{id}/curve?x=msg_size&y=bw_avg_bps&series=threads[&qps_per_thread=8 ...] */
@RestController
@Tag(name = ApiTags.ANALYSIS)
class CurveController {

    private static final Set<String> OWN = Set.of("x", "y", "series", "along");

    private final Jdbc jdbc;
    private final CurveRepository curves;

    CurveController(Jdbc jdbc, CurveRepository curves) {
        this.jdbc = jdbc;
        this.curves = curves;
    }

    @GetMapping("/api/experiments/{id}/curve")
    @Operation(operationId = "getExperimentCurve", summary = "One metric of an experiment against a parameter",
            description = "A curve of the experiment's finished runs: metric y against numeric parameter x, one "
                    + "series per value of parameter series. Each point is ONE configuration: every other dimension "
                    + "that varies among the curve's runs (a parameter, or hosts: where the matrix placed the run, "
                    + "client/server or client) is either pinned by a query parameter of its own "
                    + "(&qps_per_thread=8&hosts=a/b, values as stored: 4096, not 4K) or split into further lines "
                    + "(the response's split, and each point's split values); the response lists every varied "
                    + "dimension with its values. A point's y is the median over the configuration's runs (its "
                    + "repeats), with their count n and min..max; with n = 1 there is no spread. bw_avg_bps and "
                    + "bw_peak_bps are bytes per second (the client's), bw_sum_bps the bytes per second both sides "
                    + "sent (a bidirectional run's client plus server; otherwise the client's), msg_rate messages per "
                    + "second, cycle_* nanoseconds (the time of one cycle of every run), latency_* microseconds "
                    + "(latency runs only, mode latency or an imported perftest *_lat: min, typical = median, avg, "
                    + "p99, p999, max; half the round trip for send and write, as perftest reports them; bandwidth "
                    + "runs add no point), iops I/Os per second (an nvmeof run's fio IOPS, its msg_rate; its "
                    + "latency_* are fio's completion latency, its bw_* fio's bytes per second). x may also be a "
                    + "metric (latency percentiles against iops): then each point is one configuration at the median "
                    + "of x and of y, and one varied dimension moves along each line (along). A pin of a dimension "
                    + "the experiment does not have, or of a value none of its runs has, is a 400 naming it. An "
                    + "experiment that does not exist, or has no finished run yet, has no points.",
            parameters = @io.swagger.v3.oas.annotations.Parameter(name = "pins", in = ParameterIn.QUERY,
                    style = ParameterStyle.FORM, explode = Explode.TRUE, description = "Dimensions pinned at a value, "
                    + "each as a query parameter of its own: qps_per_thread=8, transport=rc, hosts=a/b.",
                    schema = @Schema(type = "object", additionalPropertiesSchema = String.class)))
    @ApiResponse(responseCode = "200", description = "The curve.")
    Mono<Curve> curve(@PathVariable long id,
                      @io.swagger.v3.oas.annotations.Parameter(description = "The x axis: a numeric parameter "
                              + "(msg_size, threads, qps_per_thread, tx_depth, iodepth, bs, numjobs, ...), or a "
                              + "metric (one of y's; each point then one configuration at its median x).")
                      @RequestParam(defaultValue = "msg_size") String x,
                      @io.swagger.v3.oas.annotations.Parameter(description = "The metric: bw_avg_bps, bw_peak_bps, "
                              + "bw_sum_bps, msg_rate, iops, cycle_median_ns, cycle_p99_ns, cycle_p999_ns, latency_min_us, "
                              + "latency_typical_us, latency_avg_us, latency_p99_us, latency_p999_us or "
                              + "latency_max_us.")
                      @RequestParam(defaultValue = "bw_avg_bps") String y,
                      @io.swagger.v3.oas.annotations.Parameter(description = "The parameter whose values make the "
                              + "series, or several separated by commas (transport,op): each combination of their "
                              + "values is a series, named by the values joined by spaces (\"rc send\").")
                      @RequestParam(defaultValue = "threads") String series,
                      @io.swagger.v3.oas.annotations.Parameter(description = "With a metric x: the varied dimension "
                              + "that moves along each line (default: the first varied of iodepth, threads, "
                              + "qps_per_thread, msg_size, numjobs, bs, tx_depth, ...).")
                      @RequestParam(required = false) String along,
                      @io.swagger.v3.oas.annotations.Parameter(hidden = true) ServerHttpRequest request) {
        List<Violation> problems = new ArrayList<>();
        Metric yMetric = Metric.byName(y).orElse(null);
        Metric xMetric = Metric.byName(x).orElse(null);
        if (xMetric == null && ProviderKeys.byKey(x).filter(ProviderKey::numeric).isEmpty()) {
            problems.add(new Violation("x", "must be a numeric parameter (msg_size, threads, qps_per_thread, iodepth, "
                    + "bs, ...) or a metric (" + Metric.names() + "), got " + x));
        }
        if (yMetric == null) {
            problems.add(new Violation("y", "must be one of " + Metric.names() + ", got " + y));
        }
        List<String> seriesKeys = List.of(series.split(",", -1));
        if (seriesKeys.stream().anyMatch(key -> ProviderKeys.byKey(key).isEmpty())) {
            problems.add(new Violation("series", "must be a parameter, or several separated by commas ("
                    + ProviderKeys.knownKeys() + "), got " + series));
        }
        Map<String, String> pins = new LinkedHashMap<>();
        request.getQueryParams().forEach((name, values) -> {
            if (!OWN.contains(name)) {
                pins.put(name, values.get(values.size() - 1));
            }
        });
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid curve request", problems));
        }
        return jdbc.call(() -> {
            checkPins(id, x, seriesKeys, along, pins);
            return CurvePoints.assemble(x, xMetric != null, y, seriesKeys, pins, along, curves.configurations(id,
                    yMetric.sql(), xMetric == null ? x : null, xMetric == null ? null : xMetric.sql()));
        });
    }

    /** Each pin names a dimension of the experiment's runs at one of its values, and neither axis: else 400. */
    private void checkPins(long id, String x, List<String> series, String along, Map<String, String> pins) {
        Map<String, Set<String>> values = curves.values(id);
        List<Violation> problems = new ArrayList<>();
        if (along != null && !values.containsKey(along)) {
            problems.add(new Violation("along", "experiment " + id + "'s runs have no parameter " + along
                    + "; theirs: " + String.join(", ", values.keySet())));
        }
        pins.forEach((name, value) -> {
            if (name.equals(x) || series.contains(name) || name.equals(along)) {
                problems.add(new Violation(name, "is on an axis of this curve (x, series or along): it cannot be pinned"));
            } else if (!values.containsKey(name)) {
                problems.add(new Violation(name, "not a parameter of experiment " + id + "'s runs, so it cannot be "
                        + "pinned; theirs: " + String.join(", ", values.keySet())));
            } else if (values.get(name).stream().noneMatch(v -> CurvePoints.sameValue(number(v), value))) {
                problems.add(new Violation(name, "no run of experiment " + id + " has " + name + "=" + value
                        + "; its values: " + String.join(", ", values.get(name).stream()
                        .sorted((a, b) -> CurvePoints.compare(number(a), number(b))).toList())));
            }
        });
        if (!problems.isEmpty()) {
            throw new BadRequest("invalid curve request", problems);
        }
    }

    /** A stored value's text as a number when it is one, so that a pin of 4096.0 finds 4096. */
    private static Object number(String text) {
        try {
            return new java.math.BigDecimal(text);
        } catch (NumberFormatException e) {
            return text;
        }
    }
}
