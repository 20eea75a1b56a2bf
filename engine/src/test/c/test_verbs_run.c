/*
 * test_verbs_run.c — the verbs receiver's failure path without a device.
 *
 * ibv_poll_cq and ibv_post_recv are inline calls through the context's ops
 * table (rdma-core's verbs.h), so a fake context whose poll_cq hands out one
 * receive completion and whose post_recv fails stands in for a device whose
 * receive queue refuses the repost. The receiver must fail the run at once,
 * naming the call and the errno, not wait out the grace period.
 *
 * The target of a write (role server) has nothing to poll: it waits for the
 * client's FIN on the control socket (here a socketpair), asleep or, with
 * target_wait spin, busy; the test reads the thread's CPU time.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "qpb_test.h"
#include "qpb_device.h"
#include "qpb_json.h"
#include "qpb_verbs.h"

#define MSG 64u

typedef struct fake {
    struct ibv_context ctx;
    struct ibv_cq cq;
    struct ibv_qp qp;
    struct ibv_srq srq;
    struct ibv_mr srq_mr;
    qpb_session s;
    qpb_verbs vb;
    qpb_vside rx;
    qpb_vthread th;
    qpb_vconn conn;
    qpb_vsrq vsrq;
    qpb_receiver_out out;
    uint32_t qpn_key, qpn_value;
    uint8_t buf[MSG];
    int polls, posts;
} fake;

static fake *the_fake; /* the ops table's functions find their test here */

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    (void)cq;
    fake *f = the_fake;
    if (++f->polls > 1000000) /* the receiver did not stop: end it so the test fails instead of hanging */
        atomic_store(&f->s.abort, 1);
    if (f->polls > 1 || n < 1)
        return 0;
    wc[0] = (struct ibv_wc){.wr_id = 0, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV, .byte_len = MSG,
                            .qp_num = f->qp.qp_num};
    return 1;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    (void)qp;
    the_fake->posts++;
    *bad = wr;
    return ENOMEM;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    (void)srq;
    the_fake->posts++;
    *bad = wr;
    return EAGAIN;
}

/* A loopback send run of one thread with one RC QP, its receive side wired to the fakes. */
static fake *make_fake(bool with_srq)
{
    fake *f = calloc(1, sizeof(*f));
    the_fake = f;
    f->ctx.ops.poll_cq = fake_poll_cq;
    f->ctx.ops.post_recv = fake_post_recv;
    f->ctx.ops.post_srq_recv = fake_post_srq_recv;
    f->cq.context = &f->ctx;
    f->qp.context = &f->ctx;
    f->qp.qp_num = 0x123;
    f->srq.context = &f->ctx;
    f->srq_mr.lkey = 7;

    qpb_session *s = &f->s;
    s->spec = (qpb_spec){.provider_kind = QPB_PROVIDER_VERBS, .role = QPB_ROLE_LOOPBACK, .op_kind = QPB_OP_SEND,
                         .threads = 1, .qps_per_thread = 1, .msg_size = MSG, .iterations = 10, .tx_depth = 1,
                         .transport = QPB_TR_RC, .srq = with_srq ? QPB_SRQ_PER_THREAD : QPB_SRQ_NONE,
                         .signal_every = 1, .post_list = 1, .rx_depth = 1, .cq_mode = QPB_CQ_PER_THREAD,
                         .polling = QPB_POLL_BUSY};
    clock_gettime(CLOCK_MONOTONIC_RAW, &s->t0);
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->stop, 0);
    atomic_init(&s->abort, 0);
    s->receivers = &f->out;
    s->verbs = &f->vb;

    qpb_verbs *vb = &f->vb;
    snprintf(vb->caps.name, sizeof vb->caps.name, "fake0");
    vb->plan.slot = MSG;
    vb->plan.qps = 1;
    vb->rx = &f->rx;
    atomic_init(&vb->receivers_left, 1);
    atomic_init(&vb->fin, 0);

    f->conn.qp = &f->qp; /* index 0 of thread 0; its counters start at 0 (calloc) */
    f->conn.cq = &f->cq;
    f->conn.qpn = f->qp.qp_num;
    f->conn.buf = f->buf;
    f->conn.lkey = 3;
    f->th = (qpb_vthread){.pd = NULL, .cq = &f->cq, .conns = &f->conn};
    f->rx = (qpb_vside){.threads = &f->th, .conns = &f->conn};
    if (with_srq) {
        f->vsrq = (qpb_vsrq){.srq = &f->srq, .buf = f->buf, .mr = &f->srq_mr, .depth = 1};
        f->th.srq = &f->srq;
        f->rx.srqs = &f->vsrq;
        f->qpn_key = f->qp.qp_num; /* a one-slot map: qp_num -> connection 0 */
        f->qpn_value = 0;
        f->rx.qpn_keys = &f->qpn_key;
        f->rx.qpn_values = &f->qpn_value;
        f->rx.qpn_mask = 0;
    }
    return f;
}

