/*
 * test_verbs_post.c — the verbs sender's two post paths on a fake device:
 * post_api legacy (ibv_post_send) and wr (ibv_wr_start, ibv_wr_<op>,
 * ibv_wr_set_*, ibv_wr_complete).
 *
 * ibv_post_send and ibv_poll_cq are inline calls through the context's ops,
 * and the ibv_wr_* functions inline calls through the ibv_qp_ex's function
 * pointers (rdma-core's verbs.h), so a fake context and a fake ibv_qp_ex
 * stand in for a device: both paths record every request they are given
 * (opcode, flags, addresses, SGE or inline data, UD address, XRC SRQ number)
 * and each post (ibv_post_send, or ibv_wr_start .. ibv_wr_complete), and poll
 * completes every signaled request. The sender's loop and its latency mode
 * run unchanged on it: the tests compare what reached the device.
 */
#include <errno.h>
#include <time.h>

#include "qpb_record.h"
#include "qpb_test.h"
#include "qpb_verbs.h"

#define MSG 64u
#define MAX_REQS 4096
#define MAX_QPS 2

typedef struct req {
    uint64_t wr_id;
    unsigned flags;
    enum ibv_wr_opcode op;
    uint32_t qp;                 /* qp_num */
    uint32_t rkey;
    uint64_t remote_addr, compare_add, swap;
    uint32_t lkey, length;
    uint64_t addr;               /* the SGE's address, or the inline data's */
    bool inl;                    /* ibv_wr_set_inline_data (wr), IBV_SEND_INLINE (legacy) */
    void *ah;
    uint32_t remote_qpn, remote_qkey, remote_srqn;
} req;

typedef struct fake {
    struct ibv_context ctx;
    struct ibv_cq cq;
    struct ibv_qp_ex qpx[MAX_QPS];
    int wr_complete_rc;         /* what ibv_wr_complete returns (0) */
    /* what reached the device */
    req reqs[MAX_REQS];
    uint32_t n_reqs;
    uint32_t post_send_calls, wr_starts, wr_completes, largest_post, open; /* open: requests of the current post */
    bool in_wr;                 /* between ibv_wr_start and ibv_wr_complete */
    uint64_t done[MAX_REQS];    /* signaled requests not yet polled: wr_id, qp_num */
    uint32_t done_qp[MAX_REQS];
    uint32_t n_done, polled;
    /* the run */
    qpb_session s;
    qpb_verbs vb;
    qpb_vside tx;
    qpb_vthread th;
    qpb_vconn conns[MAX_QPS];
    qpb_sender_out out;
    uint8_t buf[MAX_QPS][MSG];
    uint64_t expected[MAX_QPS];
    int polls;
} fake;

static fake *the_fake;

static void post_done(fake *f, uint32_t batch)
{
    if (batch > f->largest_post)
        f->largest_post = batch;
}

static void signaled(fake *f, const req *r)
{
    if ((r->flags & IBV_SEND_SIGNALED) && f->n_done < MAX_REQS) {
        f->done[f->n_done] = r->wr_id;
        f->done_qp[f->n_done++] = r->qp;
    }
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    fake *f = the_fake;
    (void)bad;
    f->post_send_calls++;
    uint32_t batch = 0;
    for (; wr != NULL && f->n_reqs < MAX_REQS; wr = wr->next, batch++) {
        req *r = &f->reqs[f->n_reqs++];
        *r = (req){.wr_id = wr->wr_id, .flags = (unsigned)wr->send_flags, .op = wr->opcode, .qp = qp->qp_num,
                   .lkey = wr->sg_list[0].lkey, .length = wr->sg_list[0].length, .addr = wr->sg_list[0].addr,
                   .inl = (wr->send_flags & IBV_SEND_INLINE) != 0};
        if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
            r->rkey = wr->wr.atomic.rkey, r->remote_addr = wr->wr.atomic.remote_addr;
            r->compare_add = wr->wr.atomic.compare_add, r->swap = wr->wr.atomic.swap;
        } else if (qp->qp_type == IBV_QPT_UD) {
            r->ah = wr->wr.ud.ah, r->remote_qpn = wr->wr.ud.remote_qpn, r->remote_qkey = wr->wr.ud.remote_qkey;
        } else if (wr->opcode != IBV_WR_SEND) {
            r->rkey = wr->wr.rdma.rkey, r->remote_addr = wr->wr.rdma.remote_addr;
        }
        if (qp->qp_type == IBV_QPT_XRC_SEND)
            r->remote_srqn = wr->qp_type.xrc.remote_srqn;
        signaled(f, r);
    }
    post_done(f, batch);
    return 0;
}

