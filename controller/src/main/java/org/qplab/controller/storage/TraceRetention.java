package org.qplab.controller.storage;

import java.time.OffsetDateTime;
import java.util.List;
import org.qplab.controller.cluster.Leadership;
import org.qplab.controller.database.Jdbc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Deletes the trace rows of runs that ended longer than qplab.retention.trace ago, every qplab.retention.check (the
 * first time qplab.retention.first-check after start). Runs on the leader only ({@link Leadership#leads()}): one
 * controller deletes, the others would only find the same rows and wait on their locks.
 */
@Component
class TraceRetention implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(TraceRetention.class);

    private final Jdbc jdbc;
    private final RunStorage storage;
    private final RetentionProperties properties;
    private final Leadership leadership;

    TraceRetention(Jdbc jdbc, RunStorage storage, RetentionProperties properties, Leadership leadership) {
        this.jdbc = jdbc;
        this.leadership = leadership;
        this.storage = storage;
        this.properties = properties;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(new FixedDelayTask(this::expire, properties.check(), properties.firstCheck()));
    }

    void expire() {
        if (properties.trace() == null || !leadership.leads()) {
            return;
        }
        jdbc.call(() -> {
            List<Long> runs = storage.runsWithTraceEndedBefore(OffsetDateTime.now().minus(properties.trace()));
            return runs.isEmpty() ? 0L : storage.deleteTrace(runs);
        }).subscribe(rows -> {
            if (rows > 0) {
                log.info("deleted {} trace rows of runs that ended more than {} ago (qplab.retention.trace)", rows,
                        properties.trace());
            }
        }, e -> log.warn("trace retention failed: {}", e.toString()));
    }
}
