/*
 * test_check.c — the verbs capability check on device fixtures: rxe0 as the
 * Soft-RoCE lab reports it (qpbench --devices in a lab VM) and a ConnectX-6
 * class device with XRC and thread domains. Every refusal names the limit and
 * the device; several at once are all listed.
 */
#include <unistd.h>

#include "qpb_buffers.h"
#include "qpb_caps.h"
#include "qpb_test.h"

static qpb_dev_caps rxe0(void)
{
    qpb_dev_caps c = {
        .name = "rxe0", .fw_ver = "0.0.0", .device_cap_flags = 0x1223c76, .max_mr_size = UINT64_MAX,
        .max_qp = 1048560, .max_qp_wr = 1048576, .max_sge = 32, .max_cq = 1048576, .max_cqe = 32767,
        .max_mr = 524287, .max_pd = 1048576, .max_srq = 917503, .max_srq_wr = 1048576, .max_qp_rd_atom = 128,
        .max_qp_init_rd_atom = 128, .max_ah = 32767, .atomic_cap = QPB_ATOMIC_HCA, .max_inline_data = 512, .thread_domain = false,
        .thread_domain_error = "ibv_alloc_td: Operation not supported (errno 95)", .phys_port_cnt = 1, .n_ports = 1,
        .memlock_limit = UINT64_MAX,
    };
    qpb_port_caps *p = &c.ports[0];
    *p = (qpb_port_caps){.port = 1, .state = "ACTIVE", .active = true, .ethernet = true, .max_mtu = 4096,
                         .active_mtu = 1024, .lid = 0, .n_gids = 2};
    p->gids[0] = (qpb_gid_caps){.index = 0, .raw = {0xfe, 0x80}, .type = QPB_GID_ROCE_V2, .ipv4 = false};
    p->gids[1] = (qpb_gid_caps){.index = 1, .raw = {[10] = 0xff, [11] = 0xff, 198, 18, 0, 11}, .type = QPB_GID_ROCE_V2,
                                .ipv4 = true};
    return c;
}

static qpb_dev_caps cx6(void)
{
    qpb_dev_caps c = rxe0();
    snprintf(c.name, sizeof c.name, "mlx5_0");
    c.device_cap_flags |= QPB_DEVICE_XRC;
    c.max_qp = 131072, c.max_qp_wr = 32768, c.max_cqe = 4194303, c.max_srq_wr = 32767, c.max_qp_rd_atom = 16;
    c.max_qp_init_rd_atom = 16, c.max_inline_data = 220, c.thread_domain = true;
    c.ports[0] = (qpb_port_caps){.port = 1, .state = "ACTIVE", .active = true, .ethernet = false, .max_mtu = 4096,
                                 .active_mtu = 4096, .lid = 7, .n_gids = 1};
    c.ports[0].gids[0] = (qpb_gid_caps){.index = 0, .raw = {0xfe, 0x80}, .type = QPB_GID_IB};
    return c;
}

static qpb_status plan(const char *json, const qpb_dev_caps *c, qpb_plan *p, char *err, uint32_t len)
{
    qpb_spec s;
    qpb_status st = qpb_spec_parse(json, &s, err, len);
    return st != QPB_OK ? st : qpb_plan_run(&s, c, p, err, len);
}

static void plans_a_default_run_on_rxe(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"threads\":2,\"qps_per_thread\":4}", &c, &p, err,
                sizeof err) == QPB_OK, "%s", err);
    CHECK(p.gid_index == 1 && p.path_mtu == 1024 && p.sides == 2 && p.qps == 8);
    CHECK(p.recv_per_qp == 512 && p.send_cqe == 4 * 129 && p.recv_cqe == 4 * 512 && p.n_send_cq == 2);
    CHECK(p.slot == 4096 && p.registered == 2 * 8 * 4096 && p.n_mr == 4);
}

/* The verbs sender paces like the tcp one (the lab test measures it on rxe); the spec no longer refuses it. */
static void plans_a_paced_run(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"op\":\"write\",\"msg_size\":64,\"rate_limit\":2000}", &c, &p, err,
                sizeof err) == QPB_OK, "%s", err);
}

