/*
 * qpb_verbs_sender.c — the verbs data path's sending side (the model is in
 * qpb_verbs.h): admits up to post_list cycles at once while fewer than
 * tx_depth are in flight, posts them as one chain of requests per QP (one
 * ibv_post_send per QP, like perftest's post list), and polls its CQs; a
 * completion of message m on a QP covers every earlier message of that QP, so
 * it counts down the cycles up to m. Cycles are recorded in order as they
 * complete. Mode latency runs its ping-pongs in qpb_verbs_lat.c; both modes
 * end here (finish_sending). The receiving side is qpb_verbs_receiver.c; in a
 * bidirectional send run this loop also reaps it (qpb_verbs_reap_receives),
 * and the thread's cycles and their accounting stay as in any other run.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "qpb_record.h"
#include "qpb_verbs.h"

#define STOP_GRACE_NS (5ull * 1000000000ull)
/* Bidirectional send in one loop: how often sending thread 0 reads the control socket, as receiving thread 0 would
 * (qpb_verbs_receiver.c FIN_CHECK_NS), so that a peer that failed and closed it ends this run too */
#define CTL_CHECK_NS 1000000ull
/* Cycles in flight and no completion for this long: the run fails. A reliable QP normally reports a
 * dead peer itself (retry or RNR retry exceeded, well under this), but a link that stops carrying
 * packets can leave it retransmitting without end and without an error (rxe across a stalled or
 * packet-dropping link: lab/README.md), and nothing else would end the run. */
#define PROGRESS_TIMEOUT_NS (30ull * 1000000000ull)

typedef struct vsender {
    qpb_session *s;
    qpb_verbs *vb;
    qpb_vside *side;
    qpb_vthread *th;
    uint32_t thread, q, depth, signal, post_list;
    uint64_t msz, warmup, total;
    uint64_t rate, first_ns; /* rate_limit (cycles/s, 0 = unpaced) and when the first cycle was posted */
    bool use_inline, verify_read;
    bool reap_rx;            /* bidirectional send: also reap (and repost) receiving thread `thread`'s receives */
    bool wr;                 /* post_api wr: ibv_wr_start .. ibv_wr_complete on each QP's qpx */
    enum ibv_wr_opcode opcode;
    struct ibv_send_wr *wrs; /* post_list requests, reused for every QP */
    struct ibv_sge *sges;
    struct ibv_wc wc[QPB_VERBS_POLL_BATCH];
    qpb_sender_out *out;
} vsender;

static const char *wc_status(qpb_verbs *vb, enum ibv_wc_status st)
{
    return vb->v->wc_status_str(st);
}

/* ---- completions of the sending side (any thread may process any QP's
 * completions on a shared CQ; one poller at a time) ---- */

/* A shared QP's request names its thread, QP and cycle slot (one completion each). */
static uint64_t shared_wr_id(uint32_t thread, uint32_t conn, uint32_t slot)
{
    return (uint64_t)thread << 48 | (uint64_t)conn << 32 | slot;
}

static void shared_completion(qpb_session *s, qpb_vside *side, const struct ibv_wc *wc, uint64_t now)
{
    uint32_t thread = (uint32_t)(wc->wr_id >> 48), index = (uint32_t)(wc->wr_id >> 32) & 0xffff;
    qpb_vcycle *cy = &side->threads[thread].cycles[(uint32_t)wc->wr_id];
    if (wc->status != IBV_WC_SUCCESS) {
        atomic_fetch_add(&cy->errors, 1);
        qpb_run_fail(s, QPB_ERUN, "completion error on shared QP %u (thread %u, %s %s): %s (wc status %d, vendor_err 0x%x)",
                     index, thread, QPB_TRANSPORT_NAMES[s->spec.transport], QPB_OP_NAMES[s->spec.op_kind],
                     s->verbs->v->wc_status_str(wc->status), wc->status, wc->vendor_err);
        return;
    }
    const qpb_vconn *c = &side->conns[index];
    for (uint64_t o = 0; s->spec.verify && s->spec.op_kind == QPB_OP_READ && o < s->spec.msg_size; o++) {
        if (c->buf[o] != qpb_verbs_pattern(index, o)) {
            atomic_fetch_add(&cy->errors, 1);
            break;
        }
    }
    if (atomic_fetch_sub_explicit(&cy->remaining, 1, memory_order_acq_rel) == 1)
        atomic_store_explicit(&cy->end_ns, now ? now : 1, memory_order_release);
}

