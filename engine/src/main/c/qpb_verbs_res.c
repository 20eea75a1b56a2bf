/*
 * qpb_verbs_res.c — the verbs provider's resources (see qpb_verbs.h), the
 * bottom of its files: it calls none of the others. The run's GID, PD and
 * XRC domain, then per side and thread the thread domains, buffers and MRs,
 * CQs, SRQs and QPs (brought to INIT, receives posted), and what the others
 * read back from them (posted counts, the qp_num map).
 * Every failure names the verb, the object and the device; destroy keeps
 * going past a failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>

#include "qpb_buffers.h"
#include "qpb_verbs.h"

static qpb_status verb_fail(qpb_session *s, const char *call, const char *what)
{
    int e = errno ? errno : EINVAL;
    return qpb_fail(s, QPB_ESYS, "%s (%s) on %s: %s (errno %d)", call, what, s->verbs->caps.name, strerror(e), e);
}

uint8_t qpb_verbs_pattern(uint32_t conn, uint64_t offset)
{
    return (uint8_t)((conn * 0x9Du + 0x5Au) ^ (offset + (offset >> 8)));
}

/* ---- qp_num -> connection index, for completions that name only the QP ---- */

static bool map_init(qpb_vside *side, uint32_t n)
{
    uint32_t cap = 16;
    while (cap < 2 * n)
        cap <<= 1;
    side->qpn_keys = malloc(cap * sizeof(uint32_t));
    side->qpn_values = malloc(cap * sizeof(uint32_t));
    if (side->qpn_keys == NULL || side->qpn_values == NULL)
        return false;
    memset(side->qpn_keys, 0xff, cap * sizeof(uint32_t)); /* qp numbers are 24 bits: ~0 is free */
    side->qpn_mask = cap - 1;
    return true;
}

static void map_put(qpb_vside *side, uint32_t qpn, uint32_t index)
{
    uint32_t h = (qpn * 2654435761u) & side->qpn_mask;
    while (side->qpn_keys[h] != UINT32_MAX)
        h = (h + 1) & side->qpn_mask;
    side->qpn_keys[h] = qpn;
    side->qpn_values[h] = index;
}

int32_t qpb_verbs_conn_of_qpn(const qpb_vside *side, uint32_t qpn)
{
    uint32_t h = (qpn * 2654435761u) & side->qpn_mask;
    while (side->qpn_keys[h] != UINT32_MAX) {
        if (side->qpn_keys[h] == qpn)
            return (int32_t)side->qpn_values[h];
        h = (h + 1) & side->qpn_mask;
    }
    return -1;
}

/* ---- receives ---- */

int qpb_verbs_post_recv(qpb_session *s, qpb_vconn *c, uint64_t wr_id, uint8_t *buf, uint32_t lkey, qpb_vsrq *srq)
{
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = (uint32_t)s->verbs->plan.slot, .lkey = lkey};
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad = NULL;
    return srq != NULL ? ibv_post_srq_recv(srq->srq, &wr, &bad) : ibv_post_recv(c->qp, &wr, &bad);
}

/* Set-up's receives: a failure fails the call that makes the QP or SRQ. */
static qpb_status post_first_recv(qpb_session *s, qpb_vconn *c, uint64_t wr_id, uint8_t *buf, uint32_t lkey,
                                  qpb_vsrq *srq)
{
    int rc = qpb_verbs_post_recv(s, c, wr_id, buf, lkey, srq);
    if (rc == 0)
        return QPB_OK;
    errno = rc;
    return verb_fail(s, srq != NULL ? "ibv_post_srq_recv" : "ibv_post_recv", srq != NULL ? "SRQ" : "receive queue");
}

/* ---- creation ---- */

static qpb_status alloc_buffer(qpb_session *s, uint8_t **out, uint64_t *mapped, uint64_t bytes)
{
    bool huge = s->spec.buffers == QPB_BUF_HUGEPAGES;
    if ((*out = qpb_buffer_alloc(bytes, huge, mapped)) == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory for a %llu-byte buffer (%s): %s", (unsigned long long)bytes,
                        huge ? "mmap MAP_HUGETLB; see HugePages_Free in /proc/meminfo" : "posix_memalign",
                        strerror(errno));
    return QPB_OK;
}

