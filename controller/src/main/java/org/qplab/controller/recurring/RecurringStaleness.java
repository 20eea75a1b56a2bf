package org.qplab.controller.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Schedules that stopped producing, as Horreum's "max staleness" alarm: an enabled schedule is stale when no
 * experiment of its occurrences finished for longer than twice its period (its longest gap between two times), counted
 * from its last finished experiment, or from its creation when none ever finished: skipped, refused and failed
 * occurrences produce nothing. Blocking.
 */
@Component
public class RecurringStaleness {

    /** A stale schedule: what it is, the limit it passed, and since when nothing came. */
    public record Stale(long id, String name, String cadence, Duration limit, OffsetDateTime lastFinished,
                        OffsetDateTime since) {}

    private final JdbcClient jdbc;

    public RecurringStaleness(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    private record Row(long id, String name, String cron, Integer everyHours, OffsetDateTime created,
                       OffsetDateTime lastFinished) {}

    /** The enabled schedules stale at now. */
    public List<Stale> stale(Instant now) {
        List<Row> rows = jdbc.sql("""
                        SELECT s.id, s.name, s.cron, s.every_hours, s.created_at,
                               (SELECT max(e.finished_at) FROM recurring_occurrence o JOIN experiment e ON e.id = o.experiment_id
                                WHERE o.recurring_id = s.id AND e.status = 'FINISHED')
                        FROM recurring s WHERE s.enabled ORDER BY s.id""")
                .query((rs, i) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3),
                        (Integer) rs.getObject(4), rs.getObject(5, OffsetDateTime.class),
                        rs.getObject(6, OffsetDateTime.class)))
                .list();
        List<Stale> stale = new ArrayList<>();
        for (Row row : rows) {
            Cadence cadence = new Cadence(row.cron(), row.everyHours(), ZoneId.systemDefault());
            Duration limit = cadence.longestGap(now).multipliedBy(2);
            OffsetDateTime since = row.lastFinished() != null ? row.lastFinished() : row.created();
            if (Duration.between(since.toInstant(), now).compareTo(limit) > 0) {
                stale.add(new Stale(row.id(), row.name(), cadence.describe(), limit, row.lastFinished(), since));
            }
        }
        return stale;
    }
}