static void refuses_what_rxe_cannot_do_naming_the_limit(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[2048];
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":2048,\"transport\":\"xrc\",\"inline_size\":1024,"
               "\"lock_model\":\"thread_domain\",\"mtu\":4096}", &c, &p, err, sizeof err) == QPB_EUNSUPPORTED);
    const char *want[] = {
        "transport xrc: rxe0 does not report IBV_DEVICE_XRC (device_cap_flags 0x1223c76)",
        "inline_size 1024 B > max_inline_data 512 B on rxe0",
        "lock_model thread_domain: rxe0 has no thread domains (ibv_alloc_td: Operation not supported (errno 95))",
        "mtu 4096 B > active MTU 1024 B of rxe0 port 1",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECKF(strstr(err, want[i]) != NULL, "missing \"%s\" in: %s", want[i], err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":2048,\"transport\":\"ud\"}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "transport ud: message 2048 B > path MTU 1024 B of rxe0 port 1") != NULL, "%s", err);
}

static void refuses_cqs_the_device_cannot_hold(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[2048];
    /* the reference experiment's 1000 QPs per thread at perftest's default depth */
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"qps_per_thread\":1000,\"role\":\"client\"}", &c, &p, err,
               sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "cq_mode per_thread: a send CQ needs 129000 entries") && strstr(err, "> max_cqe 32767 on rxe0"),
           "%s", err);
    /* ... runs with a shallower queue, CQ moderation or a CQ per QP */
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"qps_per_thread\":1000,\"tx_depth\":16,"
                "\"rx_depth\":32}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"qps_per_thread\":1000,\"signal_every\":64,"
                "\"role\":\"client\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.send_cqe == 1000 * 3);
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"qps_per_thread\":1000,\"cq_mode\":\"per_qp\"}", &c, &p,
                err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.n_send_cq == 1000 && p.n_recv_cq == 1000 && p.send_cqe == 129);
}

static void refuses_memory_beyond_memlock_and_missing_gid(void)
{
    qpb_dev_caps c = rxe0();
    c.memlock_limit = 64ull << 20;
    c.ports[0].active = false;
    snprintf(c.ports[0].state, sizeof c.ports[0].state, "DOWN");
    qpb_plan p;
    char err[2048];
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":1048576,\"threads\":4,\"qps_per_thread\":16,\"gid_index\":5,"
               "\"tx_depth\":16}", &c, &p, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "registered memory 128.0 MiB (128 QPs x 1048576 B) > RLIMIT_MEMLOCK 64.0 MiB") != NULL, "%s",
           err);
    CHECKF(strstr(err, "rxe0 port 1 is DOWN, not ACTIVE") != NULL, "%s", err);
    CHECKF(strstr(err, "gid_index 5: rxe0 port 1 has no GID at that index (GIDs at 0, 1)") != NULL, "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"ib_port\":2}", &c, &p, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "ib_port 2: rxe0 has port 1..1") != NULL, "%s", err);
}

static void srq_sizes_and_limits(void)
{
    qpb_dev_caps c = rxe0();
    c.max_srq = 2;
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"threads\":2,\"qps_per_thread\":100,\"srq\":\"per_thread\","
                "\"rx_depth\":1024,\"role\":\"server\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.n_srq == 2 && p.srq_depth == 1024 && p.recv_cqe == 1024 && p.recv_per_qp == 0);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"threads\":3,\"srq\":\"per_thread\",\"role\":\"server\"}", &c,
               &p, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "srq per_thread: 3 SRQs > max_srq 2 on rxe0") != NULL, "%s", err);
}

static void infiniband_uses_the_lid_and_xrc_runs_where_reported(void)
{
    qpb_dev_caps c = cx6();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"read\",\"transport\":\"xrc\",\"lock_model\":"
                "\"thread_domain\",\"mtu\":4096}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.gid_index == -1 && p.path_mtu == 4096 && p.rd_atomic == 16);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"inline_size\":256}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "inline_size 256 B > max_inline_data 220 B on mlx5_0") != NULL, "%s", err);
}

static void shared_qps_take_every_threads_requests(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"read\",\"threads\":8,\"qps_per_thread\":1,"
                "\"qp_sharing\":\"shared\",\"role\":\"client\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.qps == 1 && p.n_send_cq == 1 && p.send_cqe == 8 * 129 && p.n_mr == 1);
    c.max_qp_wr = 512;
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"write\",\"threads\":8,\"qp_sharing\":\"shared\"}",
               &c, &p, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "qp_sharing shared: a QP takes threads x tx_depth = 1024 requests > max_qp_wr 512 on rxe0"),
           "%s", err);
    qpb_spec s;
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":8,\"qp_sharing\":\"shared\",\"signal_every\":4,"
                         "\"cq_mode\":\"per_thread\",\"polling\":\"event\"}", &s, err, sizeof err) == QPB_EINVAL);
    const char *want[] = {"qp_sharing shared: only one-sided ops (write, read)", "qp_sharing shared needs signal_every 1",
                          "qp_sharing shared: cq_mode per_thread: a shared QP has one CQ for all threads",
                          "qp_sharing shared: polling event is not supported"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECKF(strstr(err, want[i]) != NULL, "missing \"%s\" in: %s", want[i], err);
}

