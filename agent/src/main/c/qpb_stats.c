/*
 * qpb_stats.c — exact moments, the log-linear histogram and the BW peak window.
 * The bounds and definitions are documented in qpb_stats.h.
 */
#include "qpb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void qpb_moments_add(qpb_moments *w, uint64_t value)
{
    if (w->n == 0) {
        w->shift = w->min = w->max = value;
    } else {
        if (value < w->min)
            w->min = value;
        if (value > w->max)
            w->max = value;
    }
    w->n++;
    int64_t d = (int64_t)(value - w->shift);
    w->sum += d;
    w->sq += (unsigned __int128)((__int128)d * d);
}

void qpb_moments_merge(qpb_moments *into, const qpb_moments *from)
{
    if (from->n == 0)
        return;
    if (into->n == 0) {
        *into = *from;
        return;
    }
    /* from's values relative to into's shift: d' = d + k, k = from.shift - into.shift */
    __int128 k = (__int128)from->shift - (__int128)into->shift;
    into->sq += from->sq + (unsigned __int128)(2 * k * from->sum) + (unsigned __int128)((__int128)from->n * k * k);
    into->sum += from->sum + (__int128)from->n * k;
    into->n += from->n;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
}

double qpb_moments_mean(const qpb_moments *w)
{
    return w->n > 0 ? (double)w->shift + (double)((long double)w->sum / (long double)w->n) : 0.0;
}

double qpb_moments_stdev(const qpb_moments *w)
{
    if (w->n == 0)
        return 0.0;
    /* n^2 var = n sq - sum^2 is never negative and, computed modulo 2^128, exact whenever it fits
     * (n x stdev < 2^64), even when n sq itself does not; a long double estimate says which */
    long double n = (long double)w->n, m = (long double)w->sum / n;
    long double var = (long double)w->sq / n - m * m;
    if (var * n * n < 0x1p120L) {
        unsigned __int128 abs_sum = (unsigned __int128)(w->sum < 0 ? -w->sum : w->sum);
        var = (long double)((unsigned __int128)w->n * w->sq - abs_sum * abs_sum) / (n * n);
    } else if (var < 0) {
        var = 0;
    }
    return (double)sqrtl(var);
}

static uint32_t hist_index(uint64_t v)
{
    if (v < QPB_HIST_SUB)
        return (uint32_t)v;
    if (v >> QPB_HIST_MAX_EXP)
        v = (1ull << QPB_HIST_MAX_EXP) - 1;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(v);
    uint32_t shift = e - QPB_HIST_SUB_BITS;
    return QPB_HIST_SUB + shift * QPB_HIST_SUB + (uint32_t)((v >> shift) - QPB_HIST_SUB);
}

/* Midpoint of the integer values that fall into bucket idx. */
static uint64_t hist_value(uint32_t idx)
{
    if (idx < QPB_HIST_SUB)
        return idx;
    uint32_t b = idx - QPB_HIST_SUB;
    uint32_t shift = b / QPB_HIST_SUB;
    uint64_t lower = (uint64_t)(b % QPB_HIST_SUB + QPB_HIST_SUB) << shift;
    uint64_t width = 1ull << shift;
    return lower + (width - 1) / 2;
}

bool qpb_hist_init(qpb_hist *h)
{
    h->count = 0;
    h->buckets = calloc(QPB_HIST_BUCKETS, sizeof(uint64_t));
    return h->buckets != NULL;
}

void qpb_hist_free(qpb_hist *h)
{
    free(h->buckets);
    h->buckets = NULL;
}

void qpb_hist_add(qpb_hist *h, uint64_t value)
{
    h->buckets[hist_index(value)]++;
    h->count++;
}

void qpb_hist_merge(qpb_hist *into, const qpb_hist *from)
{
    for (uint32_t i = 0; i < QPB_HIST_BUCKETS; i++)
        into->buckets[i] += from->buckets[i];
    into->count += from->count;
}

uint64_t qpb_hist_percentile(const qpb_hist *h, double p, uint64_t min, uint64_t max)
{
    if (h->count == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(p * (double)h->count);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t seen = 0;
    uint32_t i = 0;
    for (; i < QPB_HIST_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank)
            break;
    }
    uint64_t v = hist_value(i < QPB_HIST_BUCKETS ? i : QPB_HIST_BUCKETS - 1);
    if (v < min)
        v = min;
    if (v > max)
        v = max;
    return v;
}

