/*
 * qpb_record.h — what a sender does for every cycle it completes: add it to
 * its open interval (qpb_stats_add); when its end differs from the cycle
 * before, close the interval if the cycle ends past it; keep a trace record
 * when the spec asked for this cycle. Inline in the providers' loops; only
 * the rare steps are calls (qpb_session.c). No lock, allocation, division or
 * system call per cycle.
 */
#ifndef QPB_RECORD_H
#define QPB_RECORD_H

#include "qpb_internal.h"

/* The slow path of a cycle: one that ends past the open interval (or with
 * none open), and every cycle while a trace is kept (it is opt-in and
 * bounded). */
void qpb_record_slow(qpb_sender_out *out, uint64_t cycle, uint64_t start_ns, uint64_t end_ns, uint64_t errors);
void qpb_interval_tick_slow(qpb_sender_out *out, uint64_t now_ns);

/* Cycle number `cycle` (0, 1, 2, ... after the warm-up, in order) of the
 * thread that owns out: started start_ns, its last completion end_ns. Only a
 * cycle whose end differs from the one before looks further: the peak's
 * group of equal ends is over, and the interval may be due. */
static inline void qpb_record_cycle(qpb_sender_out *out, uint64_t cycle, uint64_t start_ns, uint64_t end_ns,
                                    uint64_t errors)
{
    qpb_stats *st = &out->stats;
    if (end_ns != st->end_seen) {
        if (end_ns != st->peak.last_end)
            qpb_peak_group_ended(&st->peak);
        if (end_ns >= st->iv.boundary_ns || out->trace_next != UINT64_MAX)
            qpb_record_slow(out, cycle, start_ns, end_ns, errors); /* before last_end moves: a closed interval ends there */
        st->peak.last_end = end_ns;
        st->end_seen = out->trace_next == UINT64_MAX ? end_ns : UINT64_MAX; /* a trace: every cycle comes here */
    }
    qpb_stats_add(st, cycle, start_ns, end_ns, errors);
}

/* Once per turn of a sender's loop: an interval whose time is over is closed
 * even while no cycle completes (a stalled link still shows in time). */
static inline void qpb_interval_tick(qpb_sender_out *out, uint64_t now_ns)
{
    if (now_ns >= out->stats.iv.boundary_ns && out->stats.iv.open)
        qpb_interval_tick_slow(out, now_ns);
}

#endif /* QPB_RECORD_H */
