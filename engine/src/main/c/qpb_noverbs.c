/*
 * qpb_noverbs.c — the verbs side of an engine built without rdma-core's headers
 * (the Makefile builds it in place of qpb_ibv.c, qpb_rdmacm.c, qpb_device.c and
 * qpb_verbs*.c when <infiniband/verbs.h> or <rdma/rdma_cma.h> is missing). The
 * tcp provider is whole; everything that would touch verbs answers
 * QPB_NO_VERBS_REASON, so the agent's host facts, the controller's submit check
 * and the CLI all say which packages to install.
 */
#include <stdio.h>

#include "qpb_internal.h"
#include "qpb_json.h"

bool qpb_verbs_loadable(char *why, uint32_t why_len)
{
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", QPB_NO_VERBS_REASON);
    return false;
}

const char *qpb_verbs_device_name(const qpb_session *s)
{
    (void)s;
    return NULL;
}

static qpb_status refuse(qpb_session *s)
{
    return qpb_fail(s, QPB_EUNSUPPORTED, "provider verbs: %s", QPB_NO_VERBS_REASON);
}

static qpb_status refuse_endpoint(qpb_session *s, char *buf, uint32_t buf_len)
{
    (void)buf;
    (void)buf_len;
    return refuse(s);
}

static qpb_status refuse_connect(qpb_session *s, const char *peer_json)
{
    (void)peer_json;
    return refuse(s);
}

static void no_worker(qpb_session *s, uint32_t thread)
{
    (void)s;
    (void)thread;
}

static void no_destroy(qpb_session *s)
{
    (void)s;
}

/* create refuses, so a session never reaches the other operations; they refuse too rather than trust that. */
const qpb_provider qpb_verbs_provider = {
    .create = refuse,
    .local_endpoint = refuse_endpoint,
    .connect = refuse_connect,
    .run_sender = no_worker,
    .run_receiver = no_worker,
    .summary = NULL,
    .destroy = no_destroy,
};

QPB_EXPORT int32_t qpb_devices(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    qpb_jw w;
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "devices");
    qpb_jw_arr_begin(&w);
    qpb_jw_arr_end(&w);
    qpb_jw_key(&w, "unavailable");
    qpb_jw_str(&w, QPB_NO_VERBS_REASON);
    qpb_jw_obj_end(&w);
    return qpb_jw_ok(&w) ? QPB_OK : QPB_ENOSPC;
}