/* ---- the ibv_qp_ex of post_api wr: every ibv_wr_<op> opens a request, the setters fill it ---- */

static req *wr_open(struct ibv_qp_ex *q, enum ibv_wr_opcode op)
{
    fake *f = the_fake;
    CHECK(f->in_wr); /* only between ibv_wr_start and ibv_wr_complete */
    if (f->n_reqs >= MAX_REQS)
        return &f->reqs[MAX_REQS - 1];
    req *r = &f->reqs[f->n_reqs++];
    *r = (req){.wr_id = q->wr_id, .flags = q->wr_flags, .op = op, .qp = q->qp_base.qp_num};
    f->open++;
    return r;
}

static req *wr_last(void)
{
    fake *f = the_fake;
    return &f->reqs[f->n_reqs > 0 ? f->n_reqs - 1 : 0];
}

static void fake_wr_start(struct ibv_qp_ex *q)
{
    (void)q;
    CHECK(!the_fake->in_wr);
    the_fake->in_wr = true;
    the_fake->open = 0;
    the_fake->wr_starts++;
}

static int fake_wr_complete(struct ibv_qp_ex *q)
{
    (void)q;
    fake *f = the_fake;
    CHECK(f->in_wr);
    f->in_wr = false;
    f->wr_completes++;
    if (f->wr_complete_rc != 0)
        return f->wr_complete_rc;
    post_done(f, f->open);
    for (uint32_t i = f->n_reqs - f->open; i < f->n_reqs; i++)
        signaled(f, &f->reqs[i]);
    return 0;
}

static void fake_wr_abort(struct ibv_qp_ex *q)
{
    (void)q;
    the_fake->in_wr = false;
}

static void fake_wr_send(struct ibv_qp_ex *q)
{
    wr_open(q, IBV_WR_SEND);
}

static void fake_wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr)
{
    req *r = wr_open(q, IBV_WR_RDMA_WRITE);
    r->rkey = rkey, r->remote_addr = remote_addr;
}

static void fake_wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr)
{
    req *r = wr_open(q, IBV_WR_RDMA_READ);
    r->rkey = rkey, r->remote_addr = remote_addr;
}

static void fake_wr_fetch_add(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
    req *r = wr_open(q, IBV_WR_ATOMIC_FETCH_AND_ADD);
    r->rkey = rkey, r->remote_addr = remote_addr, r->compare_add = add;
}

static void fake_wr_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
    req *r = wr_open(q, IBV_WR_ATOMIC_CMP_AND_SWP);
    r->rkey = rkey, r->remote_addr = remote_addr, r->compare_add = compare, r->swap = swap;
}

static void fake_wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr, uint32_t length)
{
    (void)q;
    req *r = wr_last();
    r->lkey = lkey, r->addr = addr, r->length = length;
}

static void fake_wr_set_inline_data(struct ibv_qp_ex *q, void *addr, size_t length)
{
    (void)q;
    req *r = wr_last();
    r->inl = true, r->addr = (uintptr_t)addr, r->length = (uint32_t)length;
}

static void fake_wr_set_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)
{
    (void)q;
    req *r = wr_last();
    r->ah = ah, r->remote_qpn = remote_qpn, r->remote_qkey = remote_qkey;
}

static void fake_wr_set_xrc_srqn(struct ibv_qp_ex *q, uint32_t remote_srqn)
{
    (void)q;
    wr_last()->remote_srqn = remote_srqn;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    (void)cq;
    fake *f = the_fake;
    if (++f->polls > 1000000) /* the sender did not end: stop it so that the test fails instead of hanging */
        atomic_store(&f->s.abort, 1);
    int got = 0;
    for (; got < n && f->polled < f->n_done; got++, f->polled++)
        wc[got] = (struct ibv_wc){.wr_id = f->done[f->polled], .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND,
                                  .qp_num = f->done_qp[f->polled]};
    return got;
}

/* ---- a sending side of one thread, wired to the fake ---- */

typedef struct shape {
    qpb_op op;
    qpb_transport transport;
    qpb_mode mode;
    uint32_t qps, post_list, signal_every, tx_depth, inline_size;
    uint64_t iterations;
    bool wr;
    bool shared; /* qp_sharing shared (every request signaled, named by thread, QP and cycle slot) */
} shape;

