/*
 * qpb_verbs_cm.c — connection set-up through the RDMA connection manager
 * ("rdma_cm": true; RC). The server listens on a cm id (its port goes in the
 * endpoint blob as cm_port); the client resolves the server's address and
 * route for each of its QPs, makes the QP on that connection's cm id and
 * connects with private data naming the thread and QP; the server makes the
 * matching QP on the request's id and accepts. The CM moves both to RTS.
 * Loopback pumps both ends on one event channel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "qpb_device.h"
#include "qpb_verbs.h"

#define CM_TIMEOUT_MS 30000
#define CM_RESOLVE_MS 5000
#define CM_MAGIC 0x51504243u /* "QPBC" */

/* Private data of a connect request: which of the client's QPs it is. */
typedef struct cm_private {
    uint32_t magic, thread, qp, qps_per_thread;
} cm_private;

static char listen_tag; /* the context of ids the listener hands out */

static qpb_status cm_fail(qpb_session *s, const char *call, const char *what)
{
    int e = errno ? errno : EINVAL;
    return qpb_fail(s, QPB_ESYS, "%s (%s) on %s: %s (errno %d)", call, what, s->verbs->caps.name, strerror(e), e);
}

qpb_status qpb_verbs_cm_open(qpb_session *s, char *err, uint32_t err_len)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    if ((vb->cm = qpb_rdmacm_get(err, err_len)) == NULL)
        return QPB_EUNSUPPORTED;
    int n = 0;
    vb->cm_devices = vb->cm->get_devices(&n);
    if (vb->cm_devices == NULL || n == 0) {
        snprintf(err, err_len, "rdma_cm: no RDMA device (rdma_get_devices: %s)", strerror(errno));
        return QPB_EUNSUPPORTED;
    }
    char names[256] = "";
    size_t used = 0;
    for (int i = 0; i < n && vb->ctx == NULL; i++) {
        const char *name = vb->v->get_device_name(vb->cm_devices[i]->device);
        if (used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", name);
        struct ibv_port_attr pa;
        bool active = qpb_ibv_query_port(vb->v, vb->cm_devices[i], (uint8_t)sp->ib_port, &pa) == 0 &&
                      pa.state == IBV_PORT_ACTIVE;
        if (sp->device[0] != '\0' ? strcmp(name, sp->device) == 0 : active || i + 1 == n)
            vb->ctx = vb->cm_devices[i];
    }
    if (vb->ctx == NULL) {
        snprintf(err, err_len, "rdma_cm: device %s not found (devices here: %s)", sp->device, names);
        return QPB_EUNSUPPORTED;
    }
    qpb_device_caps(vb->v, vb->ctx, vb->v->get_device_name(vb->ctx->device), &vb->caps);
    if ((vb->cm_channel = vb->cm->create_event_channel()) == NULL) {
        snprintf(err, err_len, "rdma_create_event_channel: %s (is the rdma_ucm module loaded?)", strerror(errno));
        return QPB_ESYS;
    }
    int fl = fcntl(vb->cm_channel->fd, F_GETFL);
    fcntl(vb->cm_channel->fd, F_SETFL, fl | O_NONBLOCK);
    return QPB_OK;
}

void qpb_verbs_cm_close(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    if (vb->cm_listen != NULL)
        vb->cm->destroy_id(vb->cm_listen);
    if (vb->cm_channel != NULL)
        vb->cm->destroy_event_channel(vb->cm_channel);
    if (vb->cm_devices != NULL)
        vb->cm->free_devices(vb->cm_devices);
}

static qpb_status next_event(qpb_session *s, struct rdma_cm_event **ev, const char *waiting_for)
{
    qpb_verbs *vb = s->verbs;
    for (;;) {
        if (vb->cm->get_cm_event(vb->cm_channel, ev) == 0)
            return QPB_OK;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return cm_fail(s, "rdma_get_cm_event", waiting_for);
        struct pollfd p = {.fd = vb->cm_channel->fd, .events = POLLIN};
        int rc = poll(&p, 1, CM_TIMEOUT_MS);
        if (rc == 0)
            return qpb_fail(s, QPB_ERUN, "rdma_cm: no event within %d ms waiting for %s", CM_TIMEOUT_MS, waiting_for);
        if (rc < 0 && errno != EINTR)
            return cm_fail(s, "poll", "rdma_cm event channel");
    }
}

static uint8_t rd_depth(qpb_session *s)
{
    uint32_t rd = s->verbs->plan.rd_atomic ? s->verbs->plan.rd_atomic : 1;
    return (uint8_t)(rd < 255 ? rd : 255);
}

