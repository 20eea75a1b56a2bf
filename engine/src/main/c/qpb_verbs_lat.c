/*
 * qpb_verbs_lat.c — the verbs provider's latency mode (spec mode "latency"),
 * perftest's ib_send_lat, ib_write_lat and ib_read_lat, one ping-pong per
 * thread on its one QP and one CQ (the queues are fixed: qpb_check.c).
 *
 * Initiator (a sending thread: the client, or the first half of a loopback
 * run), iteration k:
 *   send   posts a send and waits for the receive of the reply;
 *   write  sets the last byte of its buffer to 2k+1, writes the buffer into
 *          the peer's, and busy-polls its own last byte until the peer's
 *          write sets it to 2k+2 (odd and even never meet, so one buffer
 *          serves both directions);
 *   read   posts one read of the peer's buffer and waits for its completion.
 * The cycle's recorded time is the latency perftest reports: half the round
 * trip for send and write (the cycle ends when the reply arrived and starts
 * half a round trip earlier), the whole of it for read.
 * Responder (a receiving thread: the server, or the second half), for send
 * and write: waits for ping k and answers it the same way; op read has no
 * responder (qpb_verbs_receiver.c waits passively). It ends when the initiating
 * side's end of run arrives: by then every ping was answered, since the
 * initiator's last cycle ended with the last reply.
 * Sends and writes go inline up to inline_size (qpb_verbs.c picks the
 * device's most when the spec does not say). A request is posted through
 * ibv_wr_start/ibv_wr_<op>/ibv_wr_complete with post_api wr, else ibv_post_send. Every QPB_LAT_SIGNAL-th request
 * is signaled so that the send queue drains without a completion per
 * iteration; a read is always signaled: its completion is the reply.
 */
#include <sched.h>
#include <string.h>

#include "qpb_record.h"
#include "qpb_verbs.h"

/* No reply and no completion for this long: the run fails (a link that carries nothing leaves a
 * reliable QP retrying without an error, and an unreliable one has lost the message). */
#define PROGRESS_TIMEOUT_NS (30ull * 1000000000ull)
#define FIN_CHECK_NS 1000000ull /* how often a responder looks for the end of run */
#define CHECK_EVERY 256         /* spins between looks at the clock */
#define LOOPBACK_YIELD 16       /* loopback: both ends spin in one process; spins between yields */

typedef struct vlat {
    qpb_session *s;
    qpb_vside *side;
    qpb_vconn *c;
    struct ibv_cq *cq;
    uint32_t thread;
    uint64_t msz;
    bool initiator, use_inline;
    uint64_t arrived;   /* receives completed */
    volatile uint8_t *last; /* op write: the last byte of this end's buffer, which the peer's write sets */
    bool ended;         /* responder: the end of run came */
} vlat;

/* Polls the thread's CQ once: a receive is counted and posted again, a request's completion covers
 * every request of the QP up to its own. Returns the completions, or -1 when the run failed. */