static fake *make_fake(const shape *sh)
{
    fake *f = calloc(1, sizeof(*f));
    the_fake = f;
    f->ctx.ops.post_send = fake_post_send;
    f->ctx.ops.poll_cq = fake_poll_cq;
    f->cq.context = &f->ctx;
    enum ibv_qp_type type = sh->transport == QPB_TR_UD    ? IBV_QPT_UD
                            : sh->transport == QPB_TR_UC  ? IBV_QPT_UC
                            : sh->transport == QPB_TR_XRC ? IBV_QPT_XRC_SEND
                                                          : IBV_QPT_RC;
    qpb_session *s = &f->s;
    s->spec = (qpb_spec){.provider_kind = QPB_PROVIDER_VERBS, .role = QPB_ROLE_LOOPBACK, .op_kind = sh->op,
                         .mode = sh->mode, .threads = 1, .qps_per_thread = sh->qps,
                         .msg_size = qpb_op_atomic(sh->op) ? 8 : MSG, .iterations = sh->iterations,
                         .tx_depth = sh->tx_depth, .transport = sh->transport, .srq = QPB_SRQ_NONE,
                         .signal_every = sh->signal_every, .post_list = sh->post_list, .rx_depth = 1,
                         .inline_size = sh->inline_size, .cq_mode = QPB_CQ_PER_THREAD, .polling = QPB_POLL_BUSY,
                         .trace_every = 1, .post_api = sh->wr ? QPB_POST_WR : QPB_POST_LEGACY,
                         .qp_sharing = sh->shared ? QPB_QPS_SHARED : QPB_QPS_PER_THREAD};
    clock_gettime(CLOCK_MONOTONIC_RAW, &s->t0);
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->stop, 0);
    atomic_init(&s->abort, 0);
    atomic_init(&s->host_begun, 0);
    s->proc_stat_path = "/proc/stat";
    s->senders = &f->out;
    s->verbs = &f->vb;
    f->out = (qpb_sender_out){.s = s, .thread = 0, .trace_next = UINT64_MAX, .trace_every = 1};
    CHECK(qpb_ring_init(&f->out.ring, 1));
    CHECK(qpb_stats_init(&f->out.stats, s->spec.msg_size * sh->qps, sh->qps));

    qpb_verbs *vb = &f->vb;
    snprintf(vb->caps.name, sizeof vb->caps.name, "fake0");
    vb->plan.slot = MSG;
    vb->plan.qps = sh->qps;
    vb->plan.post_wr = sh->wr;
    vb->tx = &f->tx;
    vb->expected = f->expected;
    atomic_init(&vb->senders_left, 1);
    atomic_init(&vb->fin, 0);
    for (uint32_t i = 0; i < sh->qps; i++) {
        struct ibv_qp_ex *q = &f->qpx[i];
        q->qp_base = (struct ibv_qp){.context = &f->ctx, .qp_num = 0x100 + i, .qp_type = type};
        q->wr_start = fake_wr_start, q->wr_complete = fake_wr_complete, q->wr_abort = fake_wr_abort;
        q->wr_send = fake_wr_send, q->wr_rdma_write = fake_wr_rdma_write, q->wr_rdma_read = fake_wr_rdma_read;
        q->wr_atomic_fetch_add = fake_wr_fetch_add, q->wr_atomic_cmp_swp = fake_wr_cmp_swp;
        q->wr_set_sge = fake_wr_set_sge, q->wr_set_inline_data = fake_wr_set_inline_data;
        q->wr_set_ud_addr = fake_wr_set_ud_addr, q->wr_set_xrc_srqn = fake_wr_set_xrc_srqn;
        f->conns[i] = (qpb_vconn){.qp = &q->qp_base, .qpx = sh->wr ? q : NULL, .cq = &f->cq, .index = i,
                                  .qpn = q->qp_base.qp_num, .buf = f->buf[i], .lkey = 30 + i,
                                  .remote_qpn = 0x200 + i, .remote_srqn = 0x300 + i,
                                  .remote_addr = 0x10000ull * (i + 1), .rkey = 40 + i};
    }
    f->th = (qpb_vthread){.cq = &f->cq, .conns = f->conns};
    f->tx = (qpb_vside){.sending = true, .threads = &f->th, .conns = f->conns, .ah = (struct ibv_ah *)&f->ctx};
    if (sh->mode == QPB_MODE_BW)
        CHECK((f->th.cycles = calloc(sh->tx_depth, sizeof(qpb_vcycle))) != NULL);
    return f;
}