/* A connect request: make the matching QP on the request's id and accept. */
static qpb_status accept_request(qpb_session *s, struct rdma_cm_event *ev)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    cm_private pd;
    if (ev->param.conn.private_data == NULL || ev->param.conn.private_data_len < sizeof pd)
        return qpb_fail(s, QPB_EINVAL, "rdma_cm: a connect request without qpbench's private data");
    memcpy(&pd, ev->param.conn.private_data, sizeof pd);
    uint32_t t = ntohl(pd.thread), i = ntohl(pd.qp);
    if (ntohl(pd.magic) != CM_MAGIC || ntohl(pd.qps_per_thread) != sp->qps_per_thread || t >= sp->threads ||
        i >= sp->qps_per_thread || vb->rx->conns[t * sp->qps_per_thread + i].cm_id != NULL)
        return qpb_fail(s, QPB_EINVAL, "rdma_cm: connect request for thread %u QP %u does not fit this run (%u x %u)",
                        t, i, sp->threads, sp->qps_per_thread);
    if (ev->id->verbs != vb->ctx)
        return qpb_fail(s, QPB_EUNSUPPORTED, "rdma_cm: the request arrived on %s, the run uses %s",
                        vb->v->get_device_name(ev->id->verbs->device), vb->caps.name);
    qpb_vthread *th = &vb->rx->threads[t];
    qpb_vconn *c = &th->conns[i];
    struct ibv_qp_init_attr a;
    qpb_verbs_qp_attr(s, vb->rx, th, c, &a);
    qpb_status st = qpb_verbs_create_qp(s, vb->rx, th, c, &a, ev->id);
    if (st != QPB_OK)
        return st;
    c->cm_id = ev->id;
    st = qpb_verbs_qp_ready(s, vb->rx, th, c);
    if (st != QPB_OK)
        return st;
    struct rdma_conn_param p = {.responder_resources = rd_depth(s), .initiator_depth = rd_depth(s),
                                .rnr_retry_count = 7};
    if (vb->cm->accept(ev->id, &p) != 0)
        return cm_fail(s, "rdma_accept", "connection");
    vb->cm_accepted++;
    return QPB_OK;
}

/* Handles an event of the listening side; *mine is false when it is not one. */
static qpb_status server_event(qpb_session *s, struct rdma_cm_event *ev, bool *mine)
{
    qpb_verbs *vb = s->verbs;
    *mine = ev->listen_id == vb->cm_listen && vb->cm_listen != NULL ? true : ev->id->context == &listen_tag;
    if (!*mine)
        return QPB_OK;
    switch (ev->event) {
    case RDMA_CM_EVENT_CONNECT_REQUEST: return accept_request(s, ev);
    case RDMA_CM_EVENT_ESTABLISHED: vb->cm_established++; return QPB_OK;
    case RDMA_CM_EVENT_DISCONNECTED: return QPB_OK;
    default:
        return qpb_fail(s, QPB_ERUN, "rdma_cm (server): %s (status %d)", vb->cm->event_str(ev->event), ev->status);
    }
}

qpb_status qpb_verbs_cm_listen(qpb_session *s, const char *address)
{
    qpb_verbs *vb = s->verbs;
    if (vb->cm->create_id(vb->cm_channel, &vb->cm_listen, &listen_tag, RDMA_PS_TCP) != 0)
        return cm_fail(s, "rdma_create_id", "listener");
    struct sockaddr_in a = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, address, &a.sin_addr) != 1)
        return qpb_fail(s, QPB_EINVAL, "rdma_cm: listen address \"%s\" is not IPv4", address);
    if (vb->cm->bind_addr(vb->cm_listen, (struct sockaddr *)&a) != 0)
        return cm_fail(s, "rdma_bind_addr", address);
    if (vb->cm->listen(vb->cm_listen, 1024) != 0)
        return cm_fail(s, "rdma_listen", "listener");
    vb->cm_port = ntohs(vb->cm->get_src_port(vb->cm_listen));
    return QPB_OK;
}

/* Waits for event `want` on id, serving the listener (loopback) meanwhile. */
static qpb_status await_event(qpb_session *s, struct rdma_cm_id *id, enum rdma_cm_event_type want, const char *what)
{
    qpb_verbs *vb = s->verbs;
    for (;;) {
        struct rdma_cm_event *ev;
        qpb_status st = next_event(s, &ev, what);
        if (st != QPB_OK)
            return st;
        bool served = false;
        if (ev->id != id)
            st = server_event(s, ev, &served);
        bool done = ev->id == id && ev->event == want;
        bool failed = ev->id == id && ev->event != want;
        enum rdma_cm_event_type got = ev->event;
        int status = ev->status;
        vb->cm->ack_cm_event(ev);
        if (st != QPB_OK || done)
            return st;
        if (failed)
            return qpb_fail(s, QPB_ERUN, "rdma_cm: %s (status %d) while waiting for %s", vb->cm->event_str(got), status,
                            what);
    }
}