bool qpb_verbs_relaxed_ordering(const qpb_session *s)
{
    return s->spec.relaxed_ordering && s->verbs->v->reg_mr_iova2 != NULL;
}

int qpb_verbs_mr_access(const qpb_session *s)
{
    return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
           (qpb_op_atomic(s->spec.op_kind) ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
           (s->spec.odp ? IBV_ACCESS_ON_DEMAND : 0) | (qpb_verbs_relaxed_ordering(s) ? IBV_ACCESS_RELAXED_ORDERING : 0);
}

struct ibv_mr *qpb_verbs_reg_mr(qpb_session *s, struct ibv_pd *pd, void *addr, uint64_t len)
{
    const qpb_ibv *v = s->verbs->v;
    int access = qpb_verbs_mr_access(s);
    struct ibv_mr *mr = v->reg_mr_iova2 != NULL ? v->reg_mr_iova2(pd, addr, len, (uintptr_t)addr, (unsigned)access)
                                                : v->reg_mr(pd, addr, len, access);
    if (mr == NULL)
        verb_fail(s, "ibv_reg_mr", s->spec.odp ? "buffer, on-demand paging" : "buffer");
    return mr;
}

static struct ibv_cq *make_cq(qpb_session *s, uint32_t cqe, struct ibv_comp_channel *channel)
{
    struct ibv_cq *cq = s->verbs->v->create_cq(s->verbs->ctx, (int)cqe, NULL, channel, 0);
    if (cq == NULL) {
        char what[48];
        snprintf(what, sizeof what, "%u entries", cqe);
        verb_fail(s, "ibv_create_cq", what);
    } else if (channel != NULL && ibv_req_notify_cq(cq, 0) != 0) {
        verb_fail(s, "ibv_req_notify_cq", "CQ");
        s->verbs->v->destroy_cq(cq);
        return NULL;
    }
    return cq;
}

static struct ibv_comp_channel *make_channel(qpb_session *s)
{
    struct ibv_comp_channel *ch = s->verbs->v->create_comp_channel(s->verbs->ctx);
    if (ch == NULL) {
        verb_fail(s, "ibv_create_comp_channel", "event polling");
        return NULL;
    }
    int fl = fcntl(ch->fd, F_GETFL);
    fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK);
    return ch;
}

static qpb_status make_srq(qpb_session *s, qpb_vsrq *srq, struct ibv_pd *pd, struct ibv_cq *cq)
{
    qpb_verbs *vb = s->verbs;
    srq->depth = vb->plan.srq_depth;
    if (vb->xrcd != NULL) {
        struct ibv_srq_init_attr_ex a = {
            .attr = {.max_wr = srq->depth, .max_sge = 1},
            .comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
            .srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = vb->xrcd, .cq = cq,
        };
        srq->srq = qpb_ibv_create_srq_ex(vb->ctx, &a);
        if (srq->srq == NULL)
            return verb_fail(s, "ibv_create_srq_ex", "XRC SRQ");
        if (ibv_get_srq_num(srq->srq, &srq->srqn) != 0)
            return verb_fail(s, "ibv_get_srq_num", "XRC SRQ");
    } else {
        struct ibv_srq_init_attr a = {.attr = {.max_wr = srq->depth, .max_sge = 1}};
        srq->srq = vb->v->create_srq(pd, &a);
        if (srq->srq == NULL) {
            char what[48];
            snprintf(what, sizeof what, "%u receives", srq->depth);
            return verb_fail(s, "ibv_create_srq", what);
        }
    }
    qpb_status st = alloc_buffer(s, &srq->buf, &srq->buf_mapped, (uint64_t)srq->depth * vb->plan.slot);
    if (st != QPB_OK)
        return st;
    if ((srq->mr = qpb_verbs_reg_mr(s, pd, srq->buf, (uint64_t)srq->depth * vb->plan.slot)) == NULL)
        return QPB_ESYS;
    for (uint32_t i = 0; i < srq->depth; i++)
        if ((st = post_first_recv(s, NULL, i, srq->buf + (uint64_t)i * vb->plan.slot, srq->mr->lkey, srq)) != QPB_OK)
            return st;
    return QPB_OK;
}