static double run_receiver_ms(fake *f)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    qpb_verbs_run_receiver(&f->s, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

static void free_fake(fake *f)
{
    pthread_mutex_destroy(&f->s.lock);
    free(f);
    the_fake = NULL;
}

static void failed_repost_fails_the_run_at_once(void)
{
    fake *f = make_fake(false);
    double ms = run_receiver_ms(f);
    CHECKF(f->posts == 1, "ibv_post_recv called %d times", f->posts);
    CHECKF(f->polls < 1000, "the receiver polled %d times after the failed repost", f->polls);
    CHECKF(ms < 1000, "the receiver took %.0f ms", ms);
    CHECK(atomic_load(&f->s.abort) == 1);
    CHECK(f->s.run_status == QPB_ESYS);
    CHECKF(strcmp(f->s.run_err, "ibv_post_recv failed on QP 0 of thread 0 (reposting a receive on fake0): Cannot "
                                "allocate memory (errno 12)") == 0,
           "run_err: %s", f->s.run_err);
    CHECKF(f->s.err[0] == '\0', "the worker wrote the caller's error: %s", f->s.err);
    CHECK(f->out.messages == 1 && f->out.bytes == MSG); /* the message that did arrive still counts */
    CHECK(f->vb.result.messages == 1 && f->vb.result.missing == 0);
    free_fake(f);
}

static void failed_srq_repost_fails_the_run_at_once(void)
{
    fake *f = make_fake(true);
    double ms = run_receiver_ms(f);
    CHECKF(f->posts == 1, "ibv_post_srq_recv called %d times", f->posts);
    CHECKF(ms < 1000, "the receiver took %.0f ms", ms);
    CHECK(f->s.run_status == QPB_ESYS);
    CHECKF(strstr(f->s.run_err, "ibv_post_srq_recv failed on QP 0 of thread 0 (reposting a receive to its SRQ on "
                                "fake0): ") == f->s.run_err &&
               strstr(f->s.run_err, "(errno 11)") != NULL,
           "run_err: %s", f->s.run_err);
    free_fake(f);
}

/* What the fake rdma-core's reg_mr calls were given. */
static struct {
    int plain, iova2;
    int access;
    uint64_t iova;
    void *addr;
    size_t len;
} seen;
static struct ibv_mr fake_mr;
static bool fail_reg;

static struct ibv_mr *fake_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
    (void)pd;
    seen.plain++, seen.access = access, seen.addr = addr, seen.len = len, seen.iova = 0;
    errno = EINVAL;
    return fail_reg ? NULL : &fake_mr;
}

static struct ibv_mr *fake_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned access)
{
    (void)pd;
    seen.iova2++, seen.access = (int)access, seen.addr = addr, seen.len = len, seen.iova = iova;
    errno = EOPNOTSUPP;
    return fail_reg ? NULL : &fake_mr;
}

/* relaxed_ordering and odp reach the MR as access flags, through ibv_reg_mr_iova2 (with the buffer's address as
 * its iova, as the header's ibv_reg_mr macro calls it); an rdma-core without it gets no optional flag, and the
 * summary says what ran. */
