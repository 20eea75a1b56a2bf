/*
 * qpb_stats.c — exact moments, the log-linear histogram, the BW peak window
 * and the closing of intervals. The bounds and definitions are documented in
 * qpb_stats.h; the per-cycle path is inline there.
 */
#include "qpb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(qpb_interval) == 88, "qpb_interval is 88 bytes: the Java binding relies on it");
_Static_assert(sizeof(qpb_interval_bucket) == 16, "qpb_interval_bucket is 16 bytes");
_Static_assert(QPB_INTERVAL_MAX_BYTES == sizeof(qpb_interval) + QPB_HIST_BUCKETS * sizeof(qpb_interval_bucket),
               "QPB_INTERVAL_MAX_BYTES (qpb.h) is a header and every bucket");

void qpb_moments_add(qpb_moments *w, uint64_t value)
{
    if (w->n == 0 || value < w->min)
        w->min = value;
    if (w->n == 0 || value > w->max)
        w->max = value;
    w->n++;
    w->sum += value;
    w->sq += (unsigned __int128)value * value;
}

void qpb_moments_merge(qpb_moments *into, const qpb_moments *from)
{
    if (from->n == 0)
        return;
    if (into->n == 0 || from->min < into->min)
        into->min = from->min;
    if (into->n == 0 || from->max > into->max)
        into->max = from->max;
    into->n += from->n;
    into->sum += from->sum;
    into->sq += from->sq;
}

double qpb_moments_mean(const qpb_moments *w)
{
    return w->n > 0 ? (double)((long double)w->sum / (long double)w->n) : 0.0;
}

double qpb_moments_stdev(const qpb_moments *w)
{
    if (w->n == 0)
        return 0.0;
    long double n = (long double)w->n;
    /* n^2 var = n sq - sum^2 is never negative and, computed modulo 2^128, exact whenever it fits; it does
     * while n x (max - min) < 2^64, since var <= (max - min)^2 / 4 (Popoviciu) */
    unsigned __int128 spread = (unsigned __int128)w->n * (w->max - w->min);
    if (spread >> 64 == 0) {
        unsigned __int128 n2var = (unsigned __int128)w->n * w->sq - w->sum * w->sum;
        return (double)sqrtl((long double)n2var / (n * n));
    }
    long double m = (long double)w->sum / n, var = (long double)w->sq / n - m * m;
    return var > 0 ? (double)sqrtl(var) : 0.0;
}