/* siw0 as `lab siw` makes it in a lab VM: iWARP, no atomics, one GID (eth2's MAC, sysfs type "IB/RoCE v1"). */
static qpb_dev_caps siw0(void)
{
    qpb_dev_caps c = rxe0();
    snprintf(c.name, sizeof c.name, "siw0");
    c.iwarp = true, c.atomic_cap = QPB_ATOMIC_NONE, c.max_qp_wr = 32768, c.max_sge = 6, c.max_inline_data = 80;
    c.wr_api = false, c.device_cap_flags = 0x200000;
    c.ports[0].n_gids = 1;
    c.ports[0].gids[0] = (qpb_gid_caps){.index = 0, .raw = {0x82, 0x84, 0x00, 0x24, 0x01, 0x01}, .type = QPB_GID_ROCE_V1};
    return c;
}

/* iWARP: RC through rdma_cm only; a UD, UC or XRC run, or RC without rdma_cm, is refused naming the device. */
static void refuses_what_iwarp_cannot_do(void)
{
    qpb_dev_caps c = siw0();
    qpb_plan p;
    char err[1024];
    const char *ok[] = {"{\"provider\":\"verbs\",\"msg_size\":4096,\"op\":\"write\",\"rdma_cm\":true}",
                        "{\"provider\":\"verbs\",\"msg_size\":4096,\"op\":\"read\",\"rdma_cm\":true}",
                        "{\"provider\":\"verbs\",\"msg_size\":1024,\"bidirectional\":true,\"rdma_cm\":true}",
                        "{\"provider\":\"verbs\",\"msg_size\":64,\"mode\":\"latency\",\"rdma_cm\":true}"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        CHECKF(plan(ok[i], &c, &p, err, sizeof err) == QPB_OK, "%s: %s", ok[i], err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\"}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "rdma_cm false: siw0 is an iWARP device, whose QPs connect only through rdma_cm (use rdma_cm "
                        "true, qpbench -R)"), "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"transport\":\"ud\"}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "transport ud: siw0 is an iWARP device (iWARP has reliable connections only: use transport "
                        "rc)"), "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"transport\":\"uc\",\"op\":\"write\"}", &c, &p, err,
               sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "transport uc: siw0 is an iWARP device") == err, "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_fadd\",\"rdma_cm\":true}", &c, &p, err,
               sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "op atomic_fadd needs RDMA atomics: siw0 reports atomic_cap IBV_ATOMIC_NONE"), "%s", err);
    /* the same RC runs without rdma_cm are fine on RoCE */
    c = rxe0();
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\"}", &c, &p, err, sizeof err) == QPB_OK,
           "%s", err);
}

/* Atomics need a device that does them; they are bounded in flight like reads. */
static void refuses_atomics_on_a_device_without_them(void)
{
    qpb_dev_caps c = cx6();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_fadd\"}", &c, &p, err, sizeof err) == QPB_OK,
           "%s", err);
    CHECK(p.rd_atomic == 16);
    c.atomic_cap = QPB_ATOMIC_NONE;
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_cswap\"}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "op atomic_cswap needs RDMA atomics: mlx5_0 reports atomic_cap IBV_ATOMIC_NONE"), "%s", err);
    /* send and write do not care */
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"write\"}", &c, &p, err, sizeof err) == QPB_OK);
    c = cx6();
    c.max_qp_init_rd_atom = 0;
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_fadd\"}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "op atomic_fadd: mlx5_0 allows no RDMA atomic in flight (max_qp_rd_atom 16, max_qp_init_rd_atom 0)"),
           "%s", err);
}

