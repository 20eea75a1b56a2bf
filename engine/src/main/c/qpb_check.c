/*
 * qpb_check.c — a run spec against a device's limits (see qpb_caps.h). Pure:
 * no verbs call, so every refusal is tested on fixtures without a device.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "qpb_caps.h"

/* Receive buffers of UD messages start with the 40-byte GRH. */
#define UD_GRH 40u
#define MAX_RD_ATOMIC 255u /* max_rd_atomic is a uint8_t */

const char *const QPB_ATOMIC_CAP_NAMES[] = {"IBV_ATOMIC_NONE", "IBV_ATOMIC_HCA", "IBV_ATOMIC_GLOB", NULL};
const char *const QPB_ODP_OP_NAMES[] = {"send", "recv", "write", "read", "atomic", "srq_recv", NULL};
static const char *const ODP_OP_FLAGS[] = {"IBV_ODP_SUPPORT_SEND", "IBV_ODP_SUPPORT_RECV", "IBV_ODP_SUPPORT_WRITE",
                                           "IBV_ODP_SUPPORT_READ", "IBV_ODP_SUPPORT_ATOMIC", "IBV_ODP_SUPPORT_SRQ_RECV"};

typedef struct refusals {
    char *buf;
    uint32_t cap, len, count;
} refusals;

