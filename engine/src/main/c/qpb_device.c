/*
 * qpb_device.c — RDMA devices as the engine sees them: opening one by name
 * (or the first with an active port), its limits as qpb_dev_caps, and the
 * inventory JSON the agent reports (qpb_devices).
 *
 * Three limits no query returns are probed once per device and process:
 * max_inline_data (the largest inline size an RC QP accepts: perftest only
 * says "Unable to create QP" when it is exceeded), thread domains
 * (ibv_alloc_td plus a parent domain; rxe has neither) and the extended QP
 * API (ibv_create_qp_ex with send_ops_flags, then ibv_qp_to_qp_ex: post_api wr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "qpb_caps.h"
#include "qpb_device.h"
#include "qpb_json.h"

_Static_assert(QPB_ODP_SUPPORT == IBV_ODP_SUPPORT && QPB_ODP_IMPLICIT == IBV_ODP_SUPPORT_IMPLICIT &&
                   QPB_ODP_SEND == IBV_ODP_SUPPORT_SEND && QPB_ODP_SRQ_RECV == IBV_ODP_SUPPORT_SRQ_RECV &&
                   QPB_ODP_ATOMIC == IBV_ODP_SUPPORT_ATOMIC,
               "qpb_caps.h's ODP bits are rdma-core's");

#define PROBE_INLINE_MAX 65536u
#define MAX_CACHED 16

typedef struct probe_cache {
    char name[64];
    uint32_t max_inline;
    bool td;
    char td_error[128];
    bool wr;
    char wr_error[128];
} probe_cache;

static probe_cache cache[MAX_CACHED];
static uint32_t n_cached;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool inline_fits(const qpb_ibv *v, struct ibv_pd *pd, struct ibv_cq *cq, uint32_t size)
{
    struct ibv_qp_init_attr a = {
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = size},
    };
    struct ibv_qp *qp = v->create_qp(pd, &a);
    if (qp == NULL)
        return false;
    v->destroy_qp(qp);
    return true;
}

/* An RC QP with send_ops_flags for send, write and read, and its ibv_qp_ex with ibv_wr_start. */
static void probe_wr(const qpb_ibv *v, struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq, probe_cache *out)
{
    struct ibv_qp_init_attr_ex a = {
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
        .cap = {.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1},
        .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        .send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ,
    };
    if (v->qp_to_qp_ex == NULL) {
        snprintf(out->wr_error, sizeof out->wr_error, "libibverbs has no ibv_qp_to_qp_ex (rdma-core before 25)");
        return;
    }
    errno = 0;
    struct ibv_qp *qp = pd != NULL && cq != NULL ? qpb_ibv_create_qp_ex(ctx, &a) : NULL;
    if (qp == NULL) {
        int e = errno ? errno : EOPNOTSUPP;
        snprintf(out->wr_error, sizeof out->wr_error, "ibv_create_qp_ex with send_ops_flags: %s (errno %d)",
                 strerror(e), e);
        return;
    }
    struct ibv_qp_ex *qpx = v->qp_to_qp_ex(qp);
    out->wr = qpx != NULL && qpx->wr_start != NULL && qpx->wr_complete != NULL;
    if (!out->wr)
        snprintf(out->wr_error, sizeof out->wr_error, "ibv_qp_to_qp_ex gave no ibv_wr_* functions");
    v->destroy_qp(qp);
}

static void probe(const qpb_ibv *v, struct ibv_context *ctx, probe_cache *out)
{
    out->max_inline = 0;
    struct ibv_pd *pd = v->alloc_pd(ctx);
    struct ibv_cq *cq = pd ? v->create_cq(ctx, 2, NULL, NULL, 0) : NULL;
    if (cq != NULL && inline_fits(v, pd, cq, 0)) {
        uint32_t lo = 0, hi = PROBE_INLINE_MAX + 1; /* lo fits, hi does not */
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (inline_fits(v, pd, cq, mid))
                lo = mid;
            else
                hi = mid;
        }
        out->max_inline = lo;
    }
    probe_wr(v, ctx, pd, cq, out);
    struct ibv_td_init_attr ta = {0};
    errno = 0;
    struct ibv_td *td = ibv_alloc_td(ctx, &ta);
    if (td == NULL) {
        int e = errno ? errno : EOPNOTSUPP;
        snprintf(out->td_error, sizeof out->td_error, "ibv_alloc_td: %s (errno %d)", strerror(e), e);
    } else {
        struct ibv_parent_domain_init_attr pa = {.pd = pd, .td = td};
        struct ibv_pd *parent = pd ? ibv_alloc_parent_domain(ctx, &pa) : NULL;
        if (parent == NULL) {
            int e = errno ? errno : EOPNOTSUPP;
            snprintf(out->td_error, sizeof out->td_error, "ibv_alloc_parent_domain: %s (errno %d)", strerror(e), e);
        } else {
            out->td = true;
            v->dealloc_pd(parent);
        }
        ibv_dealloc_td(td);
    }
    if (cq != NULL)
        v->destroy_cq(cq);
    if (pd != NULL)
        v->dealloc_pd(pd);
}

