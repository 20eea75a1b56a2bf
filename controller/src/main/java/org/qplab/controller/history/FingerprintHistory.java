package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A fingerprint's finished runs over time, each by one run-level metric, oldest first, and per experiment the
 * median of its runs with their spread: how one configuration on one kind of host has done across experiments;
 * and where the series moved ({@link EDivisive}).
 */
@Schema(description = "A fingerprint's runs over time by one metric, and each experiment's median and spread.")
public record FingerprintHistory(String fingerprint, String metric, String unit, boolean higherIsBetter,
                                 @Schema(description = "Every metric some run of the fingerprint measured: what "
                                         + "metric= may ask for here.") List<String> metrics,
                                 Map<String, Object> params, Map<String, Object> host, List<RunValue> runs,
                                 List<ExperimentValue> experiments,
                                 @Schema(description = "Where the runs' series moved, oldest first: change points by "
                                         + "E-Divisive means (p 0.001 counted over where the split was looked for, "
                                         + "window 50 runs, a change of at least 5 %).") List<Change> changes) {

    /** One finished run: when it finished and its value. */
    @Schema(name = "FingerprintRunValue")
    public record RunValue(long runId, long experimentId, String experimentName, OffsetDateTime finishedAt, double value) {}

    /** An experiment's runs of the fingerprint: the median of their values, min..max, n; at its last run's end. */
    @Schema(name = "FingerprintExperimentValue")
    public record ExperimentValue(long experimentId, String experimentName, OffsetDateTime finishedAt, int n,
                                  double median, double min, double max) {}

    /**
     * A change point: the runs from runAfter on differ from those before it, up to runBefore. index: runAfter's place
     * in the series of runs that measured the metric. The means are geometric, over the pointsBefore and pointsAfter
     * runs either side within its window; settled: later runs cannot move or remove it.
     */
    @Schema(name = "FingerprintChange")
    public record Change(int index, long runBefore, long runAfter, double meanBefore, double meanAfter,
                         double changePercent, double pValue, int pointsBefore, int pointsAfter, boolean settled) {}
}
