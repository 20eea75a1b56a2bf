package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.qplab.engine.EngineException;
import org.qplab.engine.EngineSession;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the controller accepts at submit is what the agent's engine session takes, and what it refuses the
 * session refuses: the same verdict, both ways, on thousands of seeded random points, each put to the
 * controller as a matrix and to the engine as qpb_session_create (the agent's first call on a run).
 */
class EngineAgreementTests {

    private static final int POINTS = 5_000;
    private static final long SEED = 21;

    private final ObjectMapper json = JsonMapper.builder().build();
    private final MatrixExpander expander = new MatrixExpander(json, 10_000);

    @Test
    @Timeout(120)
    void controllerAndSessionCreateGiveEveryRandomPointTheSameVerdict() {
        // No RDMA device here: a verbs session the spec allows still fails, at the device. That refusal is the
        // same for every spec that reaches it (with or without rdma_cm), so it is learnt once and told apart.
        String noDevice = sessionRefusal(Map.of("provider", "verbs", "msg_size", 64));
        String noDeviceCm = sessionRefusal(Map.of("provider", "verbs", "msg_size", 64, "rdma_cm", true));
        Random random = new Random(SEED);
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < POINTS; i++) {
            Map<String, Object> point = randomPoint(random);
            Map<String, Object> params = controllerParams(point);
            Map<String, Object> spec = new LinkedHashMap<>(params != null ? params : point);
            spec.put("role", "loopback");
            String refusal = sessionRefusal(spec);
            boolean engineAccepts = refusal == null || refusal.equals(noDevice) || refusal.equals(noDeviceCm);

            // the controller's one rule of its own on a point's parameters: its runs stream intervals
            boolean summaryOnly = Long.valueOf(0).equals(point.get("interval_ms"));
            assertThat(params != null).as("point %d %s: controller accepts; engine says %s", i, point, refusal)
                    .isEqualTo(engineAccepts && !summaryOnly);
            if (engineAccepts) {
                accepted++;
            } else {
                refused++;
            }
        }
        System.out.printf("engine agreement: %d of %d random points accepted, %d refused%n", accepted, POINTS, refused);
        // a generator that only ever produced one verdict would prove nothing (seed 21: 368 accepted)
        assertThat(accepted).as("accepted points").isGreaterThan(POINTS / 20);
        assertThat(refused).as("refused points").isGreaterThan(POINTS / 20);
    }

    /** The one run the controller expands the point to, or null when it refuses the matrix. */
    private Map<String, Object> controllerParams(Map<String, Object> point) {
        try {
            Matrix matrix = expander.expand(json.valueToTree(Map.of("name", "random", "base", point)));
            assertThat(matrix.runs()).hasSize(1);
            return matrix.runs().get(0).params();
        } catch (InvalidMatrixException e) {
            return null;
        }
    }

    /** Why qpb_session_create refuses the spec, or null when it creates the session. */
    private String sessionRefusal(Map<String, Object> spec) {
        try (EngineSession session = EngineSession.create(json.writeValueAsString(spec))) {
            return null;
        } catch (EngineException e) {
            return e.getMessage();
        }
    }

    /**
     * A point near the engine's limits and rules: each key present or not, values on both sides of its
     * bounds, now and then of the wrong type. Sizes stay small enough for a session to be created at once.
     */
    private static Map<String, Object> randomPoint(Random r) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("provider", pick(r, "tcp", "verbs", "verbs"));
        p.put("msg_size", pick(r, 0L, 1L, 64L, 4096L, 8192L, 1L << 30, (1L << 30) + 1));
        maybe(r, p, "op", "send", "write", "read");
        maybe(r, p, "mode", "bw", "latency", "latency", "lat");
        maybe(r, p, "threads", 0L, 1L, 2L, 8L, 1025L, "two");
        maybe(r, p, "qps_per_thread", 0L, 1L, 4L, 65537L);
        maybe(r, p, "iterations", 0L, 1L, 100L);
        maybe(r, p, "duration_ms", 0L, 10L, 86_400_001L);
        maybe(r, p, "warmup_cycles", 0L, 5L);
        maybe(r, p, "rate_limit", 0L, 1000L, 1_000_000_001L);
        maybe(r, p, "tx_depth", 0L, 1L, 16L, 128L, 4096L, 4097L);
        maybe(r, p, "interval_ms", 0L, 5L, 10L, 100L, 60_001L);
        maybe(r, p, "trace_first", 0L, 1000L, 300_000L, 1_000_001L);
        maybe(r, p, "trace_every", 0L, 1L, 100L);
        maybe(r, p, "ring_capacity", 0L, 1000L, 1024L, 65536L);
        maybe(r, p, "verify", true, false);
        maybe(r, p, "tcp_nodelay", true, false);
        maybe(r, p, "device", "", "bad name!");
        maybe(r, p, "ib_port", 0L, 1L, 256L);
        maybe(r, p, "gid_index", -2L, -1L, 0L, 255L);
        maybe(r, p, "transport", "rc", "uc", "ud", "xrc");
        maybe(r, p, "srq", "none", "per_thread", "shared");
        maybe(r, p, "inline_size", 0L, 64L, 65537L);
        maybe(r, p, "signal_every", 0L, 1L, 16L, 256L);
        maybe(r, p, "post_list", 1L, 8L, 32L, 300L);
        maybe(r, p, "rx_depth", 0L, 1L, 512L, 16385L);
        maybe(r, p, "cq_mode", "per_qp", "per_thread", "shared");
        maybe(r, p, "mr_mode", "per_thread", "per_qp");
        maybe(r, p, "relaxed_ordering", true, false);
        maybe(r, p, "buffers", "heap", "hugepages", "huge");
        maybe(r, p, "odp", true, false);
        maybe(r, p, "polling", "busy", "event");
        maybe(r, p, "target_wait", "sleep", "spin", "nap");
        maybe(r, p, "lock_model", "shared", "thread_domain");
        maybe(r, p, "mtu", 0L, 256L, 1000L, 4096L);
        maybe(r, p, "rdma_cm", true, false);
        maybe(r, p, "qp_sharing", "per_thread", "shared", "shared");
        maybe(r, p, "post_api", "wr", "legacy", "new");
        return p;
    }

    /** Sets key to one of the values in about one point in five, so most points break few rules. */
    private static void maybe(Random r, Map<String, Object> p, String key, Object... values) {
        if (r.nextInt(5) == 0) {
            p.put(key, pick(r, values));
        }
    }

    private static Object pick(Random r, Object... values) {
        return values[r.nextInt(values.length)];
    }
}