static void sender_completion(qpb_session *s, qpb_vside *side, const struct ibv_wc *wc, uint64_t now)
{
    qpb_verbs *vb = s->verbs;
    if (s->spec.qp_sharing == QPB_QPS_SHARED) {
        shared_completion(s, side, wc, now);
        return;
    }
    uint32_t index = (uint32_t)(wc->wr_id >> 32);
    qpb_vconn *c = &side->conns[index];
    qpb_vthread *owner = &side->threads[c->thread];
    uint32_t depth = s->spec.tx_depth;
    uint64_t m = c->completed + (uint32_t)((uint32_t)wc->wr_id - (uint32_t)c->completed);
    if (wc->status != IBV_WC_SUCCESS) {
        atomic_fetch_add(&owner->cycles[m % depth].errors, 1);
        qpb_run_fail(s, QPB_ERUN,
                     "completion error on QP %u of thread %u (message %llu, %s %s): %s (wc status %d, vendor_err "
                     "0x%x)%s",
                     index % s->spec.qps_per_thread, c->thread, (unsigned long long)m, QPB_TRANSPORT_NAMES[s->spec.transport],
                     QPB_OP_NAMES[s->spec.op_kind], wc_status(vb, wc->status), wc->status, wc->vendor_err,
                     wc->status == IBV_WC_RETRY_EXC_ERR || wc->status == IBV_WC_RNR_RETRY_EXC_ERR
                         ? ": the peer stopped answering"
                         : "");
        return;
    }
    if (s->spec.verify && s->spec.op_kind == QPB_OP_READ) {
        for (uint64_t o = 0; o < s->spec.msg_size; o++) {
            if (c->buf[o] != qpb_verbs_pattern(index, o)) {
                atomic_fetch_add(&owner->cycles[m % depth].errors, 1);
                break;
            }
        }
    }
    if (s->spec.cq_mode == QPB_CQ_SHARED) { /* any thread may count down the owner's cycles */
        for (uint64_t k = c->completed; k <= m; k++) {
            qpb_vcycle *cy = &owner->cycles[k % depth];
            if (atomic_fetch_sub_explicit(&cy->remaining, 1, memory_order_acq_rel) == 1)
                atomic_store_explicit(&cy->end_ns, now ? now : 1, memory_order_release);
        }
    } else { /* the owner polls its own CQs: no other thread touches these cycles, no locked instruction */
        for (uint64_t k = c->completed; k <= m; k++) {
            qpb_vcycle *cy = &owner->cycles[k % depth];
            unsigned left = atomic_load_explicit(&cy->remaining, memory_order_relaxed) - 1;
            atomic_store_explicit(&cy->remaining, left, memory_order_relaxed);
            if (left == 0)
                atomic_store_explicit(&cy->end_ns, now ? now : 1, memory_order_relaxed);
        }
    }
    c->completed = m + 1;
}

static bool signaled(const vsender *x, const qpb_vconn *c, uint64_t k, uint64_t msg, bool flush)
{
    (void)c;
    return flush || (msg + 1) % x->signal == 0 || k + 1 == x->total;
}

/* With rate_limit, cycle k of the thread is posted no earlier than k / rate s after its first (a thread that
 * fell behind catches up, like the tcp provider). */
static uint64_t due_at(const vsender *x, uint64_t k)
{
    return x->first_ns + qpb_cycle_due_ns(k, x->rate);
}

