/*
 * test_stats.c — percentiles within the documented 1% bound on known
 * distributions, the moments against a two-pass reference, the BW peak window
 * against brute force.
 */
#include <math.h>

#include "qpb_stats.h"
#include "qpb_test.h"

static uint64_t lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t exact_rank(const uint64_t *sorted, size_t n, double p)
{
    size_t rank = (size_t)ceil(p * (double)n);
    return sorted[(rank < 1 ? 1 : rank) - 1];
}

/* Fills values, checks median/p99/p99.9 of the histogram against the exact
 * nearest-rank values. */
static void check_percentiles(uint64_t *v, size_t n, const char *name)
{
    qpb_hist h;
    qpb_moments w = {0};
    CHECK(qpb_hist_init(&h));
    for (size_t i = 0; i < n; i++) {
        qpb_hist_add(&h, v[i]);
        qpb_moments_add(&w, v[i]);
    }
    qsort(v, n, sizeof v[0], cmp_u64);
    const double ps[] = {0.5, 0.9, 0.99, 0.999, 1.0};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        double want = (double)exact_rank(v, n, ps[k]);
        double got = (double)qpb_hist_percentile(&h, ps[k], w.min, w.max);
        CHECKF(fabs(got - want) <= 0.01 * want, "%s p%g: got %.0f want %.0f", name, ps[k] * 100, got, want);
    }
    qpb_hist_free(&h);
}

static void percentiles_of_known_distributions_within_one_percent(void)
{
    enum { N = 200000 };
    uint64_t *v = malloc(N * sizeof *v);
    uint64_t st = 42;
    for (size_t i = 0; i < N; i++) /* uniform 1..1e6 ns */
        v[i] = 1 + lcg(&st) % 1000000;
    check_percentiles(v, N, "uniform");
    for (size_t i = 0; i < N; i++) /* exponential, mean 20 us */
        v[i] = (uint64_t)(-20000.0 * log(((double)(lcg(&st) % 1000000) + 0.5) / 1e6)) + 1;
    check_percentiles(v, N, "exponential");
    for (size_t i = 0; i < N; i++) /* heavy tail: 1 us .. ~1 s */
        v[i] = (uint64_t)(1000.0 * pow(10.0, (double)(lcg(&st) % 1000000) / 1e6 * 6.0));
    check_percentiles(v, N, "log-uniform");
    for (size_t i = 0; i < N; i++) /* small values are exact */
        v[i] = lcg(&st) % 100;
    check_percentiles(v, N, "small");
    free(v);
}

static void moments_match_two_pass_where_naive_sums_cancel(void)
{
    enum { N = 100000 };
    uint64_t st = 7;
    uint64_t *v = malloc(N * sizeof *v);
    qpb_moments w = {0}, a = {0}, b = {0};
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < N; i++) {
        v[i] = 1000000000000ull + lcg(&st) % 1000; /* large offset, tiny spread */
        qpb_moments_add(&w, v[i]);
        qpb_moments_add(i % 3 ? &a : &b, v[i]);
        sum += (double)v[i];
        sumsq += (double)v[i] * (double)v[i];
    }
    double mean = 0;
    for (size_t i = 0; i < N; i++)
        mean += ((double)v[i] - 1e12) / N;
    mean += 1e12;
    double m2 = 0;
    for (size_t i = 0; i < N; i++)
        m2 += ((double)v[i] - mean) * ((double)v[i] - mean);
    double sd = sqrt(m2 / N);
    double naive_var = sumsq / N - (sum / N) * (sum / N);
    CHECKF(fabs(qpb_moments_mean(&w) - mean) < 1e-13 * mean, "mean %f vs %f", qpb_moments_mean(&w), mean);
    CHECKF(fabs(qpb_moments_stdev(&w) - sd) < 1e-6 * sd, "stdev %f vs %f", qpb_moments_stdev(&w), sd);
    /* Why not floating-point sums: the textbook formula is off by far more here. */
    CHECKF(fabs(sqrt(fabs(naive_var)) - sd) > 1e-3 * sd, "naive %f happened to be right", sqrt(fabs(naive_var)));
    qpb_moments_merge(&a, &b);
    CHECK(a.n == N && a.min == w.min && a.max == w.max);
    CHECKF(fabs(qpb_moments_stdev(&a) - sd) < 1e-6 * sd, "merged stdev %f vs %f", qpb_moments_stdev(&a), sd);
    free(v);
}