static void free_fake(fake *f)
{
    qpb_ring_free(&f->out.ring);
    qpb_stats_free(&f->out.stats);
    free(f->th.cycles);
    pthread_mutex_destroy(&f->s.lock);
    free(f);
    the_fake = NULL;
}

/* Runs the sending thread to its end on a fresh fake; the caller frees it. */
static fake *run(const shape *sh)
{
    fake *f = make_fake(sh);
    if (sh->mode == QPB_MODE_LATENCY)
        qpb_verbs_lat_initiate(&f->s, 0);
    else
        qpb_verbs_run_sender(&f->s, 0);
    CHECKF(f->s.run_err[0] == '\0', "run_err: %s", f->s.run_err);
    CHECKF(!atomic_load(&f->s.abort), "the run was aborted after %d polls", f->polls);
    return f;
}

/* The same request on two fakes: addresses in their own buffers and AH compared by offset. */
static bool same_req(const fake *fa, const req *a, const fake *fb, const req *b)
{
    uint64_t base_a = (uintptr_t)fa->buf, base_b = (uintptr_t)fb->buf;
    return a->addr - base_a == b->addr - base_b && (a->ah == NULL) == (b->ah == NULL) &&
           (a->ah == NULL || (a->ah == (void *)&fa->ctx && b->ah == (void *)&fb->ctx)) && a->wr_id == b->wr_id && a->flags == b->flags && a->op == b->op && a->qp == b->qp && a->rkey == b->rkey &&
           a->remote_addr == b->remote_addr && a->compare_add == b->compare_add && a->swap == b->swap &&
           a->length == b->length && a->inl == b->inl &&
           a->remote_qpn == b->remote_qpn && a->remote_qkey == b->remote_qkey && a->remote_srqn == b->remote_srqn &&
           (a->inl || a->lkey == b->lkey);
}

/* Runs sh with legacy and with wr: the same requests reach the device, in the same posts. */
static void both_paths_post_the_same(shape sh, const char *what)
{
    sh.wr = false;
    fake *legacy = run(&sh);
    sh.wr = true;
    fake *wr = run(&sh);
    CHECKF(legacy->n_reqs > 0 && legacy->n_reqs == wr->n_reqs, "%s: %u requests legacy, %u wr", what,
           legacy->n_reqs, wr->n_reqs);
    for (uint32_t i = 0; i < legacy->n_reqs && i < wr->n_reqs; i++) {
        const req *a = &legacy->reqs[i], *b = &wr->reqs[i];
        if (!same_req(legacy, a, wr, b)) {
            CHECKF(false, "%s: request %u differs: legacy op %d flags 0x%x wr_id 0x%llx len %u, wr op %d flags 0x%x "
                   "wr_id 0x%llx len %u", what, i, a->op, a->flags, (unsigned long long)a->wr_id, a->length, b->op,
                   b->flags, (unsigned long long)b->wr_id, b->length);
            break;
        }
    }
    /* legacy: ibv_post_send only; wr: ibv_wr_start .. ibv_wr_complete only, as many posts as legacy */
    CHECKF(legacy->wr_starts == 0 && legacy->post_send_calls > 0, "%s: legacy %u wr_start", what, legacy->wr_starts);
    CHECKF(wr->post_send_calls == 0 && wr->wr_starts == legacy->post_send_calls &&
               wr->wr_completes == wr->wr_starts && wr->largest_post == legacy->largest_post,
           "%s: wr %u ibv_post_send, %u starts, %u completes, %u largest; legacy %u posts, %u largest", what,
           wr->post_send_calls, wr->wr_starts, wr->wr_completes, wr->largest_post, legacy->post_send_calls,
           legacy->largest_post);
    free_fake(legacy);
    free_fake(wr);
}

