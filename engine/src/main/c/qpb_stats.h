/*
 * qpb_stats.h — the statistics of one thread's cycles, kept by the worker
 * itself so that they cover every cycle whatever happens to trace records.
 *
 * Per cycle the worker does O(1) work with no lock, allocation, division or
 * system call (qpb_record.h): it adds the cycle to its open interval, whose
 * accumulators are the only ones touched per cycle. Every interval_ms the
 * interval is closed (qpb_stats_close): its sparse histogram and counters
 * become an interval record (qpb_interval, qpb.h) and are merged into the
 * run's totals, from which the summary is computed. A summary-only session
 * closes one interval, at the end.
 *
 * Cycle time (end_ns - start_ns):
 *   - min/max exactly; avg and stdev from exact integer sums of the value and
 *     of its square (128 bits, modular: n^2 var = n sq - sum^2 is exact while
 *     n x (max - min) < 2^64, beyond that long double), no floating point per
 *     cycle (in the TCG lab every floating-point instruction is a softfloat
 *     call).
 *   - median/p99/p99.9 from a log-linear histogram: values below 256 ns get
 *     their own bucket; above, each power of two [2^e, 2^(e+1)) is split into
 *     128 equal buckets, up to 2^64. A percentile reports its bucket's
 *     midpoint (clamped to the observed min/max), so its relative error is at
 *     most (width/2)/lower_bound = 1/(2*128) = 0.39% (bound: <= 1%). The rank
 *     is perftest's nearest-rank: the ceil(p*N)-th smallest value. The bucket
 *     of a value is the controller's stored bucket (V3__run_histogram.sql).
 * Bandwidth (perftest's definitions; every cycle of a run carries the same
 * bytes, one message on each of its connections):
 *   - average = bytes / (last end - first start).
 *   - peak = the best bytes(i..j) / (end_j - start_i) over every window of
 *     up to QPB_PEAK_WINDOW consecutive cycles i..j and every window that
 *     starts at the first cycle (perftest takes every window of its
 *     messages; bounding them keeps the cost per cycle constant, and the
 *     windows from the first cycle keep peak >= average even when more than
 *     QPB_PEAK_WINDOW cycles are in flight). A sender starts its cycles in
 *     order, so starts never decrease and ends, read in order, never either:
 *     of the windows that end in a group of cycles with one end (one
 *     completion covers them under CQ moderation), the best ends at the
 *     group's last cycle, and of the windows that start in a group with one
 *     start (one post list), the best starts at its first cycle or 63 cycles
 *     back from the end. So only group changes cost anything: about one
 *     window per group instead of 65 per cycle (qpb_stats.c). A session's
 *     peak is the sum of its threads' peaks, as one adds up the peaks of
 *     several perftest processes.
 */
#ifndef QPB_STATS_H
#define QPB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpb.h"

#define QPB_HIST_SUB_BITS 7
#define QPB_HIST_SUB (1u << QPB_HIST_SUB_BITS)
/* Buckets 0..255 hold 0..255 ns; then 128 per power of two up to 2^64. */
#define QPB_HIST_BUCKETS ((64u - QPB_HIST_SUB_BITS + 1u) * QPB_HIST_SUB)
#define QPB_PEAK_WINDOW 64

typedef struct qpb_moments {
    uint64_t n;
    unsigned __int128 sum; /* of the values (modulo 2^128) */
    unsigned __int128 sq;  /* of their squares (modulo 2^128) */
    uint64_t min;
    uint64_t max;
} qpb_moments;

typedef struct qpb_hist {
    uint64_t count;
    uint64_t *buckets; /* QPB_HIST_BUCKETS */
} qpb_hist;

/* The groups of the last QPB_PEAK_WINDOW cycles that started at one time. */
typedef struct qpb_peak {
    uint64_t lead_start[QPB_PEAK_WINDOW]; /* start of a group's first cycle */
    uint64_t lead_cycle[QPB_PEAK_WINDOW]; /* and its index */
    uint32_t leads;                       /* groups pushed, free-running */
    uint64_t bytes_per_cycle;
    uint64_t last_cycle;  /* index of the latest cycle (UINT64_MAX: none yet) */
    uint64_t first_start;
    uint64_t last_start;
    uint64_t last_end;    /* end of the latest cycle (its group may grow) */
    uint64_t best_bytes;  /* the best window of the groups that ended: best_bytes / best_ns */
    uint64_t best_ns;
} qpb_peak;

/* The open interval: everything the per-cycle path updates. */
typedef struct qpb_interval_acc {
    bool open;
    uint64_t index;        /* interval number of its first cycle (by end, from t0) */
    uint64_t boundary_ns;  /* a cycle that ends here or later closes it; 0 when none is open */
    uint64_t first_cycle;  /* index of its first cycle: cycles are recorded in order */
    uint64_t first_start_ns;
    uint64_t errors;
    uint64_t min, max;
    /* Sum of its cycle times: at most tx_depth cycles are in flight at once, so it is at most tx_depth x the
     * time from its first start to its last end, under 2^64 for any interval shorter than 52 days. */
    uint64_t sum;
    unsigned __int128 sq;
    uint64_t buckets[QPB_HIST_BUCKETS]; /* zero outside the buckets of [min, max] */
} qpb_interval_acc;