/* Keeps b/d when it beats *best_b / *best_d. Integer cross-multiplication:
 * no division and no floating point in the per-cycle path (floating point is
 * emulated, and slow, where the engine runs in TCG VMs). */
static inline void keep_better(uint64_t *best_b, uint64_t *best_d, uint64_t b, uint64_t d)
{
    if (*best_d == 0 || (unsigned __int128)b * *best_d > (unsigned __int128)*best_b * d) {
        *best_b = b;
        *best_d = d;
    }
}

/* Every window that ends at the latest cycle: those starting at one of the
 * last QPB_PEAK_WINDOW cycles, and the one from the first cycle. */
static void windows_to_latest(const qpb_peak *pk, uint64_t *best_b, uint64_t *best_d)
{
    uint64_t window = pk->n < QPB_PEAK_WINDOW ? pk->n : QPB_PEAK_WINDOW;
    for (uint64_t k = 0; k < window; k++) {
        uint32_t i = (uint32_t)((pk->n - 1 - k) % QPB_PEAK_WINDOW);
        if (pk->last_end > pk->start[i])
            keep_better(best_b, best_d, pk->total_bytes - pk->bytes_before[i], pk->last_end - pk->start[i]);
    }
    if (pk->last_end > pk->first_start)
        keep_better(best_b, best_d, pk->total_bytes, pk->last_end - pk->first_start);
}

/*
 * Cycles that end at the same time (one signaled completion covers many
 * cycles under CQ moderation, and one poll reads them together) form a
 * group. Of the windows a cycle j of a group could end, [i..j] is never
 * better than [i..j'] with j' the group's last cycle, or with j' = i + 63
 * when that comes first: the same duration, more bytes. So only those are
 * computed: the 64-cycle window when each cycle arrives, and every window to
 * the group's last cycle once the group is over (a cycle with another end
 * arrives, or the peak is read). The best is the same as checking all
 * windows at every cycle; the cost is one window per cycle plus 65 per
 * group instead of 65 per cycle.
 */
void qpb_peak_add(qpb_peak *pk, uint64_t start_ns, uint64_t end_ns, uint64_t bytes)
{
    if (pk->n > 0 && end_ns != pk->last_end)
        windows_to_latest(pk, &pk->best_bytes, &pk->best_ns);
    if (pk->n == 0)
        pk->first_start = start_ns;
    uint32_t slot = (uint32_t)(pk->n % QPB_PEAK_WINDOW);
    pk->start[slot] = start_ns;
    pk->bytes_before[slot] = pk->total_bytes;
    pk->total_bytes += bytes;
    pk->last_end = end_ns;
    pk->n++;
    if (pk->n >= QPB_PEAK_WINDOW) { /* the longest window ending here; its start leaves the window next */
        uint32_t i = (uint32_t)((pk->n - QPB_PEAK_WINDOW) % QPB_PEAK_WINDOW);
        if (end_ns > pk->start[i])
            keep_better(&pk->best_bytes, &pk->best_ns, pk->total_bytes - pk->bytes_before[i], end_ns - pk->start[i]);
    }
}

double qpb_peak_bps(const qpb_peak *pk)
{
    uint64_t b = pk->best_bytes, d = pk->best_ns;
    if (pk->n > 0)
        windows_to_latest(pk, &b, &d); /* the group still open */
    return d > 0 ? (double)b * 1e9 / (double)d : 0.0;
}

bool qpb_stats_init(qpb_stats *st)
{
    memset(st, 0, sizeof(*st));
    return qpb_hist_init(&st->hist);
}

void qpb_stats_free(qpb_stats *st)
{
    qpb_hist_free(&st->hist);
}

void qpb_stats_add(qpb_stats *st, const qpb_sample *sample)
{
    if (st->cycles == 0 || sample->start_ns < st->first_start_ns)
        st->first_start_ns = sample->start_ns;
    if (sample->end_ns > st->last_end_ns)
        st->last_end_ns = sample->end_ns;
    st->cycles++;
    st->bytes += sample->bytes;
    st->messages += sample->messages;
    st->errors += sample->errors;
    uint64_t cycle_ns = sample->end_ns - sample->start_ns;
    qpb_moments_add(&st->cycle_ns, cycle_ns);
    qpb_hist_add(&st->hist, cycle_ns);
    qpb_peak_add(&st->peak, sample->start_ns, sample->end_ns, sample->bytes);
}
