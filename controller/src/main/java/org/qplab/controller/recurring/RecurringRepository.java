package org.qplab.controller.recurring;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Recurring schedules and their occurrences (V26__recurring.sql). Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
class RecurringRepository {

    /** How many occurrences one schedule shows, newest first. */
    static final int OCCURRENCES = 500;

    private static final String SELECT = """
            SELECT s.id, s.name, s.cron, s.every_hours, s.enabled, s.next_run_at, s.owner, s.created_at, s.matrix,
                   s.content_type, o.id AS o_id, o.due_at, o.fired_at, o.outcome, o.experiment_id, o.reason
            FROM recurring s LEFT JOIN LATERAL (SELECT * FROM recurring_occurrence x WHERE x.recurring_id = s.id
                                                ORDER BY x.due_at DESC LIMIT 1) o ON true
            """;

    /** A schedule that is due: its id, the time it is due at (exactly as stored: the claim compares it) and its cadence. */
    record Due(long id, OffsetDateTime dueAt, Cadence cadence, String matrix, String contentType, String owner) {}

    /** The experiment of a schedule's latest submitted occurrence while it is QUEUED or RUNNING. */
    record Active(long experimentId, String status, OffsetDateTime dueAt) {}

    private final JdbcClient jdbc;

    RecurringRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    long create(String name, String matrix, String contentType, Cadence cadence, String owner, Instant nextRunAt) {
        return jdbc.sql("""
                        INSERT INTO recurring (name, matrix, content_type, cron, every_hours, owner, next_run_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id""")
                .params(name, matrix, contentType, cadence.cron(), cadence.everyHours(), owner, utc(nextRunAt))
                .query(Long.class).single();
    }

    List<RecurringSchedule> list() {
        return jdbc.sql(SELECT + " ORDER BY s.id DESC").query(this::map).list();
    }

    Optional<RecurringSchedule> find(long id) {
        return jdbc.sql(SELECT + " WHERE s.id = ?").param(id).query(this::map).optional();
    }

    /** Newest first, at most {@link #OCCURRENCES}. */
    List<RecurringSchedule.Occurrence> occurrences(long id) {
        return jdbc.sql("""
                        SELECT id AS o_id, due_at, fired_at, outcome, experiment_id, reason FROM recurring_occurrence
                        WHERE recurring_id = ? ORDER BY due_at DESC LIMIT ?""")
                .params(id, OCCURRENCES).query((rs, i) -> occurrence(rs)).list();
    }

    /**
     * Enables it to fire next at nextRunAt (unless it is enabled already), or disables it (next_run_at NULL: nothing
     * can claim it). False when there is no such schedule.
     */
    boolean setEnabled(long id, boolean enabled, Instant nextRunAt) {
        if (enabled) {
            return jdbc.sql("UPDATE recurring SET enabled = true, next_run_at = coalesce(next_run_at, ?) WHERE id = ?")
                    .params(utc(nextRunAt), id).update() > 0;
        }
        return jdbc.sql("UPDATE recurring SET enabled = false, next_run_at = NULL WHERE id = ?").param(id).update() > 0;
    }

    boolean delete(long id) {
        return jdbc.sql("DELETE FROM recurring WHERE id = ?").param(id).update() > 0;
    }

    /** The enabled schedules due at now, the longest due first. */
    List<Due> due(Instant now, ZoneId zone) {
        return jdbc.sql("""
                        SELECT id, next_run_at, cron, every_hours, matrix, content_type, owner FROM recurring
                        WHERE enabled AND next_run_at <= ? ORDER BY next_run_at, id""")
                .param(utc(now))
                .query((rs, i) -> new Due(rs.getLong("id"), rs.getObject("next_run_at", OffsetDateTime.class),
                        new Cadence(rs.getString("cron"), (Integer) rs.getObject("every_hours"), zone),
                        rs.getString("matrix"), rs.getString("content_type"), rs.getString("owner")))
                .list();
    }

    /**
     * Claims the occurrence due then: moves next_run_at on to following if it still is due then and the schedule is
     * enabled. True for exactly one of any number of callers (controllers on one database among them): the others'
     * UPDATE waits for the winner's row lock, then matches nothing. Run it in the transaction that records the
     * occurrence, so that the claim and what it produced commit together.
     */
    boolean claim(long id, OffsetDateTime due, Instant following) {
        return jdbc.sql("UPDATE recurring SET next_run_at = ? WHERE id = ? AND next_run_at = ? AND enabled")
                .params(utc(following), id, due).update() == 1;
    }

    /** The latest submitted occurrence's experiment, if it is still QUEUED or RUNNING. */
    Optional<Active> active(long id) {
        return jdbc.sql("""
                        SELECT e.id, e.status, o.due_at FROM recurring_occurrence o JOIN experiment e ON e.id = o.experiment_id
                        WHERE o.recurring_id = ? ORDER BY o.due_at DESC LIMIT 1""")
                .param(id)
                .query((rs, i) -> new Active(rs.getLong(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class)))
                .optional().filter(a -> a.status().equals("QUEUED") || a.status().equals("RUNNING"));
    }

    void record(long id, OffsetDateTime due, String outcome, Long experimentId, String reason) {
        jdbc.sql("""
                        INSERT INTO recurring_occurrence (recurring_id, due_at, outcome, experiment_id, reason)
                        VALUES (?, ?, ?, ?, ?)""")
                .params(id, due, outcome, experimentId, reason).update();
    }

    private RecurringSchedule map(ResultSet rs, int row) throws SQLException {
        return new RecurringSchedule(rs.getLong("id"), rs.getString("name"), rs.getString("cron"),
                (Integer) rs.getObject("every_hours"), rs.getString("cron") == null ? null : ZoneId.systemDefault().getId(),
                rs.getBoolean("enabled"), rs.getObject("next_run_at", OffsetDateTime.class), rs.getString("owner"),
                rs.getObject("created_at", OffsetDateTime.class), rs.getString("matrix"), rs.getString("content_type"),
                rs.getObject("o_id") == null ? null : occurrence(rs), null);
    }

    private static RecurringSchedule.Occurrence occurrence(ResultSet rs) throws SQLException {
        return new RecurringSchedule.Occurrence(rs.getLong("o_id"), rs.getObject("due_at", OffsetDateTime.class),
                rs.getObject("fired_at", OffsetDateTime.class), rs.getString("outcome"),
                (Long) rs.getObject("experiment_id"), rs.getString("reason"));
    }

    private static OffsetDateTime utc(Instant at) {
        return at == null ? null : OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }
}
