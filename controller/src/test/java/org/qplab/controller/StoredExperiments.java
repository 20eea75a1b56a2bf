package org.qplab.controller;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.controller.ingest.SampleIngest;
import org.qplab.protocol.Sample;
import org.qplab.protocol.SampleFrame;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Experiments whose runs an imitation agent ran: submitted over the API, their cycles stored as the
 * engine's intervals (and, to check them against, as a trace of every cycle) through the real ingest and
 * run-end paths, with cycle times drawn from a known distribution
 * (log-normal around 100 µs × scale), so tests know what a comparison must find.
 */
public final class StoredExperiments {

    public static final int CYCLES = 5000;

    private final WebTestClient http;
    private final JdbcClient jdbc;
    private final SampleIngest ingest;
    private final RunOutcomes outcomes;

    public StoredExperiments(WebTestClient http, JdbcClient jdbc, SampleIngest ingest, RunOutcomes outcomes) {
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
        Map<String, Object> created = http.post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"compare\",\"base\":{\"iterations\":" + CYCLES + "},\"dimensions\":{\"msg_size\":" + sizes
                        + "},\"repeats\":" + repeats + "}")
                .exchange().expectStatus().isCreated().expectBody(ControllerIntegrationTest.JSON_OBJECT).returnResult()
                .getResponseBody();
        long experimentId = ((Number) created.get("id")).longValue();
        List<Long> runs = jdbc.sql("""
                        UPDATE run SET status = 'RUNNING', agent_id = 'imitation', started_at = now(),
                            host_facts = jsonb_build_object('kernel', ?::text, 'cpus', 2)
                        WHERE experiment_id = ? RETURNING id""")
                .params(kernel, experimentId).query(Long.class).list();
        SplittableRandom random = new SplittableRandom(seed);
        for (long runId : runs) {
            long msgSize = jdbc.sql("SELECT (params->>'msg_size')::bigint FROM run WHERE id = ?").param(runId)
                    .query(Long.class).single();
            double runScale = scale * Math.exp(runScatter * gaussian(random));
            double[] durations = new double[CYCLES];
            List<TestIntervals.Cycle> cycles = new ArrayList<>();
            List<Sample> trace = new ArrayList<>();
            for (int i = 0; i < CYCLES; i++) {
                durations[i] = Math.round(runScale * 100_000 * Math.exp(0.25 * gaussian(random)));
                cycles.add(new TestIntervals.Cycle(0, i * 1_000_000L, i * 1_000_000L + (long) durations[i]));
                trace.add(new Sample(0, 0, i, i * 1_000_000L, i * 1_000_000L + (long) durations[i], msgSize, 1));
            }
            // the statistics are the intervals; every cycle is traced too, so tests can check them against each cycle
            ingest.store(SampleFrame.of(runId, 0, trace, TestIntervals.of(cycles, 100_000_000L, msgSize, 1)));
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

    private static double gaussian(SplittableRandom random) {
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
