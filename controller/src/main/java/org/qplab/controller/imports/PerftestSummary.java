package org.qplab.controller.imports;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One perftest result line as a run summary in the engine's keys and units (protocol's run-summary.schema.json,
 * engine/src/main/c/qpb_summary.c), so that every table, chart, export and comparison reads an imported run as it
 * reads one of qplab's: {@code bw_avg_bps} and {@code bw_peak_bps} in bytes per second, {@code msg_rate} in
 * messages per second (a bandwidth test), {@code cycle_ns} in ns and {@code latency_us} in µs under perftest's
 * *_lat names (a latency test; {@code typical} is the median), plus the run's shape (provider, mode, op, threads,
 * qps_per_thread, msg_size, iterations, tx_depth), cycles, messages, bytes, errors and duration_ns. What perftest
 * did not measure is absent, never a made-up zero. What perftest printed is kept under {@code perftest}: the tool,
 * the line of the file, the BW unit of a bandwidth test and the line's values under the importer's column names
 * ({@code results}: bytes, iterations, bw_peak, bw_average, msg_rate_mpps, t_min_us, ...).
 *
 * <p>V23__perftest_imports_in_engine_keys.sql rewrites imports stored before into the same summary.
 */
final class PerftestSummary {

    /** cycle_ns keys ← the result columns in µs (perftest's t_typical is the median). */
    private static final List<String[]> CYCLE_NS = List.of(new String[] {"min", "t_min_us"},
            new String[] {"median", "t_typical_us"}, new String[] {"avg", "t_avg_us"}, new String[] {"stdev", "t_stdev_us"},
            new String[] {"p99", "t_p99_us"}, new String[] {"p999", "t_p999_us"}, new String[] {"max", "t_max_us"});
    /** latency_us keys ← the result columns, as the engine names them. */
    private static final List<String[]> LATENCY_US = List.of(new String[] {"min", "t_min_us"},
            new String[] {"max", "t_max_us"}, new String[] {"typical", "t_typical_us"}, new String[] {"avg", "t_avg_us"},
            new String[] {"stdev", "t_stdev_us"}, new String[] {"p99", "t_p99_us"}, new String[] {"p999", "t_p999_us"});
    /** Parameters the summary repeats, as the engine's summary carries them. */
    private static final List<String> SHAPE = List.of("provider", "mode", "op", "threads", "qps_per_thread", "msg_size",
            "iterations", "tx_depth");

    private PerftestSummary() {
    }

    /** Bytes per second of one of perftest's BW units: MB/s is 2^20 B/s, Gb/s (--report_gbits) 10^9 bits/s. */
    static double bytesPerSecond(String bandwidthUnit) {
        return bandwidthUnit.equals("Gb") ? 1e9 / 8 : 1024.0 * 1024.0;
    }

    /** The summary of one result line, the run's parameters being {@link PerftestImport#params}. */
    static Map<String, Object> of(PerftestOutput out, PerftestOutput.Row row, Map<String, Object> params) {
        Map<String, Double> v = row.values();
        Map<String, Object> summary = new LinkedHashMap<>();
        for (String key : SHAPE) {
            if (params.get(key) != null) {
                summary.put(key, params.get(key));
            }
        }
        long qps = ((Number) params.get("qps_per_thread")).longValue();
        long messages = out.latency() ? row.iterations() : row.iterations() * qps;
        long bytes = messages * row.bytes();
        summary.put("cycles", row.iterations());
        summary.put("messages", messages);
        summary.put("bytes", bytes);
        summary.put("errors", 0L);
        if (out.latency()) {
            // a latency run took iterations x t_avg
            summary.put("duration_ns", Math.round(v.get("t_avg_us") * 1e3 * row.iterations()));
            Map<String, Object> cycleNs = new LinkedHashMap<>();
            CYCLE_NS.stream().filter(k -> v.containsKey(k[1])).forEach(k -> cycleNs.put(k[0], v.get(k[1]) * 1e3));
            summary.put("cycle_ns", cycleNs);
            Map<String, Object> latencyUs = new LinkedHashMap<>();
            LATENCY_US.stream().filter(k -> v.containsKey(k[1])).forEach(k -> latencyUs.put(k[0], v.get(k[1])));
            summary.put("latency_us", latencyUs);
        } else {
            double unit = bytesPerSecond(out.bandwidthUnit());
            double average = v.get("bw_average") * unit;
            // perftest's BW average is bytes / time, so time = bytes / BW
            summary.put("duration_ns", average > 0 ? Math.round(bytes / average * 1e9) : 0L);
            summary.put("bw_avg_bps", average);
            summary.put("bw_peak_bps", v.get("bw_peak") * unit);
            summary.put("msg_rate", v.get("msg_rate_mpps") * 1e6);
        }
        Map<String, Object> perftest = new LinkedHashMap<>();
        perftest.put("tool", out.tool());
        perftest.put("line", row.line());
        if (!out.latency()) {
            perftest.put("bw_unit", out.bandwidthUnit() + "/sec");
        }
        Map<String, Object> results = new LinkedHashMap<>(v);
        results.put("bytes", row.bytes());
        results.put("iterations", row.iterations());
        perftest.put("results", results);
        summary.put("perftest", perftest);
        return summary;
    }

    /** A number of the summary as a double, or null when it is absent (what perftest did not measure). */
    static Double number(Map<String, Object> summary, String key) {
        return summary.get(key) instanceof Number n ? n.doubleValue() : null;
    }

    /** A number of the summary's cycle_ns, or null. */
    @SuppressWarnings("unchecked")
    static Double cycleNs(Map<String, Object> summary, String key) {
        return summary.get("cycle_ns") instanceof Map<?, ?> m ? number((Map<String, Object>) m, key) : null;
    }
}
