/*
 * qpb_summary.c — the summary JSON of an ended run (key list in qpb.h; the
 * documented schema: protocol's run-summary.schema.json).
 *
 * Definitions follow perftest so numbers can be checked against it:
 * bw_avg_bps = bytes / (last completion - first post), msg_rate = messages
 * over the same span, bw_peak_bps = sum over threads of each thread's best
 * window (see qpb_stats.h), window_full_share = the threads' window_full_ns
 * over the sum of their spans. Extra keys beyond qpb.h: "side" ("sender" or, on
 * a server, "receiver": its numbers are what it received, it has no cycles;
 * in a bidirectional run both sides send: "sender" on both, each reporting
 * what it sent, and "received":{"bytes","messages","errors"} what its
 * receivers counted of the peer's messages: nothing for one-sided ops),
 * "bidirectional", "worker_threads" (the threads qpb_start ran: a bidirectional verbs send end runs
 * its senders only, each reaping its receives too; see qpb.h),
 * "status" and "error" (the run failure, or null), "warmup_cycles",
 * "tx_depth", "verify", "duration_ms".
 */
#include <stdio.h>
#include <string.h>

#include "qpb_counters.h"
#include "qpb_internal.h"
#include "qpb_json.h"

typedef struct totals {
    uint64_t cycles, bytes, messages, errors, intervals, late, traced, dropped;
    uint64_t window_full_ns, thread_ns; /* summed over the threads */
    uint64_t first_ns, last_ns;
    double peak_bps;
    bool any;
} totals;

static void put_rates(qpb_jw *w, uint64_t bytes, uint64_t messages, uint64_t first_ns, uint64_t last_ns,
                      double peak_bps)
{
    uint64_t dur = last_ns > first_ns ? last_ns - first_ns : 0;
    qpb_jw_key(w, "duration_ns");
    qpb_jw_u64(w, dur);
    qpb_jw_key(w, "bw_avg_bps");
    qpb_jw_dbl(w, dur ? (double)bytes * 1e9 / (double)dur : 0.0);
    qpb_jw_key(w, "bw_peak_bps");
    qpb_jw_dbl(w, peak_bps);
    qpb_jw_key(w, "msg_rate");
    qpb_jw_dbl(w, dur ? (double)messages * 1e9 / (double)dur : 0.0);
}

static void put_cycle_ns(qpb_jw *w, const qpb_moments *wf, const qpb_hist *h)
{
    qpb_jw_key(w, "cycle_ns");
    qpb_jw_obj_begin(w);
    qpb_jw_key(w, "min");
    qpb_jw_u64(w, wf->n ? wf->min : 0);
    qpb_jw_key(w, "median");
    qpb_jw_u64(w, h ? qpb_hist_percentile(h, 0.5, wf->min, wf->max) : 0);
    qpb_jw_key(w, "avg");
    qpb_jw_dbl(w, qpb_moments_mean(wf));
    qpb_jw_key(w, "stdev");
    qpb_jw_dbl(w, qpb_moments_stdev(wf));
    qpb_jw_key(w, "p99");
    qpb_jw_u64(w, h ? qpb_hist_percentile(h, 0.99, wf->min, wf->max) : 0);
    qpb_jw_key(w, "p999");
    qpb_jw_u64(w, h ? qpb_hist_percentile(h, 0.999, wf->min, wf->max) : 0);
    qpb_jw_key(w, "max");
    qpb_jw_u64(w, wf->n ? wf->max : 0);
    qpb_jw_obj_end(w);
}

/* perftest's *_lat figures of the same cycle times, in microseconds. */
static void put_latency_us(qpb_jw *w, const qpb_moments *wf, const qpb_hist *h)
{
    static const char *const keys[] = {"min", "max", "typical", "avg", "stdev", "p99", "p999"};
    double ns[] = {wf->n ? (double)wf->min : 0, wf->n ? (double)wf->max : 0,
                   h ? (double)qpb_hist_percentile(h, 0.5, wf->min, wf->max) : 0, qpb_moments_mean(wf),
                   qpb_moments_stdev(wf), h ? (double)qpb_hist_percentile(h, 0.99, wf->min, wf->max) : 0,
                   h ? (double)qpb_hist_percentile(h, 0.999, wf->min, wf->max) : 0};
    qpb_jw_key(w, "latency_us");
    qpb_jw_obj_begin(w);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        qpb_jw_key(w, keys[i]);
        qpb_jw_dbl(w, ns[i] / 1e3);
    }
    qpb_jw_obj_end(w);
}

static void put_count(qpb_jw *w, const char *key, uint64_t v)
{
    qpb_jw_key(w, key);
    qpb_jw_u64(w, v);
}