static void probe_cached(const qpb_ibv *v, struct ibv_context *ctx, qpb_dev_caps *c)
{
    pthread_mutex_lock(&cache_lock);
    probe_cache *hit = NULL, fresh = {0};
    for (uint32_t i = 0; i < n_cached && hit == NULL; i++)
        if (!strcmp(cache[i].name, c->name))
            hit = &cache[i];
    if (hit == NULL) {
        snprintf(fresh.name, sizeof fresh.name, "%s", c->name);
        probe(v, ctx, &fresh);
        if (n_cached < MAX_CACHED)
            cache[n_cached++] = fresh;
        hit = &fresh;
    }
    c->max_inline_data = hit->max_inline;
    c->thread_domain = hit->td;
    snprintf(c->thread_domain_error, sizeof c->thread_domain_error, "%s", hit->td_error);
    c->wr_api = hit->wr;
    snprintf(c->wr_api_error, sizeof c->wr_api_error, "%s", hit->wr_error);
    pthread_mutex_unlock(&cache_lock);
}

/* "RoCE v2" / "IB/RoCE v1" from sysfs, as perftest reads it. */
static qpb_gid_type gid_type(const char *dev, uint32_t port, uint32_t index, bool ethernet)
{
    if (!ethernet)
        return QPB_GID_IB;
    char path[160], text[32] = "";
    snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%u", dev, port, index);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fgets(text, sizeof text, f) == NULL)
            text[0] = '\0';
        fclose(f);
    }
    return strstr(text, "v2") != NULL ? QPB_GID_ROCE_V2 : QPB_GID_ROCE_V1;
}

static void add_gid(qpb_port_caps *pc, uint32_t index, const uint8_t raw[16], qpb_gid_type type)
{
    static const uint8_t zero[16];
    static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(raw, zero, 16) == 0)
        return;
    qpb_gid_caps *g = &pc->gids[pc->n_gids++];
    g->index = index;
    memcpy(g->raw, raw, 16);
    g->ipv4 = memcmp(raw, v4_prefix, 12) == 0;
    g->type = type;
}

static int by_index(const void *a, const void *b)
{
    const struct ibv_gid_entry *x = a, *y = b;
    return x->gid_index < y->gid_index ? -1 : x->gid_index > y->gid_index;
}

/* Every port's valid GIDs, from one ibv_query_gid_table call per device (made by the first port that asks). */
typedef struct gid_table {
    bool tried;
    ssize_t n; /* < 0: rdma-core or the kernel lacks the call */
    struct ibv_gid_entry *e;
} gid_table;

/* The port's GIDs from the device's table; false where there is none. */
static bool list_gids(const qpb_ibv *v, struct ibv_context *ctx, const qpb_dev_caps *c, qpb_port_caps *pc,
                      int table_len, gid_table *t)
{
    if (!t->tried && v->query_gid_table != NULL && table_len > 0) {
        t->tried = true;
        size_t max = (size_t)table_len * (c->phys_port_cnt > 0 ? c->phys_port_cnt : 1); /* ports share a size */
        t->e = calloc(max, sizeof *t->e);
        t->n = t->e != NULL ? v->query_gid_table(ctx, t->e, max, 0, sizeof *t->e) : -1;
        if (t->n > 0)
            qsort(t->e, (size_t)t->n, sizeof *t->e, by_index);
    }
    if (!t->tried || t->n < 0)
        return false;
    const struct ibv_gid_entry *e = t->e;
    for (ssize_t k = 0; k < t->n && pc->n_gids < QPB_CAPS_MAX_GIDS; k++) {
        if (e[k].port_num != pc->port)
            continue;
        qpb_gid_type type = !pc->ethernet                          ? QPB_GID_IB
                            : e[k].gid_type == IBV_GID_TYPE_ROCE_V2 ? QPB_GID_ROCE_V2
                                                                    : QPB_GID_ROCE_V1;
        add_gid(pc, e[k].gid_index, e[k].gid.raw, type);
    }
    return true;
}