static qpb_status to_init(qpb_session *s, qpb_vconn *c)
{
    const qpb_spec *sp = &s->spec;
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)sp->ib_port};
    int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    if (sp->transport == QPB_TR_UD) {
        a.qkey = QPB_VERBS_QKEY;
        mask |= IBV_QP_QKEY;
    } else {
        a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                            (sp->transport == QPB_TR_UC ? 0 : IBV_ACCESS_REMOTE_READ) |
                            (qpb_op_atomic(sp->op_kind) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
        mask |= IBV_QP_ACCESS_FLAGS;
    }
    if (s->verbs->v->modify_qp(c->qp, &a, mask) != 0)
        return verb_fail(s, "ibv_modify_qp", "QP to INIT");
    return QPB_OK;
}

void qpb_verbs_qp_attr(qpb_session *s, const qpb_vside *side, const qpb_vthread *th, const qpb_vconn *c,
                       struct ibv_qp_init_attr *a)
{
    const qpb_spec *sp = &s->spec;
    bool lat = sp->mode == QPB_MODE_LATENCY; /* both ends send (ping-pong); fixed queues */
    bool recvs = (!side->sending || lat) && sp->op_kind == QPB_OP_SEND && th->srq == NULL;
    uint32_t send_wr = lat ? QPB_LAT_SEND_WR
                     : side->sending ? sp->tx_depth * (sp->qp_sharing == QPB_QPS_SHARED ? sp->threads : 1) : 1;
    *a = (struct ibv_qp_init_attr){
        .send_cq = c->cq, .recv_cq = c->cq, .srq = side->sending ? NULL : th->srq,
        .cap = {.max_send_wr = send_wr, .max_recv_wr = recvs ? s->verbs->plan.recv_per_qp : 1,
                .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = side->sending || lat ? sp->inline_size : 0},
        .qp_type = sp->transport == QPB_TR_RC ? IBV_QPT_RC : sp->transport == QPB_TR_UC ? IBV_QPT_UC : IBV_QPT_UD,
    };
    if (a->srq != NULL)
        a->cap.max_recv_wr = 0;
}

qpb_status qpb_verbs_qp_fail(qpb_session *s, const qpb_vconn *c, const struct ibv_qp_cap *cap, const char *call)
{
    char what[160];
    snprintf(what, sizeof what, "%s QP %u of thread %u: max_send_wr %u, max_recv_wr %u, max_inline_data %u",
             QPB_TRANSPORT_NAMES[s->spec.transport], c->index % s->spec.qps_per_thread, c->thread, cap->max_send_wr,
             cap->max_recv_wr, cap->max_inline_data);
    return verb_fail(s, call, what);
}

qpb_status qpb_verbs_qp_ready(qpb_session *s, qpb_vside *side, qpb_vthread *th, qpb_vconn *c)
{
    c->qpn = c->qp->qp_num;
    c->psn = (uint32_t)(lrand48() & 0xffffff);
    bool lat = s->spec.mode == QPB_MODE_LATENCY; /* the sending side receives the replies */
    if (side->sending && !lat)
        return QPB_OK;
    if (!side->sending)
        map_put(side, c->qpn, c->index);
    bool recvs = s->spec.op_kind == QPB_OP_SEND && th->srq == NULL;
    for (uint32_t k = 0; recvs && k < s->verbs->plan.recv_per_qp; k++) {
        qpb_status st = post_first_recv(s, c, c->index, c->buf, c->lkey, NULL);
        if (st != QPB_OK)
            return st;
    }
    return QPB_OK;
}

/* The ibv_wr_* operations a QP of this run posts (the same for both ends of a latency run). */
static uint64_t send_ops(qpb_op op)
{
    switch (op) {
    case QPB_OP_SEND: return IBV_QP_EX_WITH_SEND;
    case QPB_OP_WRITE: return IBV_QP_EX_WITH_RDMA_WRITE;
    case QPB_OP_READ: return IBV_QP_EX_WITH_RDMA_READ;
    case QPB_OP_ATOMIC_FADD: return IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
    case QPB_OP_ATOMIC_CSWAP: return IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
    }
    return IBV_QP_EX_WITH_SEND;
}