typedef struct qpb_stats {
    /* the run: the closed intervals merged */
    uint64_t cycles;
    uint64_t errors;
    uint64_t first_start_ns;
    uint64_t last_end_ns;
    uint64_t cycle_bytes;    /* bytes of every cycle (msg_size x connections) */
    uint64_t cycle_messages; /* messages of every cycle (connections) */
    qpb_moments cycle_ns;
    qpb_hist hist;
    uint64_t intervals;      /* records closed */
    /* The end the per-cycle path compares with: a cycle that ends at another time looks further (a group
     * of equal ends is over, the interval may be due); UINT64_MAX makes the next cycle look, whatever its end. */
    uint64_t end_seen;
    qpb_peak peak;
    qpb_interval_acc iv;
} qpb_stats;

bool qpb_stats_init(qpb_stats *st, uint64_t cycle_bytes, uint64_t cycle_messages);
void qpb_stats_free(qpb_stats *st);

/* The bucket of a value: v below 256 is its own, else 128 per power of two. */
static inline uint64_t qpb_hist_index(uint64_t v)
{
    uint32_t shift = (uint32_t)(63 ^ __builtin_clzll(v | QPB_HIST_SUB)) - QPB_HIST_SUB_BITS; /* bsr: >= 0 */
    return ((uint64_t)shift << QPB_HIST_SUB_BITS) + (v >> shift);
}

void qpb_peak_init(qpb_peak *pk, uint64_t bytes_per_cycle);
/* A group of equal ends is over: the windows that end at its last cycle. */
void qpb_peak_group_ended(qpb_peak *pk);

/* A group of equal starts begins at cycle. */
static inline void qpb_peak_group_started(qpb_peak *pk, uint64_t cycle, uint64_t start_ns)
{
    if (pk->leads == 0)
        pk->first_start = start_ns;
    uint32_t slot = pk->leads % QPB_PEAK_WINDOW;
    pk->lead_start[slot] = start_ns;
    pk->lead_cycle[slot] = cycle;
    pk->leads++;
    pk->last_start = start_ns;
}
double qpb_peak_bps(const qpb_peak *pk); /* bytes per second, 0 if none */

/* One cycle: indexes 0, 1, 2, ... in order, starts and ends never decrease
 * (last_start and last_end begin at UINT64_MAX, which no time reaches).
 * qpb_stats_add does the same with the end's part in the recorder's slow path. */
static inline void qpb_peak_add(qpb_peak *pk, uint64_t cycle, uint64_t start_ns, uint64_t end_ns)
{
    if (end_ns != pk->last_end) {
        qpb_peak_group_ended(pk);
        pk->last_end = end_ns;
    }
    if (start_ns != pk->last_start)
        qpb_peak_group_started(pk, cycle, start_ns);
    pk->last_cycle = cycle;
}

/* Opens an interval at cycle, which starts at start_ns; boundary_ns is where
 * it closes (UINT64_MAX: at the end of the run). */
void qpb_stats_open(qpb_stats *st, uint64_t index, uint64_t boundary_ns, uint64_t cycle, uint64_t start_ns);

/* The per-cycle path: adds one cycle to the open interval. Inline: the
 * providers' loops run it for every cycle (qpb_record.h), after what a
 * cycle whose end is not end_seen needs (the peak's group end, a due
 * interval). */
static inline void qpb_stats_add(qpb_stats *st, uint64_t cycle, uint64_t start_ns, uint64_t end_ns, uint64_t errors)
{
    qpb_interval_acc *iv = &st->iv;
    uint64_t d = end_ns - start_ns;
    iv->errors += errors;
    if (d < iv->min)
        iv->min = d;
    if (d > iv->max)
        iv->max = d;
    iv->sum += d;
    iv->sq += (unsigned __int128)d * d;
    iv->buckets[qpb_hist_index(d)]++;
    qpb_peak *pk = &st->peak;
    if (start_ns != pk->last_start)
        qpb_peak_group_started(pk, cycle, start_ns);
    pk->last_cycle = cycle;
}

/* The open interval's cycles so far. */
static inline uint64_t qpb_stats_open_cycles(const qpb_stats *st)
{
    return st->iv.open ? st->peak.last_cycle + 1 - st->iv.first_cycle : 0;
}

/*
 * Closes the open interval and merges it into the run; when out is not NULL
 * (QPB_INTERVAL_MAX_BYTES) its record for thread goes there, with a span up
 * to the interval of its last cycle. Returns the record's bytes, 0 when
 * nothing was written (no cycle, or out NULL: a summary-only session).
 */
uint32_t qpb_stats_close(qpb_stats *st, uint32_t thread, uint64_t interval_ns, void *out);

/* The bytes the open interval's record would take (0: no cycle yet), and a
 * bound on them without counting its buckets (one per bucket of [min, max]). */
uint32_t qpb_stats_record_bytes(const qpb_stats *st);
uint32_t qpb_stats_record_bound(const qpb_stats *st);

void qpb_moments_add(qpb_moments *w, uint64_t value);
void qpb_moments_merge(qpb_moments *into, const qpb_moments *from);
double qpb_moments_mean(const qpb_moments *w);
double qpb_moments_stdev(const qpb_moments *w); /* population stdev, like perftest */

bool qpb_hist_init(qpb_hist *h);
void qpb_hist_free(qpb_hist *h);
void qpb_hist_add(qpb_hist *h, uint64_t value);
void qpb_hist_merge(qpb_hist *into, const qpb_hist *from);
/* Nearest-rank percentile, p in (0,1]; clamped to [min,max]; 0 if empty. */
uint64_t qpb_hist_percentile(const qpb_hist *h, double p, uint64_t min, uint64_t max);

#endif /* QPB_STATS_H */
