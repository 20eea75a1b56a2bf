/*
 * qpb_verbs_receiver.c — the verbs data path's receiving side (the model is in
 * qpb_verbs.h). Op send: reaps receive completions, checks the payload when
 * verify is on, and posts each receive again, until the sending side's FIN
 * says how many were posted; op write and read: waits for the end of the run.
 * Mode latency's responder (qpb_verbs_lat.c) ends here too (finish_receiving):
 * the receivers' totals, which a server (and either end of a bidirectional
 * run) sends to its peer.
 *
 * A bidirectional send end (qpb_verbs_receives_in_sender) runs no receiving
 * thread: sending thread t reaps receiving thread t's CQs in its own loop
 * (qpb_verbs_reap_receives, as perftest's run_iter_bi polls its receive CQ
 * beside its send CQ); once its cycles are done the session has the same
 * thread run qpb_verbs_run_receiver (qpb_session.c worker_main): the rest of
 * receiving thread t, until the peer's FIN and what it announced arrived,
 * then the totals and the peer's RES.
 */
#include <string.h>
#include <time.h>

#include "qpb_verbs.h"

#define FIN_CHECK_NS 1000000ull           /* how often a receiver looks for the end of run */
#define UNRELIABLE_GRACE_NS 1000000000ull /* UC/UD: end once nothing arrived for this long */
#define RELIABLE_GRACE_NS 10000000000ull  /* RC/XRC: posted messages must all arrive within this */

static void receiver_completion(qpb_session *s, qpb_vside *side, const struct ibv_wc *wc, uint64_t now)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    if (wc->status != IBV_WC_SUCCESS) {
        if (wc->status != IBV_WC_WR_FLUSH_ERR || !atomic_load(&s->stop))
            qpb_run_fail(s, QPB_ERUN, "receive completion error (QPN 0x%06x) on %s: %s (wc status %d, vendor_err 0x%x)",
                         wc->qp_num, vb->caps.name, vb->v->wc_status_str(wc->status), wc->status, wc->vendor_err);
        return;
    }
    qpb_vsrq *srq = NULL;
    qpb_vconn *c;
    uint8_t *buf;
    if (side->srqs != NULL) {
        int32_t index = qpb_verbs_conn_of_qpn(side, wc->qp_num);
        if (index < 0) {
            qpb_run_fail(s, QPB_ERUN, "receive completion for unknown QPN 0x%06x on %s", wc->qp_num, vb->caps.name);
            return;
        }
        c = &side->conns[index];
        srq = &side->srqs[sp->srq == QPB_SRQ_SHARED ? 0 : c->thread];
        buf = srq->buf + wc->wr_id * vb->plan.slot;
    } else {
        c = &side->conns[wc->wr_id];
        buf = c->buf;
    }
    uint32_t skip = sp->transport == QPB_TR_UD ? QPB_VERBS_UD_GRH : 0;
    uint64_t bytes = wc->byte_len >= skip ? wc->byte_len - skip : 0;
    bool bad = bytes != sp->msg_size;
    for (uint64_t o = 0; sp->verify && !bad && o < sp->msg_size; o++)
        bad = buf[skip + o] != qpb_verbs_pattern(c->index, o);
    /* one poller per CQ at a time (a shared CQ is polled under its lock): the counters have one writer,
     * other threads only read them; no locked instruction per message */
    atomic_store_explicit(&c->received, atomic_load_explicit(&c->received, memory_order_relaxed) + 1, memory_order_relaxed);
    atomic_store_explicit(&c->received_bytes, atomic_load_explicit(&c->received_bytes, memory_order_relaxed) + bytes,
                          memory_order_relaxed);
    if (bad)
        atomic_store_explicit(&c->bad, atomic_load_explicit(&c->bad, memory_order_relaxed) + 1, memory_order_relaxed);
    qpb_receiver_out *out = s->receivers != NULL ? &s->receivers[c->thread] : NULL;
    if (out != NULL) { /* the owner's CQ, or a shared one under its lock: one writer */
        if (out->bytes == 0)
            out->first_ns = now;
        out->last_ns = now;
        out->bytes += bytes;
        out->messages++;
        out->errors += bad;
    }
    int rc = srq != NULL ? qpb_verbs_post_recv(s, c, wc->wr_id, buf, srq->mr->lkey, srq)
                         : qpb_verbs_post_recv(s, c, c->index, c->buf, c->lkey, NULL);
    /* A receive not posted again would lose a later message and surface only as "missing" after the
     * grace period: the run fails now, naming the call. */
    if (rc != 0)
        qpb_run_fail(s, QPB_ESYS, "%s failed on QP %u of thread %u (reposting a receive%s on %s): %s (errno %d)",
                     srq != NULL ? "ibv_post_srq_recv" : "ibv_post_recv", c->index % sp->qps_per_thread, c->thread,
                     srq != NULL ? " to its SRQ" : "", vb->caps.name, strerror(rc), rc);
}

