package org.qplab.agent.nvmeof;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.engine.nvmeof.NvmeofSpec;
import org.qplab.protocol.CycleBuckets;
import tools.jackson.databind.JsonNode;

/**
 * The fio part of an nvmeof run's summary, from fio's final report and the intervals closed before it, in the
 * engine summary's shape (engine/src/main/c/qpb_summary.c) where it applies: provider, cycles (= I/Os = the final
 * clat bins' total = the intervals' cycles), messages, bytes, errors, duration_ns, bw_avg_bps, bw_peak_bps,
 * msg_rate, iops, intervals, cycle_ns and latency_us (both from fio's clat: read, write and trim merged), fio (its
 * version, job and per-direction figures) and cpu (fio's usr/sys %). The session adds transport, role, side,
 * device, interval_ms, the host cpu, counters and warnings. The whole summary's keys, types and units are documented
 * in protocol's run-summary.schema.json ({@code org.qplab.protocol.RunSummarySchema}), its nvmeof branch: a key added
 * here is added there too, or FioRunIntegrationTests fails.
 */
final class FioSummary {

    private static final String[] DIRECTIONS = {"read", "write", "trim"};
    private static final Pattern FIO_SIZE = Pattern.compile("(\\d+)([kmgtp]?)(i?b?)");

    private FioSummary() {
    }

    static Map<String, Object> of(JsonNode report, long intervals, double peakBps) {
        long cycles = 0;
        long bytes = 0;
        long errors = 0;
        long runtimeMs = 0;
        double bw = 0;
        double iops = 0;
        Clat merged = new Clat();
        Map<String, Clat> byDirection = new LinkedHashMap<>();
        TreeMap<Integer, Long> buckets = new TreeMap<>();
        double usrCpu = 0;
        double sysCpu = 0;
        int jobs = 0;
        for (JsonNode job : report.path("jobs")) {
            jobs++;
            errors += job.path("total_err").asLong(0);
            usrCpu += job.path("usr_cpu").asDouble(0);
            sysCpu += job.path("sys_cpu").asDouble(0);
            for (String d : DIRECTIONS) {
                JsonNode dir = job.path(d);
                bytes += dir.path("io_bytes").asLong(0);
                bw += dir.path("bw_bytes").asDouble(0);
                iops += dir.path("iops").asDouble(0);
                runtimeMs = Math.max(runtimeMs, dir.path("runtime").asLong(0));
                Clat c = Clat.of(dir.path("clat_ns"));
                merged.add(c);
                byDirection.merge(d, c, (a, b) -> {
                    a.add(b);
                    return a;
                });
                for (Map.Entry<String, JsonNode> bin : dir.path("clat_ns").path("bins").properties()) {
                    long n = bin.getValue().asLong();
                    cycles += n;
                    buckets.merge(CycleBuckets.of(Long.parseLong(bin.getKey())), n, Long::sum);
                }
            }
        }
        int[] b = buckets.keySet().stream().mapToInt(Integer::intValue).toArray();
        long[] counts = buckets.values().stream().mapToLong(Long::longValue).toArray();
        long minNs = merged.n > 0 ? merged.min : 0;
        long maxNs = merged.n > 0 ? merged.max : 0;
        long medianNs = CycleBuckets.percentile(b, counts, cycles, 0.5, minNs, maxNs);
        long p99Ns = CycleBuckets.percentile(b, counts, cycles, 0.99, minNs, maxNs);
        long p999Ns = CycleBuckets.percentile(b, counts, cycles, 0.999, minNs, maxNs);

        Map<String, Object> s = new LinkedHashMap<>();
        s.put("provider", NvmeofSpec.PROVIDER);
        s.put("cycles", cycles);
        s.put("messages", cycles);
        s.put("bytes", bytes);
        s.put("errors", errors);
        s.put("duration_ns", runtimeMs * 1_000_000);
        s.put("bw_avg_bps", bw);
        s.put("bw_peak_bps", peakBps);
        s.put("msg_rate", iops);
        s.put("iops", iops);
        s.put("intervals", intervals);

        Map<String, Object> cycleNs = new LinkedHashMap<>();
        cycleNs.put("min", minNs);
        cycleNs.put("median", medianNs);
        cycleNs.put("avg", merged.mean());
        cycleNs.put("stdev", merged.stdev());
        cycleNs.put("p99", p99Ns);
        cycleNs.put("p999", p999Ns);
        cycleNs.put("max", maxNs);
        s.put("cycle_ns", cycleNs);

        // fio's own percentiles when one direction did every I/O (what fio prints), else the merged histogram's
        Clat only = byDirection.values().stream().filter(c -> c.n == merged.n && c.n > 0).findFirst().orElse(null);
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("min", minNs / 1e3);
        latency.put("max", maxNs / 1e3);
        latency.put("typical", percentile(only, "50", medianNs) / 1e3);
        latency.put("avg", merged.mean() / 1e3);
        latency.put("stdev", merged.stdev() / 1e3);
        latency.put("p99", percentile(only, "99", p99Ns) / 1e3);
        latency.put("p999", percentile(only, "99.9", p999Ns) / 1e3);
        s.put("latency_us", latency);

        JsonNode first = report.path("jobs").path(0);
        JsonNode options = first.path("job options");
        Map<String, Object> fio = new LinkedHashMap<>();
        fio.put("version", report.path("fio version").asString(null));
        fio.put("rw", options.path("rw").asString(null));
        fio.put("bs", size(options.path("bs").asString(null)));
        fio.put("iodepth", size(options.path("iodepth").asString("1")));
        fio.put("numjobs", size(options.path("numjobs").asString("1")));
        fio.put("ioengine", options.path("ioengine").asString(null));
        fio.put("error", first.path("error").asLong(0));
        for (JsonNode job : report.path("jobs")) {
            for (String d : DIRECTIONS) {
                JsonNode dir = job.path(d);
                if (d.equals("trim") && dir.path("total_ios").asLong(0) == 0) {
                    continue;
                }
                fio.putIfAbsent(d, direction(dir));
            }
        }
        fio.put("usr_cpu", usrCpu);
        fio.put("sys_cpu", sysCpu);
        s.put("fio", fio);

        Map<String, Object> cpu = new LinkedHashMap<>();
        cpu.put("fio_usr_pct", jobs > 0 ? usrCpu / jobs : 0.0);
        cpu.put("fio_sys_pct", jobs > 0 ? sysCpu / jobs : 0.0);
        s.put("cpu", cpu);
        return s;
    }

