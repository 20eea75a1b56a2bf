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
    /* 1000 values 2^62 and 2^62 + 2: the sum of squares wraps 128 bits many times over, n^2 var does not */
    qpb_moments w = {0};
    for (int i = 0; i < 1000; i++)
        qpb_moments_add(&w, (1ull << 62) + (i % 2 ? 2 : 0));
    CHECKF(qpb_moments_stdev(&w) == 1.0, "stdev %.17g vs 1", qpb_moments_stdev(&w));
    CHECKF(qpb_moments_mean(&w) == 0x1p62 + 1, "mean %.17g", qpb_moments_mean(&w));
    /* one 0 and fifteen 2^62: n x (max - min) >= 2^64, so long double; still right to 1e-12 */
    qpb_moments v = {0};
    qpb_moments_add(&v, 0);
    for (int i = 0; i < 15; i++)
        qpb_moments_add(&v, 1ull << 62);
    double expect = sqrt(15.0) / 16.0 * 0x1p62, mean = 15.0 / 16.0 * 0x1p62;
    CHECKF(fabs(qpb_moments_stdev(&v) - expect) < 1e-12 * expect, "stdev %g vs %g", qpb_moments_stdev(&v), expect);
    CHECKF(fabs(qpb_moments_mean(&v) - mean) < 1e-12 * mean, "mean %g vs %g", qpb_moments_mean(&v), mean);
    CHECK(v.min == 0 && v.max == 1ull << 62);
}

/* Brute force of the definition in qpb_stats.h: every cycle carries b bytes. */
static double peak_reference(const uint64_t *start, const uint64_t *end, uint64_t b, size_t n)
{
    double best = 0;
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i <= j; i++) {
            bool counted = j - i < QPB_PEAK_WINDOW || i == 0; /* short windows, and those from the first */
            double bps = (double)((j - i + 1) * b) * 1e9 / (double)(end[j] - start[i]);
            if (counted && end[j] > start[i] && bps > best)
                best = bps;
        }
    }
    return best;
}

static void bw_peak_is_best_short_or_leading_window(void)
{
    enum { N = 500 };
    uint64_t start[N], end[N], st = 3, t = 1000;
    qpb_peak pk;
    qpb_peak_init(&pk, 4096);
    for (size_t i = 0; i < N; i++) {
        start[i] = t;
        /* Overlapping cycles like a pipelined sender, with one fast burst. */
        uint64_t d = (i >= 200 && i < 230) ? 50 + lcg(&st) % 20 : 900 + lcg(&st) % 400;
        end[i] = i > 0 && t + d * 3 < end[i - 1] ? end[i - 1] : t + d * 3;
        t += d;
        qpb_peak_add(&pk, i, start[i], end[i]);
    }
    double ref = peak_reference(start, end, 4096, N);
    CHECKF(fabs(qpb_peak_bps(&pk) - ref) <= 1e-9 * ref, "peak %f vs %f", qpb_peak_bps(&pk), ref);
    /* A 1000-cycle window at constant speed equals the per-cycle rate. */
    qpb_peak flat;
    qpb_peak_init(&flat, 1000);
    for (uint64_t i = 0; i < 1000; i++)
        qpb_peak_add(&flat, i, i * 1000, i * 1000 + 1000);
    CHECKF(fabs(qpb_peak_bps(&flat) - 1e9) < 1e-3, "flat peak %f", qpb_peak_bps(&flat));
    /* 128 cycles in flight (deeper than the window): the peak is still at least the average */
    qpb_peak deep;
    qpb_peak_init(&deep, 4096);
    uint64_t first = 0, last = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        uint64_t s0 = i * 100, e0 = s0 + 128 * 100 + (i % 7) * 10;
        last = e0 > last ? e0 : last;
        qpb_peak_add(&deep, i, s0, last);
    }
    double avg = 2000.0 * 4096 * 1e9 / (double)(last - first);
    CHECKF(qpb_peak_bps(&deep) >= avg * (1 - 1e-12), "deep peak %f < average %f", qpb_peak_bps(&deep), avg);
}

/* CQ moderation and post lists: groups of cycles share one end (the completion that covers them) and
 * groups share one start (posted together); groups of every size around the window. */
static void bw_peak_of_grouped_ends_matches_brute_force(void)
{
    enum { N = 2000 };
    static uint64_t start[N], end[N];
    uint64_t st = 11;
    for (int round = 0; round < 6; round++) {
        qpb_peak pk;
        qpb_peak_init(&pk, 64 << (round % 3));
        uint64_t t = 5000, group_end = 0;
        uint32_t left = 0, posted_together = 0;
        for (size_t i = 0; i < N; i++) {
            if (left == 0) {
                left = 1 + (uint32_t)(lcg(&st) % (round % 3 == 0 ? 3 : round % 3 == 1 ? 70 : 150));
                group_end = t + 128 * 40 + lcg(&st) % 4000;
            }
            left--;
            start[i] = t;
            if (posted_together > 0) {
                posted_together--;
            } else {
                t += 20 + lcg(&st) % (i % 500 < 50 ? 5 : 60); /* bursts of fast posts */
                posted_together = round < 3 ? 0 : (uint32_t)(lcg(&st) % 100); /* post lists up to 100 */
            }
            end[i] = group_end > t ? group_end : t + 1;
            group_end = end[i];
            qpb_peak_add(&pk, i, start[i], end[i]);
            if (i == 63 || i == 64 || i == 700) { /* read while a group is still open */
                double ref = peak_reference(start, end, pk.bytes_per_cycle, i + 1);
                CHECKF(fabs(qpb_peak_bps(&pk) - ref) <= 1e-9 * ref, "round %d after %zu: %f vs %f", round, i,
                       qpb_peak_bps(&pk), ref);
            }
        }
        double ref = peak_reference(start, end, pk.bytes_per_cycle, N);
        CHECKF(fabs(qpb_peak_bps(&pk) - ref) <= 1e-9 * ref, "round %d: peak %f vs %f", round, qpb_peak_bps(&pk), ref);
    }
    /* 200 cycles posted at once whose ends spread out: the best window starts 63 cycles before its end,
     * inside the start group, not at the group's first cycle. */
    qpb_peak mid;
    qpb_peak_init(&mid, 64);
    for (size_t i = 0; i < 400; i++) {
        start[i] = i < 200 ? 1000 : 1000 * i;
        end[i] = i < 200 ? 2000 + 10 * i : 1000 * i + 500;
        qpb_peak_add(&mid, i, start[i], end[i]);
    }
    double ref = peak_reference(start, end, 64, 400);
    CHECKF(fabs(qpb_peak_bps(&mid) - ref) <= 1e-9 * ref, "start group wider than the window: peak %f vs %f",
           qpb_peak_bps(&mid), ref);
}

