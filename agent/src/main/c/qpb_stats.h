/*
 * qpb_stats.h — running statistics of one thread's cycles, kept by the
 * worker itself so they cover every cycle even when the record ring drops.
 *
 * Cycle time (end_ns - start_ns):
 *   - min/max/avg/stdev exactly, from integer sums of (value - the first
 *     value) and of its square (128 bits): no cancellation on long runs,
 *     unlike floating-point sum/sum-of-squares, and no floating point or
 *     division per cycle (Welford's update had one division per cycle; in
 *     the TCG lab every floating-point instruction is a softfloat call).
 *     Bounds: n x (value - first)^2 < 2^128 for the sums (2^40 cycles up to
 *     2^44 ns, 4.9 h, from the first); stdev exact while n x stdev < 2^64,
 *     beyond that long double.
 *   - median/p99/p99.9 from a log-linear histogram: values below 128 ns get
 *     their own bucket; above, each power of two [2^e, 2^(e+1)) is split into
 *     128 equal buckets. A percentile reports its bucket's midpoint (clamped
 *     to the observed min/max), so its relative error is at most
 *     (width/2)/lower_bound = 1/(2*128) = 0.39% (bound: <= 1%). The rank is
 *     perftest's nearest-rank: the ceil(p*N)-th smallest value. Values from
 *     2^44 ns (4.9 h) on land in the last bucket.
 * Bandwidth (perftest's definitions):
 *   - average = bytes / (last end - first start).
 *   - peak = the best bytes(i..j) / (end_j - start_i) over every window of
 *     up to QPB_PEAK_WINDOW consecutive cycles i..j and every window that
 *     starts at the first cycle (perftest takes every window of its
 *     messages; bounding them keeps the cost per cycle constant, and the
 *     windows from the first cycle keep peak >= average even when more
 *     than QPB_PEAK_WINDOW cycles are in flight). Cycles with the same end
 *     (one completion under CQ moderation) are computed as a group, which
 *     skips the windows a longer one with the same end beats (qpb_stats.c):
 *     about two windows per cycle instead of 65. A session's peak is the
 *     sum of its threads' peaks, as one adds up the peaks of several
 *     perftest processes.
 */
#ifndef QPB_STATS_H
#define QPB_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "qpb.h"

#define QPB_HIST_SUB_BITS 7
#define QPB_HIST_SUB (1u << QPB_HIST_SUB_BITS)
#define QPB_HIST_MAX_EXP 44
#define QPB_HIST_BUCKETS (QPB_HIST_SUB + (QPB_HIST_MAX_EXP - QPB_HIST_SUB_BITS) * QPB_HIST_SUB)
#define QPB_PEAK_WINDOW 64

typedef struct qpb_moments {
    uint64_t n;
    uint64_t shift;        /* the first value */
    __int128 sum;          /* of value - shift */
    unsigned __int128 sq;  /* of (value - shift)^2 */
    uint64_t min;
    uint64_t max;
} qpb_moments;

typedef struct qpb_hist {
    uint64_t count;
    uint64_t *buckets; /* QPB_HIST_BUCKETS */
} qpb_hist;

typedef struct qpb_peak {
    uint64_t start[QPB_PEAK_WINDOW];
    uint64_t bytes_before[QPB_PEAK_WINDOW]; /* bytes of all earlier cycles */
    uint64_t n;
    uint64_t total_bytes;
    uint64_t first_start;
    uint64_t last_end;   /* end of the latest cycle (its group may grow) */
    uint64_t best_bytes; /* the best window of the groups that ended: best_bytes / best_ns */
    uint64_t best_ns;
} qpb_peak;

typedef struct qpb_stats {
    uint64_t cycles;
    uint64_t bytes;
    uint64_t messages;
    uint64_t errors;
    uint64_t first_start_ns;
    uint64_t last_end_ns;
    qpb_moments cycle_ns;
    qpb_hist hist;
    qpb_peak peak;
} qpb_stats;

bool qpb_stats_init(qpb_stats *st);
void qpb_stats_free(qpb_stats *st);
void qpb_stats_add(qpb_stats *st, const qpb_sample *sample);

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

void qpb_peak_add(qpb_peak *pk, uint64_t start_ns, uint64_t end_ns, uint64_t bytes);
double qpb_peak_bps(const qpb_peak *pk); /* bytes per second, 0 if none */

#endif /* QPB_STATS_H */
