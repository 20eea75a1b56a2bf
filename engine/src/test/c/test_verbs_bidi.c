/*
 * test_verbs_bidi.c — a bidirectional verbs send end on a fake device: its
 * sender threads also reap and repost its receives (perftest's run_iter_bi),
 * and qpb_start runs no receiving thread.
 *
 * One end of the pair (role client) runs through qpb_start and qpb_wait as a
 * connected session would. The device is a fake context (ibv_post_send,
 * ibv_poll_cq, ibv_post_recv and ibv_post_srq_recv are inline calls through
 * its ops): every signaled send completes at the next poll of its thread's
 * send CQ, and each poll of a thread's receive CQ hands out one of the
 * peer's messages until the peer's count. The test plays the peer over a
 * socketpair: its FIN (what it posted) and its RES (what it received) wait
 * in the control socket; the end's own FIN and RES are read back after the
 * run. Every poll notes the calling thread's name (qpb-send-N, qpb-recv-N).
 * Shapes: CQs per thread and per QP, a shared CQ (either sender reaps any
 * thread's completions), SRQs per thread and shared.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "qpb_test.h"
#include "qpb_verbs.h"

#define MSG 64u
#define THREADS 2u
#define ITERS 50u       /* cycles per sending thread */
#define PEER_MSGS 40u   /* the peer's messages per connection */
#define TX_DEPTH 8u
#define MAX_REQS 256u
#define FIN_MAGIC 0x5146494eu /* qpb_verbs_oob.c's CTL_FIN and CTL_RES */
#define RES_MAGIC 0x51524553u

typedef struct fake_thread {
    struct ibv_cq txcq, rxcq;
    struct ibv_qp txqp, rxqp;
    struct ibv_srq srq;
    struct ibv_mr srq_mr;
    uint64_t done[MAX_REQS]; /* signaled sends not yet polled (a ring) */
    uint64_t n_done, polled;
    uint32_t delivered;       /* the peer's messages handed out */
    uint32_t while_sending;   /* of those, handed out while the thread still had cycles to complete */
    uint32_t reposts;
    uint8_t txbuf[MSG], rxbuf[MSG], srqbuf[MSG];
} fake_thread;

typedef struct fake {
    struct ibv_context ctx;
    fake_thread t[THREADS];
    qpb_port_caps port;
    qpb_session s;
    qpb_verbs vb;
    qpb_vside tx, rx;
    qpb_vthread txth[THREADS], rxth[THREADS];
    qpb_vconn txc[THREADS], rxc[THREADS];
    qpb_vsrq srqs[THREADS];
    uint32_t qpn_keys[4], qpn_values[4];
    uint64_t expected[THREADS];
    qpb_sender_out senders[THREADS];
    qpb_receiver_out receivers[THREADS];
    int sp[2]; /* sp[0]: the end's control socket, sp[1]: the peer's */
    /* cq_mode shared: one send CQ and one receive CQ for every thread (polled under the engine's lock, posted to
     * without it: mu guards the send ring) */
    bool shared;
    struct ibv_cq stx, srx;
    pthread_mutex_t mu;
    uint64_t sdone[MAX_REQS];
    uint32_t sdone_qp[MAX_REQS];
    uint64_t sn_done, spolled;
    uint32_t next_conn;
    atomic_int recv_thread_polls, send_thread_polls, other_polls;
    atomic_int polls;
} fake;

static fake *the_fake;