/* How many of the next n cycles are due. */
static uint32_t due_cycles(const vsender *x, uint64_t now, uint32_t n)
{
    uint64_t k = x->th->admitted;
    if (x->rate == 0 || k == 0) /* cycle 0 starts the pace (post_cycles takes its time) */
        return x->rate == 0 ? n : 1;
    uint32_t d = 0;
    while (d < n && due_at(x, k + d) <= now)
        d++;
    return d;
}

/* Nanoseconds until the next cycle is due (0: it is; UINT64_MAX: unpaced or not started). */
static uint64_t until_due(const vsender *x, uint64_t now)
{
    if (x->rate == 0 || x->th->admitted == 0)
        return UINT64_MAX;
    uint64_t due = due_at(x, x->th->admitted);
    return due > now ? due - now : 0;
}

/* Cycles [first, first + n) start now. */
static inline void start_cycles(vsender *x, uint64_t first, uint32_t n)
{
    uint64_t now = qpb_now_ns(x->s);
    if (first == 0)
        x->first_ns = now;
    for (uint32_t k = 0; k < n; k++) {
        qpb_vcycle *cy = &x->th->cycles[(first + k) % x->depth];
        cy->start_ns = now;
        atomic_store_explicit(&cy->errors, 0, memory_order_relaxed);
        atomic_store_explicit(&cy->end_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&cy->remaining, x->q, memory_order_release);
    }
}

/* Legacy: cycles [first, first + n) on every QP of the thread, one chain of requests and one ibv_post_send
 * per QP. */
static bool post_cycles_legacy(vsender *x, uint64_t first, uint32_t n, bool flush)
{
    start_cycles(x, first, n);
    bool shared = x->s->spec.qp_sharing == QPB_QPS_SHARED;
    for (uint32_t i = 0; i < x->q; i++) {
        qpb_vconn *c = &x->th->conns[i];
        for (uint32_t k = 0; k < n; k++) {
            struct ibv_send_wr *wr = &x->wrs[k];
            /* message k of a thread's QP is its cycle k; a shared QP's own count is everybody's */
            uint64_t msg = shared ? first + k : c->posted + k;
            x->sges[k] = (struct ibv_sge){.addr = (uintptr_t)c->buf, .length = (uint32_t)x->msz, .lkey = c->lkey};
            wr->wr_id = shared ? shared_wr_id(x->thread, c->index, (uint32_t)((first + k) % x->depth))
                               : (uint64_t)c->index << 32 | (uint32_t)msg;
            wr->next = k + 1 < n ? &x->wrs[k + 1] : NULL;
            wr->send_flags = x->use_inline ? IBV_SEND_INLINE : 0;
            if (signaled(x, c, first + k, msg, flush))
                wr->send_flags |= IBV_SEND_SIGNALED;
            if (x->s->spec.transport == QPB_TR_UD) {
                wr->wr.ud.ah = x->side->ah;
                wr->wr.ud.remote_qpn = c->remote_qpn;
                wr->wr.ud.remote_qkey = QPB_VERBS_QKEY;
            } else if (x->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || x->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
                /* the peer's slot is 64-byte aligned: its first word is the target (ib_atomic_bw's values) */
                wr->wr.atomic.remote_addr = c->remote_addr;
                wr->wr.atomic.rkey = c->rkey;
                wr->wr.atomic.compare_add = x->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ? 1 : 0;
                wr->wr.atomic.swap = 0;
            } else if (x->opcode != IBV_WR_SEND) {
                wr->wr.rdma.remote_addr = c->remote_addr;
                wr->wr.rdma.rkey = c->rkey;
            }
            if (x->s->spec.transport == QPB_TR_XRC)
                wr->qp_type.xrc.remote_srqn = c->remote_srqn;
        }
        struct ibv_send_wr *bad = NULL;
        int rc = ibv_post_send(c->qp, x->wrs, &bad);
        if (rc != 0) {
            qpb_run_fail(x->s, QPB_ESYS,
                         "ibv_post_send on QP %u of thread %u (%u requests, message %llu) on %s: %s (errno %d)", i,
                         x->thread, n, (unsigned long long)c->posted, x->vb->caps.name, strerror(rc), rc);
            return false;
        }
        if (shared)
            continue; /* every request is signaled; other threads post here too */
        for (uint32_t k = 0; k < n; k++)
            if (x->wrs[k].send_flags & IBV_SEND_SIGNALED)
                c->last_signaled = c->posted + k + 1;
        c->posted += n;
    }
    x->th->admitted += n;
    return true;
}