static void include_span(totals *t, uint64_t first, uint64_t last)
{
    if (!t->any || first < t->first_ns)
        t->first_ns = first;
    if (!t->any || last > t->last_ns)
        t->last_ns = last;
    t->any = true;
}

/* One per_thread entry; adds the thread into t. */
static void put_thread(qpb_session *s, qpb_jw *w, uint32_t i, totals *t)
{
    static const qpb_moments none;
    qpb_jw_obj_begin(w);
    put_count(w, "thread", i);
    if (s->senders != NULL) {
        const qpb_sender_out *out = &s->senders[i];
        const qpb_stats *st = &out->stats;
        uint64_t dropped = qpb_ring_dropped(&out->ring);
        uint64_t bytes = st->cycles * st->cycle_bytes, messages = st->cycles * st->cycle_messages;
        double peak = qpb_peak_bps(&st->peak);
        put_count(w, "cycles", st->cycles);
        put_count(w, "bytes", bytes);
        put_count(w, "messages", messages);
        put_count(w, "errors", st->errors);
        put_count(w, "intervals", st->intervals);
        put_count(w, "intervals_late", out->late);
        put_count(w, "traced", out->traced);
        put_count(w, "dropped", dropped);
        put_rates(w, bytes, messages, st->first_start_ns, st->last_end_ns, peak);
        put_count(w, "window_full_ns", s->senders[i].window_full_ns);
        put_cycle_ns(w, &st->cycle_ns, &st->hist);
        if (s->spec.mode == QPB_MODE_LATENCY)
            put_latency_us(w, &st->cycle_ns, &st->hist);
        t->window_full_ns += s->senders[i].window_full_ns;
        if (st->last_end_ns > st->first_start_ns)
            t->thread_ns += st->last_end_ns - st->first_start_ns;
        t->cycles += st->cycles;
        t->bytes += bytes;
        t->messages += messages;
        t->errors += st->errors;
        t->intervals += st->intervals;
        t->late += out->late;
        t->traced += out->traced;
        t->dropped += dropped;
        t->peak_bps += peak;
        if (st->cycles)
            include_span(t, st->first_start_ns, st->last_end_ns);
    } else {
        const qpb_receiver_out *r = &s->receivers[i];
        put_count(w, "cycles", 0);
        put_count(w, "bytes", r->bytes);
        put_count(w, "messages", r->messages);
        put_count(w, "errors", r->errors);
        put_count(w, "intervals", 0);
        put_count(w, "intervals_late", 0);
        put_count(w, "traced", 0);
        put_count(w, "dropped", 0);
        put_rates(w, r->bytes, r->messages, r->first_ns, r->last_ns, 0.0);
        put_count(w, "window_full_ns", 0);
        put_cycle_ns(w, &none, NULL);
        if (s->spec.mode == QPB_MODE_LATENCY)
            put_latency_us(w, &none, NULL);
        t->bytes += r->bytes;
        t->messages += r->messages;
        t->errors += r->errors;
        if (r->bytes)
            include_span(t, r->first_ns, r->last_ns);
    }
    qpb_jw_obj_end(w);
}

static void put_head(qpb_session *s, qpb_jw *w)
{
    const qpb_spec *sp = &s->spec;
    qpb_jw_key(w, "provider");
    qpb_jw_str(w, sp->provider);
    qpb_jw_key(w, "role");
    qpb_jw_str(w, qpb_role_name(sp->role));
    qpb_jw_key(w, "side");
    qpb_jw_str(w, s->senders != NULL ? "sender" : "receiver");
    qpb_jw_key(w, "bidirectional");
    qpb_jw_bool(w, sp->bidirectional);
    qpb_jw_key(w, "op");
    qpb_jw_str(w, sp->op);
    put_count(w, "threads", sp->threads);
    put_count(w, "qps_per_thread", sp->qps_per_thread);
    put_count(w, "msg_size", sp->msg_size);
    put_count(w, "tx_depth", sp->tx_depth);
    put_count(w, "warmup_cycles", sp->warmup_cycles);
    put_count(w, "duration_ms", sp->duration_ms);
    qpb_jw_key(w, "verify");
    qpb_jw_bool(w, sp->verify);
    qpb_jw_key(w, "status");
    qpb_jw_str(w, s->run_status == QPB_OK ? "ok" : "error");
    qpb_jw_key(w, "error");
    if (s->run_status == QPB_OK)
        qpb_jw_null(w);
    else
        qpb_jw_str(w, s->run_err);
    if (s->provider->summary != NULL)
        s->provider->summary(s, w);
}

/* iterations: the requested cycles per thread, or in duration mode the
 * fewest cycles any thread completed (what every thread did at least). */
