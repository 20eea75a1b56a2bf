package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.run.Fingerprint;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/fingerprints/{fingerprint}/history?metric=bw_avg_bps: one configuration's runs over time. */
@RestController
@Tag(name = ApiTags.HISTORY)
class FingerprintHistoryController {

    private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{64}");

    private static final EDivisive CHANGES = new EDivisive(EDivisive.Settings.DEFAULT);

    private final Jdbc jdbc;
    private final Fingerprints fingerprints;

    FingerprintHistoryController(Jdbc jdbc, Fingerprints fingerprints) {
        this.jdbc = jdbc;
        this.fingerprints = fingerprints;
    }

    @GetMapping("/api/fingerprints/{fingerprint}/history")
    @Operation(operationId = "getFingerprintHistory", summary = "A fingerprint's runs over time",
            description = "Every finished run of the fingerprint (parameters + host, see getRunFingerprint) across "
                    + "experiments, oldest first, by one run-level metric, and per experiment the median of its runs "
                    + "with min..max and n (its repeats' spread), and the change points of the runs' series (E-Divisive "
                    + "means). 404 when no finished run has the fingerprint.")
    @ApiResponse(responseCode = "200", description = "The history.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<FingerprintHistory> history(@Parameter(description = "The fingerprint: 64 hex digits.") @PathVariable
                                     String fingerprint,
                                     @Parameter(description = "The metric: bw_avg_bps, msg_rate, iops, "
                                             + "latency_typical_us, ... (any of the curve's y); default by the runs' "
                                             + "kind: latency_typical_us for latency runs, iops for nvmeof, else "
                                             + "bw_avg_bps.")
                                     @RequestParam(required = false) String metric) {
        List<Violation> problems = new ArrayList<>();
        if (!FINGERPRINT.matcher(fingerprint).matches()) {
            problems.add(new Violation("fingerprint", "must be 64 lowercase hex digits (a run's fingerprint), got "
                    + fingerprint));
        }
        if (metric != null && Metric.byName(metric).isEmpty()) {
            problems.add(new Violation("metric", "must be one of " + Metric.names() + ", got " + metric));
        }
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid history request", problems));
        }
        return jdbc.call(() -> {
            Fingerprints.Identity identity = fingerprints.identity(fingerprint)
                    .orElseThrow(() -> new NotFound("no finished run has fingerprint " + fingerprint));
            Metric chosen = metric != null ? Metric.byName(metric).orElseThrow() : Metric.defaultFor(identity.params());
            List<FingerprintHistory.RunValue> runs = fingerprints.values(fingerprint, chosen);
            return new FingerprintHistory(fingerprint, chosen.name(), chosen.unit(), chosen.higherIsBetter(),
                    measured(fingerprint, identity.params()), identity.params(), Fingerprint.host(identity.hostFacts()), runs, byExperiment(runs),
                    FingerprintChanges.of(runs, CHANGES));
        });
    }

    /** What the fingerprint's runs measured; an engine run's messages per second are no IOPS, fio's I/Os no messages. */
    private List<String> measured(String fingerprint, Map<String, Object> params) {
        String notThisKind = Metric.notMeasured(params);
        return fingerprints.measured(fingerprint).stream().filter(name -> !name.equals(notThisKind)).toList();
    }

    private static List<FingerprintHistory.ExperimentValue> byExperiment(List<FingerprintHistory.RunValue> runs) {
        Map<Long, List<FingerprintHistory.RunValue>> groups = new LinkedHashMap<>();
        runs.forEach(r -> groups.computeIfAbsent(r.experimentId(), k -> new ArrayList<>()).add(r));
        List<FingerprintHistory.ExperimentValue> experiments = new ArrayList<>();
        groups.forEach((id, group) -> {
            double[] values = group.stream().mapToDouble(FingerprintHistory.RunValue::value).sorted().toArray();
            int n = values.length;
            double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
            experiments.add(new FingerprintHistory.ExperimentValue(id, group.get(0).experimentName(),
                    group.get(n - 1).finishedAt(), n, median, values[0], values[n - 1]));
        });
        return experiments;
    }
}