/* Midpoint of the integer values that fall into bucket idx. */
static uint64_t hist_value(uint32_t idx)
{
    if (idx < 2 * QPB_HIST_SUB)
        return idx;
    uint32_t shift = idx / QPB_HIST_SUB - 1;
    uint64_t lower = (uint64_t)(idx - shift * QPB_HIST_SUB) << shift;
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
    h->buckets[qpb_hist_index(value)]++;
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

void qpb_peak_init(qpb_peak *pk, uint64_t bytes_per_cycle)
{
    memset(pk, 0, sizeof(*pk));
    pk->bytes_per_cycle = bytes_per_cycle;
    pk->last_start = UINT64_MAX;
    pk->last_end = UINT64_MAX;
    pk->last_cycle = UINT64_MAX;
}

/* Keeps b/d when it beats *best_b / *best_d. Integer cross-multiplication:
 * no division and no floating point (floating point is emulated, and slow,
 * where the engine runs in TCG VMs). */
static inline void keep_better(uint64_t *best_b, uint64_t *best_d, uint64_t b, uint64_t d)
{
    if (*best_d == 0 || (unsigned __int128)b * *best_d > (unsigned __int128)*best_b * d) {
        *best_b = b;
        *best_d = d;
    }
}

static inline bool beats(uint64_t b, uint64_t d, uint64_t best_b, uint64_t best_d)
{
    return best_d == 0 || (unsigned __int128)b * best_d > (unsigned __int128)best_b * d;
}

/*
 * The best windows that end at the latest cycle j (end E): from the first
 * cycle, and from each start group that reaches into the last 64 cycles, at
 * its first cycle or at j - 63, whichever is later (the same start, more
 * cycles). Newest group first: the older a group, the longer its span, so
 * once 64 cycles over the span from a group's start cannot beat the best so
 * far, no older group can either and none is computed.
 */
static inline __attribute__((always_inline)) void windows_to_latest(const qpb_peak *pk, uint64_t *best_b,
                                                                      uint64_t *best_d)
{
    uint64_t j = pk->last_cycle, e = pk->last_end, b = pk->bytes_per_cycle;
    uint64_t oldest = j >= QPB_PEAK_WINDOW - 1 ? j - (QPB_PEAK_WINDOW - 1) : 0;
    if (e > pk->first_start)
        keep_better(best_b, best_d, (j + 1) * b, e - pk->first_start);
    uint32_t pushed = pk->leads < QPB_PEAK_WINDOW ? pk->leads : QPB_PEAK_WINDOW;
    for (uint32_t k = 1; k <= pushed; k++) {
        uint32_t slot = (pk->leads - k) % QPB_PEAK_WINDOW;
        uint64_t start = pk->lead_start[slot];
        if (e <= start)
            continue; /* a group posted after this end: it is not in a window ending here */
        if (!beats(QPB_PEAK_WINDOW * b, e - start, *best_b, *best_d))
            break;
        uint64_t first = pk->lead_cycle[slot] > oldest ? pk->lead_cycle[slot] : oldest;
        keep_better(best_b, best_d, (j - first + 1) * b, e - start);
        if (pk->lead_cycle[slot] <= oldest)
            break; /* older groups end before the window */
    }
}

void qpb_peak_group_ended(qpb_peak *pk)
{
    if (pk->leads > 0)
        windows_to_latest(pk, &pk->best_bytes, &pk->best_ns);
}

double qpb_peak_bps(const qpb_peak *pk)
{
    uint64_t b = pk->best_bytes, d = pk->best_ns;
    if (pk->leads > 0)
        windows_to_latest(pk, &b, &d); /* the group still open */
    return d > 0 ? (double)b * 1e9 / (double)d : 0.0;
}

bool qpb_stats_init(qpb_stats *st, uint64_t cycle_bytes, uint64_t cycle_messages)
{
    memset(st, 0, sizeof(*st));
    st->cycle_bytes = cycle_bytes;
    st->cycle_messages = cycle_messages;
    st->end_seen = UINT64_MAX;
    qpb_peak_init(&st->peak, cycle_bytes);
    return qpb_hist_init(&st->hist);
}

void qpb_stats_free(qpb_stats *st)
{
    qpb_hist_free(&st->hist);
}

void qpb_stats_open(qpb_stats *st, uint64_t index, uint64_t boundary_ns, uint64_t cycle, uint64_t start_ns)
{
    qpb_interval_acc *iv = &st->iv;
    iv->open = true;
    iv->index = index;
    iv->boundary_ns = boundary_ns;
    iv->first_cycle = cycle;
    iv->first_start_ns = start_ns;
    iv->errors = 0;
    iv->min = UINT64_MAX;
    iv->max = 0;
    iv->sum = 0;
    iv->sq = 0;
}

uint32_t qpb_stats_record_bytes(const qpb_stats *st)
{
    const qpb_interval_acc *iv = &st->iv;
    if (qpb_stats_open_cycles(st) == 0)
        return 0;
    uint32_t n = 0;
    for (uint32_t b = qpb_hist_index(iv->min), hi = qpb_hist_index(iv->max); b <= hi; b++)
        n += iv->buckets[b] != 0;
    return (uint32_t)(sizeof(qpb_interval) + n * sizeof(qpb_interval_bucket));
}

uint32_t qpb_stats_record_bound(const qpb_stats *st)
{
    if (qpb_stats_open_cycles(st) == 0)
        return 0;
    uint64_t buckets = qpb_hist_index(st->iv.max) - qpb_hist_index(st->iv.min) + 1;
    return (uint32_t)(sizeof(qpb_interval) + buckets * sizeof(qpb_interval_bucket));
}

uint32_t qpb_stats_close(qpb_stats *st, uint32_t thread, uint64_t interval_ns, void *out)
{
    qpb_interval_acc *iv = &st->iv;
    uint64_t cycles = qpb_stats_open_cycles(st);
    iv->open = false;
    iv->boundary_ns = 0;
    if (cycles == 0)
        return 0;
    uint64_t last_end = st->peak.last_end;
    qpb_interval_bucket *pairs = out != NULL ? (qpb_interval_bucket *)((char *)out + sizeof(qpb_interval)) : NULL;
    uint32_t n = 0;
    for (uint32_t b = qpb_hist_index(iv->min), hi = qpb_hist_index(iv->max); b <= hi; b++) {
        /* a wide range is mostly empty: skip four empty buckets at a time */
        while (b + 3 <= hi && (iv->buckets[b] | iv->buckets[b + 1] | iv->buckets[b + 2] | iv->buckets[b + 3]) == 0)
            b += 4;
        if (b > hi)
            break;
        uint64_t c = iv->buckets[b];
        if (c == 0)
            continue;
        if (pairs != NULL)
            pairs[n++] = (qpb_interval_bucket){.bucket = b, .count = c};
        st->hist.buckets[b] += c;
        iv->buckets[b] = 0;
    }
    st->hist.count += cycles;
    qpb_moments m = {.n = cycles, .sum = iv->sum, .sq = iv->sq, .min = iv->min, .max = iv->max};
    qpb_moments_merge(&st->cycle_ns, &m);
    if (st->cycles == 0)
        st->first_start_ns = iv->first_start_ns;
    st->cycles += cycles;
    st->errors += iv->errors;
    st->last_end_ns = last_end;
    if (out == NULL)
        return 0;
    uint64_t last_index = interval_ns > 0 ? last_end / interval_ns : iv->index;
    qpb_interval h = {
        .size = (uint32_t)(sizeof(qpb_interval) + n * sizeof(qpb_interval_bucket)), .thread = thread,
        .index = iv->index, .span = (uint32_t)(last_index >= iv->index ? last_index - iv->index + 1 : 1),
        .buckets = n, .cycles = cycles, .messages = cycles * st->cycle_messages, .bytes = cycles * st->cycle_bytes,
        .errors = iv->errors, .min_ns = iv->min, .max_ns = iv->max, .first_start_ns = iv->first_start_ns,
        .last_end_ns = last_end,
    };
    memcpy(out, &h, sizeof h);
    st->intervals++;
    return h.size;
}