static void query_port(const qpb_ibv *v, struct ibv_context *ctx, qpb_dev_caps *c, uint32_t port, gid_table *gids)
{
    qpb_port_caps *pc = &c->ports[c->n_ports++];
    struct ibv_port_attr pa;
    memset(pc, 0, sizeof(*pc));
    pc->port = port;
    if (qpb_ibv_query_port(v, ctx, (uint8_t)port, &pa) != 0) {
        snprintf(pc->state, sizeof pc->state, "unknown");
        return;
    }
    snprintf(pc->state, sizeof pc->state, "%s", qpb_ibv_port_state_name(pa.state));
    pc->active = pa.state == IBV_PORT_ACTIVE;
    pc->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    pc->max_mtu = qpb_ibv_mtu_bytes(pa.max_mtu);
    pc->active_mtu = qpb_ibv_mtu_bytes(pa.active_mtu);
    pc->lid = pa.lid;
    if (list_gids(v, ctx, c, pc, pa.gid_tbl_len, gids))
        return;
    /* one query per index: most of a RoCE table is empty, and each empty index is a failed ioctl */
    for (int i = 0; i < pa.gid_tbl_len && pc->n_gids < QPB_CAPS_MAX_GIDS; i++) {
        union ibv_gid gid;
        if (v->query_gid(ctx, (uint8_t)port, i, &gid) == 0)
            add_gid(pc, (uint32_t)i, gid.raw, gid_type(c->name, port, (uint32_t)i, pc->ethernet));
    }
}

void qpb_device_caps(const qpb_ibv *v, struct ibv_context *ctx, const char *name, qpb_dev_caps *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof c->name, "%s", name);
    c->iwarp = ctx->device->transport_type == IBV_TRANSPORT_IWARP;
    struct ibv_device_attr_ex ax;
    if (qpb_ibv_query_device_ex(v, ctx, &ax) == 0) {
        const struct ibv_device_attr a = ax.orig_attr;
        c->odp_general = (uint32_t)ax.odp_caps.general_caps;
        c->odp_ops[QPB_TR_RC] = ax.odp_caps.per_transport_caps.rc_odp_caps;
        c->odp_ops[QPB_TR_UC] = ax.odp_caps.per_transport_caps.uc_odp_caps;
        c->odp_ops[QPB_TR_UD] = ax.odp_caps.per_transport_caps.ud_odp_caps;
        c->odp_ops[QPB_TR_XRC] = ax.xrc_odp_caps;
        snprintf(c->fw_ver, sizeof c->fw_ver, "%s", a.fw_ver);
        c->node_guid = be64toh(a.node_guid);
        c->vendor_id = a.vendor_id;
        c->vendor_part_id = a.vendor_part_id;
        c->hw_ver = a.hw_ver;
        c->device_cap_flags = a.device_cap_flags;
        c->max_mr_size = a.max_mr_size;
        c->max_qp = (uint32_t)a.max_qp;
        c->max_qp_wr = (uint32_t)a.max_qp_wr;
        c->max_sge = (uint32_t)a.max_sge;
        c->max_cq = (uint32_t)a.max_cq;
        c->max_cqe = (uint32_t)a.max_cqe;
        c->max_mr = (uint32_t)a.max_mr;
        c->max_pd = (uint32_t)a.max_pd;
        c->max_srq = (uint32_t)a.max_srq;
        c->max_srq_wr = (uint32_t)a.max_srq_wr;
        c->max_qp_rd_atom = (uint32_t)a.max_qp_rd_atom;
        c->max_qp_init_rd_atom = (uint32_t)a.max_qp_init_rd_atom;
        c->max_ah = (uint32_t)a.max_ah;
        c->atomic_cap = a.atomic_cap == IBV_ATOMIC_GLOB ? QPB_ATOMIC_GLOB : a.atomic_cap == IBV_ATOMIC_HCA ? QPB_ATOMIC_HCA
                                                                                              : QPB_ATOMIC_NONE;
        c->phys_port_cnt = a.phys_port_cnt;
    }
    gid_table gids = {0};
    for (uint32_t p = 1; p <= c->phys_port_cnt && p <= QPB_CAPS_MAX_PORTS; p++)
        query_port(v, ctx, c, p, &gids);
    free(gids.e);
    struct rlimit rl;
    c->memlock_limit = getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur : UINT64_MAX;
    probe_cached(v, ctx, c);
}