/* Whether the thread's connections got what was posted to them; *progress
 * is the number received so far (to see when UC/UD stop moving). */
static bool all_arrived(qpb_session *s, qpb_vthread *th, uint64_t *progress)
{
    bool all = true;
    *progress = 0;
    for (uint32_t i = 0; i < s->spec.qps_per_thread; i++) {
        uint64_t got = atomic_load_explicit(&th->conns[i].received, memory_order_relaxed);
        *progress += got;
        all = all && got >= s->verbs->expected[th->conns[i].index];
    }
    return all;
}

static void receive_loop(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    qpb_verbs *vb = s->verbs;
    qpb_vthread *th = &vb->rx->threads[thread];
    struct ibv_wc wc[QPB_VERBS_POLL_BATCH];
    bool reliable = sp->transport == QPB_TR_RC || sp->transport == QPB_TR_XRC;
    uint64_t next_check = 0, fin_at = 0, last_progress = 0, progress = 0, last_move = 0;
    for (;;) {
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            return;
        if (sp->role == QPB_ROLE_SERVER && atomic_load_explicit(&s->stop, memory_order_relaxed))
            return;
        int got = qpb_verbs_poll_thread(s, vb->rx, th, wc, receiver_completion);
        if (got < 0)
            return;
        if (got > 0)
            continue;
        uint64_t now = qpb_now_ns(s);
        if (now < next_check) {
            if (sp->polling == QPB_POLL_EVENT && !qpb_verbs_wait_event(s, vb->rx, th, UINT64_MAX))
                return;
            continue;
        }
        next_check = now + FIN_CHECK_NS;
        if (!qpb_verbs_poll_fin(s, thread, 0))
            return;
        if (!atomic_load_explicit(&vb->fin, memory_order_acquire))
            continue;
        if (fin_at == 0)
            fin_at = last_move = now;
        if (all_arrived(s, th, &progress))
            return;
        if (progress != last_progress) {
            last_progress = progress;
            last_move = now;
        }
        if (now - (reliable ? fin_at : last_move) > (reliable ? RELIABLE_GRACE_NS : UNRELIABLE_GRACE_NS))
            return; /* what is missing is counted in the result */
    }
}

/* op write/read: the receiving side only waits for the end of the run, on the control socket: asleep, or with
 * target_wait spin busy, checking it without a timeout (its CPU never idles, as perftest's with -R). */
