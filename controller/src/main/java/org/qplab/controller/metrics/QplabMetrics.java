package org.qplab.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.database.Jdbc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The controller's Prometheus metrics (GET /actuator/prometheus):
 * <ul>
 *   <li>{@code qplab_runs{status="queued"|"running"}} — runs in the queue and on agents now;</li>
 *   <li>{@code qplab_agents_connected} — agents with an open link;</li>
 *   <li>{@code qplab_agents_spooled_entries}, {@code qplab_agents_spooled_bytes} — what the connected agents keep
 *       unacknowledged (frames and run ends, memory and disk), as their last heartbeats said;</li>
 *   <li>{@code qplab_ingest_cycles_total}, {@code qplab_ingest_intervals_total},
 *       {@code qplab_ingest_trace_records_total}, {@code qplab_ingest_frames_total} — cycles (as the stored
 *       intervals count them), interval records, per-cycle trace records and frames stored (a replayed
 *       frame is counted in {@code qplab_ingest_replayed_frames_total} instead): their rate is the ingest rate.</li>
 * </ul>
 * The run counts are read from PostgreSQL every qplab.metrics.refresh, off the scrape's thread.
 */
@Component
public class QplabMetrics implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(QplabMetrics.class);

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final MetricsProperties properties;
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong running = new AtomicLong();
    private final Counter cycles;
    private final Counter intervals;
    private final Counter traceRecords;
    private final Counter frames;
    private final Counter replayed;

    public QplabMetrics(MeterRegistry registry, Jdbc jdbc, JdbcClient sql, AgentRegistry agents,
                        MetricsProperties properties) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.properties = properties;
        Gauge.builder("qplab.runs", queued::get).tag("status", "queued")
                .description("runs waiting in the queue").register(registry);
        Gauge.builder("qplab.runs", running::get).tag("status", "running")
                .description("runs on agents now").register(registry);
        // a supplier gauge holds its source strongly (a gauge on an object would only hold it weakly)
        Gauge.builder("qplab.agents.connected", agents::connectedCount)
                .description("agents with an open link to this controller").register(registry);
        Gauge.builder("qplab.agents.spooled.entries", agents::spooledEntries)
                .description("frames and run ends the connected agents keep unacknowledged").register(registry);
        Gauge.builder("qplab.agents.spooled.bytes", agents::spooledBytes).baseUnit("bytes")
                .description("bytes of those, in the agents' memory and on their disks").register(registry);
        cycles = Counter.builder("qplab.ingest.cycles").description("cycles stored (counted by their intervals)")
                .register(registry);
        intervals = Counter.builder("qplab.ingest.intervals").description("interval records stored").register(registry);
        traceRecords = Counter.builder("qplab.ingest.trace.records").description("per-cycle trace records stored")
                .register(registry);
        frames = Counter.builder("qplab.ingest.frames").description("frames stored").register(registry);
        replayed = Counter.builder("qplab.ingest.replayed.frames")
                .description("frames received again after a reconnect and skipped").register(registry);
    }

    /** A frame was stored, or recognised as a replay and skipped. */
    public void ingested(org.qplab.protocol.IntervalFrame frame, boolean fresh) {
        if (fresh) {
            frames.increment();
            cycles.increment(frame.cycles());
            intervals.increment(frame.intervalCount());
            traceRecords.increment(frame.count());
        } else {
            replayed.increment();
        }
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(new FixedDelayTask(this::refresh, properties.refresh(), Duration.ZERO));
    }

    void refresh() {
        jdbc.run(() -> sql.sql("SELECT count(*) FILTER (WHERE status = 'QUEUED'), count(*) FILTER (WHERE status = 'RUNNING') "
                        + "FROM run WHERE status IN ('QUEUED', 'RUNNING')")
                .query((rs, i) -> {
                    queued.set(rs.getLong(1));
                    running.set(rs.getLong(2));
                    return null;
                }).list()).subscribe(v -> { }, e -> log.debug("metrics refresh failed: {}", e.toString()));
    }
}