static void moments_stdev_exact_where_n_times_squares_overflows(void)
{
    /* one 0 and fifteen 2^62: n x sum of squares = 16 x 15 x 2^124 wraps to 0 in 128 bits, below
     * sum^2 = 225 x 2^124 (wrapped: 2^124); the difference, 15 x 2^124, is still exact */
    qpb_moments w = {0};
    qpb_moments_add(&w, 0);
    for (int i = 0; i < 15; i++)
        qpb_moments_add(&w, 1ull << 62);
    double expect = sqrt(15.0) / 16.0 * 0x1p62, mean = 15.0 / 16.0 * 0x1p62;
    CHECKF(fabs(qpb_moments_stdev(&w) - expect) < 1e-12 * expect, "stdev %g vs %g", qpb_moments_stdev(&w), expect);
    CHECKF(fabs(qpb_moments_mean(&w) - mean) < 1e-12 * mean, "mean %g vs %g", qpb_moments_mean(&w), mean);
    CHECK(w.min == 0 && w.max == 1ull << 62);
}

/* Brute force of the definition in qpb_stats.h. */
static double peak_reference(const uint64_t *start, const uint64_t *end, const uint64_t *bytes, size_t n)
{
    double best = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t b = 0;
        for (size_t i = j + 1; i-- > 0;) {
            b += bytes[i];
            bool counted = j - i < QPB_PEAK_WINDOW || i == 0; /* short windows, and those from the first */
            if (counted && end[j] > start[i] && (double)b * 1e9 / (double)(end[j] - start[i]) > best)
                best = (double)b * 1e9 / (double)(end[j] - start[i]);
        }
    }
    return best;
}

static void bw_peak_is_best_short_or_leading_window(void)
{
    enum { N = 500 };
    uint64_t start[N], end[N], bytes[N], st = 3, t = 1000;
    qpb_peak pk = {0};
    for (size_t i = 0; i < N; i++) {
        start[i] = t;
        /* Overlapping cycles like a pipelined sender, with one fast burst. */
        uint64_t d = (i >= 200 && i < 230) ? 50 + lcg(&st) % 20 : 900 + lcg(&st) % 400;
        end[i] = t + d * 3;
        t += d;
        bytes[i] = 4096;
        qpb_peak_add(&pk, start[i], end[i], bytes[i]);
    }
    double ref = peak_reference(start, end, bytes, N);
    CHECKF(fabs(qpb_peak_bps(&pk) - ref) <= 1e-9 * ref, "peak %f vs %f", qpb_peak_bps(&pk), ref);
    /* A 1000-cycle window at constant speed equals the per-cycle rate. */
    qpb_peak flat = {0};
    for (uint64_t i = 0; i < 1000; i++)
        qpb_peak_add(&flat, i * 1000, i * 1000 + 1000, 1000);
    CHECKF(fabs(qpb_peak_bps(&flat) - 1e9) < 1e-3, "flat peak %f", qpb_peak_bps(&flat));
    /* 128 cycles in flight (deeper than the window): the peak is still at least the average */
    qpb_peak deep = {0};
    uint64_t first = 0, last = 0, total = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        uint64_t s0 = i * 100, e0 = s0 + 128 * 100 + (i % 7) * 10;
        qpb_peak_add(&deep, s0, e0, 4096);
        last = e0 > last ? e0 : last;
        total += 4096;
    }
    double avg = (double)total * 1e9 / (double)(last - first);
    CHECKF(qpb_peak_bps(&deep) >= avg * (1 - 1e-12), "deep peak %f < average %f", qpb_peak_bps(&deep), avg);
}

/* CQ moderation: groups of cycles share one end (the completion that covers
 * them), posted at their own times; groups of every size around the window. */