static void passive_wait(qpb_session *s, uint32_t thread)
{
    qpb_verbs *vb = s->verbs;
    bool reader = s->spec.role == QPB_ROLE_SERVER || s->spec.bidirectional;
    int wait_ms = s->spec.target_wait == QPB_TARGET_SPIN ? 0 : 100;
    if (reader && thread != 0)
        return;
    while (!atomic_load_explicit(&vb->fin, memory_order_acquire)) {
        if (atomic_load(&s->abort) || (s->spec.role == QPB_ROLE_SERVER && atomic_load(&s->stop)))
            return;
        if (reader) {
            if (!qpb_verbs_poll_fin(s, thread, wait_ms))
                return;
        } else {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
}

static void finish_receiving(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    if (atomic_fetch_sub(&vb->receivers_left, 1) != 1)
        return;
    qpb_vresult r = {0};
    bool fin = atomic_load_explicit(&vb->fin, memory_order_acquire);
    for (uint32_t i = 0; i < vb->plan.qps; i++) {
        qpb_vconn *c = &vb->rx->conns[i];
        uint64_t got = atomic_load(&c->received);
        r.messages += got;
        r.bytes += atomic_load(&c->received_bytes);
        r.errors += atomic_load(&c->bad);
        if (sp->op_kind == QPB_OP_SEND && fin && got < vb->expected[i]) {
            r.short_conns++;
            r.missing += vb->expected[i] - got;
        }
        /* A verified write leaves the sender's pattern in the target slot. */
        bool written = sp->op_kind == QPB_OP_WRITE && fin && vb->expected[i] > 0;
        for (uint64_t o = 0; sp->verify && written && o < sp->msg_size; o++) {
            if (c->buf[o] != qpb_verbs_pattern(c->index, o)) {
                r.errors++;
                break;
            }
        }
        /* Atomics target the slot's first word, which starts at 0: a fetch-and-add run leaves there the number
         * of adds (of 1) the sender posted, a compare-and-swap run (compare 0, swap 0) leaves 0. */
        if (qpb_op_atomic(sp->op_kind) && fin) {
            uint64_t word;
            memcpy(&word, c->buf, sizeof word);
            uint64_t want = sp->op_kind == QPB_OP_ATOMIC_FADD ? vb->expected[i] : 0;
            if (sp->verify && word != want)
                r.errors++;
        }
    }
    if (sp->bidirectional) { /* result is the peer's answer; ours goes to the peer */
        vb->received = r;
        if (fin && !atomic_load(&s->abort))
            qpb_verbs_send_result(s, &vb->received);
        return;
    }
    vb->result = r;
    vb->have_result = fin;
    if (sp->role == QPB_ROLE_SERVER && fin && !atomic_load(&s->abort))
        qpb_verbs_send_result(s, &vb->result);
}

/* Bidirectional, receiving thread 0: the run ends once the peer answered our FIN with what it received. */
static void await_peer_result(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    uint64_t until = qpb_now_ns(s) + RELIABLE_GRACE_NS + 30ull * 1000000000ull;
    while (!atomic_load_explicit(&vb->peer_result, memory_order_acquire)) {
        if (atomic_load(&s->abort) || (atomic_load(&s->stop) && !atomic_load(&vb->fin)))
            return; /* aborted, or stopped before the peer's end of run */
        if (qpb_now_ns(s) > until) {
            qpb_run_fail(s, QPB_ERUN, "end of run: the %s did not say what it received (no RES over the control socket "
                                      "within %llu s)", s->spec.role == QPB_ROLE_SERVER ? "client" : "server",
                         (unsigned long long)((RELIABLE_GRACE_NS + 30ull * 1000000000ull) / 1000000000ull));
            return;
        }
        if (!qpb_verbs_poll_fin(s, 0, 100))
            return;
    }
}

/* A receiving thread's end, once it reaped what it will: the receivers' totals (the last one's) and, for
 * bidirectional thread 0, the peer's. */
static void receiving_ended(qpb_session *s, uint32_t thread)
{
    finish_receiving(s);
    if (s->spec.bidirectional && thread == 0)
        await_peer_result(s);
}

bool qpb_verbs_target_waits(const qpb_session *s)
{
    const qpb_spec *sp = &s->spec;
    return sp->op_kind != QPB_OP_SEND && !(sp->mode == QPB_MODE_LATENCY && !qpb_op_fetches(sp->op_kind));
}

void qpb_verbs_run_receiver(qpb_session *s, uint32_t thread)
{
    if (s->spec.mode == QPB_MODE_LATENCY && !qpb_op_fetches(s->spec.op_kind))
        qpb_verbs_lat_respond(s, thread);
    else if (!qpb_verbs_target_waits(s))
        receive_loop(s, thread);
    else
        passive_wait(s, thread);
    receiving_ended(s, thread);
}

bool qpb_verbs_receives_in_sender(const qpb_session *s)
{
    const qpb_spec *sp = &s->spec;
    return sp->bidirectional && sp->role != QPB_ROLE_LOOPBACK && sp->op_kind == QPB_OP_SEND &&
           sp->mode == QPB_MODE_BW && sp->polling == QPB_POLL_BUSY;
}

int qpb_verbs_reap_receives(qpb_session *s, uint32_t thread, struct ibv_wc *wc)
{
    qpb_verbs *vb = s->verbs;
    return qpb_verbs_poll_thread(s, vb->rx, &vb->rx->threads[thread], wc, receiver_completion);
}
