package org.qplab.controller.alerts;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.qplab.controller.cluster.Leadership;
import org.qplab.controller.database.Jdbc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.ObjectMapper;

/**
 * Posts each new alert to qplab.alerts.webhook-url, once: the alert's key is claimed in alert_delivery (so a restart
 * or a second controller does not post it again), then the JSON body (kind, key, message, link, since, sentAt) goes
 * out with its HMAC-SHA256 signature, tried up to qplab.alerts.attempts times with a doubling back-off, on a
 * scheduler of its own: a slow or dead receiver never holds up a run. Each delivery's outcome (attempts, last error)
 * stays in alert_delivery, listed by GET /api/alerts/deliveries.
 *
 * <p>Deliveries are the leader's ({@link Leadership#leads()}): only the leader offers alerts, and a delivery stops
 * before its next try once this controller no longer leads. A delivery left PENDING or RETRYING by a controller that
 * died, stepped down or restarted is taken up by the leader at its next offer of that alert, from the tries already
 * made; a try under way when the old leader lost the lease may reach the receiver twice (the key tells them apart).
 */
@Component
public class AlertWebhook {

    private static final Logger log = LoggerFactory.getLogger(AlertWebhook.class);

    /** One delivery as kept. */
    public record Delivery(String key, String kind, String message, String status, int attempts, String lastError,
                           OffsetDateTime createdAt, OffsetDateTime deliveredAt) {}

    private final AlertProperties properties;
    private final JdbcClient jdbc;
    private final Jdbc blocking;
    private final ObjectMapper json;
    private final Leadership leadership;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The keys this controller is delivering now: not taken up again while their tries go on. */
    private final Set<String> delivering = ConcurrentHashMap.newKeySet();

    public AlertWebhook(AlertProperties properties, JdbcClient jdbc, Jdbc blocking, ObjectMapper json,
                        Leadership leadership) {
        this.leadership = leadership;
        this.properties = properties;
        this.jdbc = jdbc;
        this.blocking = blocking;
        this.json = json;
    }

    boolean enabled() {
        return !properties.webhookUrl().isBlank();
    }

    /**
     * Claims and posts every alert not delivered before, and takes up the unfinished deliveries of alerts that no
     * thread of this controller is delivering (blocking for the claim; the posting runs apart).
     */
    void offer(List<Alerts.Alert> alerts) {
        if (!enabled()) {
            return;
        }
        Map<String, Integer> unfinished = new HashMap<>();
        jdbc.sql("SELECT key, attempts FROM alert_delivery WHERE status IN ('PENDING', 'RETRYING')")
                .query((rs, i) -> unfinished.put(rs.getString(1), rs.getInt(2))).list();
        for (Alerts.Alert alert : alerts) {
            if (delivering.contains(alert.key())) {
                continue;
            }
            Integer tried = unfinished.get(alert.key());
            int claimed = tried != null ? 0 : jdbc.sql("""
                            INSERT INTO alert_delivery (key, kind, message, status) VALUES (?, ?, ?, 'PENDING')
                            ON CONFLICT (key) DO NOTHING""")
                    .params(alert.key(), alert.kind(), alert.message()).update();
            if ((claimed == 1 || tried != null) && delivering.add(alert.key())) {
                int after = tried == null ? 0 : tried;
                if (after > 0) {
                    log.info("alert {}: taking up its delivery to the webhook after {} tries made before", alert.key(),
                            after);
                }
                Mono.fromRunnable(() -> deliver(alert, after)).subscribeOn(Schedulers.boundedElastic())
                        .doFinally(signal -> delivering.remove(alert.key())).subscribe();
            }
        }
    }

    private static final String DELIVERIES = """
            SELECT key, kind, message, status, attempts, last_error, created_at, delivered_at FROM alert_delivery
            """;

    /** The deliveries, newest first, at most limit. */
    public List<Delivery> deliveries(int limit) {
        return jdbc.sql(DELIVERIES + "ORDER BY created_at DESC, key LIMIT ?").param(limit).query(this::delivery).list();
    }

    /**
     * The deliveries of the alerts about one schedule, newest first, at most limit: its own stale alerts, and the
     * failed expectations and the change points (from their first run after) of the experiments its occurrences
     * submitted. Matched by the keys {@link Alerts} gives them.
     */
    public List<Delivery> deliveries(long schedule, int limit) {
        return jdbc.sql(DELIVERIES + """
                        WHERE key LIKE ?
                           OR key IN (SELECT 'expectation:' || o.experiment_id FROM recurring_occurrence o
                                      WHERE o.recurring_id = ? AND o.experiment_id IS NOT NULL)
                           OR key IN (SELECT 'change:' || c.id FROM change_point c JOIN run r ON r.id = c.run_after
                                      JOIN recurring_occurrence o ON o.experiment_id = r.experiment_id
                                      WHERE o.recurring_id = ?)
                        ORDER BY created_at DESC, key LIMIT ?""")
                .params("stale:" + schedule + ":%", schedule, schedule, limit).query(this::delivery).list();
    }

    private Delivery delivery(ResultSet rs, int row) throws SQLException {
        return new Delivery(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
                rs.getString(6), rs.getObject(7, OffsetDateTime.class), rs.getObject(8, OffsetDateTime.class));
    }

    /**
     * Posts alert, its tries counted on from the tried made before (by this controller or another); stops before a try
     * once this controller no longer leads, leaving the delivery to the leader.
     */
    private void deliver(Alerts.Alert alert, int tried) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", alert.kind());
        body.put("key", alert.key());
        body.put("message", alert.message());
        body.put("link", alert.link());
        body.put("since", alert.since() == null ? null : alert.since().toString());
        body.put("sentAt", OffsetDateTime.now().toString());
        byte[] bytes = json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        if (tried >= properties.attempts()) { // qplab.alerts.attempts was lowered since those tries
            record(alert.key(), "FAILED", tried, "no tries left of qplab.alerts.attempts (" + properties.attempts() + ")");
            return;
        }
        Duration wait = properties.backoff().multipliedBy(1L << Math.min(tried, 20));
        String error = null;
        for (int attempt = tried + 1; attempt <= properties.attempts(); attempt++) {
            if (!leadership.leads()) {
                log.info("alert {}: this controller no longer leads; the leader takes up its delivery after {} tries",
                        alert.key(), attempt - 1);
                return;
            }
            try {
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(properties.webhookUrl().strip()))
                        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                        .header("User-Agent", "qplab-controller").POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
                if (!properties.webhookSecret().isEmpty()) {
                    request.header("X-Qplab-Signature", "sha256=" + sign(bytes));
                }
                HttpResponse<Void> response = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() / 100 == 2) {
                    record(alert.key(), "DELIVERED", attempt, null);
                    return;
                }
                error = "HTTP " + response.statusCode();
            } catch (Exception e) {
                error = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            record(alert.key(), attempt < properties.attempts() ? "RETRYING" : "FAILED", attempt, error);
            if (attempt < properties.attempts()) {
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                wait = wait.multipliedBy(2);
            }
        }
        log.warn("alert {} not delivered to the webhook after {} tries: {}", alert.key(), properties.attempts(), error);
    }

    private void record(String key, String status, int attempts, String error) {
        blocking.run(() -> jdbc.sql("""
                        UPDATE alert_delivery SET status = ?, attempts = ?, last_error = ?,
                            delivered_at = CASE WHEN ? = 'DELIVERED' THEN now() END
                        WHERE key = ?""").params(status, attempts, error, status, key).update())
                .block(Duration.ofSeconds(30));
    }

    private String sign(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(properties.webhookSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }
}
