package org.qplab.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.qplab.protocol.IntervalFrame;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * An nvmeof experiment whose runs an imitation agent ran: submitted over the API (so its points are what the
 * matrix expands to), each run's I/Os stored as intervals through the real ingest, and its end with a summary in
 * the initiator's shape (provider nvmeof, msg_rate = iops, bw_avg_bps, latency_us, fio), through the real run-end
 * path. Its figures come from {@link #iops} and {@link #p99}, so tests know what every chart must show.
 */
public final class StoredNvmeofRuns {

    /** I/Os per run (the intervals' cycles; the summary's cycles must match them). */
    public static final long IOS = 400;

    private final WebTestClient http;
    private final JdbcClient jdbc;
    private final FrameIngest ingest;
    private final RunOutcomes outcomes;

    public StoredNvmeofRuns(WebTestClient http, JdbcClient jdbc, FrameIngest ingest, RunOutcomes outcomes) {
        this.http = http;
        this.jdbc = jdbc;
        this.ingest = ingest;
        this.outcomes = outcomes;
    }

    /** The run's IOPS: grows with iodepth, lower for writes, a little higher for each repeat. */
    public static double iops(String transport, String rw, long bs, long iodepth, int repeat) {
        double base = switch (transport) {
            case "local" -> 3000;
            case "rdma" -> 2000;
            default -> 1000;
        };
        return (rw.equals("randwrite") ? 0.7 : 1) * base * Math.sqrt(iodepth) * 4096.0 / Math.max(bs, 4096) + 10 * repeat;
    }

    /** The run's p99 completion latency in µs (typical is half of it, p99.9 twice it). */
    public static double p99(String transport, String rw, long bs, long iodepth, int repeat) {
        return (rw.equals("randwrite") ? 1300 : 900) * iodepth * (transport.equals("tcp") ? 2 : 1) + 5 * repeat;
    }

    /** Submits the matrix (provider nvmeof, hosts loopback) and finishes every run. Returns the experiment id. */
    public long create(String matrixYaml) throws Exception {
        Map<String, Object> created = http.post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(matrixYaml).exchange().expectStatus().isCreated().expectBody(ControllerIntegrationTest.JSON_OBJECT)
                .returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        List<Map<String, Object>> runs = jdbc.sql("""
                        UPDATE run SET status = 'RUNNING', agent_id = 'imitation', started_at = now()
                        WHERE experiment_id = ? RETURNING id, repeat, params::text AS params""")
                .param(id).query().listOfRows();
        for (Map<String, Object> run : runs) {
            long runId = ((Number) run.get("id")).longValue();
            Map<String, Object> params = jdbc.sql("SELECT params->>'transport' AS transport, params->>'rw' AS rw, "
                    + "(params->>'bs')::bigint AS bs, (params->>'iodepth')::bigint AS iodepth FROM run WHERE id = ?")
                    .param(runId).query().singleRow();
            String transport = (String) params.get("transport");
            String rw = (String) params.get("rw");
            long bs = ((Number) params.get("bs")).longValue();
            long iodepth = ((Number) params.get("iodepth")).longValue();
            int repeat = ((Number) run.get("repeat")).intValue();
            finish(runId, transport, rw, bs, iodepth, iops(transport, rw, bs, iodepth, repeat),
                    p99(transport, rw, bs, iodepth, repeat));
        }
        return id;
    }

    private void finish(long runId, String transport, String rw, long bs, long iodepth, double iops, double p99)
            throws Exception {
        List<TestIntervals.Cycle> cycles = new ArrayList<>();
        long clatNs = (long) (p99 * 1000 / 2);
        for (int i = 0; i < IOS; i++) {
            cycles.add(new TestIntervals.Cycle(0, i * 1_000_000L, i * 1_000_000L + clatNs));
        }
        ingest.store(IntervalFrame.of(runId, 0, List.of(), TestIntervals.of(cycles, 100_000_000L, bs, 1)));
        String direction = rw.equals("randwrite") ? "write" : "read";
        Map<String, Object> fio = new LinkedHashMap<>(Map.of("version", "fio-3.33", "rw", rw, "bs", bs,
                "iodepth", iodepth, "numjobs", 1, "ioengine", "io_uring"));
        fio.put(direction, Map.of("iops", iops, "bw_bytes", iops * bs, "io_bytes", IOS * bs, "total_ios", IOS,
                "clat_ns", Map.of("min", clatNs / 2, "max", clatNs * 4, "mean", clatNs, "stddev", 1000,
                        "percentile", Map.of("50", p99 * 500, "99", p99 * 1000, "99.9", p99 * 2000))));
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.putAll(Map.of("provider", "nvmeof", "transport", transport, "side",
                transport.equals("local") ? "local" : "initiator", "device", "/dev/nvme0n1", "cycles", IOS,
                "messages", IOS, "bytes", IOS * bs, "errors", 0, "dropped", 0, "duration_ns", (long) (IOS / iops * 1e9)));
        summary.putAll(Map.of("bw_avg_bps", iops * bs, "bw_peak_bps", iops * bs, "msg_rate", iops, "iops", iops,
                "cycle_ns", Map.of("median", clatNs, "p99", clatNs, "p999", clatNs),
                "latency_us", Map.of("min", p99 / 4, "typical", p99 / 2, "avg", p99 / 2, "p99", p99, "p999", p99 * 2,
                        "max", p99 * 4),
                "fio", fio));
        outcomes.finished(runId, "imitation", summary, 1);
    }
}
