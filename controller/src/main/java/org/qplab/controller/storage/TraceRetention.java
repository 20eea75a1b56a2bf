package org.qplab.controller.storage;

import java.time.OffsetDateTime;
import java.util.List;
import org.qplab.controller.database.Jdbc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Deletes the trace rows of runs that ended longer than qplab.retention.trace ago, every hour (and at start). */
@Component
class TraceRetention {

    private static final Logger log = LoggerFactory.getLogger(TraceRetention.class);

    private final Jdbc jdbc;
    private final RunStorage storage;
    private final RetentionProperties properties;

    TraceRetention(Jdbc jdbc, RunStorage storage, RetentionProperties properties) {
        this.jdbc = jdbc;
        this.storage = storage;
        this.properties = properties;
    }

    @Scheduled(fixedDelayString = "${qplab.retention.check:1h}", initialDelayString = "${qplab.retention.first-check:1m}")
    void expire() {
        if (properties.trace() == null) {
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
