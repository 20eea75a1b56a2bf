package org.qplab.controller.alerts;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.qplab.controller.cluster.Leadership;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.metrics.MetricsProperties;
import org.qplab.controller.recurring.RecurringStaleness;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The alerts as Prometheus metrics (GET /actuator/prometheus), read from PostgreSQL every qplab.metrics.refresh off
 * the scrape's thread:
 * <ul>
 *   <li>{@code qplab_open_changes} — change points awaiting triage;</li>
 *   <li>{@code qplab_expectation_failures_total} — runs judged FAIL against their expect rules, as stored (a deleted
 *       experiment's go with it, which Prometheus reads as a counter reset);</li>
 *   <li>{@code qplab_schedule_stale} — enabled schedules with no finished experiment for twice their period.</li>
 * </ul>
 * Every controller keeps its metrics (each is scraped on its own). The same read hands the alerts to the webhook, which
 * posts the new ones: that part runs on the leader only ({@link Leadership#leads()}). The webhook's claim of an
 * alert's key already posts each alert once across controllers; the leader alone keeps the others from racing to
 * claim the same keys.
 */
@Component
public class AlertMetrics implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(AlertMetrics.class);

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final RecurringStaleness staleness;
    private final MetricsProperties properties;
    private final Alerts alerts;
    private final AlertWebhook webhook;
    private final Leadership leadership;
    private final AtomicLong openChanges = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();

    public AlertMetrics(MeterRegistry registry, Jdbc jdbc, JdbcClient sql, RecurringStaleness staleness,
                        MetricsProperties properties, Alerts alerts, AlertWebhook webhook, Leadership leadership) {
        this.alerts = alerts;
        this.leadership = leadership;
        this.webhook = webhook;
        this.jdbc = jdbc;
        this.sql = sql;
        this.staleness = staleness;
        this.properties = properties;
        Gauge.builder("qplab.open.changes", openChanges::get).description("change points awaiting triage")
                .register(registry);
        FunctionCounter.builder("qplab.expectation.failures", failures, AtomicLong::get)
                .description("runs judged FAIL against their experiment's expect rules").register(registry);
        Gauge.builder("qplab.schedule.stale", stale::get)
                .description("enabled schedules with no finished experiment for twice their period").register(registry);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(new FixedDelayTask(this::refresh, properties.refresh(), Duration.ZERO));
    }

    void refresh() {
        jdbc.run(() -> {
            openChanges.set(sql.sql("SELECT count(*) FROM change_point WHERE status = 'open'").query(Long.class).single());
            failures.set(sql.sql("SELECT count(*) FROM run_expectation WHERE verdict = 'FAIL'").query(Long.class).single());
            stale.set(staleness.stale(Instant.now()).size());
            if (webhook.enabled() && leadership.leads()) { // each new alert posted once (the webhook claims its key)
                webhook.offer(alerts.now().alerts());
            }
        }).subscribe(v -> { }, e -> log.debug("alert metrics refresh failed: {}", e.toString()));
    }
}
