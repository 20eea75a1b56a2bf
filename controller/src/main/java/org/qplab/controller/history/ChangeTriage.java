package org.qplab.controller.history;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The triage of the change points that ChangeDetection finds, as Horreum's users triage theirs: each open change is
 * confirmed (a new normal: its series restarts at it, so later scans compare new runs with the new level only) or
 * dismissed (not a change: it is hidden, and the series goes on as it was), by whom, when and why. Blocking.
 */
@Service
public class ChangeTriage {

    /** One change point as listed for triage. */
    @Schema(description = "A change point of a fingerprint's run-level series: the runs from runAfter on differ from "
            + "those up to runBefore.")
    public record Change(long id, String fingerprint,
                         @Schema(description = "The series' metric.", example = "bw_avg_bps") String metric,
                         long runBefore, long runAfter,
                         @Schema(description = "The experiment of runAfter.") long experimentId,
                         @Schema(description = "runAfter's place in the series (counted from its origin: its first "
                                 + "run, or the change last confirmed).") int position,
                         double meanBefore, double meanAfter, double changePercent, double pValue,
                         int pointsBefore, int pointsAfter,
                         @Schema(description = "Whether later runs can no longer move it.") boolean settled,
                         @Schema(allowableValues = {"open", "confirmed", "dismissed"}) String status,
                         OffsetDateTime foundAt, String decidedBy, OffsetDateTime decidedAt, String reason) {
    }

    static final List<String> STATUSES = List.of("open", "confirmed", "dismissed");

    private static final String SELECT = """
            SELECT c.id, c.fingerprint, c.metric, c.run_before, c.run_after, r.experiment_id, c.position,
                   c.mean_before, c.mean_after, c.change_percent, c.p_value, c.points_before, c.points_after,
                   c.settled, c.status, c.found_at, c.decided_by, c.decided_at, c.reason
            FROM change_point c JOIN run r ON r.id = c.run_after""";
    private static final RowMapper<Change> CHANGE = (rs, i) -> new Change(rs.getLong(1), rs.getString(2),
            rs.getString(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getInt(7), rs.getDouble(8),
            rs.getDouble(9), rs.getDouble(10), rs.getDouble(11), rs.getInt(12), rs.getInt(13), rs.getBoolean(14),
            rs.getString(15), rs.getObject(16, OffsetDateTime.class), rs.getString(17),
            rs.getObject(18, OffsetDateTime.class), rs.getString(19));

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    public ChangeTriage(JdbcClient jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    /** Change points of the statuses given (all when empty), newest first, at most limit. */
    public List<Change> list(List<String> statuses, int limit) {
        List<String> wanted = statuses.isEmpty() ? STATUSES : statuses;
        return jdbc.sql(SELECT + " WHERE c.status = ANY(?::text[]) ORDER BY c.found_at DESC, c.id DESC LIMIT ?")
                .params(wanted.toArray(String[]::new), limit)
                .query(CHANGE)
                .list();
    }

    /** Confirms an open change: a new normal, from which its series restarts. */
    public Change confirm(long id, String who, String reason) {
        return decide(id, who, reason, "confirmed");
    }

    /** Dismisses an open change: not a change; hidden, and its series goes on as it was. */
    public Change dismiss(long id, String who, String reason) {
        return decide(id, who, reason, "dismissed");
    }

    private Change decide(long id, String who, String reason, String status) {
        if (reason == null || reason.isBlank() || reason.length() > 2000) {
            throw new BadRequest("a decision needs its reason", List.of(new Violation("reason", "say why the change is "
                    + (status.equals("confirmed") ? "a new normal (a firmware, driver or cabling change...)"
                    : "not a change (a noisy neighbour, a test setup...)") + ", in at most 2000 characters")));
        }
        return tx.execute(t -> {
            Change current = one(id);
            if (!current.status().equals("open")) {
                throw new Conflict("change " + id + " was already " + current.status() + " by " + current.decidedBy()
                        + " at " + current.decidedAt() + ": " + current.reason());
            }
            jdbc.sql("""
                    UPDATE change_point SET status = ?, decided_by = ?, decided_at = now(), reason = ?
                    WHERE id = ? AND status = 'open'""").params(status, who, reason.strip(), id).update();
            if (status.equals("confirmed")) {
                // the series restarts at the confirmed change: the next scan reads from its run_after on
                jdbc.sql("""
                        UPDATE change_scan SET origin_run_id = ?, length = 0, last_run_id = NULL, resume_at = 0,
                            resume_run_id = NULL, runs_to_last = 0
                        WHERE fingerprint = ? AND metric = ?""")
                        .params(current.runAfter(), current.fingerprint(), current.metric()).update();
            }
            return one(id);
        });
    }

    private Change one(long id) {
        return jdbc.sql(SELECT + " WHERE c.id = ? FOR UPDATE OF c")
                .param(id)
                .query(CHANGE)
                .optional().orElseThrow(() -> new NotFound("no change point " + id));
    }
}