static void wr_and_legacy_post_the_same_requests(void)
{
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_RC, .qps = 2, .post_list = 4,
                                     .signal_every = 4, .tx_depth = 16, .iterations = 40}, "rc send");
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_RC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 8, .inline_size = MSG, .iterations = 20},
                             "rc send inline");
    both_paths_post_the_same((shape){.op = QPB_OP_WRITE, .transport = QPB_TR_UC, .qps = 2, .post_list = 8,
                                     .signal_every = 2, .tx_depth = 32, .iterations = 64}, "uc write");
    both_paths_post_the_same((shape){.op = QPB_OP_READ, .transport = QPB_TR_RC, .qps = 1, .post_list = 2,
                                     .signal_every = 1, .tx_depth = 4, .iterations = 10}, "rc read");
    both_paths_post_the_same((shape){.op = QPB_OP_ATOMIC_FADD, .transport = QPB_TR_RC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .iterations = 10}, "rc fetch-and-add");
    both_paths_post_the_same((shape){.op = QPB_OP_ATOMIC_CSWAP, .transport = QPB_TR_RC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .iterations = 10}, "rc compare-and-swap");
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_UD, .qps = 2, .post_list = 2,
                                     .signal_every = 1, .tx_depth = 8, .inline_size = MSG, .iterations = 12},
                             "ud send inline");
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_XRC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .iterations = 6}, "xrc send");
    both_paths_post_the_same((shape){.op = QPB_OP_READ, .transport = QPB_TR_RC, .qps = 2, .post_list = 2,
                                     .signal_every = 1, .tx_depth = 8, .iterations = 12, .shared = true},
                             "rc read, qp_sharing shared");
    /* every instance of post_wr_as (op x transport x inline) */
    both_paths_post_the_same((shape){.op = QPB_OP_WRITE, .transport = QPB_TR_RC, .qps = 1, .post_list = 2,
                                     .signal_every = 2, .tx_depth = 8, .inline_size = MSG, .iterations = 10},
                             "rc write inline");
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_UD, .qps = 1, .post_list = 3,
                                     .signal_every = 3, .tx_depth = 9, .iterations = 9}, "ud send");
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_XRC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .inline_size = MSG, .iterations = 6},
                             "xrc send inline");
    both_paths_post_the_same((shape){.op = QPB_OP_WRITE, .transport = QPB_TR_XRC, .qps = 2, .post_list = 2,
                                     .signal_every = 2, .tx_depth = 8, .iterations = 8}, "xrc write");
    both_paths_post_the_same((shape){.op = QPB_OP_WRITE, .transport = QPB_TR_XRC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .inline_size = MSG, .iterations = 4},
                             "xrc write inline");
    both_paths_post_the_same((shape){.op = QPB_OP_READ, .transport = QPB_TR_XRC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .iterations = 4}, "xrc read");
    both_paths_post_the_same((shape){.op = QPB_OP_SEND, .transport = QPB_TR_UC, .qps = 1, .post_list = 1,
                                     .signal_every = 1, .tx_depth = 4, .inline_size = MSG, .iterations = 4},
                             "uc send inline");
    both_paths_post_the_same((shape){.op = QPB_OP_READ, .transport = QPB_TR_RC, .mode = QPB_MODE_LATENCY, .qps = 1,
                                     .post_list = 1, .signal_every = 1, .tx_depth = 1, .iterations = 10},
                             "rc read latency");
    both_paths_post_the_same((shape){.op = QPB_OP_ATOMIC_FADD, .transport = QPB_TR_RC, .mode = QPB_MODE_LATENCY,
                                     .qps = 1, .post_list = 1, .signal_every = 1, .tx_depth = 1, .iterations = 10},
                             "rc fetch-and-add latency");
}

/* What the wr path hands the device, field by field: one ibv_wr_start .. ibv_wr_complete per QP and post list,
 * each request's op, remote address, data and flags. */
