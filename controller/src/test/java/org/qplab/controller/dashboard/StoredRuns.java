package org.qplab.controller.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.qplab.controller.TestIntervals;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.controller.ingest.SampleIngest;
import org.qplab.protocol.SampleFrame;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * An experiment of tcp bandwidth runs whose agent the test plays: the matrix submitted over the API (so its points
 * and repeats are what it expands to), each run started on a host with the given kernel (part of its fingerprint),
 * its cycles stored as intervals through the real ingest and its end with a summary through the real run-end path.
 * Each run's bandwidth is {@link Bandwidth#of} its point and repeat, so a test knows every value a chart must show.
 */
final class StoredRuns {

    static final int CYCLES = 200;

    /** A run's configuration as the tests vary it. */
    record Point(long msgSize, int qpsPerThread, int threads, int repeat) {}

    @FunctionalInterface
    interface Bandwidth {
        /** Bytes per second. */
        double of(Point point);
    }

    private final WebTestClient http;
    private final JdbcClient jdbc;
    private final SampleIngest ingest;
    private final RunOutcomes outcomes;

    StoredRuns(WebTestClient http, JdbcClient jdbc, SampleIngest ingest, RunOutcomes outcomes) {
        this.http = http;
        this.jdbc = jdbc;
        this.ingest = ingest;
        this.outcomes = outcomes;
    }

    /** Submits the matrix (YAML) and finishes every run of it on a host running `kernel`. Returns the experiment id. */
    long create(String matrixYaml, String kernel, Bandwidth bandwidth) throws Exception {
        long id = http.post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(matrixYaml).exchange().expectStatus().isCreated().expectBody(JsonNode.class)
                .returnResult().getResponseBody().get("id").asLong();
        List<Long> runs = jdbc.sql("""
                        UPDATE run SET status = 'RUNNING', agent_id = 'imitation', started_at = now(),
                            host_facts = jsonb_build_object('kernel', ?::text, 'cpus', 2)
                        WHERE experiment_id = ? RETURNING id""")
                .params(kernel, id).query(Long.class).list();
        for (long runId : runs.stream().sorted().toList()) {
            Point point = jdbc.sql("""
                            SELECT (params->>'msg_size')::bigint, coalesce((params->>'qps_per_thread')::int, 1),
                                   coalesce((params->>'threads')::int, 1), repeat
                            FROM run WHERE id = ?""")
                    .param(runId).query((rs, i) -> new Point(rs.getLong(1), rs.getInt(2), rs.getInt(3), rs.getInt(4))).single();
            finish(runId, point, bandwidth.of(point));
        }
        return id;
    }

    /** One cycle = one message per QP per thread; every cycle takes the time the bandwidth gives it. */
    private void finish(long runId, Point point, double bytesPerSecond) throws Exception {
        long bytesPerCycle = point.msgSize() * point.qpsPerThread();
        long cycleNs = Math.max(1, Math.round(bytesPerCycle * 1e9 / bytesPerSecond));
        List<TestIntervals.Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < CYCLES; i++) {
            cycles.add(new TestIntervals.Cycle(0, i * cycleNs, (i + 1) * cycleNs));
        }
        ingest.store(SampleFrame.of(runId, 0, List.of(), TestIntervals.of(cycles, 100_000_000L, bytesPerCycle,
                point.qpsPerThread())));
        long messages = (long) CYCLES * point.qpsPerThread();
        outcomes.finished(runId, "imitation", Map.of("cycles", CYCLES, "bytes", CYCLES * bytesPerCycle,
                "messages", messages, "errors", 0, "dropped", 0, "duration_ns", CYCLES * cycleNs,
                "bw_avg_bps", bytesPerSecond, "bw_peak_bps", bytesPerSecond,
                "msg_rate", bytesPerSecond / point.msgSize(),
                "cycle_ns", Map.of("median", cycleNs, "p99", cycleNs, "p999", cycleNs)), 1);
    }
}