static void note_thread(fake *f)
{
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (strncmp(name, "qpb-recv-", 9) == 0)
        atomic_fetch_add(&f->recv_thread_polls, 1);
    else if (strncmp(name, "qpb-send-", 9) == 0)
        atomic_fetch_add(&f->send_thread_polls, 1);
    else
        atomic_fetch_add(&f->other_polls, 1);
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    (void)bad;
    fake_thread *ft = qp->qp_context;
    for (; wr != NULL; wr = wr->next) {
        CHECK(wr->opcode == IBV_WR_SEND);
        if (!(wr->send_flags & IBV_SEND_SIGNALED))
            continue;
        if (the_fake->shared) { /* one ring for every thread's QP */
            fake *f = the_fake;
            pthread_mutex_lock(&f->mu);
            CHECK(f->sn_done - f->spolled < MAX_REQS);
            f->sdone_qp[f->sn_done % MAX_REQS] = qp->qp_num;
            f->sdone[f->sn_done++ % MAX_REQS] = wr->wr_id;
            pthread_mutex_unlock(&f->mu);
        } else { /* a ring: at most tx_depth are ever outstanding */
            CHECK(ft->n_done - ft->polled < MAX_REQS);
            ft->done[ft->n_done++ % MAX_REQS] = wr->wr_id;
        }
    }
    return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    fake *f = the_fake;
    note_thread(f);
    if (atomic_fetch_add(&f->polls, 1) > 20000000) /* the run did not end: stop it so that the test fails */
        atomic_store(&f->s.abort, 1);
    if (cq == &f->stx) {
        int got = 0;
        pthread_mutex_lock(&f->mu);
        for (; got < n && f->spolled < f->sn_done; got++, f->spolled++)
            wc[got] = (struct ibv_wc){.wr_id = f->sdone[f->spolled % MAX_REQS], .status = IBV_WC_SUCCESS,
                                      .opcode = IBV_WC_SEND, .qp_num = f->sdone_qp[f->spolled % MAX_REQS]};
        pthread_mutex_unlock(&f->mu);
        return got;
    }
    fake_thread *ft = cq->cq_context;
    if (cq == &f->srx) { /* the next connection with messages left, round robin */
        ft = NULL;
        for (uint32_t k = 0; k < THREADS && ft == NULL; k++, f->next_conn = (f->next_conn + 1) % THREADS)
            if (f->t[f->next_conn].delivered < PEER_MSGS)
                ft = &f->t[f->next_conn];
        if (ft == NULL)
            return 0;
    }
    uint32_t i = (uint32_t)(ft - f->t);
    if (cq == &ft->txcq) {
        int got = 0;
        for (; got < n && ft->polled < ft->n_done; got++, ft->polled++)
            wc[got] = (struct ibv_wc){.wr_id = ft->done[ft->polled % MAX_REQS], .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND,
                                      .qp_num = ft->txqp.qp_num};
        return got;
    }
    if (n < 1 || ft->delivered == PEER_MSGS)
        return 0;
    ft->delivered++;
    if (f->txth[i].done < f->s.spec.iterations)
        ft->while_sending++;
    uint8_t *buf = f->s.spec.srq == QPB_SRQ_NONE ? ft->rxbuf : f->srqs[f->s.spec.srq == QPB_SRQ_SHARED ? 0 : i].buf;
    for (uint32_t o = 0; o < MSG; o++) /* the peer's pattern, for verify */
        buf[o] = qpb_verbs_pattern(i, o);
    wc[0] = (struct ibv_wc){.wr_id = f->s.spec.srq != QPB_SRQ_NONE ? 0 : i, .status = IBV_WC_SUCCESS,
                            .opcode = IBV_WC_RECV, .byte_len = MSG, .qp_num = ft->rxqp.qp_num};
    return 1;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    (void)bad;
    fake_thread *ft = qp->qp_context;
    CHECK(qp == &ft->rxqp && wr->sg_list[0].addr == (uintptr_t)ft->rxbuf);
    ft->reposts++;
    return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    (void)bad;
    fake_thread *ft = srq->srq_context;
    CHECK(wr->sg_list[0].addr == (uintptr_t)ft->srqbuf && wr->sg_list[0].lkey == ft->srq_mr.lkey);
    ft->reposts++;
    return 0;
}

