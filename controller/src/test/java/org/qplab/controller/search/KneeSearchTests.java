package org.qplab.controller.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.qplab.controller.search.KneeCounts.Curve;
import org.qplab.controller.search.KneeCounts.Run;
import org.qplab.controller.search.KneeSearch.Observation;
import org.qplab.controller.search.KneeSearch.Result;
import org.qplab.controller.search.KneeSearch.Settings;
import org.qplab.controller.search.KneeSearch.Step;

/** KneeSearch driven to its end through initial() and next() on synthetic curves (KneeCounts drives them). */
class KneeSearchTests {

    private static Settings settings(long low, long high) {
        return Settings.of("threads", low, high, 64, true);
    }

    /** Drives the search and checks what every search must: each x planned once, inside the range, within budget. */
    private static Run drive(Settings s, LongToDoubleFunction y, double noise, long seed) {
        Run run = KneeCounts.drive(s, y, noise, seed);
        Set<Long> distinct = new HashSet<>(run.planned());
        assertThat(distinct).as("no x planned twice: %s", run.planned()).hasSameSizeAs(run.planned());
        assertThat(run.planned()).allSatisfy(x -> assertThat(x).isBetween(s.low(), s.high()));
        assertThat(run.planned()).hasSizeLessThanOrEqualTo(s.maxPoints());
        return run;
    }

    /** The bracket meets the resolution, or holds no integer the search has not run. */
    private static void assertFine(Settings s, Run run) {
        Result r = run.result();
        assertThat(r.bracketed()).as(r.why()).isTrue();
        boolean narrow = (double) r.bracketHigh() / r.bracketLow() <= 1 + s.resolution() + 1e-12;
        boolean exhausted = true;
        for (long x = r.bracketLow() + 1; x < r.bracketHigh(); x++) {
            exhausted &= run.planned().contains(x);
        }
        assertThat(narrow || exhausted).as("bracket [%d, %d] of %s", r.bracketLow(), r.bracketHigh(), run.planned())
                .isTrue();
    }

    @Test
    void initialPointsAreTheEndsAndLogSpacedPointsBetween() {
        assertThat(KneeSearch.initial(settings(1, 64))).containsExactly(1L, 4L, 16L, 64L);
        assertThat(KneeSearch.initial(settings(64, 65536))).containsExactly(64L, 645L, 6502L, 65536L);
        assertThat(KneeSearch.initial(settings(1, 4))).containsExactly(1L, 2L, 4L);
        assertThat(KneeSearch.initial(settings(1, 2))).containsExactly(1L, 2L);
        assertThat(KneeSearch.initial(settings(7, 7))).containsExactly(7L);
        assertThat(KneeSearch.initial(Settings.of("threads", 1, 64, 2, true))).containsExactly(1L, 64L);
    }

    /**
     * y = min(x, K): a rate limit that flattens at K; the bracket holds K and meets the resolution. (A K within the
     * last resolution step below high, 63 of [1, 64], is "still rising at high": that step still pays; one within 5 %
     * of low, 65 of [64, 65536], is "flat from low": the metric moves by less than the least rise that counts.)
     */
    @Test
    void aRateLimitsKneeIsBracketedWithinTheResolution() {
        for (long k : new long[] {2, 3, 5, 10, 17, 27, 33, 50, 57}) {
            Settings s = settings(1, 64);
            Run run = drive(s, x -> Math.min(x, k), 0, 0);
            assertThat(run.result().kind()).as("K %d: %s", k, run.result().why()).isEqualTo("knee");
            assertThat(k).as("K %d: %s", k, run.result()).isBetween(run.result().bracketLow(), run.result().bracketHigh());
            assertFine(s, run);
        }
        for (long k : new long[] {72, 100, 333, 1000, 5000, 12345, 40000, 60000}) {
            Settings s = settings(64, 65536);
            Run run = drive(s, x -> Math.min(x, k), 0, 0);
            assertThat(run.result().kind()).as("K %d: %s", k, run.result().why()).isEqualTo("knee");
            assertThat(k).as("K %d: %s", k, run.result()).isBetween(run.result().bracketLow(), run.result().bracketHigh());
            assertFine(s, run);
        }
    }

    @Test
    void theWhySaysWhereAndWithWhichGains() {
        Result r = drive(settings(1, 64), x -> Math.min(x, 10), 0, 0).result();
        assertThat(r).extracting(Result::value, Result::bracketLow, Result::bracketHigh).containsExactly(10L, 10L, 11L);
        assertThat(r.why()).startsWith("The metric stops paying at threads 10: from 9 to 10 it moves by")
                .contains("the knee lies in [10, 11]");
        Result wide = drive(settings(64, 65536), x -> Math.min(x, 1000), 0, 0).result();
        assertThat(wide).extracting(Result::value, Result::bracketLow, Result::bracketHigh)
                .containsExactly(995L, 960L, 1031L);
        assertThat(wide.why()).contains("the knee lies in [960, 1031]");
    }

