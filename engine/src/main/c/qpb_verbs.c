/*
 * qpb_verbs.c — the verbs provider's operations (qpb_provider), the top of its
 * files: create opens the device (or rdma_cm's) and plans the run against its
 * limits, then qpb_verbs_res.c makes the resources; the other operations hand
 * over to qpb_verbs_conn.c, qpb_verbs_sender.c and qpb_verbs_receiver.c. The call
 * graph of the files is in qpb_verbs.h.
 */
#include <stdlib.h>
#include <unistd.h>

#include "qpb_buffers.h"
#include "qpb_device.h"
#include "qpb_json.h"
#include "qpb_verbs.h"

static qpb_status verbs_create(qpb_session *s)
{
    const qpb_spec *sp = &s->spec;
    qpb_verbs *vb = calloc(1, sizeof(*vb));
    if (vb == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory for the verbs provider");
    s->verbs = vb;
    vb->listen_fd = vb->ctl_fd = -1;
    char err[QPB_ERR_LEN];
    if ((vb->v = qpb_ibv_get(err, sizeof err)) == NULL)
        return qpb_fail(s, QPB_EUNSUPPORTED, "%s", err);
    qpb_status st = sp->rdma_cm ? qpb_verbs_cm_open(s, err, sizeof err)
                                : qpb_device_open(vb->v, sp->device, sp->ib_port, &vb->ctx, &vb->caps, err, sizeof err);
    if (st != QPB_OK)
        return qpb_fail(s, st, "%s", err);
    if (sp->mode == QPB_MODE_LATENCY && !sp->inline_given && !qpb_op_fetches(sp->op_kind)) {
        /* perftest's latency tests send inline by default: the device's most, up to the message */
        uint64_t most = vb->caps.max_inline_data;
        s->spec.inline_size = (uint32_t)(sp->msg_size < most ? sp->msg_size : most);
    }
    if ((st = qpb_plan_run(sp, &vb->caps, &vb->plan, err, sizeof err)) != QPB_OK)
        return qpb_fail(s, st, "%s", err);
    if (sp->buffers == QPB_BUF_HUGEPAGES &&
        (st = qpb_hugepages_check(s->proc_nr_hugepages_path, s->proc_meminfo_path, vb->plan.huge_pages, err,
                                  sizeof err)) != QPB_OK)
        return qpb_fail(s, st, "%s", err);
    srand48((long)s->t0.tv_nsec ^ (long)getpid());
    vb->lid = vb->plan.port->lid;
    return qpb_verbs_res_create(s);
}

static qpb_status verbs_connect(qpb_session *s, const char *peer_json)
{
    return peer_json == NULL ? qpb_verbs_connect_loopback(s) : qpb_verbs_connect_peer(s, peer_json);
}

static void put_u(qpb_jw *w, const char *key, uint64_t v)
{
    qpb_jw_key(w, key);
    qpb_jw_u64(w, v);
}

static void verbs_summary(qpb_session *s, qpb_jw *w)
{
    const qpb_spec *sp = &s->spec;
    qpb_verbs *vb = s->verbs;
    qpb_jw_key(w, "device");
    qpb_jw_str(w, vb->caps.name);
    put_u(w, "ib_port", sp->ib_port);
    qpb_jw_key(w, "device_transport"); /* perftest's "Transport type": IB (InfiniBand, RoCE) or IW (iWARP) */
    qpb_jw_str(w, vb->caps.iwarp ? "iwarp" : "ib");
    qpb_jw_key(w, "link_layer");
    qpb_jw_str(w, vb->plan.port->ethernet ? "Ethernet" : "InfiniBand");
    qpb_jw_key(w, "gid_index");
    qpb_jw_i64(w, vb->plan.gid_index);
    put_u(w, "path_mtu", vb->plan.path_mtu);
    qpb_jw_key(w, "transport");
    qpb_jw_str(w, QPB_TRANSPORT_NAMES[sp->transport]);
    qpb_jw_key(w, "srq");
    qpb_jw_str(w, QPB_SRQ_NAMES[sp->srq]);
    put_u(w, "inline_size", sp->inline_size);
    put_u(w, "signal_every", sp->signal_every);
    put_u(w, "post_list", sp->post_list);
    put_u(w, "rx_depth", sp->rx_depth);
    qpb_jw_key(w, "cq_mode");
    qpb_jw_str(w, QPB_CQ_NAMES[sp->cq_mode]);
    qpb_jw_key(w, "mr_mode");
    qpb_jw_str(w, QPB_MR_NAMES[sp->mr_mode]);
    qpb_jw_key(w, "relaxed_ordering"); /* what ran: false where rdma-core takes no optional access flag */
    qpb_jw_bool(w, qpb_verbs_relaxed_ordering(s));
    qpb_jw_key(w, "buffers");
    qpb_jw_str(w, QPB_BUFFERS_NAMES[sp->buffers]);
    qpb_jw_key(w, "odp");
    qpb_jw_bool(w, sp->odp);
    qpb_jw_key(w, "polling");
    qpb_jw_str(w, QPB_POLLING_NAMES[sp->polling]);
    if (qpb_verbs_target_waits(s)) {
        qpb_jw_key(w, "target_wait");
        qpb_jw_str(w, QPB_TARGET_WAIT_NAMES[sp->target_wait]);
    }
    qpb_jw_key(w, "lock_model");
    qpb_jw_str(w, QPB_LOCK_NAMES[sp->lock_model]);
    qpb_jw_key(w, "rdma_cm");
    qpb_jw_bool(w, sp->rdma_cm);
    qpb_jw_key(w, "qp_sharing");
    qpb_jw_str(w, QPB_QP_SHARING_NAMES[sp->qp_sharing]);
    qpb_jw_key(w, "post_api");
    qpb_jw_str(w, QPB_POST_API_NAMES[vb->plan.post_wr ? QPB_POST_WR : QPB_POST_LEGACY]);
    if (sp->bidirectional) { /* one: the senders reap the receives too (no receiving thread); split: threads of each */
        qpb_jw_key(w, "bidirectional_loop");
        qpb_jw_str(w, qpb_verbs_receives_in_sender(s) ? "one" : "split");
    }
    qpb_jw_key(w, "peer");
    if (!vb->have_result) {
        qpb_jw_null(w);
        return;
    }
    qpb_jw_obj_begin(w);
    put_u(w, "messages", vb->result.messages);
    put_u(w, "bytes", vb->result.bytes);
    put_u(w, "errors", vb->result.errors);
    put_u(w, "short_connections", vb->result.short_conns);
    put_u(w, "missing", vb->result.missing);
    qpb_jw_obj_end(w);
}

static void verbs_destroy(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    if (vb == NULL)
        return;
    qpb_verbs_res_destroy(s);
    qpb_verbs_cm_close(s);
    if (vb->ctx != NULL && vb->cm_devices == NULL)
        vb->v->close_device(vb->ctx); /* librdmacm's contexts are its own */
    qpb_verbs_ctl_close(s);
    free(vb);
    s->verbs = NULL;
}

const char *qpb_verbs_device_name(const qpb_session *s)
{
    return s->verbs != NULL ? s->verbs->caps.name : NULL;
}

const qpb_provider qpb_verbs_provider = {
    .create = verbs_create,
    .local_endpoint = qpb_verbs_endpoint,
    .connect = verbs_connect,
    .run_sender = qpb_verbs_run_sender,
    .run_receiver = qpb_verbs_run_receiver,
    .receives_in_sender = qpb_verbs_receives_in_sender,
    .summary = verbs_summary,
    .destroy = verbs_destroy,
};