/* The client end of a bidirectional send run of THREADS threads with one RC QP each way, connected. */
static fake *make_fake(qpb_srq_mode srq, qpb_cq_mode cq_mode)
{
    fake *f = calloc(1, sizeof(*f));
    the_fake = f;
    f->ctx.ops.post_send = fake_post_send;
    f->ctx.ops.poll_cq = fake_poll_cq;
    f->ctx.ops.post_recv = fake_post_recv;
    f->ctx.ops.post_srq_recv = fake_post_srq_recv;
    atomic_init(&f->recv_thread_polls, 0);
    atomic_init(&f->send_thread_polls, 0);
    atomic_init(&f->other_polls, 0);
    atomic_init(&f->polls, 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, f->sp) == 0);

    qpb_session *s = &f->s;
    s->spec = (qpb_spec){.provider_kind = QPB_PROVIDER_VERBS, .role = QPB_ROLE_CLIENT, .op_kind = QPB_OP_SEND,
                         .mode = QPB_MODE_BW, .threads = THREADS, .qps_per_thread = 1, .msg_size = MSG,
                         .iterations = ITERS, .tx_depth = TX_DEPTH, .transport = QPB_TR_RC, .srq = srq,
                         .signal_every = 1, .post_list = 1, .rx_depth = 1, .cq_mode = cq_mode,
                         .polling = QPB_POLL_BUSY, .post_api = QPB_POST_LEGACY, .bidirectional = true,
                         .verify = true, .ib_port = 1};
    snprintf(s->spec.provider, sizeof s->spec.provider, "verbs");
    snprintf(s->spec.op, sizeof s->spec.op, "send");
    s->state = QPB_ST_CONNECTED;
    s->provider = &qpb_verbs_provider;
    clock_gettime(CLOCK_MONOTONIC_RAW, &s->t0);
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->ended, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->stop, 0);
    atomic_init(&s->abort, 0);
    atomic_init(&s->host_begun, 0);
    atomic_init(&s->workers_running, 0);
    s->proc_stat_path = "/proc/stat";
    s->proc_snmp_path = "/proc/net/snmp";
    s->sysfs_ib_root = "/nonexistent/qpb-test-sysfs";
    s->senders = f->senders;
    s->receivers = f->receivers;
    s->verbs = &f->vb;
    for (uint32_t i = 0; i < THREADS; i++) {
        qpb_sender_out *out = &f->senders[i];
        *out = (qpb_sender_out){.s = s, .thread = i, .trace_next = UINT64_MAX, .trace_every = 1};
        atomic_init(&out->pending, 0);
        CHECK(qpb_ring_init(&out->ring, 1));
        CHECK(qpb_stats_init(&out->stats, MSG, 1));
    }

    qpb_verbs *vb = &f->vb;
    snprintf(vb->caps.name, sizeof vb->caps.name, "fake0");
    f->port = (qpb_port_caps){.port = 1, .active = true, .ethernet = true, .active_mtu = 1024};
    vb->plan.port = &f->port;
    vb->plan.path_mtu = 1024;
    vb->plan.slot = MSG;
    vb->plan.qps = THREADS;
    vb->tx = &f->tx;
    vb->rx = &f->rx;
    vb->expected = f->expected;
    vb->ctl_fd = f->sp[0];
    vb->listen_fd = -1;
    pthread_mutex_init(&vb->ctl_lock, NULL);
    atomic_init(&vb->senders_left, THREADS);
    atomic_init(&vb->receivers_left, THREADS);
    atomic_init(&vb->fin, 0);
    atomic_init(&vb->peer_result, 0);
    memset(f->qpn_keys, 0xff, sizeof f->qpn_keys);
    for (uint32_t i = 0; i < THREADS; i++) {
        fake_thread *ft = &f->t[i];
        ft->txcq = (struct ibv_cq){.context = &f->ctx, .cq_context = ft};
        ft->rxcq = (struct ibv_cq){.context = &f->ctx, .cq_context = ft};
        ft->txqp = (struct ibv_qp){.context = &f->ctx, .qp_context = ft, .qp_num = 0x100 + i, .qp_type = IBV_QPT_RC};
        ft->rxqp = (struct ibv_qp){.context = &f->ctx, .qp_context = ft, .qp_num = 0x200 + i, .qp_type = IBV_QPT_RC};
        ft->srq = (struct ibv_srq){.context = &f->ctx, .srq_context = ft};
        ft->srq_mr.lkey = 70 + i;
        f->txc[i] = (qpb_vconn){.qp = &ft->txqp, .cq = &ft->txcq, .index = i, .thread = i, .qpn = ft->txqp.qp_num,
                                .buf = ft->txbuf, .lkey = 30 + i, .remote_qpn = 0x300 + i};
        f->rxc[i] = (qpb_vconn){.qp = &ft->rxqp, .cq = &ft->rxcq, .index = i, .thread = i, .qpn = ft->rxqp.qp_num,
                                .buf = ft->rxbuf, .lkey = 50 + i, .remote_qpn = 0x400 + i};
        f->txth[i] = (qpb_vthread){.cq = &ft->txcq, .conns = &f->txc[i]};
        CHECK((f->txth[i].cycles = calloc(TX_DEPTH, sizeof(qpb_vcycle))) != NULL);
        f->rxth[i] = (qpb_vthread){.cq = &ft->rxcq, .conns = &f->rxc[i]};
        if (srq != QPB_SRQ_NONE) {
            f->srqs[i] = (qpb_vsrq){.srq = &ft->srq, .buf = ft->srqbuf, .mr = &ft->srq_mr, .depth = 1};
            f->rxth[i].srq = &ft->srq;
            uint32_t h = (ft->rxqp.qp_num * 2654435761u) & 3u; /* qpb_verbs_conn_of_qpn's map */
            while (f->qpn_keys[h] != UINT32_MAX)
                h = (h + 1) & 3u;
            f->qpn_keys[h] = ft->rxqp.qp_num;
            f->qpn_values[h] = i;
        }
    }
    f->tx = (qpb_vside){.sending = true, .threads = f->txth, .conns = f->txc};
    f->rx = (qpb_vside){.threads = f->rxth, .conns = f->rxc};
    f->shared = cq_mode == QPB_CQ_SHARED;
    pthread_mutex_init(&f->mu, NULL);
    if (f->shared) {
        f->stx = (struct ibv_cq){.context = &f->ctx};
        f->srx = (struct ibv_cq){.context = &f->ctx};
        f->tx.shared_cq = &f->stx;
        f->rx.shared_cq = &f->srx;
        for (uint32_t i = 0; i < THREADS; i++) {
            f->txc[i].cq = &f->stx, f->txth[i].cq = NULL;
            f->rxc[i].cq = &f->srx, f->rxth[i].cq = NULL;
        }
        pthread_mutex_init(&f->tx.shared_cq_lock, NULL);
        pthread_mutex_init(&f->rx.shared_cq_lock, NULL);
        f->tx.shared_cq_lock_init = f->rx.shared_cq_lock_init = true;
    }
    if (srq != QPB_SRQ_NONE) {
        f->rx.srqs = f->srqs;
        f->rx.qpn_keys = f->qpn_keys;
        f->rx.qpn_values = f->qpn_values;
        f->rx.qpn_mask = 3u;
    }
    return f;
}

