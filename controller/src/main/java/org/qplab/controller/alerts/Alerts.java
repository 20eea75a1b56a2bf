package org.qplab.controller.alerts;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.qplab.controller.recurring.RecurringStaleness;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * What needs a person's eye now (issue 36's alerts): every open change point (history/ChangeDetection), every
 * experiment of the last 24 hours whose runs failed an expect rule, and every schedule stale past twice its period
 * (recurring/RecurringStaleness). Shown in the dashboard's header, exported as Prometheus metrics (AlertMetrics) and
 * posted to a webhook (AlertWebhook).
 * Blocking.
 */
@Service
public class Alerts {

    /** One alert: its kind, what it says, where to look, and since when. */
    @Schema(description = "Something that needs a person's eye.")
    public record Alert(@Schema(allowableValues = {"change", "expectation", "stale"}) String kind,
                        @Schema(description = "What the alert is about, stable while it lasts (change:ID, "
                                + "expectation:EXPERIMENT, stale:SCHEDULE:SINCE): a webhook posts each key once.")
                        String key, String message,
                        @Schema(description = "The dashboard page to look at.", example = "#/changes") String link,
                        OffsetDateTime since) {}

    /** Every alert, the counts by kind. */
    @Schema(description = "The alerts now, newest first within each kind, and their counts.")
    public record Now(int openChanges, int expectationFailures, int staleSchedules, List<Alert> alerts) {}

    private static final int MAX_LISTED = 50;

    private final JdbcClient jdbc;
    private final RecurringStaleness staleness;

    public Alerts(JdbcClient jdbc, RecurringStaleness staleness) {
        this.jdbc = jdbc;
        this.staleness = staleness;
    }

    public Now now() {
        List<Alert> alerts = new ArrayList<>();
        int changes = jdbc.sql("SELECT count(*) FROM change_point WHERE status = 'open'").query(Integer.class).single();
        jdbc.sql("""
                        SELECT c.metric, c.change_percent, c.fingerprint, r.experiment_id, c.found_at, c.id
                        FROM change_point c JOIN run r ON r.id = c.run_after
                        WHERE c.status = 'open' ORDER BY c.found_at DESC, c.id DESC LIMIT ?""")
                .param(MAX_LISTED)
                .query((rs, i) -> alerts.add(new Alert("change", "change:" + rs.getLong(6), String.format(Locale.ROOT,
                        "%s moved %+.1f %% (fingerprint %s, from experiment #%d on)", rs.getString(1), rs.getDouble(2),
                        rs.getString(3).substring(0, Math.min(12, rs.getString(3).length())), rs.getLong(4)),
                        "#/changes", rs.getObject(5, OffsetDateTime.class))))
                .list();
        List<Alert> failed = jdbc.sql("""
                        SELECT e.id, e.name, count(*), max(v.judged_at)
                        FROM run_expectation v JOIN run r ON r.id = v.run_id JOIN experiment e ON e.id = r.experiment_id
                        WHERE v.verdict = 'FAIL' AND v.judged_at > now() - interval '24 hours'
                        GROUP BY e.id, e.name ORDER BY max(v.judged_at) DESC""")
                .query((rs, i) -> new Alert("expectation", "expectation:" + rs.getLong(1), "experiment #" + rs.getLong(1) + " " + rs.getString(2) + ": "
                        + rs.getLong(3) + (rs.getLong(3) == 1 ? " run" : " runs") + " failed its expect rules",
                        "#/experiments/" + rs.getLong(1), rs.getObject(4, OffsetDateTime.class)))
                .list();
        alerts.addAll(failed.subList(0, Math.min(MAX_LISTED, failed.size())));
        List<RecurringStaleness.Stale> stale = staleness.stale(Instant.now());
        stale.forEach(s -> alerts.add(new Alert("stale", "stale:" + s.id() + ":" + s.since().toEpochSecond(),
                "schedule #" + s.id() + " " + s.name() + " (" + s.cadence()
                + ") has produced no finished experiment for longer than " + hours(s.limit().toMinutes())
                + (s.lastFinished() == null ? " since it was created" : ""), "#/schedules/" + s.id(), s.since())));
        return new Now(changes, failed.size(), stale.size(), alerts);
    }

    private static String hours(long minutes) {
        return minutes % 60 == 0 ? minutes / 60 + " h" : minutes + " min";
    }
}
