package org.qplab.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.qplab.protocol.RunSummaryValidator.assertValid;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.protocol.Interval;
import org.qplab.protocol.RunSummaryValidator;
import org.qplab.protocol.TraceRecord;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The engine through jnr-ffi, as the agent uses it: the library built by this module's make. */
class EngineSessionIntegrationTests {

    private final ObjectMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void engineLoads() {
        assertThat(Engine.isAvailable()).as("engine loads: %s", Engine.unavailabilityCause()).isTrue();
    }

    @Test
    void traceRecordLayoutMatchesTheCStruct() {
        Map<?, ?> c = json.readValue(Engine.traceRecordLayout(), Map.class);
        NativeTraceRecord java = Engine.traceRecordLayoutOnJavaSide();

        assertThat(c.get("size")).isEqualTo(TraceRecord.BYTES).isEqualTo(jnr.ffi.Struct.size(java));
        assertThat(c.get("thread")).isEqualTo((int) java.thread.offset());
        assertThat(c.get("errors")).isEqualTo((int) java.errors.offset());
        assertThat(c.get("cycle")).isEqualTo((int) java.cycle.offset());
        assertThat(c.get("start_ns")).isEqualTo((int) java.startNs.offset());
        assertThat(c.get("end_ns")).isEqualTo((int) java.endNs.offset());
        assertThat(c.get("bytes")).isEqualTo((int) java.bytes.offset());
        assertThat(c.get("messages")).isEqualTo((int) java.messages.offset());
    }

    @Test
    void intervalLayoutMatchesTheCStruct() {
        Map<?, ?> c = json.readValue(Engine.intervalLayout(), Map.class);
        NativeInterval java = Engine.intervalLayoutOnJavaSide();
        NativeInterval.Bucket pair = Engine.bucketLayoutOnJavaSide();

        assertThat(c.get("size")).isEqualTo(88).isEqualTo(jnr.ffi.Struct.size(java));
        assertThat(c.get("bucket_size")).isEqualTo(16).isEqualTo(jnr.ffi.Struct.size(pair));
        assertThat(c.get("max_bytes")).isEqualTo(88 + 16 * org.qplab.protocol.CycleBuckets.COUNT);
        Map<String, jnr.ffi.Struct.NumberField> fields = Map.ofEntries(Map.entry("size_field", java.size),
                Map.entry("thread", java.thread), Map.entry("index", java.index), Map.entry("span", java.span),
                Map.entry("buckets", java.buckets), Map.entry("cycles", java.cycles), Map.entry("messages", java.messages),
                Map.entry("bytes", java.bytes), Map.entry("errors", java.errors), Map.entry("min_ns", java.minNs),
                Map.entry("max_ns", java.maxNs), Map.entry("first_start_ns", java.firstStartNs),
                Map.entry("last_end_ns", java.lastEndNs));
        fields.forEach((name, field) -> assertThat(c.get(name)).as(name).isEqualTo((int) field.offset()));
        assertThat(c.get("bucket")).isEqualTo((int) pair.bucket.offset()).isEqualTo(0);
        assertThat(c.get("count")).isEqualTo((int) pair.count.offset()).isEqualTo(8);
    }

    @Test
    void reportsItsProviders() {
        Map<?, ?> info = json.readValue(Engine.info(), Map.class);
        assertThat(info.get("abi")).isEqualTo(2);
        assertThat(String.valueOf(info.get("providers"))).contains("tcp");
    }