    /** y = x / (1 + x/K): its gain per doubling falls below half its best at 5.83 K. */
    @Test
    void aSmoothSaturatingCurvesKneeIsFoundNearWhereItsGainHalves() {
        for (Curve c : List.of(KneeCounts.saturating(1, 64, 4), KneeCounts.saturating(64, 65536, 500),
                KneeCounts.saturating(64, 65536, 50))) {
            Settings s = settings(c.low(), c.high());
            Run run = drive(s, c.y(), 0, 0);
            assertThat(KneeCounts.holds(c, run.result())).as("%s: %s", c.name(), run.result()).isTrue();
            assertFine(s, run);
        }
    }

    /** Rises, then falls by half past C: a cliff, bracketed at C, even when no first point shows the fall. */
    @Test
    void aCliffIsBracketedAtTheFall() {
        for (Curve c : List.of(KneeCounts.cliff(1, 64, 20), KneeCounts.cliff(1, 64, 40), KneeCounts.cliff(64, 65536, 3000),
                KneeCounts.cliff(64, 65536, 300), KneeCounts.cliff(64, 65536, 50000))) {
            Settings s = settings(c.low(), c.high());
            Run run = drive(s, c.y(), 0, 0);
            assertThat(run.result().kind()).as("%s: %s", c.name(), run.result().why()).isEqualTo("cliff");
            assertThat(c.truth()).as(c.name()).isBetween((double) run.result().bracketLow(),
                    (double) run.result().bracketHigh());
            assertThat(run.result().value()).isEqualTo(run.result().bracketLow());
            assertThat(run.result().why()).startsWith("The metric falls by");
            assertFine(s, run);
        }
    }

    /**
     * A dip is not a cliff: the lab's first search over qps_per_thread (one short run a point) fell by 16 % from 7 to
     * 8 QPs and climbed past where it fell from by 26. Here min(x, 40) that drops to 2 at 16 only (one of the first
     * points, so the fall from 4 is seen at once): not a cliff, while the same fall that stays down is one. (The knee is
     * then judged with the dip among its points, which misplaces it: a dip is noise that repeats must average out,
     * which is why experiments/9-knee-search runs each point twice.)
     */
    @Test
    void aDipThatClimbsBackIsNotACliff() {
        Settings s = settings(1, 64);
        Run run = drive(s, x -> x == 16 ? 2 : Math.min(x, 40), 0, 0);
        assertThat(run.planned()).as("the dip was measured").contains(16L);
        assertThat(run.result().kind()).as(run.result().why()).isNotEqualTo("cliff");
        Run stays = drive(s, x -> x < 16 ? x : 2, 0, 0);
        assertThat(stays.result().kind()).as("the same fall that stays down").isEqualTo("cliff");
    }

    /**
     * One noisy point does not make a rising curve flat: the lab's second qps_per_thread search measured 67 k, 115 k,
     * 208 k and 230 k (x 32 B/s) at 1, 5, 25 and 128 QPs, the 25's two runs 36 % apart, and was told "flat within the
     * noise (73 %)". Its quiet ends differ by 3.4x, far past their own noise: the search goes on.
     */
    @Test
    void oneNoisyPointDoesNotMakeARisingCurveFlat() {
        Settings s = new Settings("qps_per_thread", 1, 128, 0.1, 0.5, 15, true);
        Step step = KneeSearch.next(s, List.of(new Observation(1, 66795, 0.08), new Observation(5, 114921, 0.10),
                new Observation(25, 207539, 0.36), new Observation(128, 230430, 0.17)));
        assertThat(step.result()).as("%s", step.result()).isNull();
        assertThat(step.next()).isNotEmpty();
        Step flat = KneeSearch.next(s, List.of(new Observation(1, 100, 0.3), new Observation(5, 120, 0.1),
                new Observation(128, 110, 0.1)));
        assertThat(flat.result()).as("within the noise of the noisy one").isNotNull();
        assertThat(flat.result().kind()).isEqualTo("none");
    }

    /** A cliff past a knee: the metric flattens at 1000, then halves past 8000; the first cliff wins. */
    @Test
    void aCliffWinsOverAKnee() {
        Settings s = settings(64, 65536);
        Run run = drive(s, x -> x <= 8000 ? Math.min(x, 1000) : 500, 0, 0);
        assertThat(run.result().kind()).isEqualTo("cliff");
        assertThat(8000L).isBetween(run.result().bracketLow(), run.result().bracketHigh());
    }

