package org.qplab.controller;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.qplab.protocol.TraceRecord;
import org.qplab.protocol.IntervalFrame;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Experiments whose runs an imitation agent ran: submitted over the API, their cycles stored as the
 * engine's intervals through the real ingest and run-end paths, so tests know every value a chart or a comparison
 * must show. Two kinds: message sizes with cycle times drawn from a known distribution (log-normal around
 * 100 µs × scale; every cycle traced too, to check against), or any matrix whose runs each have the bandwidth a
 * function of their configuration gives (every cycle equally long).
 */
public final class StoredExperiments {

    public static final int CYCLES = 5000;

    /** Cycles of each run of {@link #create(String, String, Bandwidth)}. */
    public static final int PACED_CYCLES = 200;

    /** A run's configuration as the tests vary it. */
    public record Point(long msgSize, int qpsPerThread, int threads, int repeat) {}

    /** The bandwidth a run of a configuration has, in bytes per second. */
    @FunctionalInterface
    public interface Bandwidth {
        double of(Point point);
    }

    private final WebTestClient http;
    private final JdbcClient jdbc;
    private final FrameIngest ingest;
    private final RunOutcomes outcomes;

    public StoredExperiments(WebTestClient http, JdbcClient jdbc, FrameIngest ingest, RunOutcomes outcomes) {
        this.http = http;
        this.jdbc = jdbc;
        this.ingest = ingest;
        this.outcomes = outcomes;
    }

    /** sizes: a JSON list of message sizes, one run each. Returns the experiment id. */
    public long create(String sizes, long seed, double scale, String kernel) throws Exception {
        return create(sizes, seed, scale, kernel, 1, 0);
    }

    /**
     * sizes: a JSON list of message sizes, each run `repeats` times; each run's cycles scaled by its own factor
     * exp(runScatter x a standard normal draw) besides scale: the run-to-run variation a real machine has.
     */
    public long create(String sizes, long seed, double scale, String kernel, int repeats, double runScatter) throws Exception {
        long experimentId = submit(MediaType.APPLICATION_JSON, "{\"name\":\"compare\",\"base\":{\"iterations\":" + CYCLES
                + "},\"dimensions\":{\"msg_size\":" + sizes + "},\"repeats\":" + repeats + "}");
        List<Long> runs = start(experimentId, kernel);
        SplittableRandom random = new SplittableRandom(seed);
        for (long runId : runs) {
            long msgSize = jdbc.sql("SELECT (params->>'msg_size')::bigint FROM run WHERE id = ?").param(runId)
                    .query(Long.class).single();
            double runScale = scale * Math.exp(runScatter * gaussian(random));
            double[] durations = new double[CYCLES];
            List<TestIntervals.Cycle> cycles = new ArrayList<>();
            List<TraceRecord> trace = new ArrayList<>();
            for (int i = 0; i < CYCLES; i++) {
                durations[i] = Math.round(runScale * 100_000 * Math.exp(0.25 * gaussian(random)));
                cycles.add(new TestIntervals.Cycle(0, i * 1_000_000L, i * 1_000_000L + (long) durations[i]));
                trace.add(new TraceRecord(0, 0, i, i * 1_000_000L, i * 1_000_000L + (long) durations[i], msgSize, 1));
            }
            // the statistics are the intervals; every cycle is traced too, so tests can check them against each cycle
            ingest.store(IntervalFrame.of(runId, 0, trace, TestIntervals.of(cycles, 100_000_000L, msgSize, 1)));
            double seconds = Arrays.stream(durations).sum() / 1e9;
            double[] sorted = durations.clone();
            Arrays.sort(sorted);
            outcomes.finished(runId, "imitation", Map.of("cycles", CYCLES, "bytes", CYCLES * msgSize,
                    "messages", CYCLES, "errors", 0, "dropped", 0, "duration_ns", (long) (seconds * 1e9),
                    "bw_avg_bps", CYCLES * msgSize / seconds, "bw_peak_bps", CYCLES * msgSize / seconds,
                    "msg_rate", CYCLES / seconds, "cycle_ns", Map.of("median", sorted[CYCLES / 2], "p99", sorted[CYCLES * 99 / 100],
                            "p999", sorted[CYCLES * 999 / 1000])), 1);
        }
        return experimentId;
    }

    /**
     * Submits the matrix (YAML) and finishes every run of it on a host running `kernel` (part of its fingerprint),
     * each at the bandwidth `bandwidth` gives its configuration and repeat. Returns the experiment id.
     */
    public long create(String matrixYaml, String kernel, Bandwidth bandwidth) throws Exception {
        long experimentId = submit(MediaType.parseMediaType("application/yaml"), matrixYaml);
        for (long runId : start(experimentId, kernel).stream().sorted().toList()) {
            Point point = jdbc.sql("""
                            SELECT (params->>'msg_size')::bigint, coalesce((params->>'qps_per_thread')::int, 1),
                                   coalesce((params->>'threads')::int, 1), repeat
                            FROM run WHERE id = ?""")
                    .param(runId).query((rs, i) -> new Point(rs.getLong(1), rs.getInt(2), rs.getInt(3), rs.getInt(4))).single();
            finishAt(runId, point, bandwidth.of(point));
        }
        return experimentId;
    }

    /** One cycle = one message per QP per thread; every cycle takes the time the bandwidth gives it. */
    private void finishAt(long runId, Point point, double bytesPerSecond) throws Exception {
        long bytesPerCycle = point.msgSize() * point.qpsPerThread();
        long cycleNs = Math.max(1, Math.round(bytesPerCycle * 1e9 / bytesPerSecond));
        List<TestIntervals.Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < PACED_CYCLES; i++) {
            cycles.add(new TestIntervals.Cycle(0, i * cycleNs, (i + 1) * cycleNs));
        }
        ingest.store(IntervalFrame.of(runId, 0, List.of(), TestIntervals.of(cycles, 100_000_000L, bytesPerCycle,
                point.qpsPerThread())));
        outcomes.finished(runId, "imitation", Map.of("cycles", PACED_CYCLES, "bytes", PACED_CYCLES * bytesPerCycle,
                "messages", (long) PACED_CYCLES * point.qpsPerThread(), "errors", 0, "dropped", 0,
                "duration_ns", PACED_CYCLES * cycleNs, "bw_avg_bps", bytesPerSecond, "bw_peak_bps", bytesPerSecond,
                "msg_rate", bytesPerSecond / point.msgSize(),
                "cycle_ns", Map.of("median", cycleNs, "p99", cycleNs, "p999", cycleNs)), 1);
    }

    private long submit(MediaType type, String matrix) {
        Map<String, Object> created = http.post().uri("/api/experiments").contentType(type).bodyValue(matrix)
                .exchange().expectStatus().isCreated().expectBody(ControllerIntegrationTest.JSON_OBJECT).returnResult()
                .getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    /** Every run of the experiment RUNNING on the imitation agent, on a host running `kernel`; their ids. */
    private List<Long> start(long experimentId, String kernel) {
        return jdbc.sql("""
                        UPDATE run SET status = 'RUNNING', agent_id = 'imitation', started_at = now(),
                            host_facts = jsonb_build_object('kernel', ?::text, 'cpus', 2)
                        WHERE experiment_id = ? RETURNING id""")
                .params(kernel, experimentId).query(Long.class).list();
    }

    private static double gaussian(SplittableRandom random) {
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
