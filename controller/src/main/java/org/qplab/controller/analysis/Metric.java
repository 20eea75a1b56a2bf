package org.qplab.controller.analysis;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.provider.Providers;

/**
 * A run-level metric: one number per finished run, read from its stored summary. Curves draw them, comparisons
 * judge them over runs, a fingerprint's history follows them over time.
 *
 * @param name           the API's name (bw_avg_bps, latency_typical_us, ...)
 * @param sql            the SQL expression over run_summary s and run r that gives it (NULL: not measured)
 * @param unit           its unit
 * @param higherIsBetter whether a larger value is an improvement (bandwidth, rates) or a regression (times)
 */
public record Metric(String name, String sql, String unit, boolean higherIsBetter) {

    /**
     * Every metric. The latency_* metrics are microseconds from the latency a latency run reports (its summary's
     * latency_us: perftest's *_lat numbers, half the round trip for send and write; an imported perftest *_lat run's
     * too, which the import stores under the same keys); a bandwidth run has none, so it adds no point rather than
     * passing its cycle time (a post-and-poll round with many messages in flight) off as a latency.
     */
    public static final List<Metric> ALL = List.of(
            new Metric("bw_avg_bps", "s.bw_avg_bps", "B/s", true),
            new Metric("bw_peak_bps", "s.bw_peak_bps", "B/s", true),
            // what both sides sent: the client's, plus the server's in a bidirectional run (a server that only
            // receives sends nothing; its summary then says what it received)
            new Metric("bw_sum_bps", "(s.bw_avg_bps + CASE WHEN (r.server_summary ->> 'bidirectional')::boolean "
                    + "THEN (r.server_summary ->> 'bw_avg_bps')::double precision ELSE 0 END)", "B/s", true),
            new Metric("msg_rate", "s.msg_rate", "msg/s", true),
            new Metric("iops", "s.msg_rate", "I/O/s", true),
            new Metric("cycle_median_ns", "s.cycle_median_ns", "ns", false),
            new Metric("cycle_p99_ns", "s.cycle_p99_ns", "ns", false),
            new Metric("cycle_p999_ns", "(s.summary -> 'cycle_ns' ->> 'p999')::double precision", "ns", false),
            latency("min"), latency("typical"), latency("avg"), latency("p99"), latency("p999"), latency("max"));

    private static final Map<String, Metric> BY_NAME = ALL.stream().collect(Collectors.toMap(Metric::name, m -> m));

    /** The metrics a comparison judges, the default first of its kind (see {@link #defaultFor}). */
    public static final List<String> JUDGED = List.of("bw_avg_bps", "msg_rate", "iops", "latency_typical_us",
            "latency_p99_us", "cycle_median_ns", "cycle_p99_ns");

    private static Metric latency(String statistic) {
        return new Metric("latency_" + statistic + "_us", "(s.summary -> 'latency_us' ->> '" + statistic
                + "')::double precision", "µs", false);
    }

    public static Optional<Metric> byName(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    public static String names() {
        return String.join(", ", new TreeSet<>(BY_NAME.keySet()));
    }

    /**
     * The rate a run of these parameters does not measure: an engine run's messages per second are no IOPS, fio's
     * I/Os no messages (as the run's provider counts its cycles).
     */
    public static String notMeasured(Map<String, Object> params) {
        return countsIos(params) ? "msg_rate" : "iops";
    }

    private static boolean countsIos(Map<String, Object> params) {
        return Providers.find(params).map(ProviderSpec::counts).orElse(null) == ProviderSpec.Counts.IOS;
    }

    /**
     * What a run of these parameters is judged on: a latency run (mode latency, or an imported perftest *_lat)
     * on its typical latency, fio on NVMe-oF on its IOPS, every other run on its average bandwidth.
     */
    public static Metric defaultFor(Map<String, Object> params) {
        if (countsIos(params)) {
            return BY_NAME.get("iops");
        }
        boolean latency = params != null && "latency".equals(params.get("mode")); // an import of *_lat says so too
        return BY_NAME.get(latency ? "latency_typical_us" : "bw_avg_bps");
    }
}