static void free_fake(fake *f)
{
    for (uint32_t i = 0; i < THREADS; i++) {
        qpb_ring_free(&f->senders[i].ring);
        qpb_stats_free(&f->senders[i].stats);
        free(f->txth[i].cycles);
    }
    free(f->s.threads);
    free(f->s.counters_before);
    free(f->s.counters_after);
    close(f->sp[0]);
    if (f->sp[1] >= 0)
        close(f->sp[1]);
    pthread_mutex_destroy(&f->vb.ctl_lock);
    pthread_mutex_destroy(&f->mu);
    if (f->shared) {
        pthread_mutex_destroy(&f->tx.shared_cq_lock);
        pthread_mutex_destroy(&f->rx.shared_cq_lock);
    }
    pthread_cond_destroy(&f->s.ended);
    pthread_mutex_destroy(&f->s.lock);
    free(f);
    the_fake = NULL;
}

/* The peer's end of run as it would send it: its FIN (PEER_MSGS posted on every connection) and its RES. */
static void peer_writes(fake *f, uint64_t res_messages)
{
    uint32_t head[2] = {htonl(FIN_MAGIC), htonl(THREADS)};
    CHECK(write(f->sp[1], head, sizeof head) == (ssize_t)sizeof head);
    for (uint32_t i = 0; i < THREADS; i++) {
        uint64_t v = htobe64(PEER_MSGS);
        CHECK(write(f->sp[1], &v, 8) == 8);
    }
    uint32_t rh[2] = {htonl(RES_MAGIC), 0};
    uint64_t res[5] = {htobe64(res_messages), htobe64(res_messages * MSG), 0, 0, 0};
    CHECK(write(f->sp[1], rh, sizeof rh) == (ssize_t)sizeof rh);
    CHECK(write(f->sp[1], res, sizeof res) == (ssize_t)sizeof res);
}