static void bw_peak_of_grouped_ends_matches_brute_force(void)
{
    enum { N = 2000 };
    static uint64_t start[N], end[N], bytes[N];
    uint64_t st = 11;
    for (int round = 0; round < 4; round++) {
        qpb_peak pk = {0};
        uint64_t t = 5000, group_end = 0;
        uint32_t left = 0;
        for (size_t i = 0; i < N; i++) {
            if (left == 0) {
                left = 1 + (uint32_t)(lcg(&st) % (round == 0 ? 3 : round == 1 ? 70 : 150));
                group_end = t + 128 * 40 + lcg(&st) % 4000;
            }
            left--;
            start[i] = t;
            t += 20 + lcg(&st) % (i % 500 < 50 ? 5 : 60); /* bursts of fast posts */
            end[i] = group_end > t ? group_end : t + 1;
            group_end = end[i];
            bytes[i] = 64 + 64 * (lcg(&st) % 2);
            qpb_peak_add(&pk, start[i], end[i], bytes[i]);
            if (i == 63 || i == 64 || i == 700) { /* read while a group is still open */
                double ref = peak_reference(start, end, bytes, i + 1);
                CHECKF(fabs(qpb_peak_bps(&pk) - ref) <= 1e-9 * ref, "round %d after %zu: %f vs %f", round, i,
                       qpb_peak_bps(&pk), ref);
            }
        }
        double ref = peak_reference(start, end, bytes, N);
        CHECKF(fabs(qpb_peak_bps(&pk) - ref) <= 1e-9 * ref, "round %d: peak %f vs %f", round, qpb_peak_bps(&pk), ref);
    }
    /* A group of 200 whose best window is 64 big cycles in its middle: it ends
     * before the group's last cycle, as long as a window may be. */
    qpb_peak mid = {0};
    for (size_t i = 0; i < 400; i++) {
        start[i] = 1000 * i;
        end[i] = i < 100 ? 1000 * i + 500 : i < 300 ? 400000 : 1000 * i + 500;
        bytes[i] = i >= 150 && i < 214 ? 1 << 20 : 64;
        qpb_peak_add(&mid, start[i], end[i], bytes[i]);
    }
    double ref = peak_reference(start, end, bytes, 400);
    CHECKF(fabs(qpb_peak_bps(&mid) - ref) <= 1e-9 * ref, "mid-group window: peak %f vs %f", qpb_peak_bps(&mid), ref);
}

static void stats_add_tracks_totals_and_span(void)
{
    qpb_stats s;
    CHECK(qpb_stats_init(&s));
    for (uint64_t i = 0; i < 10; i++) {
        qpb_sample smp = {.cycle = i, .start_ns = 100 + i * 10, .end_ns = 130 + i * 10, .bytes = 8, .messages = 2,
                          .errors = i == 3};
        qpb_stats_add(&s, &smp);
    }
    CHECK(s.cycles == 10 && s.bytes == 80 && s.messages == 20 && s.errors == 1);
    CHECK(s.first_start_ns == 100 && s.last_end_ns == 220);
    CHECK(s.cycle_ns.min == 30 && s.cycle_ns.max == 30 && qpb_moments_stdev(&s.cycle_ns) == 0.0);
    qpb_stats_free(&s);
}

const qpb_test_case qpb_stats_tests[] = {
    {"stats percentiles of known distributions within 1%", percentiles_of_known_distributions_within_one_percent},
    {"stats moments match two-pass where naive sums cancel", moments_match_two_pass_where_naive_sums_cancel},
    {"stats moments: stdev exact where n x sum of squares overflows 128 bits", moments_stdev_exact_where_n_times_squares_overflows},
    {"stats bw peak is the best window of up to 64 cycles or from the first", bw_peak_is_best_short_or_leading_window},
    {"stats bw peak of grouped ends (cq moderation) matches brute force", bw_peak_of_grouped_ends_matches_brute_force},
    {"stats add tracks totals and span", stats_add_tracks_totals_and_span},
    {NULL, NULL},
};