static void picks_the_ipv4_roce_v2_gid(void)
{
    qpb_port_caps p = {.ethernet = true, .n_gids = 3};
    p.gids[0] = (qpb_gid_caps){.index = 0, .type = QPB_GID_ROCE_V1};
    p.gids[1] = (qpb_gid_caps){.index = 1, .type = QPB_GID_ROCE_V2};
    p.gids[2] = (qpb_gid_caps){.index = 3, .type = QPB_GID_ROCE_V2, .ipv4 = true};
    CHECK(qpb_pick_gid(&p) == 3);
    p.n_gids = 2;
    CHECK(qpb_pick_gid(&p) == 1);
    p.n_gids = 1;
    CHECK(qpb_pick_gid(&p) == 0);
    p.ethernet = false;
    CHECK(qpb_pick_gid(&p) == -1);
}

/* Latency mode: one QP and one CQ per thread on each side, both ends sending; the CQ holds the signaled
 * requests and the receives. */
static void plans_latency_queues(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"mode\":\"latency\",\"msg_size\":64,\"threads\":3}", &c, &p, err,
                sizeof err) == QPB_OK, "%s", err);
    CHECK(p.qps == 3 && p.recv_per_qp == QPB_LAT_RECV_WR && p.n_send_cq == 3 && p.n_recv_cq == 3);
    CHECK(p.send_cqe == QPB_LAT_SEND_WR / QPB_LAT_SIGNAL + 1 + QPB_LAT_RECV_WR && p.recv_cqe == p.send_cqe);
    CHECKF(plan("{\"provider\":\"verbs\",\"mode\":\"latency\",\"op\":\"read\",\"msg_size\":64,"
                "\"role\":\"client\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.recv_per_qp == 0 && p.n_send_cq == 1 && p.n_recv_cq == 0 && p.rd_atomic == 128);
    c.max_cqe = 8;
    CHECK(plan("{\"provider\":\"verbs\",\"mode\":\"latency\",\"msg_size\":64}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "mode latency: a CQ takes 19 entries > max_cqe 8 on rxe0") != NULL, "%s", err);
}

/* odp: refused before any verbs object exists on a device without on-demand paging, and on one that pages on
 * demand but not for the run's transport and op; both name the device and the missing capability. */
static void refuses_odp_on_a_device_without_it(void)
{
    qpb_dev_caps c = rxe0(); /* odp_general 0: rxe before Linux 6.13 */
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"odp\":true}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "odp: rxe0 does not report IBV_ODP_SUPPORT (odp_caps.general_caps 0x0): no on-demand paging"),
           "%s", err);
    c = cx6();
    c.odp_general = QPB_ODP_SUPPORT | QPB_ODP_IMPLICIT;
    c.odp_ops[QPB_TR_RC] = QPB_ODP_SEND | QPB_ODP_RECV | QPB_ODP_WRITE | QPB_ODP_READ;
    c.odp_ops[QPB_TR_UD] = QPB_ODP_SEND;
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"odp\":true}", &c, &p, err, sizeof err) == QPB_OK,
           "%s", err);
    CHECKF(plan("{\"provider\":\"verbs\",\"op\":\"read\",\"msg_size\":64,\"odp\":true}", &c, &p, err,
                sizeof err) == QPB_OK, "%s", err);
    c.memlock_limit = 64ull << 20; /* on-demand MRs pin nothing: RLIMIT_MEMLOCK does not bound them */
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":1048576,\"threads\":4,\"qps_per_thread\":16,"
                "\"tx_depth\":16,\"odp\":true}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":1048576,\"threads\":4,\"qps_per_thread\":16,"
               "\"tx_depth\":16}", &c, &p, err, sizeof err) == QPB_EUNSUPPORTED);
    c.memlock_limit = UINT64_MAX;
    CHECK(plan("{\"provider\":\"verbs\",\"op\":\"atomic_fadd\",\"msg_size\":8,\"odp\":true}", &c, &p, err,
               sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "odp: mlx5_0 has no on-demand paging for op atomic_fadd over rc (odp_caps rc_odp_caps 0xf "
                        "lacks IBV_ODP_SUPPORT_ATOMIC)"), "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"transport\":\"ud\",\"msg_size\":64,\"odp\":true}", &c, &p, err,
               sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "odp: mlx5_0 has no on-demand paging for op send over ud (odp_caps ud_odp_caps 0x1 lacks "
                        "IBV_ODP_SUPPORT_RECV)"), "%s", err);
    CHECK(plan("{\"provider\":\"verbs\",\"srq\":\"shared\",\"msg_size\":64,\"odp\":true}", &c, &p, err,
               sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "lacks IBV_ODP_SUPPORT_SRQ_RECV") != NULL, "%s", err);
}