static void refuse(refusals *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(refusals *r, const char *fmt, ...)
{
    r->count++;
    if (r->cap == 0 || r->len + 3 >= r->cap)
        return;
    if (r->len > 0) {
        memcpy(r->buf + r->len, "; ", 3);
        r->len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->buf + r->len, r->cap - r->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->len = r->len + (uint32_t)n < r->cap ? r->len + (uint32_t)n : r->cap - 1;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static void human_bytes(uint64_t b, char *out, size_t len)
{
    if (b >= (1ull << 30))
        snprintf(out, len, "%.1f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(out, len, "%.1f MiB", (double)b / (double)(1ull << 20));
    else
        snprintf(out, len, "%llu KiB", (unsigned long long)(b >> 10));
}

int32_t qpb_pick_gid(const qpb_port_caps *port)
{
    if (!port->ethernet)
        return -1;
    const qpb_gid_type order[] = {QPB_GID_ROCE_V2, QPB_GID_ROCE_V2, QPB_GID_ROCE_V1};
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t i = 0; i < port->n_gids; i++)
            if (port->gids[i].type == order[pass] && (pass != 0 || port->gids[i].ipv4))
                return (int32_t)port->gids[i].index;
    return -1;
}

static void plan_port(const qpb_spec *sp, const qpb_dev_caps *c, qpb_plan *p, refusals *r)
{
    if (sp->ib_port < 1 || sp->ib_port > c->n_ports) {
        refuse(r, "ib_port %u: %s has port%s 1..%u", sp->ib_port, c->name, c->n_ports == 1 ? "" : "s", c->n_ports);
        return;
    }
    const qpb_port_caps *pc = &c->ports[sp->ib_port - 1];
    p->port = pc;
    if (!pc->active)
        refuse(r, "%s port %u is %s, not ACTIVE (check the link: ibv_devinfo -d %s)", c->name, pc->port, pc->state,
               c->name);
    if (sp->gid_index >= 0) {
        bool found = false;
        for (uint32_t i = 0; i < pc->n_gids; i++)
            found = found || pc->gids[i].index == (uint32_t)sp->gid_index;
        if (!found) {
            char list[96] = "";
            size_t n = 0;
            for (uint32_t i = 0; i < pc->n_gids && n < sizeof list; i++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%u", i ? ", " : "", pc->gids[i].index);
            refuse(r, "gid_index %d: %s port %u has no GID at that index (GIDs at %s)", sp->gid_index, c->name,
                   pc->port, pc->n_gids ? list : "none");
        }
        p->gid_index = sp->gid_index;
    } else {
        p->gid_index = qpb_pick_gid(pc);
        if (pc->ethernet && p->gid_index < 0)
            refuse(r, "%s port %u is Ethernet (RoCE) but has no RoCE GID: give its netdev an IP address", c->name,
                   pc->port);
    }
    if (sp->mtu > pc->active_mtu)
        refuse(r, "mtu %u B > active MTU %u B of %s port %u", sp->mtu, pc->active_mtu, c->name, pc->port);
    p->path_mtu = sp->mtu > 0 && sp->mtu < pc->active_mtu ? sp->mtu : pc->active_mtu;
    if (sp->transport == QPB_TR_UD && sp->msg_size > p->path_mtu)
        refuse(r, "transport ud: message %llu B > path MTU %u B of %s port %u (a UD message is one packet)",
               (unsigned long long)sp->msg_size, p->path_mtu, c->name, pc->port);
}

/* Queue, CQ and SRQ sizes of both sides. */
static void plan_queues(const qpb_spec *sp, const qpb_dev_caps *c, qpb_plan *p, refusals *r)
{
    uint32_t t = sp->threads, q = sp->qps_per_thread;
    /* bidirectional: each side of the pair both sends and receives (two sides of QPs, as loopback) */
    bool sends = sp->role != QPB_ROLE_SERVER || sp->bidirectional, receives = sp->role != QPB_ROLE_CLIENT || sp->bidirectional;
    bool recvs = sp->op_kind == QPB_OP_SEND;
    uint64_t signaled = (sp->tx_depth + sp->signal_every - 1) / sp->signal_every + 1;
    bool shared_qps = sp->qp_sharing == QPB_QPS_SHARED;
    uint64_t per_cq_qps = sp->cq_mode == QPB_CQ_PER_QP ? 1 : sp->cq_mode == QPB_CQ_PER_THREAD ? q : p->qps;
    uint32_t cqs = sp->cq_mode == QPB_CQ_PER_QP ? p->qps : sp->cq_mode == QPB_CQ_PER_THREAD ? t : 1;
    const char *cqm = QPB_CQ_NAMES[sp->cq_mode];

    if (sp->mode == QPB_MODE_LATENCY) {
        /* one QP and one CQ per thread on either side, both ends sending; the CQ takes the QP's sends
         * (at most QPB_LAT_SEND_WR posted, every QPB_LAT_SIGNAL-th signaled) and its receives */
        p->recv_per_qp = recvs ? QPB_LAT_RECV_WR : 0;
        uint32_t cqe = QPB_LAT_SEND_WR / QPB_LAT_SIGNAL + 1 + p->recv_per_qp;
        if (QPB_LAT_SEND_WR > c->max_qp_wr || p->recv_per_qp > c->max_qp_wr)
            refuse(r, "mode latency: a QP takes %u requests and %u receives > max_qp_wr %u on %s", QPB_LAT_SEND_WR,
                   p->recv_per_qp, c->max_qp_wr, c->name);
        if (cqe > c->max_cqe)
            refuse(r, "mode latency: a CQ takes %u entries > max_cqe %u on %s", cqe, c->max_cqe, c->name);
        p->send_cqe = p->recv_cqe = cqe;
        p->n_send_cq = sends ? t : 0;
        p->n_recv_cq = receives ? t : 0;
        if ((uint64_t)p->n_send_cq + p->n_recv_cq > c->max_cq)
            refuse(r, "mode latency: %u CQs > max_cq %u on %s", p->n_send_cq + p->n_recv_cq, c->max_cq, c->name);
        return;
    }
    uint64_t send_wr = (uint64_t)sp->tx_depth * (shared_qps ? t : 1);
    if (send_wr > c->max_qp_wr)
        refuse(r, shared_qps ? "qp_sharing shared: a QP takes threads x tx_depth = %llu requests > max_qp_wr %u on %s"
                             : "tx_depth %llu > max_qp_wr %u on %s",
               (unsigned long long)send_wr, c->max_qp_wr, c->name);
    if (sends) {
        uint64_t need = per_cq_qps * signaled * (shared_qps ? t : 1);
        p->send_cqe = (uint32_t)(need > UINT32_MAX ? UINT32_MAX : need);
        p->n_send_cq = cqs;
        if (need > c->max_cqe)
            refuse(r, "cq_mode %s: a send CQ needs %llu entries (%llu QPs x %llu signaled requests in flight: "
                      "tx_depth %u / signal_every %u + 1) > max_cqe %u on %s; lower tx_depth, raise signal_every "
                      "or use cq_mode per_qp",
                   cqm, (unsigned long long)need, (unsigned long long)per_cq_qps, (unsigned long long)signaled,
                   sp->tx_depth, sp->signal_every, c->max_cqe, c->name);
    }
    if (receives) {
        uint64_t need = 1;
        if (recvs && sp->srq == QPB_SRQ_NONE) {
            /* Not capped at tx_depth: the responder acknowledges a message when it is placed, before
             * the receiving thread has polled it and posted the receive again, so a sender within
             * its depth can still drain a receive queue of that size (RNR back-off). */
            p->recv_per_qp = sp->rx_depth;
            if (p->recv_per_qp > c->max_qp_wr)
                refuse(r, "rx_depth %u > max_qp_wr %u on %s", p->recv_per_qp, c->max_qp_wr, c->name);
            need = per_cq_qps * p->recv_per_qp;
        } else if (recvs) {
            p->n_srq = sp->srq == QPB_SRQ_SHARED ? 1 : t;
            p->srq_depth = sp->rx_depth;
            if (c->max_srq < p->n_srq)
                refuse(r, "srq %s: %u SRQs > max_srq %u on %s", QPB_SRQ_NAMES[sp->srq], p->n_srq, c->max_srq, c->name);
            if (sp->rx_depth > c->max_srq_wr)
                refuse(r, "srq %s: rx_depth %u > max_srq_wr %u on %s", QPB_SRQ_NAMES[sp->srq], sp->rx_depth,
                       c->max_srq_wr, c->name);
            /* An SRQ's receives may all be consumed by the QPs of one CQ. */
            uint64_t srqs_per_cq = sp->srq == QPB_SRQ_SHARED || sp->cq_mode != QPB_CQ_SHARED ? 1 : t;
            need = srqs_per_cq * p->srq_depth;
        }
        p->recv_cqe = (uint32_t)(need > UINT32_MAX ? UINT32_MAX : need);
        p->n_recv_cq = cqs;
        if (need > c->max_cqe)
            refuse(r, "cq_mode %s: a receive CQ needs %llu entries (receives posted per QP x QPs per CQ) > max_cqe "
                      "%u on %s; lower rx_depth or tx_depth, use srq or cq_mode per_qp",
                   cqm, (unsigned long long)need, c->max_cqe, c->name);
    }
    uint64_t all_cqs = (uint64_t)p->n_send_cq + p->n_recv_cq;
    if (all_cqs > c->max_cq)
        refuse(r, "cq_mode %s: %llu CQs > max_cq %u on %s", cqm, (unsigned long long)all_cqs, c->max_cq, c->name);
}

/* odp: the device pages on demand, for the run's transport and the ops it posts (perftest --odp asks the same:
 * send and its receives, or the one-sided op). */
static void plan_odp(const qpb_spec *sp, const qpb_dev_caps *c, refusals *r)
{
    if (!sp->odp)
        return;
    if (!(c->odp_general & QPB_ODP_SUPPORT)) {
        refuse(r, "odp: %s does not report IBV_ODP_SUPPORT (odp_caps.general_caps 0x%x): no on-demand paging", c->name,
               c->odp_general);
        return;
    }
    uint32_t need = sp->op_kind == QPB_OP_SEND    ? QPB_ODP_SEND | (sp->srq != QPB_SRQ_NONE ? QPB_ODP_SRQ_RECV : QPB_ODP_RECV)
                    : sp->op_kind == QPB_OP_WRITE ? QPB_ODP_WRITE
                    : sp->op_kind == QPB_OP_READ  ? QPB_ODP_READ
                                                  : QPB_ODP_ATOMIC;
    uint32_t have = c->odp_ops[sp->transport], missing = need & ~have;
    const char *tr = QPB_TRANSPORT_NAMES[sp->transport];
    for (int bit = 0; missing != 0 && bit < 6; bit++)
        if (missing & (1u << bit))
            refuse(r, "odp: %s has no on-demand paging for op %s over %s (odp_caps %s_odp_caps 0x%x lacks %s)", c->name,
                   QPB_OP_NAMES[sp->op_kind], tr, tr, have, ODP_OP_FLAGS[bit]);
}

static void plan_memory(const qpb_spec *sp, const qpb_dev_caps *c, qpb_plan *p, refusals *r)
{
    uint64_t payload = sp->msg_size + (sp->transport == QPB_TR_UD ? UD_GRH : 0);
    p->slot = align_up(payload, payload >= 4096 ? 4096 : 64);
    uint64_t bytes = (uint64_t)p->qps * p->slot * p->sides + (uint64_t)p->n_srq * p->srq_depth * p->slot;
    p->registered = align_up(bytes, 4096);
    uint32_t regions = sp->mr_mode == QPB_MR_PER_QP ? p->qps : sp->qp_sharing == QPB_QPS_SHARED ? 1 : sp->threads;
    p->n_mr = regions * p->sides + p->n_srq;
    if (sp->buffers == QPB_BUF_HUGEPAGES) { /* a buffer per thread that makes QPs on each side, and per SRQ */
        uint32_t makers = sp->qp_sharing == QPB_QPS_SHARED ? 1 : sp->threads;
        uint64_t thread_bytes = (uint64_t)sp->qps_per_thread * p->slot, srq_bytes = (uint64_t)p->srq_depth * p->slot;
        p->huge_pages = (uint64_t)p->sides * makers * ((thread_bytes + QPB_HUGE_PAGE - 1) / QPB_HUGE_PAGE) +
                        (uint64_t)p->n_srq * ((srq_bytes + QPB_HUGE_PAGE - 1) / QPB_HUGE_PAGE);
    }
    if (sp->msg_size > c->max_mr_size)
        refuse(r, "msg_size %llu B > max_mr_size %llu B on %s", (unsigned long long)sp->msg_size,
               (unsigned long long)c->max_mr_size, c->name);
    if (p->n_mr > c->max_mr)
        refuse(r, "mr_mode %s: %u memory regions > max_mr %u on %s", QPB_MR_NAMES[sp->mr_mode], p->n_mr, c->max_mr,
               c->name);
    if (p->registered > c->memlock_limit && !sp->odp) { /* on-demand MRs pin nothing */
        char need[32], have[32];
        human_bytes(p->registered, need, sizeof need);
        human_bytes(c->memlock_limit, have, sizeof have);
        refuse(r, "registered memory %s (%u QPs x %llu B%s) > RLIMIT_MEMLOCK %s: raise it (ulimit -l unlimited; "
                  "in a container, --ulimit memlock=-1)",
               need, p->qps * p->sides, (unsigned long long)p->slot, p->n_srq ? " + SRQ buffers" : "", have);
    }
}

bool qpb_wr_by_default(const qpb_dev_caps *c)
{
    /* perftest_parameters.c: ctx_device by vendor_part_id (Chelsio's and Intel's are told by vendor_id), then
     * every device but these posts with --use_old_post_send */
    static const uint32_t parts[] = {
        4113, 4114,                                     /* Connect-IB */
        4115, 4116, 4117, 4118, 4119, 4120, 4121, 4122, /* ConnectX-4, -4 Lx, -5, -5 Ex */
        4123, 4124, 4125, 4126, 4127, 4129, 4131,       /* ConnectX-6, -6 Dx, mlx5 VF, -6 Lx, -7, -8 */
        41682, 41683, 41686, 41692,                     /* BlueField, -2, -3 */
        61344, 61345, 61346,                            /* EFA */
        41506, 41507, 41508, 41509, 41510, 41512, 41519 /* HNS */
    };
    if (c->vendor_id == 5157 || c->vendor_id == 0x8086)
        return false;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (c->vendor_part_id == parts[i])
            return true;
    return false;
}

/* post_api: wr when the spec says so (refused where the device has no ibv_qp_ex), else where perftest uses it. */
static void plan_post_api(const qpb_spec *sp, const qpb_dev_caps *c, qpb_plan *p, refusals *r)
{
    if (sp->post_api == QPB_POST_WR && sp->post_api_given && !c->wr_api)
        refuse(r, "post_api wr: %s has no extended QP API (%s; use post_api legacy)", c->name,
               c->wr_api_error[0] ? c->wr_api_error : "ibv_create_qp_ex with send_ops_flags failed");
    p->post_wr = sp->post_api == QPB_POST_WR && c->wr_api && (sp->post_api_given || qpb_wr_by_default(c));
}

/* iWARP (RDMAP over DDP over MPA/TCP) has reliable connections only, and no QP of an iWARP device reaches RTS
 * without the connection manager's MPA exchange (ibv_modify_qp to RTS: EINVAL on siw). Atomics are refused by
 * atomic_cap (siw: IBV_ATOMIC_NONE). */
static void plan_iwarp(const qpb_spec *sp, const qpb_dev_caps *c, refusals *r)
{
    if (!c->iwarp)
        return;
    if (sp->transport != QPB_TR_RC)
        refuse(r, "transport %s: %s is an iWARP device (iWARP has reliable connections only: use transport rc)",
               QPB_TRANSPORT_NAMES[sp->transport], c->name);
    else if (!sp->rdma_cm)
        refuse(r, "rdma_cm false: %s is an iWARP device, whose QPs connect only through rdma_cm (use rdma_cm true, "
                  "qpbench -R)", c->name);
}

qpb_status qpb_plan_run(const qpb_spec *sp, const qpb_dev_caps *c, qpb_plan *p, char *err, uint32_t err_len)
{
    refusals r = {err, err_len, 0, 0};
    if (err_len > 0)
        err[0] = '\0';
    memset(p, 0, sizeof(*p));
    p->sides = sp->role == QPB_ROLE_LOOPBACK || sp->bidirectional ? 2 : 1;
    p->qps = sp->qp_sharing == QPB_QPS_SHARED ? sp->qps_per_thread : sp->threads * sp->qps_per_thread;

    if (sp->transport == QPB_TR_XRC && !(c->device_cap_flags & QPB_DEVICE_XRC))
        refuse(&r, "transport xrc: %s does not report IBV_DEVICE_XRC (device_cap_flags 0x%llx)", c->name,
               (unsigned long long)c->device_cap_flags);
    if (sp->lock_model == QPB_LOCK_THREAD_DOMAIN && !c->thread_domain)
        refuse(&r, "lock_model thread_domain: %s has no thread domains (%s)", c->name,
               c->thread_domain_error[0] ? c->thread_domain_error : "ibv_alloc_td failed");
    plan_iwarp(sp, c, &r);
    plan_port(sp, c, p, &r);
    uint64_t all_qps = (uint64_t)p->qps * p->sides;
    if (all_qps > c->max_qp)
        refuse(&r, "%u threads x %u qps_per_thread = %llu QPs%s > max_qp %u on %s",
               sp->qp_sharing == QPB_QPS_SHARED ? 1 : sp->threads, sp->qps_per_thread, (unsigned long long)all_qps, p->sides == 2 ? " (both ends in loopback)" : "", c->max_qp, c->name);
    if (sp->inline_size > c->max_inline_data)
        refuse(&r, "inline_size %u B > max_inline_data %u B on %s", sp->inline_size, c->max_inline_data, c->name);
    if (qpb_op_atomic(sp->op_kind) && c->atomic_cap == QPB_ATOMIC_NONE)
        refuse(&r, "op %s needs RDMA atomics: %s reports atomic_cap IBV_ATOMIC_NONE", QPB_OP_NAMES[sp->op_kind], c->name);
    if (sp->op_kind == QPB_OP_READ || qpb_op_atomic(sp->op_kind)) {
        uint32_t rd = c->max_qp_init_rd_atom < c->max_qp_rd_atom ? c->max_qp_init_rd_atom : c->max_qp_rd_atom;
        p->rd_atomic = rd < MAX_RD_ATOMIC ? rd : MAX_RD_ATOMIC;
        if (p->rd_atomic == 0)
            refuse(&r, "op %s: %s allows no RDMA %s in flight (max_qp_rd_atom %u, max_qp_init_rd_atom %u)",
                   QPB_OP_NAMES[sp->op_kind], c->name, sp->op_kind == QPB_OP_READ ? "read" : "atomic", c->max_qp_rd_atom,
                   c->max_qp_init_rd_atom);
    }
    plan_odp(sp, c, &r);
    plan_queues(sp, c, p, &r);
    plan_memory(sp, c, p, &r);
    plan_post_api(sp, c, p, &r);
    return r.count == 0 ? QPB_OK : QPB_EUNSUPPORTED;
}
