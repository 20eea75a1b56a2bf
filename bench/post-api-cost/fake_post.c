/*
 * fake_post.c — drives the verbs provider's sending thread (qpb_verbs_run_sender, the bw loop as
 * qpbench runs it) on a fake device, for callgrind: post_api legacy hands the fake ibv_post_send a
 * chain of ibv_send_wr, post_api wr calls the fake ibv_qp_ex's ibv_wr_* functions; the fake's poll_cq
 * completes every signaled request at once. The fake does the least a provider must (read each
 * request's fields once) the same way for both paths, so the engine's side of the post is what
 * differs. Usage: fake_post wr|legacy send|write|read POST_LIST INLINE(0|1) rc|ud ITERATIONS QPS
 * Prints "messages N". Built by run.sh against the engine's objects (-O2 -g); with -DBEFORE_POST_API
 * against an engine from before post_api (legacy only: no qpx, post_wr or post_api to set).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qpb_verbs.h"

#define MSG 64u
#define MAX_QPS 8
#define RING 65536

static struct {
    struct ibv_context ctx;
    struct ibv_cq cq;
    struct ibv_qp_ex qpx[MAX_QPS];
    uint64_t done[RING];
    uint32_t done_qp[RING];
    uint64_t head, tail;
    uint64_t cur_id, sink;  /* the open wr request; what the fake read (kept so nothing is optimised away) */
    unsigned cur_flags;
    uint32_t cur_qp;
} dev;

static void complete(uint64_t wr_id, unsigned flags, uint32_t qp)
{
    if (flags & IBV_SEND_SIGNALED) {
        dev.done[dev.head % RING] = wr_id;
        dev.done_qp[dev.head++ % RING] = qp;
    }
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    (void)bad;
    for (; wr != NULL; wr = wr->next) {
        dev.sink += wr->sg_list[0].addr + wr->sg_list[0].length + wr->sg_list[0].lkey + (unsigned)wr->opcode;
        if (qp->qp_type == IBV_QPT_UD)
            dev.sink += (uintptr_t)wr->wr.ud.ah + wr->wr.ud.remote_qpn + wr->wr.ud.remote_qkey;
        else if (wr->opcode != IBV_WR_SEND)
            dev.sink += wr->wr.rdma.remote_addr + wr->wr.rdma.rkey;
        complete(wr->wr_id, (unsigned)wr->send_flags, qp->qp_num);
    }
    return 0;
}