/*
 * wr (perftest's _new_post_send): the same requests between one ibv_wr_start and one ibv_wr_complete on c's
 * ibv_qp_ex, each an ibv_wr_<op>, its address (UD, XRC) and its data (inline, or one SGE). Nothing is built in
 * memory first: the provider writes each request straight into its send queue. op, tr and inl are constants in
 * every instance post_wr picks (as perftest's new_post_* functions), so the loop keeps no branch on them; what
 * it hands the provider is read into locals once per post.
 */
static inline __attribute__((always_inline)) int post_wr_as(vsender *x, qpb_vconn *c, uint64_t first, uint32_t n,
                                                            bool flush, bool shared, enum ibv_wr_opcode op,
                                                            qpb_transport tr, bool inl)
{
    struct ibv_qp_ex *q = c->qpx;
    const unsigned base = inl ? IBV_SEND_INLINE : 0;
    const uint32_t rkey = c->rkey, lkey = c->lkey, len = (uint32_t)x->msz, remote = tr == QPB_TR_UD ? c->remote_qpn
                                                                                  : c->remote_srqn;
    const uint64_t raddr = c->remote_addr, posted = c->posted, id = (uint64_t)c->index << 32;
    uint8_t *buf = c->buf;
    struct ibv_ah *ah = x->side->ah;
    uint64_t last = c->last_signaled;
    ibv_wr_start(q);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t msg = shared ? first + k : posted + k;
        q->wr_id = shared ? shared_wr_id(x->thread, c->index, (uint32_t)((first + k) % x->depth)) : id | (uint32_t)msg;
        if (signaled(x, c, first + k, msg, flush)) {
            q->wr_flags = base | IBV_SEND_SIGNALED;
            last = posted + k + 1;
        } else {
            q->wr_flags = base;
        }
        switch (op) {
        case IBV_WR_RDMA_WRITE: ibv_wr_rdma_write(q, rkey, raddr); break;
        case IBV_WR_RDMA_READ: ibv_wr_rdma_read(q, rkey, raddr); break;
        case IBV_WR_ATOMIC_FETCH_AND_ADD: ibv_wr_atomic_fetch_add(q, rkey, raddr, 1); break;
        case IBV_WR_ATOMIC_CMP_AND_SWP: ibv_wr_atomic_cmp_swp(q, rkey, raddr, 0, 0); break;
        default: ibv_wr_send(q); break;
        }
        if (tr == QPB_TR_UD)
            ibv_wr_set_ud_addr(q, ah, remote, QPB_VERBS_QKEY);
        else if (tr == QPB_TR_XRC)
            ibv_wr_set_xrc_srqn(q, remote);
        if (inl)
            ibv_wr_set_inline_data(q, buf, len);
        else
            ibv_wr_set_sge(q, lkey, (uintptr_t)buf, len);
    }
    int rc = ibv_wr_complete(q);
    if (rc == 0 && !shared)
        c->last_signaled = last;
    return rc;
}