static void access_flags_reach_reg_mr(void)
{
    fake *f = make_fake(false);
    qpb_ibv table = {.reg_mr = fake_reg_mr, .reg_mr_iova2 = fake_reg_mr_iova2};
    f->vb.v = &table;
    const int base = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    memset(&seen, 0, sizeof seen);
    fail_reg = false;

    f->s.spec.relaxed_ordering = true; /* the default */
    CHECK(qpb_verbs_reg_mr(&f->s, NULL, f->buf, MSG) == &fake_mr);
    CHECK(seen.iova2 == 1 && seen.plain == 0 && seen.addr == f->buf && seen.len == MSG);
    CHECK(seen.iova == (uintptr_t)f->buf);
    CHECKF(seen.access == (base | IBV_ACCESS_RELAXED_ORDERING), "access 0x%x", seen.access);

    f->s.spec.odp = true;
    f->s.spec.op_kind = QPB_OP_ATOMIC_FADD;
    CHECK(qpb_verbs_reg_mr(&f->s, NULL, f->buf, MSG) == &fake_mr);
    CHECKF(seen.access == (base | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ON_DEMAND | IBV_ACCESS_RELAXED_ORDERING),
           "access 0x%x", seen.access);

    f->s.spec.relaxed_ordering = false; /* qpbench --disable_pcie_relaxed */
    f->s.spec.odp = false;
    f->s.spec.op_kind = QPB_OP_SEND;
    CHECK(qpb_verbs_reg_mr(&f->s, NULL, f->buf, MSG) == &fake_mr);
    CHECKF(seen.iova2 == 3 && seen.access == base, "access 0x%x", seen.access);

    /* rdma-core before ibv_reg_mr_iova2: the exported ibv_reg_mr passes every flag to the kernel, so the
     * optional one is left out and the run says it ran without */
    table.reg_mr_iova2 = NULL;
    f->s.spec.relaxed_ordering = true;
    CHECK(!qpb_verbs_relaxed_ordering(&f->s));
    CHECK(qpb_verbs_reg_mr(&f->s, NULL, f->buf, MSG) == &fake_mr);
    CHECKF(seen.plain == 1 && seen.access == base, "access 0x%x", seen.access);

    qpb_port_caps port = {.port = 1, .ethernet = true};
    f->vb.plan.port = &port;
    f->s.spec.buffers = QPB_BUF_HUGEPAGES;
    f->s.spec.odp = true;
    static char out[4096];
    qpb_jw w;
    qpb_jw_init(&w, out, sizeof out);
    qpb_jw_obj_begin(&w);
    qpb_verbs_provider.summary(&f->s, &w);
    qpb_jw_obj_end(&w);
    CHECK(qpb_jw_ok(&w));
    CHECKF(strstr(out, "\"relaxed_ordering\":false,\"buffers\":\"hugepages\",\"odp\":true") != NULL, "%s", out);
    table.reg_mr_iova2 = fake_reg_mr_iova2;
    qpb_jw_init(&w, out, sizeof out);
    qpb_jw_obj_begin(&w);
    qpb_verbs_provider.summary(&f->s, &w);
    qpb_jw_obj_end(&w);
    CHECKF(strstr(out, "\"relaxed_ordering\":true,") != NULL, "%s", out);

    fail_reg = true; /* a refused registration names the verb, what it registered and the device */
    CHECK(qpb_verbs_reg_mr(&f->s, NULL, f->buf, MSG) == NULL);
    CHECKF(!strcmp(f->s.err, "ibv_reg_mr (buffer, on-demand paging) on fake0: Operation not supported (errno 95)"),
           "%s", f->s.err);
    free_fake(f);
}

/* The inventory's odp entry: general_caps as two booleans, each transport's ops by name. */
static void the_inventory_lists_odp_ops_by_transport(void)
{
    qpb_dev_caps c = {.name = "mlx5_0", .odp_general = QPB_ODP_SUPPORT | QPB_ODP_IMPLICIT};
    c.odp_ops[QPB_TR_RC] = QPB_ODP_SEND | QPB_ODP_RECV | QPB_ODP_WRITE | QPB_ODP_SRQ_RECV;
    c.odp_ops[QPB_TR_UD] = QPB_ODP_SEND;
    static char out[4096];
    qpb_jw w;
    qpb_jw_init(&w, out, sizeof out);
    qpb_device_json(&w, &c);
    CHECK(qpb_jw_ok(&w));
    CHECKF(strstr(out, "\"odp\":{\"supported\":true,\"implicit\":true,\"rc\":[\"send\",\"recv\",\"write\","
                       "\"srq_recv\"],\"uc\":[],\"ud\":[\"send\"],\"xrc\":[]}") != NULL, "%s", out);
    c = (qpb_dev_caps){.name = "rxe0"};
    qpb_jw_init(&w, out, sizeof out);
    qpb_device_json(&w, &c);
    CHECKF(strstr(out, "\"odp\":{\"supported\":false,\"implicit\":false,\"rc\":[],\"uc\":[],\"ud\":[],"
                       "\"xrc\":[]}") != NULL, "%s", out);
}


/* The peer's FIN, written FIN_DELAY_MS after the target began to wait. */
#define FIN_DELAY_MS 300
#define FIN_MAGIC 0x5146494eu /* qpb_verbs_oob.c's CTL_FIN */