/* Reads what the end sent the peer: its FIN (messages posted per connection) and its RES. */
static void end_wrote(fake *f, uint64_t *posted, uint64_t *res)
{
    uint32_t head[2] = {0, 0};
    CHECK(read(f->sp[1], head, sizeof head) == (ssize_t)sizeof head);
    CHECKF(ntohl(head[0]) == FIN_MAGIC && ntohl(head[1]) == THREADS, "FIN head 0x%x %u", ntohl(head[0]),
           ntohl(head[1]));
    for (uint32_t i = 0; i < THREADS; i++) {
        uint64_t v = 0;
        CHECK(read(f->sp[1], &v, 8) == 8);
        posted[i] = be64toh(v);
    }
    uint64_t r[6] = {0};
    CHECK(read(f->sp[1], r, sizeof r) == (ssize_t)sizeof r);
    uint32_t magic;
    memcpy(&magic, r, 4);
    CHECKF(ntohl(magic) == RES_MAGIC, "RES magic 0x%x", ntohl(magic));
    for (int i = 0; i < 5; i++)
        res[i] = be64toh(r[1 + i]);
}

static void run_bidirectional_send(qpb_srq_mode srq, qpb_cq_mode cq_mode, const char *what)
{
    fake *f = make_fake(srq, cq_mode);
    qpb_session *s = &f->s;
    peer_writes(f, THREADS * ITERS);
    CHECKF(qpb_start(s) == QPB_OK, "%s: %s", what, s->err);
    CHECKF(qpb_wait(s, 20000) == QPB_OK, "%s: %s", what, s->err);
    CHECKF(s->run_status == QPB_OK, "%s: %s", what, s->run_err);
    /* no receiving thread: THREADS workers, every poll from a sender */
    CHECKF(s->n_threads == THREADS, "%s: %u worker threads", what, s->n_threads);
    CHECKF(atomic_load(&f->recv_thread_polls) == 0 && atomic_load(&f->other_polls) == 0 &&
               atomic_load(&f->send_thread_polls) > 0,
           "%s: polls from qpb-recv-* %d, qpb-send-* %d, others %d", what, atomic_load(&f->recv_thread_polls),
           atomic_load(&f->send_thread_polls), atomic_load(&f->other_polls));
    uint32_t reposts = 0;
    for (uint32_t i = 0; i < THREADS; i++) {
        const fake_thread *ft = &f->t[i];
        /* the sending side: every cycle counted once */
        CHECKF(f->senders[i].stats.cycles == ITERS && f->senders[i].stats.errors == 0, "%s: thread %u: %llu cycles",
               what, i, (unsigned long long)f->senders[i].stats.cycles);
        CHECKF(f->txc[i].posted == ITERS && f->txth[i].done == ITERS, "%s: thread %u posted %llu, done %llu", what,
               i, (unsigned long long)f->txc[i].posted, (unsigned long long)f->txth[i].done);
        /* the receiving side: every message of the peer reaped and reposted, in the sending loop */
        CHECKF(f->receivers[i].messages == PEER_MSGS && f->receivers[i].bytes == PEER_MSGS * MSG &&
                   f->receivers[i].errors == 0,
               "%s: thread %u received %llu messages, %llu bytes, %llu errors", what, i,
               (unsigned long long)f->receivers[i].messages, (unsigned long long)f->receivers[i].bytes,
               (unsigned long long)f->receivers[i].errors);
        reposts += ft->reposts; /* srq shared: every repost goes to thread 0's SRQ */
        CHECKF(srq == QPB_SRQ_SHARED || ft->reposts == PEER_MSGS, "%s: thread %u reposted %u", what, i, ft->reposts);
        /* per thread CQs: thread i reaps its own receives while it sends (a shared CQ: whichever thread holds it) */
        CHECKF(f->shared || ft->while_sending == PEER_MSGS, "%s: thread %u reaped %u of %u receives while sending",
               what, i, ft->while_sending, PEER_MSGS);
        CHECK(f->rxc[i].received == PEER_MSGS && f->rxc[i].bad == 0);
    }
    CHECKF(reposts == THREADS * PEER_MSGS, "%s: %u receives posted again", what, reposts);
    /* the end of run both ways: our FIN and RES to the peer, the peer's RES as "peer" */
    uint64_t posted[THREADS] = {0}, res[5] = {0};
    end_wrote(f, posted, res);
    for (uint32_t i = 0; i < THREADS; i++)
        CHECKF(posted[i] == ITERS, "%s: FIN says %llu posted on connection %u", what, (unsigned long long)posted[i],
               i);
    CHECKF(res[0] == THREADS * PEER_MSGS && res[1] == THREADS * PEER_MSGS * MSG && res[2] == 0 && res[3] == 0 &&
               res[4] == 0,
           "%s: RES %llu messages %llu bytes %llu errors %llu short %llu missing", what, (unsigned long long)res[0],
           (unsigned long long)res[1], (unsigned long long)res[2], (unsigned long long)res[3],
           (unsigned long long)res[4]);
    CHECK(f->vb.have_result && f->vb.result.messages == THREADS * ITERS);

    static char sum[65536];
    CHECKF(qpb_summary(s, sum, sizeof sum) == QPB_OK, "%s: %s", what, s->err);
    char want[128];
    snprintf(want, sizeof want, "\"received\":{\"bytes\":%u,\"messages\":%u,\"errors\":0}", THREADS * PEER_MSGS * MSG,
             THREADS * PEER_MSGS);
    CHECKF(strstr(sum, want) != NULL, "%s: %s", what, sum);
    CHECKF(strstr(sum, "\"worker_threads\":2,") != NULL && strstr(sum, "\"bidirectional_loop\":\"one\"") != NULL &&
               strstr(sum, "\"side\":\"sender\",\"bidirectional\":true") != NULL,
           "%s: %s", what, sum);
    CHECKF(strstr(sum, "\"iterations\":50,\"cycles\":100,\"messages\":100,\"bytes\":6400,\"errors\":0,") != NULL,
           "%s: %s", what, sum); /* what this end sent: THREADS x ITERS cycles of one message */
    CHECKF(strstr(sum, "\"peer\":{\"messages\":100,\"bytes\":6400,") != NULL, "%s: %s", what, sum);
    free_fake(f);
}