qpb_status qpb_verbs_cm_connect(qpb_session *s, const char *host, uint32_t port)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host, &to.sin_addr) != 1)
        return qpb_fail(s, QPB_EINVAL, "rdma_cm: the server address \"%s\" is not IPv4", host);
    for (uint32_t k = 0; k < vb->plan.qps; k++) {
        qpb_vconn *c = &vb->tx->conns[k];
        qpb_vthread *th = &vb->tx->threads[c->thread];
        char what[96];
        snprintf(what, sizeof what, "QP %u of thread %u to %s:%u", k % sp->qps_per_thread, c->thread, host, port);
        if (vb->cm->create_id(vb->cm_channel, &c->cm_id, c, RDMA_PS_TCP) != 0)
            return cm_fail(s, "rdma_create_id", what);
        if (vb->cm->resolve_addr(c->cm_id, NULL, (struct sockaddr *)&to, CM_RESOLVE_MS) != 0)
            return cm_fail(s, "rdma_resolve_addr", what);
        qpb_status st = await_event(s, c->cm_id, RDMA_CM_EVENT_ADDR_RESOLVED, what);
        if (st == QPB_OK && vb->cm->resolve_route(c->cm_id, CM_RESOLVE_MS) != 0)
            return cm_fail(s, "rdma_resolve_route", what);
        if (st == QPB_OK)
            st = await_event(s, c->cm_id, RDMA_CM_EVENT_ROUTE_RESOLVED, what);
        if (st != QPB_OK)
            return st;
        if (c->cm_id->verbs != vb->ctx)
            return qpb_fail(s, QPB_EUNSUPPORTED, "rdma_cm: %s routes through %s, the run uses %s", host,
                            vb->v->get_device_name(c->cm_id->verbs->device), vb->caps.name);
        struct ibv_qp_init_attr a;
        qpb_verbs_qp_attr(s, vb->tx, th, c, &a);
        if ((st = qpb_verbs_create_qp(s, vb->tx, th, c, &a, c->cm_id)) != QPB_OK)
            return st;
        if ((st = qpb_verbs_qp_ready(s, vb->tx, th, c)) != QPB_OK)
            return st;
        cm_private pd = {htonl(CM_MAGIC), htonl(c->thread), htonl(k % sp->qps_per_thread), htonl(sp->qps_per_thread)};
        struct rdma_conn_param p = {.private_data = &pd, .private_data_len = sizeof pd,
                                    .responder_resources = rd_depth(s), .initiator_depth = rd_depth(s),
                                    .retry_count = 7, .rnr_retry_count = 7};
        if (vb->cm->connect(c->cm_id, &p) != 0)
            return cm_fail(s, "rdma_connect", what);
        if ((st = await_event(s, c->cm_id, RDMA_CM_EVENT_ESTABLISHED, what)) != QPB_OK)
            return st;
    }
    return s->spec.role == QPB_ROLE_LOOPBACK ? qpb_verbs_cm_accept_all(s) : QPB_OK;
}

/* Bidirectional, on the server once the client's connections are accepted: its sending side's QPs connect to the
 * client's listener at the address those connections came from. */
qpb_status qpb_verbs_cm_connect_back(qpb_session *s, uint32_t port)
{
    qpb_verbs *vb = s->verbs;
    struct rdma_cm_id *accepted = vb->rx->conns[0].cm_id;
    char host[INET_ADDRSTRLEN] = "";
    const struct sockaddr *peer = accepted != NULL ? rdma_get_peer_addr(accepted) : NULL;
    if (peer == NULL || peer->sa_family != AF_INET ||
        inet_ntop(AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, host, sizeof host) == NULL)
        return qpb_fail(s, QPB_EINVAL, "rdma_cm: bidirectional: the client's address is not IPv4");
    if (port == 0)
        return qpb_fail(s, QPB_EINVAL, "rdma_cm: bidirectional: the client's endpoint names no cm_port (it does not "
                                       "listen: an older qpbench?)");
    return qpb_verbs_cm_connect(s, host, port);
}

qpb_status qpb_verbs_cm_accept_all(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    while (vb->cm_accepted < vb->plan.qps || vb->cm_established < vb->plan.qps) {
        struct rdma_cm_event *ev;
        qpb_status st = next_event(s, &ev, "the client's connections");
        if (st != QPB_OK)
            return st;
        bool mine = false;
        st = server_event(s, ev, &mine);
        vb->cm->ack_cm_event(ev);
        if (st != QPB_OK)
            return st;
    }
    return QPB_OK;
}