static void *peer_fin_later(void *arg)
{
    int fd = *(int *)arg;
    struct timespec d = {0, FIN_DELAY_MS * 1000000L};
    nanosleep(&d, NULL);
    uint32_t head[2] = {htonl(FIN_MAGIC), htonl(1)};
    uint64_t posted = htobe64(5);
    if (write(fd, head, sizeof head) != (ssize_t)sizeof head || write(fd, &posted, 8) != 8)
        perror("peer_fin_later");
    return NULL;
}

static double ms_between(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

/* A write target (role server) waits for the FIN: returns its wall and CPU milliseconds and the summary's word. */
static void target_waits(qpb_target_wait how, double *wall_ms, double *cpu_ms)
{
    fake *f = make_fake(false);
    f->s.spec.role = QPB_ROLE_SERVER;
    f->s.spec.op_kind = QPB_OP_WRITE;
    f->s.spec.target_wait = how;
    uint64_t expected = 0;
    int sp[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
    f->vb.ctl_fd = sp[0];
    f->vb.expected = &expected;
    pthread_mutex_init(&f->vb.ctl_lock, NULL);
    pthread_t peer;
    CHECK(pthread_create(&peer, NULL, peer_fin_later, &sp[1]) == 0);
    struct timespec w0, w1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    qpb_verbs_run_receiver(&f->s, 0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    pthread_join(peer, NULL);
    *wall_ms = ms_between(w0, w1);
    *cpu_ms = ms_between(c0, c1);
    CHECK(qpb_verbs_target_waits(&f->s));
    CHECKF(f->s.run_status == QPB_OK, "run_err: %s", f->s.run_err);
    CHECK(atomic_load(&f->vb.fin) == 1 && expected == 5); /* the FIN was read: the run ended on it */
    uint32_t res[2];
    CHECK(read(sp[1], res, sizeof res) == (ssize_t)sizeof res && ntohl(res[0]) == 0x51524553u); /* and answered */
    close(sp[0]);
    close(sp[1]);
    pthread_mutex_destroy(&f->vb.ctl_lock);
    free_fake(f);
}

static void a_write_target_sleeps_or_spins_as_target_wait_says(void)
{
    /* a spinner gets a whole core only on an idle machine (CI builds and VMs run beside this): it is judged against
     * the sleeper, which uses next to no CPU however busy the machine is */
    double wall, cpu, sleep_cpu;
    target_waits(QPB_TARGET_SLEEP, &wall, &sleep_cpu);
    CHECKF(wall >= FIN_DELAY_MS - 5 && wall < FIN_DELAY_MS + 150, "sleep: ended after %.0f ms", wall);
    CHECKF(sleep_cpu < wall * 0.05, "sleep: %.0f ms of CPU in %.0f ms", sleep_cpu, wall);
    target_waits(QPB_TARGET_SPIN, &wall, &cpu);
    CHECKF(wall >= FIN_DELAY_MS - 5 && wall < FIN_DELAY_MS + 150, "spin: ended after %.0f ms", wall);
    CHECKF(cpu > wall * 0.15 && cpu > 10 * (sleep_cpu + 1), "spin: only %.0f ms of CPU in %.0f ms (asleep: %.1f ms)",
           cpu, wall, sleep_cpu);

    fake *f = make_fake(false); /* send's receivers poll their CQs; a write latency target answers each write */
    CHECK(!qpb_verbs_target_waits(&f->s));
    f->s.spec.op_kind = QPB_OP_WRITE;
    f->s.spec.mode = QPB_MODE_LATENCY;
    CHECK(!qpb_verbs_target_waits(&f->s));
    f->s.spec.op_kind = QPB_OP_READ;
    CHECK(qpb_verbs_target_waits(&f->s));
    free_fake(f);
}

const qpb_test_case qpb_verbs_run_tests[] = {
    {"verbs write target: sleeps or spins on the control socket as target_wait says", a_write_target_sleeps_or_spins_as_target_wait_says},
    {"verbs inventory lists each transport's ODP ops", the_inventory_lists_odp_ops_by_transport},
    {"verbs MRs: relaxed ordering and odp reach ibv_reg_mr_iova2 as access flags", access_flags_reach_reg_mr},
    {"verbs receiver fails the run at once when a repost fails, naming the errno", failed_repost_fails_the_run_at_once},
    {"verbs receiver fails the run at once when an SRQ repost fails", failed_srq_repost_fails_the_run_at_once},
    {NULL, NULL},
};
