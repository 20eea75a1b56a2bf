/*
 * qpb_rdmacm.c — loads librdmacm.so.1 with dlopen (see qpb_rdmacm.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "qpb_rdmacm.h"

#define LIBRDMACM "librdmacm.so.1"

static qpb_rdmacm table;
static bool loaded;
static char load_error[384];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen(LIBRDMACM, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(load_error, sizeof load_error,
                 "rdma_cm needs %s (rdma-core; Debian: librdmacm1): %s", LIBRDMACM, dlerror());
        return;
    }
    struct {
        const char *name;
        void **slot;
    } symbols[] = {
        {"rdma_create_event_channel", (void **)&table.create_event_channel},
        {"rdma_destroy_event_channel", (void **)&table.destroy_event_channel},
        {"rdma_create_id", (void **)&table.create_id},
        {"rdma_destroy_id", (void **)&table.destroy_id},
        {"rdma_bind_addr", (void **)&table.bind_addr},
        {"rdma_resolve_addr", (void **)&table.resolve_addr},
        {"rdma_resolve_route", (void **)&table.resolve_route},
        {"rdma_create_qp", (void **)&table.create_qp},
        {"rdma_connect", (void **)&table.connect},
        {"rdma_listen", (void **)&table.listen},
        {"rdma_accept", (void **)&table.accept},
        {"rdma_get_cm_event", (void **)&table.get_cm_event},
        {"rdma_ack_cm_event", (void **)&table.ack_cm_event},
        {"rdma_get_src_port", (void **)&table.get_src_port},
        {"rdma_get_devices", (void **)&table.get_devices},
        {"rdma_free_devices", (void **)&table.free_devices},
        {"rdma_event_str", (void **)&table.event_str},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(h, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(load_error, sizeof load_error, "%s has no symbol %s: %s", LIBRDMACM, symbols[i].name, dlerror());
            dlclose(h);
            return;
        }
    }
    table.create_qp_ex = dlsym(h, "rdma_create_qp_ex"); /* optional: post_api wr over rdma_cm */
    loaded = true;
}

const qpb_rdmacm *qpb_rdmacm_get(char *err, uint32_t err_len)
{
    pthread_once(&once, load);
    if (!loaded && err != NULL && err_len > 0)
        snprintf(err, err_len, "%s", load_error);
    return loaded ? &table : NULL;
}