/* What the recorder (qpb_record.h) does per cycle, without intervals falling due. */
static void add_cycle(qpb_stats *s, uint64_t cycle, uint64_t start_ns, uint64_t end_ns, uint32_t errors)
{
    if (end_ns != s->end_seen) {
        if (end_ns != s->peak.last_end)
            qpb_peak_group_ended(&s->peak);
        s->peak.last_end = end_ns;
        s->end_seen = end_ns;
    }
    qpb_stats_add(s, cycle, start_ns, end_ns, errors);
}

static void closing_an_interval_writes_its_record_and_merges_it(void)
{
    qpb_stats s;
    CHECK(qpb_stats_init(&s, 8, 2));
    uint8_t *rec = malloc(QPB_INTERVAL_MAX_BYTES);
    qpb_stats_open(&s, 3, 400, 0, 100);
    for (uint64_t i = 0; i < 10; i++)
        add_cycle(&s, i, 100 + i * 10, i == 9 ? 100 + 90 + 300 : 130 + i * 10, i == 3);
    CHECK(qpb_stats_open_cycles(&s) == 10 && s.cycles == 0);
    uint32_t want = qpb_stats_record_bytes(&s);
    uint32_t len = qpb_stats_close(&s, 5, 100, rec);
    CHECK(want == len);
    qpb_interval iv;
    memcpy(&iv, rec, sizeof iv);
    const qpb_interval_bucket *b = (const qpb_interval_bucket *)(rec + sizeof iv);
    CHECK(len == sizeof iv + 2 * sizeof *b && iv.size == len && iv.buckets == 2 && iv.thread == 5);
    CHECK(iv.index == 3 && iv.span == 2); /* its last cycle ended at 490 ns: interval 4 of 100 ns */
    CHECK(iv.cycles == 10 && iv.messages == 20 && iv.bytes == 80 && iv.errors == 1);
    CHECK(iv.min_ns == 30 && iv.max_ns == 300 && iv.first_start_ns == 100 && iv.last_end_ns == 490);
    CHECK(b[0].bucket == 30 && b[0].count == 9 && b[1].bucket == 128 + (300 >> 1) && b[1].count == 1);
    /* the run has it now, and the interval's histogram is empty again */
    CHECK(s.cycles == 10 && s.errors == 1 && s.first_start_ns == 100 && s.last_end_ns == 490 && s.intervals == 1);
    CHECK(s.cycle_ns.n == 10 && s.cycle_ns.min == 30 && s.cycle_ns.max == 300 && s.hist.count == 10);
    CHECK(s.hist.buckets[30] == 9 && s.iv.buckets[30] == 0 && !s.iv.open && s.iv.boundary_ns == 0);
    CHECK(fabs(qpb_moments_mean(&s.cycle_ns) - 57.0) < 1e-9);
    /* nothing open: nothing written */
    CHECK(qpb_stats_close(&s, 5, 100, rec) == 0 && s.intervals == 1);
    free(rec);
    qpb_stats_free(&s);
}

static void bucket_index_is_the_stored_bucket(void)
{
    /* V3__run_histogram.sql: exact below 256; above, e = floor(log2 ns) - 7 and e * 128 + (ns >> e) */
    const uint64_t values[] = {0, 1, 127, 128, 255, 256, 257, 511, 512, 1000, 123456789, 1ull << 44, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        uint64_t v = values[i];
        uint64_t want = v < 256 ? v : (uint64_t)(63 - __builtin_clzll(v) - 7) * 128 + (v >> (63 - __builtin_clzll(v) - 7));
        CHECKF(qpb_hist_index(v) == want, "%llu: bucket %llu, stored %llu", (unsigned long long)v, (unsigned long long)qpb_hist_index(v),
               (unsigned long long)want);
        CHECK(qpb_hist_index(v) < QPB_HIST_BUCKETS);
    }
}

const qpb_test_case qpb_stats_tests[] = {
    {"stats percentiles of known distributions within 1%", percentiles_of_known_distributions_within_one_percent},
    {"stats moments match two-pass where naive sums cancel", moments_match_two_pass_where_naive_sums_cancel},
    {"stats moments: stdev exact where the sum of squares wraps 128 bits", moments_stdev_exact_where_n_times_squares_overflows},
    {"stats bw peak is the best window of up to 64 cycles or from the first", bw_peak_is_best_short_or_leading_window},
    {"stats bw peak of grouped starts and ends matches brute force", bw_peak_of_grouped_ends_matches_brute_force},
    {"stats closing an interval writes its record and merges it into the run", closing_an_interval_writes_its_record_and_merges_it},
    {"stats bucket index is the controller's stored bucket", bucket_index_is_the_stored_bucket},
    {NULL, NULL},
};
