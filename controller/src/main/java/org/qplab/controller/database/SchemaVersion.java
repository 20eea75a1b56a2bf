package org.qplab.controller.database;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Several controllers may share one PostgreSQL, and an upgrade reaches them one at a time: the newer controller
 * migrates the schema at its start (Flyway, as always), and an older one, whose code does not know the new columns and
 * rules, must not go on starting work against it. This compares the schema's version (the highest successful
 * migration in flyway_schema_history) with the highest migration this controller carries, at the first question and
 * every {@link #RECHECK_MS} after: while the database is newer, {@link #allowsScheduling()} is false, so the scheduler
 * claims no runs and the recurring schedules fire nothing here, and a warning names both versions. What is running
 * goes on and what agents send is still stored (ingest writes rows every version has). Blocking: call it off the
 * event loop, as the scheduler's and the ticker's passes are.
 */
@Component
public class SchemaVersion implements SchedulingConfigurer {

    static final long RECHECK_MS = 5_000;

    private static final Logger log = LoggerFactory.getLogger(SchemaVersion.class);

    private final JdbcClient jdbc;
    private final MigrationVersion known;
    private volatile String refusal;
    private volatile boolean checked;

    public SchemaVersion(JdbcClient jdbc, Flyway flyway) {
        this.jdbc = jdbc;
        this.known = Arrays.stream(flyway.info().all())
                .filter(info -> info.getState().isResolved() && info.getVersion() != null)
                .map(MigrationInfo::getVersion).max(MigrationVersion::compareTo).orElse(MigrationVersion.EMPTY);
    }

    /** The highest migration this controller carries. */
    public MigrationVersion known() {
        return known;
    }

    /** Whether this controller may claim runs and fire schedules: the database's schema is not newer than its code. */
    public boolean allowsScheduling() {
        if (!checked) {
            check();
        }
        return refusal == null;
    }

    /** Why this controller does not schedule, or null when it does. */
    public String refusal() {
        return refusal;
    }

    /** Reads the schema's version again; logs when the answer changes. */
    public synchronized void check() {
        List<String> applied = jdbc.sql("SELECT version FROM flyway_schema_history WHERE success AND version IS NOT NULL")
                .query(String.class).list();
        MigrationVersion database = applied.stream().map(MigrationVersion::fromVersion).max(MigrationVersion::compareTo)
                .orElse(MigrationVersion.EMPTY);
        String now = database.compareTo(known) > 0 ? String.format(
                "the database's schema is at version %s, newer than this controller's %s (a newer controller migrated "
                        + "it): this controller claims no runs and fires no schedules until it is upgraded to a version "
                        + "that carries migration %s", database, known, database)
                : null;
        if (!Objects.equals(now, refusal)) {
            if (now != null) {
                log.warn(now);
            } else if (checked) {
                log.info("the database's schema is at version {}, which this controller knows: it schedules again", database);
            }
        }
        refusal = now;
        checked = true;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(() -> {
            try {
                check();
            } catch (RuntimeException e) {
                log.warn("could not read the database's schema version: {}", e.toString());
            }
        }, java.time.Duration.ofMillis(RECHECK_MS));
    }
}
