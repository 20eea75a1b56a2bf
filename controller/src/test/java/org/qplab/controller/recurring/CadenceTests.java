package org.qplab.controller.recurring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;

class CadenceTests {

    private static final Instant NOW = Instant.parse("2026-11-29T13:00:00.250Z");

    @Test
    void aCronFiresAtItsNextTimeInTheControllersZone() {
        Cadence nightly = new Cadence("0 0 2 * * *", null, ZoneId.of("Europe/Berlin"));
        assertThat(nightly.first(NOW)).isEqualTo(Instant.parse("2026-11-30T01:00:00Z"));
        assertThat(nightly.shortestGap(NOW)).isEqualTo(Duration.ofDays(1));
        assertThat(nightly.describe()).isEqualTo("cron '0 0 2 * * *'");
    }

    @Test
    void anOccurrenceMissedForHoursIsFollowedByTheNextTimeAfterNowNotByTheMissedOnes() {
        Cadence everyTwoSeconds = new Cadence("*/2 * * * * *", null, ZoneOffset.UTC);
        Instant due = Instant.parse("2026-11-29T10:00:00Z");
        assertThat(everyTwoSeconds.following(due, NOW)).isEqualTo(Instant.parse("2026-11-29T13:00:02Z"));
        assertThat(everyTwoSeconds.following(due, due.plusMillis(300))).isEqualTo(due.plusSeconds(2));

        Cadence daily = new Cadence(null, 24, ZoneOffset.UTC);
        assertThat(daily.following(due, due.plusSeconds(1))).as("on time: no drift").isEqualTo(due.plus(Duration.ofHours(24)));
        assertThat(daily.following(due.minus(Duration.ofDays(3)), NOW)).as("missed: from now")
                .isEqualTo(Instant.parse("2026-11-30T13:00:00Z"));
        assertThat(daily.first(NOW)).isEqualTo(Instant.parse("2026-11-30T13:00:00Z"));
        assertThat(daily.describe()).isEqualTo("every 24 hours");
    }

    @Test
    void theShortestGapOfAnIrregularCronIsItsClosestPair() {
        assertThat(new Cadence("0 0,5 3 * * *", null, ZoneOffset.UTC).shortestGap(NOW)).isEqualTo(Duration.ofMinutes(5));
        assertThat(new Cadence(null, 6, ZoneOffset.UTC).shortestGap(NOW)).isEqualTo(Duration.ofHours(6));
    }

    @Test
    void badSettingsAreNamed() {
        assertThat(Cadence.problems("0 0 2 * * *", null)).isEmpty();
        assertThat(Cadence.problems(null, 1)).isEmpty();
        assertThat(Cadence.problems("0 2 * * *", null)).extracting(Violation::field).containsExactly("cron");
        assertThat(Cadence.problems("0 2 * * *", null).get(0).message())
                .startsWith("cron '0 2 * * *' is not a cron expression: ");
        assertThat(Cadence.problems(null, null)).extracting(Violation::field).containsExactly("");
        assertThat(Cadence.problems("0 0 2 * * *", 3)).extracting(Violation::field).containsExactly("");
        assertThat(Cadence.problems(null, 0)).extracting(Violation::message)
                .containsExactly("must be between 1 and 8784, got 0");
        assertThat(Cadence.problems("0 0 0 30 2 *", null)).extracting(Violation::message)
                .containsExactly("cron '0 0 0 30 2 *' never fires: no date matches it");
    }
}