    private static double percentile(Clat only, String key, long fromHistogram) {
        if (only != null && only.percentiles.containsKey(key)) {
            return only.percentiles.get(key);
        }
        return fromHistogram;
    }

    private static Map<String, Object> direction(JsonNode dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("iops", dir.path("iops").asDouble(0));
        m.put("bw_bytes", dir.path("bw_bytes").asLong(0));
        m.put("io_bytes", dir.path("io_bytes").asLong(0));
        m.put("total_ios", dir.path("total_ios").asLong(0));
        m.put("runtime_ms", dir.path("runtime").asLong(0));
        JsonNode clat = dir.path("clat_ns");
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("N", clat.path("N").asLong(0));
        c.put("min", clat.path("min").asLong(0));
        c.put("max", clat.path("max").asLong(0));
        c.put("mean", clat.path("mean").asDouble(0));
        c.put("stddev", clat.path("stddev").asDouble(0));
        c.put("percentile", Clat.of(clat).percentiles);
        m.put("clat_ns", c);
        return m;
    }

    /** A fio size ("4k", "8M", "4096": fio's kb_base 1024) as bytes; the text itself when it is not one ("4k,8k"). */
    static Object size(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = FIO_SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return text;
        }
        int shift = "kmgtp".indexOf(m.group(2).isEmpty() ? "_" : m.group(2)) + 1;
        return Long.parseLong(m.group(1)) << (10 * shift);
    }

    /** One direction's (or the merged) completion latency: fio's clat_ns moments, pooled. */
    private static final class Clat {
        long n;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        double mean;
        /** Σ (x − mean)², as fio's stddev (sample, n − 1) implies. */
        double m2;
        final Map<String, Long> percentiles = new LinkedHashMap<>();

        static Clat of(JsonNode clat) {
            Clat c = new Clat();
            c.n = clat.path("N").asLong(0);
            if (c.n > 0) {
                c.min = clat.path("min").asLong();
                c.max = clat.path("max").asLong();
                c.mean = clat.path("mean").asDouble();
                double sd = clat.path("stddev").asDouble();
                c.m2 = sd * sd * (c.n - 1);
            }
            for (Map.Entry<String, JsonNode> p : clat.path("percentile").properties()) {
                c.percentiles.put(percentKey(p.getKey()), p.getValue().asLong());
            }
            return c;
        }

        /** "99.900000" → "99.9", "50.000000" → "50". */
        private static String percentKey(String fio) {
            String k = fio.contains(".") ? fio.replaceAll("0+$", "") : fio;
            return k.endsWith(".") ? k.substring(0, k.length() - 1) : k;
        }

        void add(Clat o) {
            if (o.n == 0) {
                return;
            }
            if (n == 0) {
                n = o.n;
                min = o.min;
                max = o.max;
                mean = o.mean;
                m2 = o.m2;
                return;
            }
            long total = n + o.n;
            double delta = o.mean - mean;
            m2 += o.m2 + delta * delta * n * o.n / total;
            mean += delta * o.n / total;
            min = Math.min(min, o.min);
            max = Math.max(max, o.max);
            n = total;
        }

        double mean() {
            return n > 0 ? mean : 0.0;
        }

        double stdev() {
            return n > 1 ? Math.sqrt(m2 / (n - 1)) : 0.0;
        }
    }
}