static void wr_start(struct ibv_qp_ex *q) { (void)q; }
static void wr_abort(struct ibv_qp_ex *q) { (void)q; }
static int wr_complete(struct ibv_qp_ex *q) { (void)q; return 0; }
static void wr_open(struct ibv_qp_ex *q, enum ibv_wr_opcode op)
{
    dev.cur_id = q->wr_id, dev.cur_flags = q->wr_flags, dev.cur_qp = q->qp_base.qp_num;
    dev.sink += (unsigned)op;
}
static void wr_send(struct ibv_qp_ex *q) { wr_open(q, IBV_WR_SEND); }
static void wr_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr) { wr_open(q, IBV_WR_RDMA_WRITE); dev.sink += raddr + rkey; }
static void wr_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr) { wr_open(q, IBV_WR_RDMA_READ); dev.sink += raddr + rkey; }
/* the data setter ends the request (the last call per request in both paths) */
static void wr_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr, uint32_t len)
{
    (void)q;
    dev.sink += addr + len + lkey;
    complete(dev.cur_id, dev.cur_flags, dev.cur_qp);
}
static void wr_inline(struct ibv_qp_ex *q, void *addr, size_t len)
{
    (void)q;
    dev.sink += (uintptr_t)addr + len;
    complete(dev.cur_id, dev.cur_flags, dev.cur_qp);
}
static void wr_ud(struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey) { (void)q; dev.sink += (uintptr_t)ah + qpn + qkey; }

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    (void)cq;
    int got = 0;
    for (; got < n && dev.tail < dev.head; got++, dev.tail++)
        wc[got] = (struct ibv_wc){.wr_id = dev.done[dev.tail % RING], .status = IBV_WC_SUCCESS,
                                  .qp_num = dev.done_qp[dev.tail % RING]};
    return got;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: fake_post wr|legacy send|write|read POST_LIST INLINE rc|ud ITERATIONS QPS\n");
        return 2;
    }
    bool wr = !strcmp(argv[1], "wr");
    qpb_op op = !strcmp(argv[2], "write") ? QPB_OP_WRITE : !strcmp(argv[2], "read") ? QPB_OP_READ : QPB_OP_SEND;
    uint32_t post_list = (uint32_t)atoi(argv[3]), qps = (uint32_t)atoi(argv[7]);
    bool inl = atoi(argv[4]) != 0, ud = !strcmp(argv[5], "ud");
    uint64_t iterations = strtoull(argv[6], NULL, 10);
    static qpb_session s;
    static qpb_verbs vb;
    static qpb_vside tx;
    static qpb_vthread th;
    static qpb_vconn conns[MAX_QPS];
    static qpb_sender_out out;
    static uint8_t buf[MAX_QPS][MSG];
    static uint64_t expected[MAX_QPS];
    uint32_t depth = 128;
    dev.ctx.ops.post_send = fake_post_send;
    dev.ctx.ops.poll_cq = fake_poll_cq;
    dev.cq.context = &dev.ctx;
    s.spec = (qpb_spec){.provider_kind = QPB_PROVIDER_VERBS, .role = QPB_ROLE_LOOPBACK, .op_kind = op, .threads = 1,
                        .qps_per_thread = qps, .msg_size = MSG, .iterations = iterations, .tx_depth = depth,
                        .transport = ud ? QPB_TR_UD : QPB_TR_RC, .signal_every = post_list, .post_list = post_list,
                        .rx_depth = 1, .inline_size = inl ? MSG : 0, .cq_mode = QPB_CQ_PER_THREAD,
                        .polling = QPB_POLL_BUSY, .trace_every = 1,
#ifndef BEFORE_POST_API
                        .post_api = wr ? QPB_POST_WR : QPB_POST_LEGACY
#endif
    };
    clock_gettime(CLOCK_MONOTONIC_RAW, &s.t0);
    pthread_mutex_init(&s.lock, NULL);
    s.proc_stat_path = "/proc/stat";
    s.senders = &out;
    s.verbs = &vb;
    out = (qpb_sender_out){.s = &s, .trace_next = UINT64_MAX, .trace_every = 1};
    if (!qpb_ring_init(&out.ring, 1) || !qpb_stats_init(&out.stats, MSG * qps, qps))
        return 1;
    snprintf(vb.caps.name, sizeof vb.caps.name, "fake0");
    vb.plan.slot = MSG, vb.plan.qps = qps;
#ifndef BEFORE_POST_API
    vb.plan.post_wr = wr;
#else
    if (wr) {
        fprintf(stderr, "fake_post: this engine has no post_api wr\n");
        return 2;
    }
#endif
    vb.tx = &tx;
    vb.expected = expected;
    atomic_init(&vb.senders_left, 1);
    for (uint32_t i = 0; i < qps; i++) {
        struct ibv_qp_ex *q = &dev.qpx[i];
        q->qp_base = (struct ibv_qp){.context = &dev.ctx, .qp_num = 0x100 + i, .qp_type = ud ? IBV_QPT_UD : IBV_QPT_RC};
        q->wr_start = wr_start, q->wr_complete = wr_complete, q->wr_abort = wr_abort, q->wr_send = wr_send;
        q->wr_rdma_write = wr_write, q->wr_rdma_read = wr_read, q->wr_set_sge = wr_sge;
        q->wr_set_inline_data = wr_inline, q->wr_set_ud_addr = wr_ud;
        conns[i] = (qpb_vconn){.qp = &q->qp_base, .cq = &dev.cq, .index = i, .buf = buf[i], .lkey = 3,
                               .remote_qpn = 0x200 + i, .remote_addr = 0x10000, .rkey = 4};
#ifndef BEFORE_POST_API
        conns[i].qpx = wr ? q : NULL;
#endif
    }
    th = (qpb_vthread){.cq = &dev.cq, .conns = conns, .cycles = calloc(depth, sizeof(qpb_vcycle))};
    tx = (qpb_vside){.sending = true, .threads = &th, .conns = conns, .ah = (struct ibv_ah *)&dev.ctx};
    qpb_verbs_run_sender(&s, 0);
    if (s.run_err[0] != '\0') {
        fprintf(stderr, "fake_post: %s\n", s.run_err);
        return 1;
    }
    printf("messages %llu sink %llu\n", (unsigned long long)(conns[0].posted * qps), (unsigned long long)dev.sink % 10);
    return 0;
}