qpb_status qpb_device_open(const qpb_ibv *v, const char *want, uint32_t port, struct ibv_context **ctx,
                           qpb_dev_caps *caps, char *err, uint32_t err_len)
{
    int n = 0;
    struct ibv_device **list = v->get_device_list(&n);
    if (list == NULL || n == 0) {
        int e = errno;
        if (list != NULL)
            v->free_device_list(list);
        snprintf(err, err_len, "no RDMA device on this host (ibv_get_device_list: %s); Soft-RoCE: rdma link add "
                               "rxe0 type rxe netdev IFACE", list == NULL ? strerror(e) : "0 devices");
        return QPB_EUNSUPPORTED;
    }
    struct ibv_device *chosen = NULL;
    char names[256] = "";
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        const char *name = v->get_device_name(list[i]);
        used += (size_t)snprintf(names + used, used < sizeof names ? sizeof names - used : 0, "%s%s", i ? ", " : "",
                                 name);
        if (want[0] != '\0' ? strcmp(name, want) == 0 : chosen == NULL) {
            chosen = list[i];
            if (want[0] == '\0') {
                /* no name: the first device whose port is active */
                struct ibv_context *probe_ctx = v->open_device(list[i]);
                struct ibv_port_attr pa;
                bool active = probe_ctx != NULL && qpb_ibv_query_port(v, probe_ctx, (uint8_t)port, &pa) == 0 &&
                              pa.state == IBV_PORT_ACTIVE;
                if (probe_ctx != NULL)
                    v->close_device(probe_ctx);
                if (!active && i + 1 < n)
                    chosen = NULL;
            }
        }
    }
    if (chosen == NULL) {
        snprintf(err, err_len, "device %s not found (devices here: %s)", want, names);
        v->free_device_list(list);
        return QPB_EUNSUPPORTED;
    }
    char name[64];
    snprintf(name, sizeof name, "%s", v->get_device_name(chosen));
    *ctx = v->open_device(chosen);
    int e = errno;
    v->free_device_list(list);
    if (*ctx == NULL) {
        snprintf(err, err_len, "ibv_open_device %s: %s (errno %d; is /dev/infiniband/uverbs* accessible?)", name,
                 strerror(e), e);
        return QPB_ESYS;
    }
    qpb_device_caps(v, *ctx, name, caps);
    return QPB_OK;
}

static void put_u(qpb_jw *w, const char *k, uint64_t v)
{
    qpb_jw_key(w, k);
    qpb_jw_u64(w, v);
}

static void put_gid(qpb_jw *w, const qpb_gid_caps *g)
{
    char text[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, g->raw, text, sizeof text);
    qpb_jw_obj_begin(w);
    put_u(w, "index", g->index);
    qpb_jw_key(w, "gid");
    qpb_jw_str(w, text);
    qpb_jw_key(w, "type");
    qpb_jw_str(w, g->type == QPB_GID_ROCE_V2 ? "RoCE v2" : g->type == QPB_GID_ROCE_V1 ? "RoCE v1" : "IB");
    qpb_jw_obj_end(w);
}

/* "odp": {"supported", "implicit", and per transport the ops it pages on demand: "rc": ["send", "recv", ...]} */
static void put_odp(qpb_jw *w, const qpb_dev_caps *c)
{
    qpb_jw_key(w, "odp");
    qpb_jw_obj_begin(w);
    qpb_jw_key(w, "supported");
    qpb_jw_bool(w, (c->odp_general & QPB_ODP_SUPPORT) != 0);
    qpb_jw_key(w, "implicit");
    qpb_jw_bool(w, (c->odp_general & QPB_ODP_IMPLICIT) != 0);
    for (int t = QPB_TR_RC; t <= QPB_TR_XRC; t++) {
        qpb_jw_key(w, QPB_TRANSPORT_NAMES[t]);
        qpb_jw_arr_begin(w);
        for (int bit = 0; QPB_ODP_OP_NAMES[bit] != NULL; bit++)
            if (c->odp_ops[t] & (1u << bit))
                qpb_jw_str(w, QPB_ODP_OP_NAMES[bit]);
        qpb_jw_arr_end(w);
    }
    qpb_jw_obj_end(w);
}