    /**
     * +-3 % noise (spread 0.06) on rate limits. At a 10 % resolution that is at the edge of what the noise lets any
     * planner resolve (KneeSearch's doc), so the bracket does not hold K in every seed: it must in most (bench/search
     * measures 100 seeds), and never be off by more than 25 %; the search still ends, within its budget, every x
     * planned once.
     */
    @Test
    void noiseOfThreePercentStillBracketsTheKneeInMostSeeds() {
        int held = 0;
        int runs = 0;
        for (Curve c : KneeCounts.curves()) {
            if (!c.name().startsWith("min")) {
                continue;
            }
            Settings s = settings(c.low(), c.high());
            int curveHeld = 0;
            for (long seed = 1; seed <= 10; seed++) {
                Run run = drive(s, c.y(), 0.03, seed);
                Result r = run.result();
                assertThat(r.kind()).as("%s seed %d: %s", c.name(), seed, r.why()).isEqualTo("knee");
                assertThat(r.bracketed()).isTrue();
                assertThat(r.bracketLow() <= c.truth() * 1.25 && c.truth() / 1.25 <= r.bracketHigh())
                        .as("%s seed %d: %s", c.name(), seed, r).isTrue();
                curveHeld += KneeCounts.holds(c, r) ? 1 : 0;
                runs++;
            }
            assertThat(curveHeld).as(c.name()).isGreaterThanOrEqualTo(6);
            held += curveHeld;
        }
        // 76 of 90 with these seeds; bench/search/results.md has 100 seeds per curve (56 to 100 of 100)
        assertThat((double) held / runs).isGreaterThanOrEqualTo(0.8);
    }

    /** The same noise on a cliff and on a wider resolution: 9 of 10 seeds or better, as the issue asks. */
    @Test
    void noiseOfThreePercentBracketsACliffAndACoarserKneeInNineOfTenSeeds() {
        for (Curve c : List.of(KneeCounts.cliff(1, 64, 20), KneeCounts.cliff(64, 65536, 3000))) {
            int held = 0;
            for (long seed = 1; seed <= 10; seed++) {
                held += KneeCounts.holds(c, drive(settings(c.low(), c.high()), c.y(), 0.03, seed).result()) ? 1 : 0;
            }
            assertThat(held).as(c.name()).isGreaterThanOrEqualTo(9);
        }
        for (long k : new long[] {100, 1000, 5000}) {
            Settings s = new Settings("threads", 64, 65536, 0.3, 0.5, 64, true);
            Curve c = KneeCounts.rateLimit(64, 65536, k);
            int held = 0;
            for (long seed = 1; seed <= 10; seed++) {
                held += KneeCounts.holds(c, drive(s, c.y(), 0.03, seed).result()) ? 1 : 0;
            }
            assertThat(held).as("%s at resolution 0.3", c.name()).isGreaterThanOrEqualTo(9);
        }
    }

    @Test
    void maxPointsIsRespectedAndTheBestBracketSoFarIsReported() {
        for (int max = 2; max <= 10; max++) {
            Settings s = Settings.of("msg_size", 64, 65536, max, true);
            Run run = drive(s, x -> Math.min(x, 1000), 0, 0);
            assertThat(run.planned()).hasSizeLessThanOrEqualTo(max);
            Result r = run.result();
            assertThat(r.bracketed()).as("max %d: %s", max, r).isFalse();
            if (max >= 4) {
                assertThat(r.kind()).isEqualTo("knee");
                assertThat(1000L).isBetween(r.bracketLow(), r.bracketHigh());
                assertThat(r.why()).contains("not bracketed within 10 %: the " + max + " points allowed ran out");
            }
        }
    }

    @Test
    void stillRisingAtHighIsNone() {
        Settings s = settings(1, 64);
        Run run = drive(s, x -> x, 0, 0);
        assertThat(run.result().kind()).isEqualTo("none");
        assertThat(run.result().value()).isEqualTo(64);
        assertThat(run.result().why()).startsWith("The metric is still rising at threads 64");
        assertFine(s, run);
        Settings wide = settings(64, 65536);
        assertThat(drive(wide, x -> Math.sqrt(x), 0, 0).result().kind()).isEqualTo("none");
    }