qpb_status qpb_verbs_create_qp(qpb_session *s, const qpb_vside *side, qpb_vthread *th, qpb_vconn *c,
                               struct ibv_qp_init_attr *a, struct rdma_cm_id *cm_id)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    /* the QPs that post sends: the sending side's, and both ends' in a latency run */
    bool wr = vb->plan.post_wr && (side->sending || sp->mode == QPB_MODE_LATENCY);
    struct ibv_qp_init_attr_ex x = {
        .qp_context = a->qp_context, .send_cq = a->send_cq, .recv_cq = a->recv_cq, .srq = a->srq, .cap = a->cap,
        .qp_type = a->qp_type, .sq_sig_all = a->sq_sig_all, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = th->pd,
    };
    if (sp->transport == QPB_TR_XRC && side->sending) {
        x.qp_type = IBV_QPT_XRC_SEND;
        x.recv_cq = NULL;
        x.cap.max_recv_wr = x.cap.max_recv_sge = 0;
    } else if (sp->transport == QPB_TR_XRC) {
        x = (struct ibv_qp_init_attr_ex){.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
                                         .xrcd = vb->xrcd};
    }
    if (wr) {
        x.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        x.send_ops_flags = send_ops(sp->op_kind);
    }
    const char *call;
    if (cm_id != NULL) {
        call = wr ? "rdma_create_qp_ex" : "rdma_create_qp";
        int rc = !wr ? vb->cm->create_qp(cm_id, th->pd, a)
               : vb->cm->create_qp_ex != NULL ? vb->cm->create_qp_ex(cm_id, &x) : (errno = EOPNOTSUPP, -1);
        c->qp = rc == 0 ? cm_id->qp : NULL;
    } else if (wr || sp->transport == QPB_TR_XRC) {
        call = "ibv_create_qp_ex";
        c->qp = qpb_ibv_create_qp_ex(vb->ctx, &x);
    } else {
        call = "ibv_create_qp";
        c->qp = vb->v->create_qp(th->pd, a);
    }
    if (c->qp == NULL)
        return qpb_verbs_qp_fail(s, c, &a->cap, call);
    if (wr && (c->qpx = vb->v->qp_to_qp_ex(c->qp)) == NULL) {
        errno = EOPNOTSUPP;
        return qpb_verbs_qp_fail(s, c, &a->cap, "ibv_qp_to_qp_ex");
    }
    return QPB_OK;
}

static qpb_status make_qp(qpb_session *s, qpb_vside *side, qpb_vthread *th, qpb_vconn *c)
{
    struct ibv_qp_init_attr a;
    qpb_verbs_qp_attr(s, side, th, c, &a);
    qpb_status st = qpb_verbs_create_qp(s, side, th, c, &a, NULL);
    if (st == QPB_OK)
        st = to_init(s, c);
    return st != QPB_OK ? st : qpb_verbs_qp_ready(s, side, th, c);
}

/* The CQs a thread's connections use: shared, its own, or one per QP. */
static qpb_status thread_cqs(qpb_session *s, qpb_vside *side, qpb_vthread *th)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    uint32_t cqe = side->sending ? vb->plan.send_cqe : vb->plan.recv_cqe;
    bool event = sp->polling == QPB_POLL_EVENT;
    if (event && sp->cq_mode != QPB_CQ_SHARED && (th->channel = make_channel(s)) == NULL)
        return QPB_ESYS;
    if (sp->cq_mode == QPB_CQ_PER_THREAD && (th->cq = make_cq(s, cqe, th->channel)) == NULL)
        return QPB_ESYS;
    for (uint32_t i = 0; i < sp->qps_per_thread; i++) {
        qpb_vconn *c = &th->conns[i];
        if (sp->cq_mode == QPB_CQ_PER_QP)
            c->cq = make_cq(s, cqe, th->channel);
        else
            c->cq = sp->cq_mode == QPB_CQ_SHARED ? side->shared_cq : th->cq;
        if (c->cq == NULL)
            return QPB_ESYS;
    }
    return QPB_OK;
}