static void bidirectional_send_runs_in_the_sender_threads(void)
{
    run_bidirectional_send(QPB_SRQ_NONE, QPB_CQ_PER_THREAD, "bidirectional send");
    run_bidirectional_send(QPB_SRQ_NONE, QPB_CQ_PER_QP, "bidirectional send, cq_mode per_qp");
}

static void bidirectional_send_with_a_shared_cq_runs_in_the_sender_threads(void)
{
    run_bidirectional_send(QPB_SRQ_NONE, QPB_CQ_SHARED, "bidirectional send, cq_mode shared");
    run_bidirectional_send(QPB_SRQ_SHARED, QPB_CQ_SHARED, "bidirectional send, cq_mode shared, srq shared");
}

static void bidirectional_send_with_srq_runs_in_the_sender_threads(void)
{
    run_bidirectional_send(QPB_SRQ_PER_THREAD, QPB_CQ_PER_THREAD, "bidirectional send, srq per_thread");
}

/* The peer failed and closed the control socket: the end learns it while it sends (sending thread 0 reads the
 * control socket, as a receiving thread 0 would), not after its last cycle. */
static void a_peer_that_closed_the_control_socket_ends_the_run_while_it_sends(void)
{
    fake *f = make_fake(QPB_SRQ_NONE, QPB_CQ_PER_THREAD);
    qpb_session *s = &f->s;
    s->spec.iterations = 1000000000ull; /* far more than it can send before it looks */
    close(f->sp[1]);
    f->sp[1] = -1;
    CHECKF(qpb_start(s) == QPB_OK, "%s", s->err);
    CHECKF(qpb_wait(s, 20000) == QPB_OK, "%s", s->err);
    CHECKF(s->run_status == QPB_ERUN && strstr(s->run_err, "control socket") != NULL &&
               strstr(s->run_err, "before the server's end of run") != NULL,
           "status %d: %s", s->run_status, s->run_err);
    CHECKF(f->txth[0].admitted < 1000000000ull && atomic_load(&f->polls) < 20000000, "admitted %llu, %d polls",
           (unsigned long long)f->txth[0].admitted, atomic_load(&f->polls));
    CHECK(s->n_threads == THREADS);
    free_fake(f);
}