    @Test
    void flatFromLowIsNone() {
        Run run = drive(settings(1, 64), x -> 42, 0, 0);
        assertThat(run.result().kind()).isEqualTo("none");
        assertThat(run.planned()).containsExactly(1L, 4L, 16L, 64L);
        assertThat(run.result().why()).startsWith("The metric is flat from threads 1 to 64");
        assertThat(drive(settings(1, 64), x -> 42, 0.03, 7).result().kind()).isEqualTo("none");
    }

    /** A time (lower is better) that falls until 16, then flattens: a knee; one that jumps back up past 20: a cliff. */
    @Test
    void aTimeIsNegated() {
        Settings s = Settings.of("qps_per_thread", 1, 64, 64, false);
        Run run = drive(s, x -> 1000 - 10 * Math.min(x, 16), 0, 0);
        assertThat(run.result().kind()).isEqualTo("knee");
        assertThat(16L).isBetween(run.result().bracketLow(), run.result().bracketHigh());
        Run rising = drive(s, x -> x <= 20 ? 1000 - 10 * x : 1000, 0, 0);
        assertThat(rising.result().kind()).as(rising.result().why()).isEqualTo("cliff");
    }

    @Test
    void nextIsDeterministicAndIgnoresTheOrderOfWhatWasSeen() {
        Settings s = settings(1, 64);
        List<Observation> seen = new ArrayList<>(List.of(new Observation(64, 10, 0), new Observation(1, 1, 0),
                new Observation(16, 10, 0), new Observation(4, 4, 0)));
        Step step = KneeSearch.next(s, seen);
        assertThat(step.result()).isNull();
        assertThat(step.next()).containsExactly(8L);
        List<Observation> reversed = new ArrayList<>(seen);
        java.util.Collections.reverse(reversed);
        assertThat(KneeSearch.next(s, reversed)).isEqualTo(step);
        assertThat(KneeSearch.next(s, List.of())).isEqualTo(new Step(List.of(1L, 4L, 16L, 64L), null));
        assertThat(KneeSearch.next(s, List.of(new Observation(1, 1, 0))).next()).containsExactly(4L, 16L, 64L);
    }

    @Test
    void badInputIsRefused() {
        Settings s = settings(1, 64);
        assertThatThrownBy(() -> KneeSearch.next(s, List.of(new Observation(4, 1, 0), new Observation(4, 2, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads 4 was seen twice");
        assertThatThrownBy(() -> KneeSearch.next(s, List.of(new Observation(65, 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside [1, 64]");
        assertThatThrownBy(() -> KneeSearch.next(s, List.of(new Observation(2, Double.NaN, 0))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Settings.of("threads", 0, 64, 10, true)).hasMessageContaining("1 <= low <= high");
        assertThatThrownBy(() -> Settings.of("threads", 8, 4, 10, true)).hasMessageContaining("1 <= low <= high");
        assertThatThrownBy(() -> Settings.of("threads", 1, 64, 1, true)).hasMessageContaining("at least 2");
        assertThatThrownBy(() -> new Settings("threads", 1, 64, 0, 0.5, 10, true)).hasMessageContaining("resolution");
        assertThatThrownBy(() -> new Settings("threads", 1, 64, 0.1, 1, 10, true)).hasMessageContaining("knee_gain");
        assertThatThrownBy(() -> new Step(List.of(), null)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The goal: a rate limit's knee (min(x, K), as rate_limit makes it) bracketed within the resolution using
     * at most 40 % of a grid's runs; cliffs too. A smooth curve's knee costs more: its best gain is measured too (over
     * [1, 64], 16 of the integer grid's 34 points), which bench/search/results.md shows.
     */
    @Test
    void everyRateLimitsKneeAndEveryCliffUsesAtMostFortyPercentOfAGridsPoints() {
        for (Curve c : KneeCounts.curves()) {
            Settings s = settings(c.low(), c.high());
            Run run = drive(s, c.y(), 0, 0);
            assertThat(KneeCounts.holds(c, run.result())).as("%s: %s", c.name(), run.result()).isTrue();
            assertFine(s, run);
            double share = c.name().startsWith("min(") || c.kind().equals("cliff") ? 0.4 : 0.5;
            assertThat(run.planned().size()).as(c.name())
                    .isLessThanOrEqualTo((int) (share * KneeCounts.gridPoints(c.low(), c.high(), s.resolution())));
        }
        assertThat(KneeCounts.gridPoints(1, 64, 0.1)).as("1 to 20, then 22, 24, ..., 55, 60, 64").isEqualTo(34);
        assertThat(KneeCounts.gridPoints(1, 10, 0.1)).as("every integer below 10").isEqualTo(10);
        assertThat(KneeCounts.gridPoints(64, 65536, 0.1)).isEqualTo(75);
    }
}