static uint64_t iterations_of(qpb_session *s)
{
    if (s->spec.duration_ms == 0 || s->senders == NULL)
        return s->senders == NULL ? 0 : s->spec.iterations;
    uint64_t least = UINT64_MAX;
    for (uint32_t i = 0; i < s->spec.threads; i++)
        if (s->senders[i].stats.cycles < least)
            least = s->senders[i].stats.cycles;
    return least;
}

QPB_EXPORT int32_t qpb_summary(qpb_session *s, char *buf, uint32_t buf_len)
{
    if (s == NULL)
        return QPB_EINVAL;
    if (buf == NULL)
        return qpb_fail(s, QPB_EINVAL, "qpb_summary: buf is NULL");
    if (s->state != QPB_ST_ENDED)
        return qpb_fail(s, QPB_ESTATE, "qpb_summary: the run has not ended (call qpb_wait until it returns 0)");

    qpb_moments all = {0};
    qpb_hist merged = {0};
    if (s->senders != NULL) {
        if (!qpb_hist_init(&merged))
            return qpb_fail(s, QPB_ESYS, "qpb_summary: out of memory for the histogram");
        for (uint32_t i = 0; i < s->spec.threads; i++) {
            qpb_moments_merge(&all, &s->senders[i].stats.cycle_ns);
            qpb_hist_merge(&merged, &s->senders[i].stats.hist);
        }
    }

    qpb_jw w;
    totals t = {0};
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    put_head(s, &w);
    /* per_thread goes into the same buffer last, but its totals are needed
     * first: write it to a counting pass, then the real one. */
    qpb_jw counter;
    qpb_jw_init(&counter, NULL, 0);
    qpb_jw_arr_begin(&counter);
    for (uint32_t i = 0; i < s->spec.threads; i++)
        put_thread(s, &counter, i, &t);
    put_count(&w, "iterations", iterations_of(s));
    put_count(&w, "cycles", t.cycles);
    put_count(&w, "messages", t.messages);
    put_count(&w, "bytes", t.bytes);
    put_count(&w, "errors", t.errors);
    qpb_jw_key(&w, "stopped");
    qpb_jw_bool(&w, atomic_load(&s->stop) != 0);
    put_count(&w, "worker_threads", s->n_threads); /* threads qpb_start ran: senders and receivers */
    put_count(&w, "interval_ms", s->spec.interval_ms);
    put_count(&w, "intervals", t.intervals);
    put_count(&w, "intervals_late", t.late);
    put_count(&w, "traced", t.traced);
    put_count(&w, "dropped", t.dropped);
    put_rates(&w, t.bytes, t.messages, t.first_ns, t.last_ns, t.peak_bps);
    put_count(&w, "window_full_ns", t.window_full_ns);
    qpb_jw_key(&w, "window_full_share");
    qpb_jw_dbl(&w, t.thread_ns ? (double)t.window_full_ns / (double)t.thread_ns : 0.0);
    put_cycle_ns(&w, &all, s->senders != NULL ? &merged : NULL);
    qpb_jw_key(&w, "mode");
    qpb_jw_str(&w, QPB_MODE_NAMES[s->spec.mode]);
    if (s->spec.mode == QPB_MODE_LATENCY)
        put_latency_us(&w, &all, s->senders != NULL ? &merged : NULL);
    if (s->spec.bidirectional && s->senders != NULL && s->receivers != NULL) { /* what came the other way */
        uint64_t rb = 0, rm = 0, re = 0;
        for (uint32_t i = 0; i < s->spec.threads; i++)
            rb += s->receivers[i].bytes, rm += s->receivers[i].messages, re += s->receivers[i].errors;
        qpb_jw_key(&w, "received");
        qpb_jw_obj_begin(&w);
        put_count(&w, "bytes", rb);
        put_count(&w, "messages", rm);
        put_count(&w, "errors", re);
        qpb_jw_obj_end(&w);
    }
    qpb_jw_key(&w, "per_thread");
    qpb_jw_arr_begin(&w);
    totals ignored = {0};
    for (uint32_t i = 0; i < s->spec.threads; i++)
        put_thread(s, &w, i, &ignored);
    qpb_jw_arr_end(&w);
    qpb_jw_key(&w, "clock");
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "source");
    qpb_jw_str(&w, "CLOCK_MONOTONIC_RAW");
    qpb_jw_key(&w, "t0_realtime_ns");
    qpb_jw_i64(&w, s->t0_realtime_ns);
    qpb_jw_obj_end(&w);
    qpb_cpu_summary(s, &w);
    qpb_counters_put(&w, s->counters_before, s->counters_after);
    qpb_jw_obj_end(&w);
    qpb_hist_free(&merged);
    if (!qpb_jw_ok(&w))
        return qpb_fail(s, QPB_ENOSPC, "qpb_summary: needs %zu bytes, the buffer has %u", w.len + 1, buf_len);
    return QPB_OK;
}