void qpb_device_json(qpb_jw *w, const qpb_dev_caps *c)
{
    char hex[32];
    qpb_jw_obj_begin(w);
    qpb_jw_key(w, "name");
    qpb_jw_str(w, c->name);
    qpb_jw_key(w, "transport"); /* the device's RDMA technology: iwarp, else ib (InfiniBand or RoCE: see link_layer) */
    qpb_jw_str(w, c->iwarp ? "iwarp" : "ib");
    qpb_jw_key(w, "fw_ver");
    qpb_jw_str(w, c->fw_ver);
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)c->node_guid);
    qpb_jw_key(w, "node_guid");
    qpb_jw_str(w, hex);
    put_u(w, "vendor_id", c->vendor_id);
    put_u(w, "vendor_part_id", c->vendor_part_id);
    put_u(w, "hw_ver", c->hw_ver);
    put_u(w, "max_qp", c->max_qp);
    put_u(w, "max_qp_wr", c->max_qp_wr);
    put_u(w, "max_sge", c->max_sge);
    put_u(w, "max_cq", c->max_cq);
    put_u(w, "max_cqe", c->max_cqe);
    put_u(w, "max_mr", c->max_mr);
    put_u(w, "max_mr_size", c->max_mr_size);
    put_u(w, "max_pd", c->max_pd);
    put_u(w, "max_srq", c->max_srq);
    put_u(w, "max_srq_wr", c->max_srq_wr);
    put_u(w, "max_qp_rd_atom", c->max_qp_rd_atom);
    put_u(w, "max_qp_init_rd_atom", c->max_qp_init_rd_atom);
    put_u(w, "max_ah", c->max_ah);
    qpb_jw_key(w, "atomic_cap");
    qpb_jw_str(w, QPB_ATOMIC_CAP_NAMES[c->atomic_cap]);
    put_u(w, "max_inline_data", c->max_inline_data);
    qpb_jw_key(w, "xrc");
    qpb_jw_bool(w, (c->device_cap_flags & QPB_DEVICE_XRC) != 0);
    qpb_jw_key(w, "thread_domain");
    qpb_jw_bool(w, c->thread_domain);
    put_odp(w, c);
    qpb_jw_key(w, "wr_api");
    qpb_jw_bool(w, c->wr_api);
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)c->device_cap_flags);
    qpb_jw_key(w, "device_cap_flags");
    qpb_jw_str(w, hex);
    qpb_jw_key(w, "ports");
    qpb_jw_arr_begin(w);
    for (uint32_t i = 0; i < c->n_ports; i++) {
        const qpb_port_caps *p = &c->ports[i];
        qpb_jw_obj_begin(w);
        put_u(w, "port", p->port);
        qpb_jw_key(w, "state");
        qpb_jw_str(w, p->state);
        qpb_jw_key(w, "link_layer");
        qpb_jw_str(w, p->ethernet ? "Ethernet" : "InfiniBand");
        put_u(w, "max_mtu", p->max_mtu);
        put_u(w, "active_mtu", p->active_mtu);
        put_u(w, "lid", p->lid);
        qpb_jw_key(w, "gids");
        qpb_jw_arr_begin(w);
        for (uint32_t g = 0; g < p->n_gids; g++)
            put_gid(w, &p->gids[g]);
        qpb_jw_arr_end(w);
        qpb_jw_obj_end(w);
    }
    qpb_jw_arr_end(w);
    qpb_jw_obj_end(w);
}

QPB_EXPORT int32_t qpb_devices(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    char why[384] = "";
    qpb_jw w;
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "devices");
    qpb_jw_arr_begin(&w);
    const qpb_ibv *v = qpb_ibv_get(why, sizeof why);
    int n = 0;
    struct ibv_device **list = v ? v->get_device_list(&n) : NULL;
    if (v != NULL && list == NULL)
        snprintf(why, sizeof why, "ibv_get_device_list: %s", strerror(errno));
    for (int i = 0; list != NULL && i < n; i++) {
        struct ibv_context *ctx = v->open_device(list[i]);
        if (ctx == NULL)
            continue;
        qpb_dev_caps *c = malloc(sizeof(*c));
        if (c != NULL) {
            qpb_device_caps(v, ctx, v->get_device_name(list[i]), c);
            qpb_device_json(&w, c);
            free(c);
        }
        v->close_device(ctx);
    }
    if (list != NULL)
        v->free_device_list(list);
    qpb_jw_arr_end(&w);
    if (why[0] == '\0' && n == 0)
        snprintf(why, sizeof why, "no RDMA device on this host");
    if (why[0] != '\0') {
        qpb_jw_key(&w, "unavailable");
        qpb_jw_str(&w, why);
    }
    qpb_jw_obj_end(&w);
    return qpb_jw_ok(&w) ? QPB_OK : QPB_ENOSPC;
}
