package org.qplab.controller.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.OwnDatabase;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.ObjectMapper;

/**
 * The webhook: a receiver on loopback that refuses the first try of each alert (HTTP 503) gets each new alert once, on
 * the second try after the back-off, as signed JSON; the delivery is kept with its tries; an alert already posted is
 * not posted again on the next reads. A delivery another controller left RETRYING (it died between two tries) is taken
 * up by this one, the leader, from the tries made.
 */
@OwnDatabase
class AlertWebhookIntegrationTests extends ControllerIntegrationTest {

    private static final String SECRET = "webhook-test-secret";
    private static final HttpServer RECEIVER;
    private static final List<Map<String, String>> RECEIVED = new CopyOnWriteArrayList<>();
    /** The tries each alert's key got. */
    private static final Map<String, AtomicInteger> TRIES = new ConcurrentHashMap<>();

    static {
        try {
            RECEIVER = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        RECEIVER.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Matcher key = Pattern.compile("\"key\":\"([^\"]+)\"").matcher(new String(body, StandardCharsets.UTF_8));
            int tries = TRIES.computeIfAbsent(key.find() ? key.group(1) : "", k -> new AtomicInteger()).incrementAndGet();
            int status = tries == 1 ? 503 : 204; // an alert's first try fails: the back-off retries it
            if (status == 204) {
                RECEIVED.add(Map.of("key", key.group(1), "body", new String(body, StandardCharsets.UTF_8),
                        "signature", String.valueOf(exchange.getRequestHeaders().getFirst("X-Qplab-Signature"))));
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        RECEIVER.start();
    }

    @DynamicPropertySource
    static void webhook(DynamicPropertyRegistry registry) {
        registry.add("qplab.alerts.webhook-url", () -> "http://127.0.0.1:" + RECEIVER.getAddress().getPort() + "/hook");
        registry.add("qplab.alerts.webhook-secret", () -> SECRET);
        registry.add("qplab.alerts.backoff", () -> "300ms");
        registry.add("qplab.metrics.refresh", () -> "500ms");
    }

    @AfterAll
    static void stopTheReceiver() {
        RECEIVER.stop(0);
    }

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Autowired
    private ObjectMapper json;

    @Test
    @SuppressWarnings("unchecked")
    void aNewAlertIsPostedOnceSignedAndRetriedAfterARefusal() throws Exception {
        long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 9, 1.0, "hook-6.20", 2, 0.03);
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id").param(experiment)
                .query(Long.class).list();
        long change = jdbc.sql("""
                        INSERT INTO change_point (fingerprint, metric, run_before, run_after, position, mean_before,
                            mean_after, change_percent, p_value, points_before, points_after, settled)
                        VALUES ('feedbeef00112233', 'msg_rate', ?, ?, 1, 100, 120, 20, 1e-6, 1, 1, true) RETURNING id""")
                .params(runs.get(0), runs.get(1)).query(Long.class).single();

        for (int i = 0; i < 100 && received("change:" + change).isEmpty(); i++) {
            Thread.sleep(100);
        }
        assertThat(received("change:" + change)).as("delivered on the second try").hasSize(1);
        String body = received("change:" + change).get(0).get("body");
        Map<String, Object> alert = json.readValue(body, Map.class);
        assertThat(alert).containsEntry("kind", "change").containsEntry("key", "change:" + change)
                .containsEntry("link", "#/changes");
        assertThat((String) alert.get("message")).startsWith("msg_rate moved +20.0 % (fingerprint feedbeef0011");
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        assertThat(received("change:" + change).get(0).get("signature"))
                .isEqualTo("sha256=" + HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8))));

        assertThat(delivery("change:" + change)).containsEntry("status", "DELIVERED").containsEntry("attempts", 2)
                .containsEntry("lastError", null);

        Thread.sleep(2000); // four more reads of the alerts: the change is still open, and not posted again
        assertThat(TRIES.get("change:" + change).get()).isEqualTo(2);
        assertThat(received("change:" + change)).hasSize(1);
    }

    @Test
    void aDeliveryAnotherControllerLeftBetweenTwoTriesIsTakenUpFromItsTries() throws Exception {
        long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 9, 1.0, "hook-left", 2, 0.03);
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id").param(experiment)
                .query(Long.class).list();
        // the change point and the delivery another controller claimed and tried twice, in one statement: this
        // controller never sees the alert unclaimed
        String key = jdbc.sql("""
                        WITH c AS (INSERT INTO change_point (fingerprint, metric, run_before, run_after, position,
                                       mean_before, mean_after, change_percent, p_value, points_before, points_after,
                                       settled)
                                   VALUES ('feedbeef00445566', 'msg_rate', ?, ?, 1, 100, 80, -20, 1e-6, 1, 1, true)
                                   RETURNING id)
                        INSERT INTO alert_delivery (key, kind, message, status, attempts, last_error)
                        SELECT 'change:' || id, 'change', 'msg_rate moved', 'RETRYING', 2, 'HTTP 503' FROM c
                        RETURNING key""")
                .params(runs.get(0), runs.get(1)).query(String.class).single();

        for (int i = 0; i < 100 && received(key).isEmpty(); i++) {
            Thread.sleep(100);
        }
        assertThat(received(key)).as("taken up: its third try refused, its fourth delivered").hasSize(1);
        assertThat(TRIES.get(key).get()).isEqualTo(2);
        assertThat(delivery(key)).containsEntry("status", "DELIVERED").containsEntry("attempts", 4)
                .containsEntry("lastError", null);
        Thread.sleep(1500);
        assertThat(TRIES.get(key).get()).as("delivered, it is not taken up again").isEqualTo(2);
    }

    private static List<Map<String, String>> received(String key) {
        return RECEIVED.stream().filter(r -> r.get("key").equals(key)).toList();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> delivery(String key) {
        List<Map<String, Object>> deliveries = (List<Map<String, Object>>) (List<?>) http().get()
                .uri("/api/alerts/deliveries").exchange().expectStatus().isOk().expectBodyList(Map.class)
                .returnResult().getResponseBody();
        return deliveries.stream().filter(d -> key.equals(d.get("key"))).findFirst()
                .orElseThrow(() -> new AssertionError("no delivery of " + key + " in " + deliveries));
    }
}