static void wr_posts_ops_sges_inline_and_batches(void)
{
    fake *f = run(&(shape){.op = QPB_OP_WRITE, .transport = QPB_TR_RC, .qps = 2, .post_list = 4, .signal_every = 4,
                           .tx_depth = 16, .iterations = 40, .wr = true});
    CHECKF(f->n_reqs == 80 && f->wr_starts == 20 && f->wr_completes == 20 && f->largest_post == 4,
           "%u requests in %u posts, largest %u", f->n_reqs, f->wr_starts, f->largest_post);
    CHECK(f->post_send_calls == 0);
    uint32_t signaled_reqs = 0;
    for (uint32_t i = 0; i < f->n_reqs; i++) {
        const req *r = &f->reqs[i];
        uint32_t q = r->qp - 0x100;
        uint64_t msg = (uint32_t)r->wr_id;
        CHECK(q < 2 && r->wr_id >> 32 == q);
        CHECK(r->op == IBV_WR_RDMA_WRITE && r->rkey == 40 + q && r->remote_addr == 0x10000ull * (q + 1));
        CHECK(!r->inl && r->lkey == 30 + q && r->addr == (uintptr_t)f->buf[q] && r->length == MSG);
        CHECKF(((r->flags & IBV_SEND_SIGNALED) != 0) == ((msg + 1) % 4 == 0), "message %llu flags 0x%x",
               (unsigned long long)msg, r->flags);
        signaled_reqs += (r->flags & IBV_SEND_SIGNALED) != 0;
    }
    CHECK(signaled_reqs == 20);
    CHECK(f->conns[0].posted == 40 && f->conns[0].last_signaled == 40 && f->conns[1].completed == 40);
    free_fake(f);

    /* inline sends over UD: the data by address, and the peer's AH, QP number and Q_Key */
    f = run(&(shape){.op = QPB_OP_SEND, .transport = QPB_TR_UD, .qps = 1, .post_list = 1, .signal_every = 1,
                     .tx_depth = 4, .inline_size = MSG, .iterations = 5, .wr = true});
    CHECK(f->n_reqs == 5 && f->wr_starts == 5);
    for (uint32_t i = 0; i < f->n_reqs; i++) {
        const req *r = &f->reqs[i];
        CHECK(r->op == IBV_WR_SEND && r->inl && r->addr == (uintptr_t)f->buf[0] && r->length == MSG);
        CHECK(r->flags == (IBV_SEND_INLINE | IBV_SEND_SIGNALED));
        CHECK(r->ah == (void *)&f->ctx && r->remote_qpn == 0x200 && r->remote_qkey == QPB_VERBS_QKEY);
    }
    free_fake(f);

    /* XRC: the remote SRQ number on every request; atomics: their values on 8 bytes */
    f = run(&(shape){.op = QPB_OP_SEND, .transport = QPB_TR_XRC, .qps = 1, .post_list = 1, .signal_every = 1,
                     .tx_depth = 4, .iterations = 3, .wr = true});
    CHECK(f->n_reqs == 3 && f->reqs[2].remote_srqn == 0x300 && f->reqs[2].op == IBV_WR_SEND);
    free_fake(f);
    f = run(&(shape){.op = QPB_OP_ATOMIC_CSWAP, .transport = QPB_TR_RC, .qps = 1, .post_list = 1, .signal_every = 1,
                     .tx_depth = 4, .iterations = 3, .wr = true});
    CHECK(f->n_reqs == 3 && f->reqs[0].op == IBV_WR_ATOMIC_CMP_AND_SWP && f->reqs[0].compare_add == 0 &&
          f->reqs[0].swap == 0 && f->reqs[0].length == 8 && f->reqs[0].rkey == 40);
    free_fake(f);
}

/* A failing ibv_wr_complete fails the run at once, naming the call, the QP and the errno. */
static void failed_wr_complete_fails_the_run(void)
{
    shape sh = {.op = QPB_OP_WRITE, .transport = QPB_TR_RC, .qps = 1, .post_list = 2, .signal_every = 1,
                .tx_depth = 4, .iterations = 10, .wr = true};
    fake *f = make_fake(&sh);
    f->wr_complete_rc = ENOMEM;
    qpb_verbs_run_sender(&f->s, 0);
    CHECK(f->wr_completes == 1 && f->s.run_status == QPB_ESYS);
    CHECKF(!strcmp(f->s.run_err, "ibv_wr_complete on QP 0 of thread 0 (2 requests, message 0) on fake0: Cannot "
                                 "allocate memory (errno 12)"), "run_err: %s", f->s.run_err);
    free_fake(f);
    sh.mode = QPB_MODE_LATENCY, sh.op = QPB_OP_READ, sh.post_list = 1, sh.tx_depth = 1;
    f = make_fake(&sh);
    f->wr_complete_rc = EINVAL;
    CHECK(!qpb_verbs_lat_initiate(&f->s, 0));
    CHECKF(strstr(f->s.run_err, "ibv_wr_complete on the QP of thread 0 (read latency, message 1) on fake0: ") ==
               f->s.run_err, "run_err: %s", f->s.run_err);
    free_fake(f);
}

const qpb_test_case qpb_verbs_post_tests[] = {
    {"verbs post_api wr and legacy hand the device the same requests in the same posts",
     wr_and_legacy_post_the_same_requests},
    {"verbs post_api wr posts each op, SGE, inline data and address, batched per post list",
     wr_posts_ops_sges_inline_and_batches},
    {"verbs post_api wr: a failing ibv_wr_complete fails the run naming it", failed_wr_complete_fails_the_run},
    {NULL, NULL},
};
