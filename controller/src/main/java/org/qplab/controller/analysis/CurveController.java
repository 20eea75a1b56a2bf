package org.qplab.controller.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
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
class CurveController {

    /** The metrics a curve can plot, by API name → their SQL over run_summary s. */
    static final Map<String, String> METRICS = Map.of(
            "bw_avg_bps", "s.bw_avg_bps", "bw_peak_bps", "s.bw_peak_bps", "msg_rate", "s.msg_rate",
            "cycle_median_ns", "s.cycle_median_ns", "cycle_p99_ns", "s.cycle_p99_ns",
            "cycle_p999_ns", "(s.summary -> 'cycle_ns' ->> 'p999')::double precision");

    private final Jdbc jdbc;
    private final CurveRepository curves;

    CurveController(Jdbc jdbc, CurveRepository curves) {
        this.jdbc = jdbc;
        this.curves = curves;
    }

    @GetMapping("/api/experiments/{id}/curve")
    Mono<Curve> curve(@PathVariable long id, @RequestParam(defaultValue = "msg_size") String x,
                      @RequestParam(defaultValue = "bw_avg_bps") String y,
                      @RequestParam(defaultValue = "threads") String series) {
        List<Violation> problems = new ArrayList<>();
        if (Parameter.byKey(x).filter(Parameter::numeric).isEmpty()) {
            problems.add(new Violation("x", "must be a numeric parameter (msg_size, threads, qps_per_thread, ...), got " + x));
        }
        if (!METRICS.containsKey(y)) {
            problems.add(new Violation("y", "must be one of " + new TreeSet<>(METRICS.keySet()) + ", got " + y));
        }
        if (Parameter.byKey(series).isEmpty()) {
            problems.add(new Violation("series", "must be a parameter (" + Parameter.knownKeys() + "), got " + series));
        }
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid curve request", problems));
        }
        return jdbc.call(() -> new Curve(x, y, series, curves.points(id, x, series, METRICS.get(y))));
    }
}