/* Only a bidirectional send end in mode bw with busy polling folds its receivers into its senders. */
static void only_bidirectional_busy_send_folds_the_receivers(void)
{
    qpb_session s = {0};
    s.spec = (qpb_spec){.provider_kind = QPB_PROVIDER_VERBS, .role = QPB_ROLE_SERVER, .op_kind = QPB_OP_SEND,
                        .mode = QPB_MODE_BW, .polling = QPB_POLL_BUSY, .bidirectional = true};
    CHECK(qpb_verbs_receives_in_sender(&s));
    s.spec.role = QPB_ROLE_CLIENT;
    CHECK(qpb_verbs_receives_in_sender(&s));
    s.spec.polling = QPB_POLL_EVENT; /* each side sleeps on its own completion channel: a thread each */
    CHECK(!qpb_verbs_receives_in_sender(&s));
    s.spec.polling = QPB_POLL_BUSY;
    s.spec.op_kind = QPB_OP_WRITE; /* nothing to reap: the receivers only wait for the end of run */
    CHECK(!qpb_verbs_receives_in_sender(&s));
    s.spec.op_kind = QPB_OP_SEND;
    s.spec.mode = QPB_MODE_LATENCY;
    CHECK(!qpb_verbs_receives_in_sender(&s));
    s.spec.mode = QPB_MODE_BW;
    s.spec.bidirectional = false; /* one way: a client sends, a server receives */
    CHECK(!qpb_verbs_receives_in_sender(&s));
    CHECK(qpb_verbs_provider.receives_in_sender == qpb_verbs_receives_in_sender);
    CHECK(qpb_tcp_provider.receives_in_sender == NULL);
}

const qpb_test_case qpb_verbs_bidi_tests[] = {
    {"verbs bidirectional send: the senders reap the receives, no receiving thread", bidirectional_send_runs_in_the_sender_threads},
    {"verbs bidirectional send with an SRQ: the senders reap and repost to it", bidirectional_send_with_srq_runs_in_the_sender_threads},
    {"verbs bidirectional send with a shared CQ: either sender reaps any thread's receives", bidirectional_send_with_a_shared_cq_runs_in_the_sender_threads},
    {"verbs bidirectional send: a peer that closed the control socket ends the run while it sends", a_peer_that_closed_the_control_socket_ends_the_run_while_it_sends},
    {"verbs: only a bidirectional send end in mode bw with busy polling folds its receivers", only_bidirectional_busy_send_folds_the_receivers},
    {NULL, NULL},
};