/* The instance of post_wr_as for the run's op, transport (UC posts as RC) and inline. */
static int post_wr(vsender *x, qpb_vconn *c, uint64_t first, uint32_t n, bool flush, bool shared)
{
#define AS(op, tr, inl) post_wr_as(x, c, first, n, flush, shared, op, tr, inl)
    qpb_transport tr = x->s->spec.transport;
    bool inl = x->use_inline;
    switch (x->opcode) {
    case IBV_WR_RDMA_WRITE:
        if (tr == QPB_TR_XRC)
            return inl ? AS(IBV_WR_RDMA_WRITE, QPB_TR_XRC, true) : AS(IBV_WR_RDMA_WRITE, QPB_TR_XRC, false);
        return inl ? AS(IBV_WR_RDMA_WRITE, QPB_TR_RC, true) : AS(IBV_WR_RDMA_WRITE, QPB_TR_RC, false);
    case IBV_WR_RDMA_READ:
        return tr == QPB_TR_XRC ? AS(IBV_WR_RDMA_READ, QPB_TR_XRC, false) : AS(IBV_WR_RDMA_READ, QPB_TR_RC, false);
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return AS(IBV_WR_ATOMIC_FETCH_AND_ADD, QPB_TR_RC, false); /* rc only */
    case IBV_WR_ATOMIC_CMP_AND_SWP: return AS(IBV_WR_ATOMIC_CMP_AND_SWP, QPB_TR_RC, false);
    default:
        if (tr == QPB_TR_UD)
            return inl ? AS(IBV_WR_SEND, QPB_TR_UD, true) : AS(IBV_WR_SEND, QPB_TR_UD, false);
        if (tr == QPB_TR_XRC)
            return inl ? AS(IBV_WR_SEND, QPB_TR_XRC, true) : AS(IBV_WR_SEND, QPB_TR_XRC, false);
        return inl ? AS(IBV_WR_SEND, QPB_TR_RC, true) : AS(IBV_WR_SEND, QPB_TR_RC, false);
    }
#undef AS
}

/* wr: cycles [first, first + n) on every QP of the thread, one ibv_wr_start .. ibv_wr_complete per QP. */
static bool post_cycles_wr(vsender *x, uint64_t first, uint32_t n, bool flush)
{
    start_cycles(x, first, n);
    bool shared = x->s->spec.qp_sharing == QPB_QPS_SHARED;
    for (uint32_t i = 0; i < x->q; i++) {
        qpb_vconn *c = &x->th->conns[i];
        int rc = post_wr(x, c, first, n, flush, shared);
        if (rc != 0) {
            qpb_run_fail(x->s, QPB_ESYS,
                         "ibv_wr_complete on QP %u of thread %u (%u requests, message %llu) on %s: %s (errno %d)", i,
                         x->thread, n, (unsigned long long)c->posted, x->vb->caps.name, strerror(rc), rc);
            return false;
        }
        if (!shared)
            c->posted += n;
    }
    x->th->admitted += n;
    return true;
}

/* Posts cycles [first, first + n) on every QP of the thread, through the run's post_api. */
static bool post_cycles(vsender *x, uint64_t first, uint32_t n, bool flush)
{
    return x->wr ? post_cycles_wr(x, first, n, flush) : post_cycles_legacy(x, first, n, flush);
}

static void record_done(vsender *x)
{
    qpb_vthread *th = x->th;
    qpb_sender_out *out = x->out;
    while (th->done < th->admitted) {
        qpb_vcycle *cy = &th->cycles[th->done % x->depth];
        uint64_t end = atomic_load_explicit(&cy->end_ns, memory_order_acquire);
        if (end == 0)
            break;
        if (th->done >= x->warmup)
            qpb_record_cycle(out, th->done - x->warmup, cy->start_ns, end,
                             atomic_load_explicit(&cy->errors, memory_order_relaxed));
        th->done++;
    }
}

static bool needs_flush(const vsender *x)
{
    if (x->s->spec.qp_sharing == QPB_QPS_SHARED)
        return false; /* every request is signaled */
    for (uint32_t i = 0; i < x->q; i++)
        if (x->th->conns[i].last_signaled < x->th->conns[i].posted)
            return true;
    return false;
}