static qpb_status thread_memory(qpb_session *s, qpb_vside *side, qpb_vthread *th)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    uint32_t q = sp->qps_per_thread;
    uint64_t slot = vb->plan.slot, bytes = (uint64_t)q * slot;
    qpb_status st = alloc_buffer(s, &th->buf, &th->buf_mapped, bytes);
    if (st != QPB_OK)
        return st;
    /* The data source of a verified run holds its connection's pattern. */
    bool source = side->sending ? sp->op_kind != QPB_OP_READ : sp->op_kind == QPB_OP_READ;
    for (uint32_t i = 0; sp->verify && source && i < q; i++)
        for (uint64_t o = 0; o < sp->msg_size; o++)
            th->buf[i * slot + o] = qpb_verbs_pattern(th->conns[i].index, o);
    if (sp->mr_mode == QPB_MR_PER_THREAD) {
        if ((th->mr = qpb_verbs_reg_mr(s, th->pd, th->buf, bytes)) == NULL)
            return QPB_ESYS;
    } else if ((th->qp_mrs = calloc(q, sizeof(struct ibv_mr *))) == NULL) {
        return qpb_fail(s, QPB_ESYS, "out of memory for %u MR handles", q);
    }
    for (uint32_t i = 0; i < q; i++) {
        qpb_vconn *c = &th->conns[i];
        c->buf = th->buf + (uint64_t)i * slot;
        if (th->qp_mrs != NULL && (th->qp_mrs[i] = qpb_verbs_reg_mr(s, th->pd, c->buf, slot)) == NULL)
            return QPB_ESYS;
        c->lkey = th->qp_mrs != NULL ? th->qp_mrs[i]->lkey : th->mr->lkey;
    }
    return QPB_OK;
}

/* What a thread that makes its own QPs owns besides them: its connections' numbering, thread domain,
 * CQs, buffer and MRs, and its SRQ (or the side's shared one, made by the first thread). */
static qpb_status thread_resources(qpb_session *s, qpb_vside *side, uint32_t t)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    qpb_vthread *th = &side->threads[t];
    th->conns = &side->conns[(size_t)t * sp->qps_per_thread];
    for (uint32_t i = 0; i < sp->qps_per_thread; i++) {
        th->conns[i].index = t * sp->qps_per_thread + i;
        th->conns[i].thread = t;
    }
    th->pd = vb->pd;
    if (sp->lock_model == QPB_LOCK_THREAD_DOMAIN) {
        struct ibv_td_init_attr ta = {0};
        if ((th->td = ibv_alloc_td(vb->ctx, &ta)) == NULL)
            return verb_fail(s, "ibv_alloc_td", "thread domain");
        struct ibv_parent_domain_init_attr pa = {.pd = vb->pd, .td = th->td};
        if ((th->pd = ibv_alloc_parent_domain(vb->ctx, &pa)) == NULL) {
            th->pd = vb->pd;
            return verb_fail(s, "ibv_alloc_parent_domain", "thread domain");
        }
    }
    qpb_status st = thread_cqs(s, side, th);
    if (st == QPB_OK)
        st = thread_memory(s, side, th);
    if (st != QPB_OK)
        return st;
    if (!side->sending && vb->plan.n_srq > 0) {
        qpb_vsrq *srq = &side->srqs[sp->srq == QPB_SRQ_SHARED ? 0 : t];
        struct ibv_pd *pd = sp->srq == QPB_SRQ_SHARED ? vb->pd : th->pd;
        if (srq->srq == NULL && (st = make_srq(s, srq, pd, th->conns[0].cq)) != QPB_OK)
            return st;
        th->srq = srq->srq;
        th->srqn = srq->srqn;
    }
    return QPB_OK;
}

/*
 * A thread owns what it made, and side_destroy frees exactly that. With qp_sharing shared, thread 0
 * makes the QPs and everything above; every other thread posts to thread 0's connections (the side's
 * conns array, which the side owns) and owns only its cycle slots.
 */
