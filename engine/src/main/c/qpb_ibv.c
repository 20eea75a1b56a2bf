/*
 * qpb_ibv.c — loads libibverbs.so.1 with dlopen and resolves the exported
 * verbs the engine calls (see qpb_ibv.h for why).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "qpb_ibv.h"
#include "qpb_internal.h"

#define LIBIBVERBS "libibverbs.so.1"

static qpb_ibv table;
static bool loaded;
static char load_error[384];
static pthread_once_t once = PTHREAD_ONCE_INIT;

typedef struct symbol {
    const char *name;
    void **slot;
} symbol;

static void load(void)
{
    void *h = dlopen(LIBIBVERBS, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(load_error, sizeof load_error,
                 "provider verbs needs %s (rdma-core; Debian: libibverbs1 ibverbs-providers): %s", LIBIBVERBS,
                 dlerror());
        return;
    }
    const symbol symbols[] = {
        {"ibv_get_device_list", (void **)&table.get_device_list},
        {"ibv_free_device_list", (void **)&table.free_device_list},
        {"ibv_get_device_name", (void **)&table.get_device_name},
        {"ibv_get_device_guid", (void **)&table.get_device_guid},
        {"ibv_open_device", (void **)&table.open_device},
        {"ibv_close_device", (void **)&table.close_device},
        {"ibv_query_device", (void **)&table.query_device},
        {"ibv_query_port", (void **)&table.query_port_compat},
        {"ibv_query_gid", (void **)&table.query_gid},
        {"ibv_alloc_pd", (void **)&table.alloc_pd},
        {"ibv_dealloc_pd", (void **)&table.dealloc_pd},
        {"ibv_reg_mr", (void **)&table.reg_mr},
        {"ibv_dereg_mr", (void **)&table.dereg_mr},
        {"ibv_create_comp_channel", (void **)&table.create_comp_channel},
        {"ibv_destroy_comp_channel", (void **)&table.destroy_comp_channel},
        {"ibv_create_cq", (void **)&table.create_cq},
        {"ibv_destroy_cq", (void **)&table.destroy_cq},
        {"ibv_get_cq_event", (void **)&table.get_cq_event},
        {"ibv_ack_cq_events", (void **)&table.ack_cq_events},
        {"ibv_create_qp", (void **)&table.create_qp},
        {"ibv_modify_qp", (void **)&table.modify_qp},
        {"ibv_destroy_qp", (void **)&table.destroy_qp},
        {"ibv_create_srq", (void **)&table.create_srq},
        {"ibv_destroy_srq", (void **)&table.destroy_srq},
        {"ibv_create_ah", (void **)&table.create_ah},
        {"ibv_destroy_ah", (void **)&table.destroy_ah},
        {"ibv_wc_status_str", (void **)&table.wc_status_str},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(h, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(load_error, sizeof load_error, "%s has no symbol %s (rdma-core too old?): %s", LIBIBVERBS,
                     symbols[i].name, dlerror());
            dlclose(h);
            return;
        }
    }
    table.query_gid_table = dlsym(h, "_ibv_query_gid_table"); /* optional: rdma-core 32 and later */
    table.reg_mr_iova2 = dlsym(h, "ibv_reg_mr_iova2");         /* optional: rdma-core 28 and later */
    table.qp_to_qp_ex = dlsym(h, "ibv_qp_to_qp_ex");          /* optional: rdma-core 25 and later */
    /* Never dlclose a loaded libibverbs: providers keep threads and state. */
    loaded = true;
}

const qpb_ibv *qpb_ibv_get(char *err, uint32_t err_len)
{
    pthread_once(&once, load);
    if (!loaded && err != NULL && err_len > 0)
        snprintf(err, err_len, "%s", load_error);
    return loaded ? &table : NULL;
}

bool qpb_verbs_loadable(char *why, uint32_t why_len)
{
    return qpb_ibv_get(why, why_len) != NULL;
}

int qpb_ibv_query_port(const qpb_ibv *v, struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr)
{
    struct verbs_context *vctx = verbs_get_ctx_op(context, query_port);
    if (vctx == NULL) {
        memset(attr, 0, sizeof(*attr));
        return v->query_port_compat(context, port, (struct _compat_ibv_port_attr *)attr);
    }
    return vctx->query_port(context, port, attr, sizeof(*attr));
}

int qpb_ibv_query_device_ex(const qpb_ibv *v, struct ibv_context *context, struct ibv_device_attr_ex *attr)
{
    struct verbs_context *vctx = verbs_get_ctx_op(context, query_device_ex);
    if (vctx != NULL && vctx->query_device_ex(context, NULL, attr, sizeof(*attr)) == 0)
        return 0;
    memset(attr, 0, sizeof(*attr));
    return v->query_device(context, &attr->orig_attr);
}

struct ibv_qp *qpb_ibv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
    struct verbs_context *vctx = verbs_get_ctx_op(context, create_qp_ex);
    if (vctx == NULL) {
        errno = EOPNOTSUPP;
        return NULL;
    }
    return vctx->create_qp_ex(context, attr);
}

struct ibv_srq *qpb_ibv_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *attr)
{
    struct verbs_context *vctx = verbs_get_ctx_op(context, create_srq_ex);
    if (vctx == NULL) {
        errno = EOPNOTSUPP;
        return NULL;
    }
    return vctx->create_srq_ex(context, attr);
}

uint32_t qpb_ibv_mtu_bytes(enum ibv_mtu mtu)
{
    switch (mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
    default: return 0;
    }
}

const char *qpb_ibv_mtu_name(enum ibv_mtu mtu)
{
    switch (mtu) {
    case IBV_MTU_256: return "256";
    case IBV_MTU_512: return "512";
    case IBV_MTU_1024: return "1024";
    case IBV_MTU_2048: return "2048";
    case IBV_MTU_4096: return "4096";
    default: return "unknown";
    }
}

const char *qpb_ibv_port_state_name(enum ibv_port_state state)
{
    switch (state) {
    case IBV_PORT_NOP: return "NOP";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    default: return "unknown";
    }
}