static bool sender_loop(vsender *x)
{
    qpb_session *s = x->s;
    qpb_vthread *th = x->th;
    uint64_t deadline = UINT64_MAX, stop_by = UINT64_MAX;
    uint64_t last_progress = qpb_now_ns(s), last_done = th->done;
    uint64_t next_ctl = x->reap_rx && x->thread == 0 ? last_progress + CTL_CHECK_NS : UINT64_MAX;
    uint64_t full_since = 0; /* when the window filled and nothing completed since (0: it is not) */
    uint64_t *full_ns = &s->senders[x->thread].window_full_ns;
    bool flushed = false;
    for (;;) {
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            return false;
        uint64_t now = qpb_now_ns(s);
        if (stop_by == UINT64_MAX && atomic_load_explicit(&s->stop, memory_order_relaxed))
            stop_by = now + STOP_GRACE_NS;
        if (now > stop_by) {
            qpb_run_fail(s, QPB_ERUN, "thread %u: %llu cycles still in flight 5 s after qpb_stop", x->thread,
                         (unsigned long long)(th->admitted - th->done));
            return false;
        }
        bool closing = stop_by != UINT64_MAX || now >= deadline;
        uint64_t in_flight = th->admitted - th->done;
        bool more = !closing && th->admitted < x->total, room = in_flight + x->post_list <= x->depth;
        /* every slot of the window holds a measured cycle: only a completion lets the thread go on */
        bool full = more && !room && th->admitted > x->warmup;
        bool posted = false;
        uint32_t n = 0;
        if (more && room) {
            uint64_t left = x->total - th->admitted;
            n = due_cycles(x, now, left < x->post_list ? (uint32_t)left : x->post_list);
        }
        if (n > 0) {
            if (th->admitted <= x->warmup && th->admitted + n > x->warmup && s->spec.duration_ms > 0)
                deadline = now + s->spec.duration_ms * 1000000ull;
            if (th->admitted <= x->warmup && th->admitted + n > x->warmup)
                qpb_cpu_begin(s, &x->out->cpu, true); /* the measured span begins */
            if (!post_cycles(x, th->admitted, n, false))
                return false;
            posted = true;
        } else if (closing && !flushed && in_flight < x->depth) {
            /* the last request of every QP must be signaled, or its cycles never complete */
            flushed = true;
            if (needs_flush(x) && !post_cycles(x, th->admitted, 1, true))
                return false;
            posted = true;
        }
        /* bidirectional send: the receives first, as perftest's run_iter_bi (a receive queue left to run dry
         * would stall the peer's sends); they touch no cycle of this thread */
        if (x->reap_rx && qpb_verbs_reap_receives(s, x->thread, x->wc) < 0)
            return false;
        if (now >= next_ctl) { /* reads the peer's FIN if it came early; fails the run if the peer closed */
            next_ctl = now + CTL_CHECK_NS;
            if (!qpb_verbs_poll_fin(s, 0, 0))
                return false;
        }
        int got = qpb_verbs_poll_thread(s, x->side, th, x->wc, sender_completion);
        if (got < 0)
            return false;
        if (full && got == 0 && full_since == 0) {
            full_since = now;
        } else if (full_since != 0 && (got > 0 || !full)) {
            *full_ns += now - full_since;
            full_since = 0;
        }
        record_done(x);
        qpb_interval_tick(x->out, now);
        if (th->done == th->admitted && (th->admitted == x->total || (closing && flushed)))
            return true;
        if (got > 0 || posted || th->done != last_done) {
            last_progress = now;
            last_done = th->done;
        } else if (now - last_progress > PROGRESS_TIMEOUT_NS) {
            qpb_run_fail(s, QPB_ERUN,
                         "thread %u: no completion for %llu s with %llu cycles in flight on %s (%s %s): the link or the "
                         "peer stopped carrying packets, and the device reported no error",
                         x->thread, (unsigned long long)((now - last_progress) / 1000000000ull),
                         (unsigned long long)(th->admitted - th->done), x->vb->caps.name,
                         QPB_TRANSPORT_NAMES[s->spec.transport], QPB_OP_NAMES[s->spec.op_kind]);
            return false;
        }
        if (got == 0 && !posted && s->spec.polling == QPB_POLL_EVENT) {
            /* paced with room in the window: sleep no longer than until the next cycle is due */
            uint64_t timeout = more && room ? until_due(x, now) : UINT64_MAX;
            if (timeout > 0 && !qpb_verbs_wait_event(s, x->side, th, timeout))
                return false;
        }
    }
}