static qpb_status make_thread(qpb_session *s, qpb_vside *side, uint32_t t)
{
    const qpb_spec *sp = &s->spec;
    qpb_vthread *th = &side->threads[t];
    bool makes_qps = sp->qp_sharing != QPB_QPS_SHARED || t == 0;
    qpb_status st = makes_qps ? thread_resources(s, side, t) : QPB_OK;
    if (st != QPB_OK)
        return st;
    if (!makes_qps)
        th->conns = side->threads[0].conns;
    if (side->sending && (th->cycles = calloc(sp->tx_depth, sizeof(qpb_vcycle))) == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory for %u cycle slots", sp->tx_depth);
    /* with rdma_cm a QP is made on its connection's cm id, when it connects */
    for (uint32_t i = 0; makes_qps && !sp->rdma_cm && i < sp->qps_per_thread; i++)
        if ((st = make_qp(s, side, th, &th->conns[i])) != QPB_OK)
            return st;
    return QPB_OK;
}

static qpb_status side_create(qpb_session *s, qpb_vside **out, bool sending)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    qpb_vside *side = calloc(1, sizeof(*side));
    *out = side;
    if (side == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory for the verbs side");
    side->sending = sending;
    side->threads = calloc(sp->threads, sizeof(qpb_vthread));
    side->conns = calloc(vb->plan.qps, sizeof(qpb_vconn));
    side->srqs = !sending && vb->plan.n_srq ? calloc(vb->plan.n_srq, sizeof(qpb_vsrq)) : NULL;
    if (side->threads == NULL || side->conns == NULL || (!sending && vb->plan.n_srq && side->srqs == NULL) ||
        !map_init(side, vb->plan.qps))
        return qpb_fail(s, QPB_ESYS, "out of memory for %u connections", vb->plan.qps);
    if (sp->cq_mode == QPB_CQ_SHARED) {
        pthread_mutex_init(&side->shared_cq_lock, NULL);
        side->shared_cq_lock_init = true;
        if (sp->polling == QPB_POLL_EVENT && (side->shared_channel = make_channel(s)) == NULL)
            return QPB_ESYS;
        side->shared_cq = make_cq(s, sending ? vb->plan.send_cqe : vb->plan.recv_cqe, side->shared_channel);
        if (side->shared_cq == NULL)
            return QPB_ESYS;
    }
    for (uint32_t t = 0; t < sp->threads; t++) {
        qpb_status st = make_thread(s, side, t);
        if (st != QPB_OK)
            return st;
    }
    return QPB_OK;
}

static void side_destroy(qpb_session *s, qpb_vside *side)
{
    qpb_verbs *vb = s->verbs;
    const qpb_ibv *v = vb->v;
    const qpb_spec *sp = &s->spec;
    if (side == NULL)
        return;
    if (side->ah != NULL)
        v->destroy_ah(side->ah);
    for (uint32_t i = 0; side->conns != NULL && i < vb->plan.qps; i++) {
        qpb_vconn *c = &side->conns[i];
        if (c->qp != NULL)
            v->destroy_qp(c->qp);
        if (c->cm_id != NULL) {
            c->cm_id->qp = NULL; /* destroyed above */
            vb->cm->destroy_id(c->cm_id);
        }
    }
    for (uint32_t i = 0; side->srqs != NULL && i < vb->plan.n_srq; i++) {
        if (side->srqs[i].srq != NULL)
            v->destroy_srq(side->srqs[i].srq);
        if (side->srqs[i].mr != NULL)
            v->dereg_mr(side->srqs[i].mr);
        qpb_buffer_free(side->srqs[i].buf, side->srqs[i].buf_mapped);
    }
    /* a connection owns its CQ with cq_mode per_qp (else it borrows its thread's or the side's);
     * destroyed after the SRQs: an XRC SRQ holds its CQ */
    for (uint32_t i = 0; sp->cq_mode == QPB_CQ_PER_QP && side->conns != NULL && i < vb->plan.qps; i++)
        if (side->conns[i].cq != NULL)
            v->destroy_cq(side->conns[i].cq);
    for (uint32_t t = 0; side->threads != NULL && t < sp->threads; t++) {
        qpb_vthread *th = &side->threads[t]; /* frees what it made: see make_thread */
        for (uint32_t i = 0; th->qp_mrs != NULL && i < sp->qps_per_thread; i++)
            if (th->qp_mrs[i] != NULL)
                v->dereg_mr(th->qp_mrs[i]);
        if (th->mr != NULL)
            v->dereg_mr(th->mr);
        if (th->cq != NULL)
            v->destroy_cq(th->cq);
        if (th->channel != NULL)
            v->destroy_comp_channel(th->channel);
        if (th->pd != NULL && th->pd != vb->pd) /* a parent domain */
            v->dealloc_pd(th->pd);
        if (th->td != NULL)
            ibv_dealloc_td(th->td);
        free(th->qp_mrs);
        qpb_buffer_free(th->buf, th->buf_mapped);
        free(th->cycles);
    }
    if (side->shared_cq != NULL)
        v->destroy_cq(side->shared_cq);
    if (side->shared_channel != NULL)
        v->destroy_comp_channel(side->shared_channel);
    if (side->shared_cq_lock_init)
        pthread_mutex_destroy(&side->shared_cq_lock);
    free(side->threads);
    free(side->conns);
    free(side->srqs);
    free(side->qpn_keys);
    free(side->qpn_values);
    free(side);
}

uint64_t qpb_verbs_posted(qpb_session *s, uint32_t conn)
{
    qpb_vside *tx = s->verbs->tx;
    if (s->spec.qp_sharing != QPB_QPS_SHARED)
        return tx->conns[conn].posted;
    uint64_t all = 0; /* each cycle of each thread posts one message on every shared QP */
    for (uint32_t t = 0; t < s->spec.threads; t++)
        all += tx->threads[t].admitted;
    return all;
}

/* ---- the run's resources ---- */

qpb_status qpb_verbs_res_create(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    qpb_status st;
    pthread_mutex_init(&vb->ctl_lock, NULL); /* a default mutex: nothing to destroy */
    atomic_init(&vb->peer_result, 0);
    if (vb->plan.gid_index >= 0 && vb->v->query_gid(vb->ctx, (uint8_t)sp->ib_port, vb->plan.gid_index, &vb->gid) != 0)
        return verb_fail(s, "ibv_query_gid", "the run's GID");
    if ((vb->pd = vb->v->alloc_pd(vb->ctx)) == NULL)
        return verb_fail(s, "ibv_alloc_pd", "protection domain");
    if (sp->transport == QPB_TR_XRC && sp->role != QPB_ROLE_CLIENT) {
        struct ibv_xrcd_init_attr xa = {.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
                                        .fd = -1, .oflags = O_CREAT};
        if ((vb->xrcd = ibv_open_xrcd(vb->ctx, &xa)) == NULL)
            return verb_fail(s, "ibv_open_xrcd", "XRC domain");
    }
    /* bidirectional: both sides of QPs on either end of the pair */
    if ((sp->role != QPB_ROLE_SERVER || sp->bidirectional) && (st = side_create(s, &vb->tx, true)) != QPB_OK)
        return st;
    if ((sp->role != QPB_ROLE_CLIENT || sp->bidirectional) && (st = side_create(s, &vb->rx, false)) != QPB_OK)
        return st;
    if ((vb->expected = calloc(vb->plan.qps, sizeof(uint64_t))) == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory for %u counters", vb->plan.qps);
    atomic_init(&vb->senders_left, vb->tx ? sp->threads : 0);
    atomic_init(&vb->receivers_left, vb->rx ? sp->threads : 0);
    atomic_init(&vb->fin, 0);
    return QPB_OK;
}

void qpb_verbs_res_destroy(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    side_destroy(s, vb->tx);
    side_destroy(s, vb->rx);
    if (vb->xrcd != NULL)
        ibv_close_xrcd(vb->xrcd);
    if (vb->pd != NULL)
        vb->v->dealloc_pd(vb->pd);
    free(vb->expected);
}