/* buffers hugepages: the plan counts the 2 MiB pages of every buffer, each rounded up. */
static void plans_the_hugepages_of_the_buffers(void)
{
    qpb_dev_caps c = rxe0();
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"threads\":2,\"qps_per_thread\":4}", &c, &p, err,
                sizeof err) == QPB_OK, "%s", err);
    CHECK(p.huge_pages == 0);
    /* loopback: 2 sides x 2 threads, each 4 x 4 KiB in one page */
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":4096,\"threads\":2,\"qps_per_thread\":4,"
                "\"buffers\":\"hugepages\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECKF(p.huge_pages == 4, "%llu", (unsigned long long)p.huge_pages);
    /* a client of 3 MiB messages: 2 pages per QP's slot, one thread of 3 QPs: 9 MiB in 5 pages */
    CHECKF(plan("{\"provider\":\"verbs\",\"role\":\"client\",\"msg_size\":3145728,\"qps_per_thread\":3,"
                "\"buffers\":\"hugepages\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECKF(p.huge_pages == 5, "%llu", (unsigned long long)p.huge_pages);
    /* a server with a shared SRQ of 512 x 4 KiB (one page) beside its thread's buffer */
    CHECKF(plan("{\"provider\":\"verbs\",\"role\":\"server\",\"msg_size\":4096,\"srq\":\"shared\","
                "\"buffers\":\"hugepages\"}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECKF(p.huge_pages == 2, "%llu", (unsigned long long)p.huge_pages);
}

static void write_at(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_at(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    qpb_test_vwrite(path, fmt, ap);
    va_end(ap);
}

/* buffers hugepages with none reserved, or too few free, is refused naming the file and the sysctl to set. */
static void refuses_hugepages_when_none_are_reserved(void)
{
    char root[] = "/tmp/qpb-huge-XXXXXX", nr[96], meminfo[96], err[512];
    CHECK(mkdtemp(root) != NULL);
    snprintf(nr, sizeof nr, "%s/proc/sys/vm/nr_hugepages", root);
    snprintf(meminfo, sizeof meminfo, "%s/proc/meminfo", root);
    write_at(nr, "0\n");
    write_at(meminfo, "MemTotal:        8000000 kB\nHugePages_Total:       0\nHugePages_Free:        0\n"
                      "Hugepagesize:       2048 kB\n");
    CHECK(qpb_hugepages_check(nr, meminfo, 4, err, sizeof err) == QPB_EUNSUPPORTED);
    char want[512];
    snprintf(want, sizeof want, "buffers hugepages: none reserved (%s is 0; reserve 4 with sysctl vm.nr_hugepages=4)",
             nr);
    CHECKF(!strcmp(err, want), "%s", err);
    write_at(nr, "8\n");
    write_at(meminfo, "HugePages_Total:       8\nHugePages_Free:        3\nHugePages_Rsvd:        0\n"
                      "Hugepagesize:       2048 kB\n");
    CHECK(qpb_hugepages_check(nr, meminfo, 4, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "buffers hugepages: 3 of 8 reserved 2 MiB pages free") == err &&
               strstr(err, "HugePages_Free), the run's buffers take 4 (reserve more with sysctl vm.nr_hugepages=9)"),
           "%s", err);
    CHECKF(qpb_hugepages_check(nr, meminfo, 3, err, sizeof err) == QPB_OK, "%s", err);
    write_at(meminfo, "HugePages_Free:      100\nHugepagesize:    1048576 kB\n");
    CHECK(qpb_hugepages_check(nr, meminfo, 3, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "the default hugepage is 1048576 kB") != NULL, "%s", err);
    unlink(nr);
    CHECK(qpb_hugepages_check(nr, meminfo, 1, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "cannot read ") != NULL && strstr(err, "nr_hugepages: No such file") != NULL, "%s", err);
    unlink(meminfo);
    char dir[160];
    const char *dirs[] = {"/proc/sys/vm", "/proc/sys", "/proc", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(dir, sizeof dir, "%s%s", root, dirs[i]);
        rmdir(dir);
    }
    /* on hugepages: a whole number of 2 MiB pages, zeroed; where none can be had, NULL with the kernel's errno */
    uint64_t huge_len = 0;
    errno = 0;
    uint8_t *h = qpb_buffer_alloc(3u << 20, true, &huge_len);
    if (h != NULL) {
        CHECK(huge_len == 4u << 20 && ((uintptr_t)h & (QPB_HUGE_PAGE - 1)) == 0 && h[(3u << 20) - 1] == 0);
        qpb_buffer_free(h, huge_len);
    } else {
        CHECKF(huge_len == 0 && errno != 0, "errno %d", errno);
    }
    /* heap buffers are zeroed and 4 KiB aligned; mapped 0 frees them */
    uint64_t mapped = 1;
    uint8_t *b = qpb_buffer_alloc(10000, false, &mapped);
    CHECK(b != NULL && mapped == 0 && ((uintptr_t)b & 4095) == 0 && b[9999] == 0);
    qpb_buffer_free(b, mapped);
}

/* post_api: wr by default only where perftest posts through ibv_wr_* (not rxe), wr when asked wherever the device
 * has the extended QP API, and refused, naming the device, where it has not. */
static void post_api_follows_perftest_and_refuses_wr_without_the_api(void)
{
    qpb_dev_caps c = rxe0();
    c.wr_api = true;
    qpb_plan p;
    char err[1024];
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64}", &c, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(!p.post_wr && !qpb_wr_by_default(&c)); /* perftest's ibv_wr* API: OFF on rxe */
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"post_api\":\"wr\"}", &c, &p, err, sizeof err) ==
           QPB_OK, "%s", err);
    CHECK(p.post_wr);
    qpb_dev_caps m = cx6();
    m.vendor_id = 0x02c9, m.vendor_part_id = 4123, m.wr_api = true;
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64}", &m, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(p.post_wr && qpb_wr_by_default(&m));
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"post_api\":\"legacy\"}", &m, &p, err, sizeof err) ==
           QPB_OK, "%s", err);
    CHECK(!p.post_wr);
    m.vendor_part_id = 4103; /* ConnectX-3 Pro: perftest's old post send */
    CHECK(!qpb_wr_by_default(&m));
    m.vendor_part_id = 4123;
    m.wr_api = false; /* a provider without ibv_qp_ex: legacy by default, wr refused */
    CHECKF(plan("{\"provider\":\"verbs\",\"msg_size\":64}", &m, &p, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(!p.post_wr);
    c.wr_api = false;
    snprintf(c.wr_api_error, sizeof c.wr_api_error, "ibv_create_qp_ex with send_ops_flags: Operation not supported "
             "(errno 95)");
    CHECK(plan("{\"provider\":\"verbs\",\"msg_size\":64,\"post_api\":\"wr\"}", &c, &p, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "post_api wr: rxe0 has no extended QP API (ibv_create_qp_ex with send_ops_flags: Operation "
                        "not supported (errno 95); use post_api legacy)"), "%s", err);
}

const qpb_test_case qpb_check_tests[] = {
    {"check refuses odp on a device without it, naming the capability", refuses_odp_on_a_device_without_it},
    {"check counts the hugepages of the buffers", plans_the_hugepages_of_the_buffers},
    {"check refuses hugepages when none are reserved, naming the sysctl", refuses_hugepages_when_none_are_reserved},
    {"check: post_api wr as perftest picks it, refused without the extended QP API",
     post_api_follows_perftest_and_refuses_wr_without_the_api},
    {"check plans latency mode's fixed queues", plans_latency_queues},
    {"check plans a default run on rxe", plans_a_default_run_on_rxe},
    {"check plans a paced run (rate_limit)", plans_a_paced_run},
    {"check refuses what rxe cannot do, naming the limit", refuses_what_rxe_cannot_do_naming_the_limit},
    {"check refuses CQs the device cannot hold", refuses_cqs_the_device_cannot_hold},
    {"check refuses memory beyond memlock, a down port and a missing GID", refuses_memory_beyond_memlock_and_missing_gid},
    {"check sizes SRQs and refuses too many", srq_sizes_and_limits},
    {"check: InfiniBand uses the LID, XRC runs where reported", infiniband_uses_the_lid_and_xrc_runs_where_reported},
    {"check: shared QPs take every thread's requests", shared_qps_take_every_threads_requests},
    {"check picks the IPv4 RoCE v2 GID", picks_the_ipv4_roce_v2_gid},
    {"check refuses atomics on a device without them", refuses_atomics_on_a_device_without_them},
    {"check refuses what iWARP cannot do (UD, UC, XRC, RC without rdma_cm)", refuses_what_iwarp_cannot_do},
    {NULL, NULL},
};