static void finish_sending(qpb_session *s, bool ok)
{
    qpb_verbs *vb = s->verbs;
    if (atomic_fetch_sub(&vb->senders_left, 1) != 1)
        return;
    if (s->spec.role == QPB_ROLE_LOOPBACK) {
        for (uint32_t i = 0; i < vb->plan.qps; i++)
            vb->expected[i] = qpb_verbs_posted(s, i);
        atomic_store_explicit(&vb->fin, 1, memory_order_release);
    } else if (ok && !atomic_load(&s->abort)) {
        qpb_verbs_send_fin(s);
    } else {
        shutdown(vb->ctl_fd, SHUT_RDWR); /* the server learns that the run is over */
    }
}

static enum ibv_wr_opcode verbs_opcode(qpb_op op)
{
    switch (op) {
    case QPB_OP_SEND: return IBV_WR_SEND;
    case QPB_OP_WRITE: return IBV_WR_RDMA_WRITE;
    case QPB_OP_READ: return IBV_WR_RDMA_READ;
    case QPB_OP_ATOMIC_FADD: return IBV_WR_ATOMIC_FETCH_AND_ADD;
    case QPB_OP_ATOMIC_CSWAP: return IBV_WR_ATOMIC_CMP_AND_SWP;
    }
    return IBV_WR_SEND;
}

void qpb_verbs_run_sender(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    qpb_verbs *vb = s->verbs;
    if (sp->mode == QPB_MODE_LATENCY) {
        finish_sending(s, qpb_verbs_lat_initiate(s, thread));
        return;
    }
    vsender x = {
        .s = s, .vb = vb, .side = vb->tx, .th = &vb->tx->threads[thread], .thread = thread, .out = &s->senders[thread],
        .q = sp->qps_per_thread, .depth = sp->tx_depth, .signal = sp->signal_every, .post_list = sp->post_list,
        .msz = sp->msg_size, .warmup = sp->warmup_cycles, .rate = sp->rate_limit,
        .total = sp->duration_ms > 0 ? UINT64_MAX : sp->warmup_cycles + sp->iterations,
        .use_inline = (sp->op_kind == QPB_OP_SEND || sp->op_kind == QPB_OP_WRITE) && sp->msg_size <= sp->inline_size,
        .opcode = verbs_opcode(sp->op_kind), .wr = vb->plan.post_wr,
        .reap_rx = vb->rx != NULL && qpb_verbs_receives_in_sender(s),
    };
    x.wrs = calloc(x.post_list, sizeof(struct ibv_send_wr));
    x.sges = calloc(x.post_list, sizeof(struct ibv_sge));
    bool ok = false;
    if (x.wrs == NULL || x.sges == NULL) {
        qpb_run_fail(s, QPB_ESYS, "out of memory for %u work requests", x.post_list);
    } else {
        for (uint32_t k = 0; k < x.post_list; k++) {
            x.wrs[k].sg_list = &x.sges[k];
            x.wrs[k].num_sge = 1;
            x.wrs[k].opcode = x.opcode;
        }
        ok = sender_loop(&x);
    }
    free(x.wrs);
    free(x.sges);
    finish_sending(s, ok);
}