static int poll_cq(vlat *x)
{
    qpb_session *s = x->s;
    struct ibv_wc wc[4];
    int n = ibv_poll_cq(x->cq, 4, wc);
    if (n < 0) {
        qpb_run_fail(s, QPB_ESYS, "ibv_poll_cq on %s: failed (%d)", s->verbs->caps.name, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (wc[i].status != IBV_WC_SUCCESS) {
            if (!x->initiator && wc[i].status == IBV_WC_WR_FLUSH_ERR && atomic_load(&s->stop))
                return -1;
            qpb_run_fail(s, QPB_ERUN, "completion error on the QP of thread %u (%s %s latency, %s, message %llu): %s "
                         "(wc status %d, vendor_err 0x%x)", x->thread, QPB_TRANSPORT_NAMES[s->spec.transport],
                         QPB_OP_NAMES[s->spec.op_kind], x->initiator ? "initiator" : "responder",
                         (unsigned long long)(wc[i].opcode & IBV_WC_RECV ? x->arrived : wc[i].wr_id),
                         s->verbs->v->wc_status_str(wc[i].status), wc[i].status, wc[i].vendor_err);
            return -1;
        }
        if (!(wc[i].opcode & IBV_WC_RECV)) {
            x->c->completed = wc[i].wr_id; /* wr_id: the request's count on its QP */
            continue;
        }
        x->arrived++;
        int rc = qpb_verbs_post_recv(s, x->c, x->c->index, x->c->buf, x->c->lkey, NULL);
        if (rc != 0) {
            qpb_run_fail(s, QPB_ESYS, "ibv_post_recv failed on the QP of thread %u (reposting a receive on %s): %s "
                         "(errno %d)", x->thread, s->verbs->caps.name, strerror(rc), rc);
            return -1;
        }
    }
    return n;
}

typedef bool (*ready_fn)(const vlat *x, uint64_t arg);

static bool arrived(const vlat *x, uint64_t count)
{
    return x->arrived >= count;
}

static bool byte_is(const vlat *x, uint64_t value)
{
    return *x->last == (uint8_t)value;
}

static bool completed(const vlat *x, uint64_t count)
{
    return x->c->completed >= count;
}

/* Spins until ready(x, arg), polling the CQ meanwhile (completions and errors arrive while waiting).
 * false: the run failed, or (responder) the end of run came first (x->ended). */
static bool wait_until(vlat *x, ready_fn ready, uint64_t arg)
{
    qpb_session *s = x->s;
    bool loopback = s->spec.role == QPB_ROLE_LOOPBACK;
    uint64_t since = qpb_now_ns(s), next_fin = since;
    for (uint32_t spins = 1;; spins++) {
        if (ready(x, arg))
            return true;
        int n = poll_cq(x);
        if (n < 0)
            return false;
        if (n > 0)
            continue;
        if (loopback && spins % LOOPBACK_YIELD == 0)
            sched_yield();
        if (spins % CHECK_EVERY != 0)
            continue;
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            return false;
        uint64_t now = qpb_now_ns(s);
        if (!x->initiator) { /* waiting for a ping: the end of run may come instead */
            if ((s->spec.role == QPB_ROLE_SERVER && atomic_load_explicit(&s->stop, memory_order_relaxed)) ||
                atomic_load_explicit(&s->verbs->fin, memory_order_acquire)) {
                x->ended = true;
                return false;
            }
            if (now >= next_fin) { /* the FIN read here is seen at the next look */
                next_fin = now + FIN_CHECK_NS;
                if (!qpb_verbs_poll_fin(s, x->thread, 0))
                    return false;
            }
            continue;
        }
        if (now - since > PROGRESS_TIMEOUT_NS) {
            qpb_run_fail(s, QPB_ERUN, "thread %u: no reply for %llu s on %s (%s %s latency): the link or the peer "
                         "stopped carrying packets%s", x->thread, (unsigned long long)((now - since) / 1000000000ull),
                         s->verbs->caps.name, QPB_TRANSPORT_NAMES[s->spec.transport], QPB_OP_NAMES[s->spec.op_kind],
                         s->spec.transport == QPB_TR_RC ? "" : " (an unreliable transport does not resend a lost one)");
            return false;
        }
    }
}

/*
 * Posts one request of opcode on x's QP: a send of the buffer, or a one-sided request to the peer's
 * buffer (RDMA write or read; atomics take compare_add and swap, on 8 bytes). Signaled when the caller
 * waits for its completion (signal), else every QPB_LAT_SIGNAL-th request, and waits first while the
 * send queue is full of requests not known complete. Returns the request's count on the QP (what its
 * completion's wr_id says), or 0 when the run failed.
 */
static uint64_t post_request(vlat *x, enum ibv_wr_opcode opcode, uint64_t compare_add, uint64_t swap, bool signal)
{
    qpb_session *s = x->s;
    qpb_vconn *c = x->c;
    if (c->posted - c->completed >= QPB_LAT_SEND_WR &&
        !wait_until(x, completed, c->posted - QPB_LAT_SEND_WR + 1))
        return 0;
    uint64_t count = c->posted + 1;
    bool atomic = opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
    bool inl = x->use_inline && (opcode == IBV_WR_SEND || opcode == IBV_WR_RDMA_WRITE);
    unsigned flags = (inl ? IBV_SEND_INLINE : 0) | (signal || count % QPB_LAT_SIGNAL == 0 ? IBV_SEND_SIGNALED : 0);
    uint32_t len = atomic ? 8 : (uint32_t)x->msz;
    int rc;
    if (c->qpx != NULL) { /* post_api wr */
        struct ibv_qp_ex *q = c->qpx;
        ibv_wr_start(q);
        q->wr_id = count;
        q->wr_flags = flags;
        switch (opcode) {
        case IBV_WR_RDMA_WRITE: ibv_wr_rdma_write(q, c->rkey, c->remote_addr); break;
        case IBV_WR_RDMA_READ: ibv_wr_rdma_read(q, c->rkey, c->remote_addr); break;
        case IBV_WR_ATOMIC_FETCH_AND_ADD: ibv_wr_atomic_fetch_add(q, c->rkey, c->remote_addr, compare_add); break;
        case IBV_WR_ATOMIC_CMP_AND_SWP: ibv_wr_atomic_cmp_swp(q, c->rkey, c->remote_addr, compare_add, swap); break;
        default: ibv_wr_send(q); break;
        }
        if (opcode == IBV_WR_SEND && s->spec.transport == QPB_TR_UD)
            ibv_wr_set_ud_addr(q, x->side->ah, c->remote_qpn, QPB_VERBS_QKEY);
        if (inl)
            ibv_wr_set_inline_data(q, c->buf, len);
        else
            ibv_wr_set_sge(q, c->lkey, (uintptr_t)c->buf, len);
        rc = ibv_wr_complete(q);
    } else {
        struct ibv_sge sge = {.addr = (uintptr_t)c->buf, .length = len, .lkey = c->lkey};
        struct ibv_send_wr wr = {.wr_id = count, .sg_list = &sge, .num_sge = 1, .opcode = opcode, .send_flags = flags};
        struct ibv_send_wr *bad = NULL;
        if (atomic) {
            wr.wr.atomic.remote_addr = c->remote_addr;
            wr.wr.atomic.compare_add = compare_add;
            wr.wr.atomic.swap = swap;
            wr.wr.atomic.rkey = c->rkey;
        } else if (opcode != IBV_WR_SEND) {
            wr.wr.rdma.remote_addr = c->remote_addr;
            wr.wr.rdma.rkey = c->rkey;
        } else if (s->spec.transport == QPB_TR_UD) {
            wr.wr.ud.ah = x->side->ah;
            wr.wr.ud.remote_qpn = c->remote_qpn;
            wr.wr.ud.remote_qkey = QPB_VERBS_QKEY;
        }
        rc = ibv_post_send(c->qp, &wr, &bad);
    }
    if (rc != 0) {
        qpb_run_fail(s, QPB_ESYS, "%s on the QP of thread %u (%s latency, message %llu) on %s: %s "
                     "(errno %d)", c->qpx != NULL ? "ibv_wr_complete" : "ibv_post_send", x->thread,
                     QPB_OP_NAMES[s->spec.op_kind], (unsigned long long)count, s->verbs->caps.name, strerror(rc), rc);
        return 0;
    }
    c->posted = count;
    return count;
}

static void init(vlat *x, qpb_session *s, qpb_vside *side, uint32_t thread, bool initiator)
{
    const qpb_spec *sp = &s->spec;
    qpb_vthread *th = &side->threads[thread];
    *x = (vlat){
        .s = s, .side = side, .c = &th->conns[0], .cq = th->conns[0].cq, .thread = thread, .msz = sp->msg_size,
        .initiator = initiator,
        .use_inline = (sp->op_kind == QPB_OP_SEND || sp->op_kind == QPB_OP_WRITE) && sp->msg_size <= sp->inline_size,
    };
    x->last = x->c->buf + sp->msg_size - 1;
}

bool qpb_verbs_lat_initiate(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    qpb_sender_out *out = &s->senders[thread];
    vlat x;
    init(&x, s, s->verbs->tx, thread, true);
    uint64_t total = sp->duration_ms > 0 ? UINT64_MAX : sp->warmup_cycles + sp->iterations;
    uint64_t deadline = UINT64_MAX;
    for (uint64_t k = 0; k < total; k++) {
        if (k == sp->warmup_cycles) /* the measured span begins; before the clock read: not part of the iteration */
            qpb_cpu_begin(s, &out->cpu, true);
        uint64_t start = qpb_now_ns(s);
        if (atomic_load_explicit(&s->stop, memory_order_relaxed) || start >= deadline)
            break;
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            return false;
        if (k == sp->warmup_cycles && sp->duration_ms > 0)
            deadline = start + sp->duration_ms * 1000000ull;
        bool ok;
        switch (sp->op_kind) {
        case QPB_OP_SEND:
            ok = post_request(&x, IBV_WR_SEND, 0, 0, false) && wait_until(&x, arrived, k + 1);
            break;
        case QPB_OP_WRITE:
            *x.last = (uint8_t)(2 * k + 1);
            ok = post_request(&x, IBV_WR_RDMA_WRITE, 0, 0, false) && wait_until(&x, byte_is, 2 * k + 2);
            break;
        default: { /* read or an atomic (ib_atomic_lat): one request in flight, the whole round trip */
            enum ibv_wr_opcode op = sp->op_kind == QPB_OP_ATOMIC_FADD    ? IBV_WR_ATOMIC_FETCH_AND_ADD
                                    : sp->op_kind == QPB_OP_ATOMIC_CSWAP ? IBV_WR_ATOMIC_CMP_AND_SWP
                                                                         : IBV_WR_RDMA_READ;
            /* the bw loop's values: add 1, or compare 0 and swap 0 */
            uint64_t count = post_request(&x, op, op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 1 : 0, 0, true);
            ok = count && wait_until(&x, completed, count);
            break;
        }
        }
        if (!ok)
            return false;
        uint64_t end = qpb_now_ns(s);
        uint64_t took = qpb_op_fetches(sp->op_kind) ? end - start : (end - start) / 2; /* perftest's latency */
        if (k >= sp->warmup_cycles)
            qpb_record_cycle(out, k - sp->warmup_cycles, end - took, end, 0);
        qpb_interval_tick(out, end);
    }
    return true;
}

void qpb_verbs_lat_respond(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    qpb_receiver_out *out = s->receivers != NULL ? &s->receivers[thread] : NULL;
    vlat x;
    init(&x, s, s->verbs->rx, thread, false);
    for (uint64_t k = 0;; k++) {
        bool ok = sp->op_kind == QPB_OP_SEND ? wait_until(&x, arrived, k + 1) : wait_until(&x, byte_is, 2 * k + 1);
        if (!ok)
            return; /* the end of run (x.ended), or the run failed */
        uint64_t now = qpb_now_ns(s);
        atomic_store_explicit(&x.c->received, k + 1, memory_order_relaxed);
        atomic_store_explicit(&x.c->received_bytes, (k + 1) * sp->msg_size, memory_order_relaxed);
        if (out != NULL) {
            if (out->messages == 0)
                out->first_ns = now;
            out->last_ns = now;
            out->bytes += sp->msg_size;
            out->messages++;
        }
        if (sp->op_kind == QPB_OP_WRITE)
            *x.last = (uint8_t)(2 * k + 2);
        if (!post_request(&x, sp->op_kind == QPB_OP_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, 0, 0, false))
            return;
    }
}