    @Test
    void loopbackRunDeliversEveryCycleInIntervalsAndTracesWhatItWasAskedFor() {
        int threads = 2;
        int qps = 3;
        int size = 4096;
        int iterations = 250;
        List<TraceRecord> trace = new ArrayList<>();
        List<Interval> intervals = new ArrayList<>();
        Map<?, ?> summary;
        try (EngineSession session = EngineSession.create("""
                {"provider":"tcp","role":"loopback","threads":%d,"qps_per_thread":%d,"msg_size":%d,"iterations":%d,
                 "interval_ms":10,"trace_first":100,"trace_every":2}"""
                .formatted(threads, qps, size, iterations))) {
            session.start();
            boolean ended = false;
            for (int i = 0; i < 1500 && !ended; i++) {
                ended = session.awaitEnd(Duration.ofMillis(20));
                session.drain(trace, Integer.MAX_VALUE);
                session.drainIntervals(intervals);
            }
            assertThat(ended).as("run ends within 30 s").isTrue();
            session.drain(trace, Integer.MAX_VALUE);
            while (session.drainIntervals(intervals) > 0) {
                // each thread's last interval closes as it ends
            }
            String text = session.summaryJson();
            assertValid(text);
            summary = json.readValue(text, Map.class);
        }

        assertThat(intervals.stream().mapToLong(Interval::cycles).sum()).isEqualTo((long) threads * iterations)
                .isEqualTo(((Number) summary.get("cycles")).longValue());
        assertThat(intervals.stream().mapToLong(Interval::bytes).sum()).isEqualTo((long) threads * qps * size * iterations)
                .isEqualTo(((Number) summary.get("bytes")).longValue());
        assertThat(intervals).hasSize(((Number) summary.get("intervals")).intValue()).allSatisfy(i -> {
            assertThat(i.messages()).isEqualTo(i.cycles() * qps);
            assertThat(i.errors()).isZero();
            assertThat(java.util.Arrays.stream(i.counts()).sum()).isEqualTo(i.cycles());
            assertThat(i.lastEndNs()).isGreaterThan(i.firstStartNs());
        });
        // the trace: cycles 0, 2, 4, ... 198 of each thread, every field as the engine measured it
        assertThat(summary.get("traced")).isEqualTo(200);
        assertThat(summary.get("dropped")).isEqualTo(0);
        assertThat(trace).hasSize(200).allSatisfy(s -> {
            assertThat(s.messages()).isEqualTo(qps);
            assertThat(s.bytes()).isEqualTo((long) qps * size);
            assertThat(s.endNs()).isGreaterThan(s.startNs());
        });
        for (int t = 0; t < threads; t++) {
            int thread = t;
            assertThat(trace.stream().filter(s -> s.thread() == thread).mapToLong(TraceRecord::cycle))
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 100).map(k -> 2 * k).boxed().toList());
        }
    }

    /**
     * Real tcp summaries of every shape the engine writes follow protocol's run-summary.schema.json: a loopback run
     * in bandwidth and in latency mode (latency_us), a stopped duration run, a one-way pair (the server: side
     * receiver) and a bidirectional pair (both senders, with received).
     */
    @Test
    void tcpSummariesFollowTheRunSummarySchema() {
        assertValid(loopback("{\"provider\":\"tcp\",\"threads\":2,\"qps_per_thread\":2,\"msg_size\":4096,\"iterations\":200}"));
        assertValid(loopback("{\"provider\":\"tcp\",\"mode\":\"latency\",\"threads\":2,\"msg_size\":64,\"iterations\":200}"));
        try (EngineSession session = EngineSession.create("{\"provider\":\"tcp\",\"msg_size\":64,\"duration_ms\":60000}")) {
            session.start();
            session.stop();
            assertThat(session.awaitEnd(Duration.ofSeconds(10))).isTrue();
            assertValid(session.summaryJson());
        }
        for (boolean bidirectional : new boolean[] {false, true}) {
            List<String> pair = pair("{\"provider\":\"tcp\",\"role\":\"%s\",\"msg_size\":1024,\"iterations\":300,"
                    + "\"bidirectional\":" + bidirectional + "}");
            pair.forEach(RunSummaryValidator::assertValid);
            Map<?, ?> server = json.readValue(pair.get(1), Map.class);
            assertThat(server.get("side")).isEqualTo(bidirectional ? "sender" : "receiver");
            assertThat(server.containsKey("received")).isEqualTo(bidirectional);
        }
    }

    /** The check can fail: an undocumented key or a wrong type in a real summary is named by its path. */
    @Test
    void theSchemaCheckNamesAnUndocumentedKeyAndAWrongType() {
        ObjectNode summary = (ObjectNode) json.readTree(loopback("{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":50}"));
        summary.put("colour", "blue");
        summary.put("cycles", "fifty");
        ((ObjectNode) summary.get("per_thread").get(0)).put("shade", 3);
        ((ObjectNode) summary.get("cpu")).putNull("span_ns");

        assertThat(RunSummaryValidator.problems(summary.toString())).containsExactlyInAnyOrder(
                "/cycles: string found, integer expected",
                "/cpu/span_ns: null found, integer expected",
                "/per_thread/0/shade: property 'shade' is not defined in the schema and the schema does not allow additional properties",
                "/colour: property 'colour' is not evaluated and the schema does not allow unevaluated properties");
        assertThatThrownBy(() -> assertValid(summary.toString())).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the tcp summary does not follow /org/qplab/protocol/run-summary.schema.json")
                .hasMessageContaining("/colour").hasMessageContaining("/per_thread/0/shade");
    }

    private static String loopback(String spec) {
        try (EngineSession session = EngineSession.create(spec)) {
            session.start();
            assertThat(session.awaitEnd(Duration.ofSeconds(30))).as("run ends within 30 s").isTrue();
            return session.summaryJson();
        }
    }

    /** A client and a server on 127.0.0.1, both in this JVM: their summaries, the client's first. */
    private static List<String> pair(String specWithRole) {
        try (EngineSession server = EngineSession.create(specWithRole.formatted("server"));
             EngineSession client = EngineSession.create(specWithRole.formatted("client"))) {
            String serverEndpoint = server.localEndpoint();
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> server.connect(client.localEndpoint()));
            client.connect(serverEndpoint);
            accepted.join();
            server.start();
            client.start();
            assertThat(client.awaitEnd(Duration.ofSeconds(30))).as("client ends within 30 s").isTrue();
            assertThat(server.awaitEnd(Duration.ofSeconds(30))).as("server ends within 30 s").isTrue();
            return List.of(client.summaryJson(), server.summaryJson());
        }
    }

    @Test
    void anInvalidSpecBecomesAnExceptionWithTheEnginesMessage() {
        assertThatThrownBy(() -> EngineSession.create("{\"provider\":\"tcp\",\"msg_size\":0,\"colour\":\"blue\"}"))
                .isInstanceOf(EngineException.class)
                .hasMessageContaining("qpb_session_create failed (QPB_EINVAL)")
                .hasMessageContaining("colour")
                .hasMessageContaining("msg_size");
    }

    @Test
    void checkSpecListsEveryViolationByFieldInTheWordsOfSessionCreate() {
        String spec = "{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\",\"srq\":\"shared\","
                + "\"post_list\":256,\"tx_depth\":64,\"threads\":0}";

        List<SpecViolation> violations = Engine.checkSpec(spec);

        assertThat(violations).containsExactlyInAnyOrder(
                new SpecViolation("threads", "threads must be in 1..1024 (got 0)"),
                new SpecViolation("srq", "srq shared: only op send consumes receive requests (got op write)"),
                new SpecViolation("post_list", "post_list 256 > tx_depth 64 (one post would not fit in the send queue)"));
        assertThatThrownBy(() -> EngineSession.create(spec)).hasMessageContaining(violations.get(0).message())
                .hasMessageContaining(violations.get(1).message()).hasMessageContaining(violations.get(2).message());
        assertThat(Engine.checkSpec("{\"provider\":\"tcp\",\"msg_size\":64}")).isEmpty();
    }

    @Test
    void stopEndsADurationRunEarly() {
        try (EngineSession session = EngineSession.create(
                "{\"provider\":\"tcp\",\"msg_size\":64,\"duration_ms\":60000}")) {
            session.start();
            assertThat(session.awaitEnd(Duration.ofMillis(200))).isFalse();
            session.stop();
            assertThat(session.awaitEnd(Duration.ofSeconds(10))).as("ends within 10 s of stop").isTrue();
            Map<?, ?> summary = json.readValue(session.summaryJson(), Map.class);
            assertThat(summary.get("stopped")).isEqualTo(true);
        }
    }

    @Test
    void devicesListsRdmaDevicesOrSaysWhyThereAreNone() {
        Map<?, ?> inventory = json.readValue(Engine.devices(), Map.class);

        assertThat(inventory.get("devices")).isInstanceOf(List.class);
        List<?> devices = (List<?>) inventory.get("devices");
        if (devices.isEmpty()) {
            assertThat((String) inventory.get("unavailable")).isNotBlank();
            // and a verbs run refuses before it starts, saying so
            assertThatThrownBy(() -> EngineSession.create("{\"provider\":\"verbs\",\"msg_size\":64}"))
                    .isInstanceOf(EngineException.class)
                    .hasMessageContaining("qpb_session_create")
                    .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("no RDMA device", "libibverbs.so.1",
                            "built without rdma-core's headers")); // the last: a tcp-only engine (Makefile)
        } else {
            Map<?, ?> first = (Map<?, ?>) devices.get(0);
            assertThat(first.get("name")).isNotNull();
            assertThat((List<?>) first.get("ports")).isNotEmpty();
        }
    }

    @Test
    void aVerbsSpecThatNoDeviceCanRunIsRefusedWithEveryReason() {
        assertThatThrownBy(() -> EngineSession.create("{\"provider\":\"verbs\",\"msg_size\":8192,\"op\":\"read\","
                + "\"transport\":\"ud\",\"signal_every\":500}"))
                .isInstanceOf(EngineException.class)
                .hasMessageContaining("op read: transport ud has no RDMA read")
                .hasMessageContaining("transport ud: message 8192 B > 4096 B")
                .hasMessageContaining("signal_every 500 > tx_depth 128");
    }
}
