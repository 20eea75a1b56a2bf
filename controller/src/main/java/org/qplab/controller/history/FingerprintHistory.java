package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A fingerprint's finished runs over time, each by one run-level metric, oldest first, and per experiment the
 * median of its runs with their spread: how one configuration on one kind of host has done across experiments.
 */
@Schema(description = "A fingerprint's runs over time by one metric, and each experiment's median and spread.")
public record FingerprintHistory(String fingerprint, String metric, String unit, boolean higherIsBetter,
                                 @Schema(description = "Every metric some run of the fingerprint measured: what "
                                         + "metric= may ask for here.") List<String> metrics,
                                 Map<String, Object> params, Map<String, Object> host, List<RunValue> runs,
                                 List<ExperimentValue> experiments) {

    /** One finished run: when it finished and its value. */
    @Schema(name = "FingerprintRunValue")
    public record RunValue(long runId, long experimentId, String experimentName, OffsetDateTime finishedAt, double value) {}

    /** An experiment's runs of the fingerprint: the median of their values, min..max, n; at its last run's end. */
    @Schema(name = "FingerprintExperimentValue")
    public record ExperimentValue(long experimentId, String experimentName, OffsetDateTime finishedAt, int n,
                                  double median, double min, double max) {}
}
