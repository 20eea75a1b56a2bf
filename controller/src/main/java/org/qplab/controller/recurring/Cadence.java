package org.qplab.controller.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.Violation;
import org.springframework.scheduling.support.CronExpression;

/**
 * When a recurring schedule fires: a cron expression (Spring's {@link CronExpression}: 6 fields, seconds first) in the
 * controller's time zone, or every so many hours. Exactly one of the two is set.
 */
record Cadence(String cron, Integer everyHours, ZoneId zone) {

    /** At most a year between occurrences. */
    static final int MAX_EVERY_HOURS = 24 * 366;
    /** How many of a cron's next times are looked at for its shortest gap. */
    private static final int GAPS = 200;

    /** What is wrong with this pair of settings (as the body names them), or nothing. */
    static List<Violation> problems(String cron, Integer everyHours) {
        List<Violation> problems = new ArrayList<>();
        if ((cron == null || cron.isBlank()) && everyHours == null) {
            problems.add(new Violation("", "say when it fires: either cron (e.g. '0 0 2 * * *', 02:00 every day) or "
                    + "everyHours (e.g. 24)"));
            return problems;
        }
        if (cron != null && everyHours != null) {
            problems.add(new Violation("", "give either cron or everyHours, not both (cron '" + cron + "', everyHours "
                    + everyHours + ")"));
            return problems;
        }
        if (cron != null) {
            try {
                if (CronExpression.parse(cron).next(ZonedDateTime.now()) == null) {
                    problems.add(new Violation("cron", "cron '" + cron + "' never fires: no date matches it"));
                }
            } catch (IllegalArgumentException e) {
                problems.add(new Violation("cron", "cron '" + cron + "' is not a cron expression: " + e.getMessage()
                        + ". Write 6 fields, seconds first: second minute hour day-of-month month day-of-week, e.g. "
                        + "'0 0 2 * * *' for 02:00 every day"));
            }
        } else if (everyHours < 1 || everyHours > MAX_EVERY_HOURS) {
            problems.add(new Violation("everyHours", "must be between 1 and " + MAX_EVERY_HOURS + ", got " + everyHours));
        }
        return problems;
    }

    /** The first time it fires after now. */
    Instant first(Instant now) {
        return cron != null ? next(now) : now.truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofHours(everyHours));
    }

    /**
     * The time after an occurrence due then, claimed now: the cron's next time after now (an occurrence that fell due
     * while no controller ran fires once, late, and the next is computed from now), or due plus the hours (now plus
     * them when that has passed already).
     */
    Instant following(Instant due, Instant now) {
        if (cron != null) {
            return next(now.isAfter(due) ? now : due);
        }
        Instant after = due.plus(Duration.ofHours(everyHours));
        return after.isAfter(now) ? after : now.truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofHours(everyHours));
    }

    /** The shortest time between two occurrences: the hours, or the cron's shortest gap over its next times. */
    Duration shortestGap(Instant now) {
        return gap(now, true);
    }

    /**
     * The longest time between two occurrences: the hours, or the cron's longest gap over its next times (a
     * weekday cron's weekend): the period its staleness is judged by.
     */
    Duration longestGap(Instant now) {
        return gap(now, false);
    }

    private Duration gap(Instant now, boolean shortestOne) {
        if (cron == null) {
            return Duration.ofHours(everyHours);
        }
        CronExpression expression = CronExpression.parse(cron);
        ZonedDateTime at = expression.next(now.atZone(zone));
        Duration found = null;
        for (int i = 0; at != null && i < GAPS; i++) {
            ZonedDateTime next = expression.next(at);
            if (next != null) {
                Duration gap = Duration.between(at, next);
                found = found == null || (shortestOne ? gap.compareTo(found) < 0 : gap.compareTo(found) > 0) ? gap : found;
            }
            at = next;
        }
        return found == null ? Duration.ofDays(366) : found;
    }

    /** "cron '0 0 2 * * *'" or "every 24 hours". */
    String describe() {
        return cron != null ? "cron '" + cron + "'" : "every " + everyHours + (everyHours == 1 ? " hour" : " hours");
    }

    private Instant next(Instant after) {
        ZonedDateTime next = CronExpression.parse(cron).next(after.atZone(zone));
        if (next == null) {
            throw new IllegalStateException(describe() + " never fires after " + after);
        }
        return next.toInstant();
    }
}
