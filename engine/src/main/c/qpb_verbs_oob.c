/*
 * qpb_verbs_oob.c — what the two sides of a verbs run tell each other out of
 * band: the endpoint blob and the control socket. It calls only
 * qpb_verbs_res.c (see the call graph in qpb_verbs.h).
 *
 * Endpoint blob (flat JSON; long values are hex, one fixed-width field per
 * connection in index order): provider, role, transport, op, mode, threads,
 * qps_per_thread, msg_size, slot, lid, gid (32 hex digits), mtu (path MTU in
 * bytes), host and port (the server's control socket), qpn and psn (6 hex
 * digits each), srqn (the SRQ each connection's messages go to, XRC), mr (16
 * hex digits of address + 8 of rkey per region) and mr_per ("thread", "qp").
 *
 * Control socket, server listening, all integers big-endian: the client sends
 * a hello ("QPBV", threads, qps_per_thread) when it connects and waits for
 * READY ("QRDY"), which the server sends once its QPs are ready to receive
 * (perftest's second handshake after RTR: without it the client's first
 * requests can reach a QP not yet in RTR, be dropped, and wait out a
 * retransmission timeout inside the measured run); at the end the client
 * sends FIN ("QFIN", n, n x u64 messages posted per connection) and the
 * server answers RES ("QRES", 0, messages, bytes, errors, short connections,
 * missing). Bidirectional runs: the blob also carries rqpn, rpsn, rsrqn and
 * rmr (the side of the reverse direction), and both ends send FIN and RES.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qpb_json.h"
#include "qpb_verbs.h"

#define CTL_HELLO 0x51504256u /* "QPBV" */
#define CTL_READY 0x51524459u /* "QRDY" */
#define CTL_FIN 0x5146494eu   /* "QFIN" */
#define CTL_RES 0x51524553u   /* "QRES" */
#define CTL_TIMEOUT_MS 30000

/* ---- hex fields ---- */

static void put_hex(qpb_jw *w, const char *key, const uint64_t *values, uint32_t n, int digits)
{
    size_t len = (size_t)n * (size_t)digits;
    char *text = malloc(len + 1);
    if (text == NULL) {
        qpb_jw_key(w, key);
        qpb_jw_null(w); /* makes the blob invalid for the peer, which says so */
        return;
    }
    static const char hexd[] = "0123456789abcdef";
    for (uint32_t i = 0; i < n; i++)
        for (int d = 0; d < digits; d++)
            text[(size_t)i * digits + d] = hexd[(values[i] >> (4 * (digits - 1 - d))) & 0xf];
    text[len] = '\0';
    qpb_jw_key(w, key);
    qpb_jw_str(w, text);
    free(text);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Reads n fixed-width hex values of a blob field; false with a reason. */
static bool get_hex(const qpb_json_object *o, const char *key, uint64_t *out, uint32_t n, int digits, char *why,
                    size_t why_len)
{
    const qpb_json_field *f = qpb_json_get(o, key);
    if (f == NULL || f->type != QPB_JSON_STRING) {
        snprintf(why, why_len, "%s missing", key);
        return false;
    }
    if (f->raw_len != (size_t)n * (size_t)digits) {
        snprintf(why, why_len, "%s has %zu hex digits, %u x %d expected", key, f->raw_len, n, digits);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int d = 0; d < digits; d++) {
            int h = hexval(f->raw[(size_t)i * digits + d]);
            if (h < 0) {
                snprintf(why, why_len, "%s is not hex", key);
                return false;
            }
            v = v << 4 | (uint64_t)h;
        }
        out[i] = v;
    }
    return true;
}

/* ---- what a side advertises ---- */

qpb_vside *qpb_verbs_own_side(qpb_session *s)
{
    return s->spec.role == QPB_ROLE_SERVER ? s->verbs->rx : s->verbs->tx;
}

qpb_vside *qpb_verbs_reverse_side(qpb_session *s)
{
    if (!s->spec.bidirectional)
        return NULL;
    return s->spec.role == QPB_ROLE_SERVER ? s->verbs->tx : s->verbs->rx;
}

/* Regions of a side as (address, rkey) pairs. */
uint32_t qpb_verbs_regions(qpb_session *s, const qpb_vside *side, uint64_t *addr, uint64_t *rkey)
{
    const qpb_spec *sp = &s->spec;
    uint32_t n = 0;
    for (uint32_t t = 0; t < sp->threads; t++) {
        const qpb_vthread *th = &side->threads[t];
        if (th->mr != NULL) {
            addr[n] = (uintptr_t)th->buf;
            rkey[n++] = th->mr->rkey;
        }
        for (uint32_t i = 0; th->qp_mrs != NULL && i < sp->qps_per_thread; i++) {
            addr[n] = (uintptr_t)th->qp_mrs[i]->addr;
            rkey[n++] = th->qp_mrs[i]->rkey;
        }
    }
    return n;
}

/* ---- the control socket ---- */

static qpb_status sock_fail(qpb_session *s, const char *call, const char *where)
{
    int e = errno;
    return qpb_fail(s, QPB_ESYS, "%s %s: %s (qpb_verbs control socket, errno %d)", call, where, strerror(e), e);
}

/* Moves exactly len bytes; false on error, end of stream or timeout. */
static bool io_exact(int fd, void *buf, size_t len, bool out, int timeout_ms, const char **why)
{
    size_t done = 0;
    while (done < len) {
        struct pollfd p = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        int rc = poll(&p, 1, timeout_ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0) {
            *why = rc == 0 ? "timed out" : strerror(errno);
            return false;
        }
        ssize_t n = out ? send(fd, (char *)buf + done, len - done, MSG_NOSIGNAL)
                        : recv(fd, (char *)buf + done, len - done, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            *why = n == 0 ? "the peer closed the control connection" : strerror(errno);
            return false;
        }
        done += (size_t)n;
    }
    return true;
}

/* The IPv4 address of the run's RoCE GID, if it has one. */
bool qpb_verbs_roce_ipv4(qpb_session *s, char *out, size_t len)
{
    const union ibv_gid *g = &s->verbs->gid;
    static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (s->verbs->plan.gid_index < 0 || memcmp(g->raw, v4_prefix, 12) != 0)
        return false;
    snprintf(out, len, "%u.%u.%u.%u", g->raw[12], g->raw[13], g->raw[14], g->raw[15]);
    return true;
}

/* Where a server's control socket listens and what its blob advertises: the
 * spec's bind, else every address, advertised as the IPv4 address of the
 * run's RoCE GID (the address peers reach on the RDMA network). */
static void ctl_address(qpb_session *s, char *listen_on, char *advertise, size_t len)
{
    const qpb_spec *sp = &s->spec;
    snprintf(listen_on, len, "%s", sp->bind_given ? sp->bind : "0.0.0.0");
    if (sp->bind_given || !qpb_verbs_roce_ipv4(s, advertise, len))
        snprintf(advertise, len, "%s", listen_on);
}

qpb_status qpb_verbs_ctl_listen(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    char where[80], listen_on[64], advertise[64];
    ctl_address(s, listen_on, advertise, sizeof listen_on);
    snprintf(where, sizeof where, "%s:%u", listen_on, sp->port);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sp->port)};
    inet_pton(AF_INET, listen_on, &a.sin_addr);
    if ((vb->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return sock_fail(s, "socket", where);
    int one = 1;
    setsockopt(vb->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(vb->listen_fd, (struct sockaddr *)&a, sizeof a) < 0)
        return sock_fail(s, "bind", where);
    if (listen(vb->listen_fd, 4) < 0)
        return sock_fail(s, "listen", where);
    socklen_t alen = sizeof a;
    getsockname(vb->listen_fd, (struct sockaddr *)&a, &alen);
    vb->port = ntohs(a.sin_port);
    snprintf(vb->host, sizeof vb->host, "%s", advertise);
    return QPB_OK;
}

qpb_status qpb_verbs_ctl_accept(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    char where[80];
    snprintf(where, sizeof where, "%s:%u", vb->host, vb->port);
    struct pollfd p = {.fd = vb->listen_fd, .events = POLLIN};
    int rc;
    while ((rc = poll(&p, 1, CTL_TIMEOUT_MS)) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        return qpb_fail(s, QPB_ERUN, "accept on %s: no client within %d ms (qpb_verbs control socket)", where,
                        CTL_TIMEOUT_MS);
    if (rc < 0 || (vb->ctl_fd = accept4(vb->listen_fd, NULL, NULL, SOCK_CLOEXEC)) < 0)
        return sock_fail(s, "accept", where);
    uint32_t h[3];
    const char *why = NULL;
    if (!io_exact(vb->ctl_fd, h, sizeof h, false, CTL_TIMEOUT_MS, &why))
        return qpb_fail(s, QPB_ERUN, "control hello on %s: %s", where, why);
    if (ntohl(h[0]) != CTL_HELLO || ntohl(h[1]) != sp->threads || ntohl(h[2]) != sp->qps_per_thread)
        return qpb_fail(s, QPB_EINVAL, "control hello on %s: not a qpbench verbs client with %u threads x %u QPs",
                        where, sp->threads, sp->qps_per_thread);
    int one = 1;
    setsockopt(vb->ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint32_t ready = htonl(CTL_READY); /* this side's QPs are up: the client may post */
    if (!io_exact(vb->ctl_fd, &ready, sizeof ready, true, CTL_TIMEOUT_MS, &why))
        return qpb_fail(s, QPB_ERUN, "control ready on %s: %s", where, why);
    return QPB_OK;
}

qpb_status qpb_verbs_ctl_connect(qpb_session *s, const char *host, uint32_t port)
{
    qpb_verbs *vb = s->verbs;
    char where[80];
    snprintf(where, sizeof where, "%s:%u", host, port);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host, &a.sin_addr) != 1)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint: host must be an IPv4 address (got \"%s\")", host);
    if ((vb->ctl_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return sock_fail(s, "socket", where);
    if (connect(vb->ctl_fd, (struct sockaddr *)&a, sizeof a) < 0)
        return sock_fail(s, "connect", where);
    int one = 1;
    setsockopt(vb->ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint32_t h[3] = {htonl(CTL_HELLO), htonl(s->spec.threads), htonl(s->spec.qps_per_thread)};
    const char *why = NULL;
    if (!io_exact(vb->ctl_fd, h, sizeof h, true, CTL_TIMEOUT_MS, &why))
        return qpb_fail(s, QPB_ERUN, "control hello to %s: %s", where, why);
    uint32_t ready = 0;
    if (!io_exact(vb->ctl_fd, &ready, sizeof ready, false, CTL_TIMEOUT_MS, &why))
        return qpb_fail(s, QPB_ERUN, "control ready from %s: %s (the server did not bring its QPs up)", where, why);
    if (ntohl(ready) != CTL_READY)
        return qpb_fail(s, QPB_ERUN, "control ready from %s: unexpected answer 0x%08x", where, ntohl(ready));
    return QPB_OK;
}

void qpb_verbs_ctl_close(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    if (vb->ctl_fd >= 0)
        close(vb->ctl_fd);
    if (vb->listen_fd >= 0)
        close(vb->listen_fd);
}

/* ---- the blob ---- */

/* One side's QPs and regions under keys qpn, psn, srqn and mr, each after prefix ("" or "r"). */
static bool put_side(qpb_session *s, qpb_jw *w, const qpb_vside *side, const char *prefix)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    uint32_t n = vb->plan.qps, nr = sp->mr_mode == QPB_MR_PER_QP ? n : sp->qp_sharing == QPB_QPS_SHARED ? 1 : sp->threads;
    uint64_t *qpn = calloc(n, 8), *psn = calloc(n, 8), *srqn = calloc(n, 8), *addr = calloc(nr, 8),
             *rkey = calloc(nr, 8);
    size_t len = (size_t)nr * 24;
    char *mtext = malloc(len + 1);
    bool ok = qpn && psn && srqn && addr && rkey && mtext;
    for (uint32_t i = 0; ok && i < n; i++) {
        qpn[i] = side->conns[i].qpn;
        psn[i] = side->conns[i].psn;
        srqn[i] = side->threads[side->conns[i].thread].srqn;
    }
    if (ok)
        qpb_verbs_regions(s, side, addr, rkey);
    char key[16];
    const char *names[] = {"qpn", "psn", "srqn"};
    uint64_t *vals[] = {qpn, psn, srqn};
    for (int k = 0; ok && k < 3; k++) {
        snprintf(key, sizeof key, "%s%s", prefix, names[k]);
        put_hex(w, key, vals[k], n, 6);
    }
    for (uint32_t i = 0; ok && i < nr; i++)
        snprintf(mtext + (size_t)i * 24, 25, "%016llx%08x", (unsigned long long)addr[i], (unsigned)rkey[i]);
    if (ok) {
        mtext[len] = '\0';
        snprintf(key, sizeof key, "%smr", prefix);
        qpb_jw_key(w, key);
        qpb_jw_str(w, mtext);
    }
    free(mtext), free(qpn), free(psn), free(srqn), free(addr), free(rkey);
    return ok;
}

qpb_status qpb_verbs_blob_write(qpb_session *s, char *buf, uint32_t buf_len)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    char gid[33];
    for (int i = 0; i < 16; i++)
        snprintf(gid + 2 * i, 3, "%02x", vb->gid.raw[i]);
    qpb_jw w;
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    const char *strs[][2] = {{"provider", "verbs"}, {"role", qpb_role_name(sp->role)},
                             {"transport", QPB_TRANSPORT_NAMES[sp->transport]}, {"op", QPB_OP_NAMES[sp->op_kind]},
                             {"mode", QPB_MODE_NAMES[sp->mode]},
                             {"gid", gid}, {"host", vb->host}, {"mr_per", sp->mr_mode == QPB_MR_PER_QP ? "qp" : "thread"}};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        qpb_jw_key(&w, strs[i][0]);
        qpb_jw_str(&w, strs[i][1]);
    }
    const char *nums[] = {"threads", "qps_per_thread", "msg_size", "slot", "lid", "mtu", "port", "cm_port"};
    uint64_t vals[] = {sp->threads, sp->qps_per_thread, sp->msg_size, vb->plan.slot, vb->lid, vb->plan.path_mtu,
                       vb->port, vb->cm_port};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        qpb_jw_key(&w, nums[i]);
        qpb_jw_u64(&w, vals[i]);
    }
    qpb_jw_key(&w, "bidirectional");
    qpb_jw_bool(&w, sp->bidirectional);
    bool ok = put_side(s, &w, qpb_verbs_own_side(s), "");
    if (ok && sp->bidirectional) /* the reverse direction's QPs: our sending side on a server, receiving on a client */
        ok = put_side(s, &w, qpb_verbs_reverse_side(s), "r");
    qpb_jw_obj_end(&w);
    if (!ok)
        return qpb_fail(s, QPB_ESYS, "out of memory for the endpoint of %u connections", vb->plan.qps);
    if (!qpb_jw_ok(&w))
        return qpb_fail(s, QPB_ENOSPC, "qpb_local_endpoint: needs %zu bytes, the buffer has %u", w.len + 1, buf_len);
    return QPB_OK;
}

static bool apply_side(qpb_session *s, const qpb_json_object *o, qpb_vside *side, const char *prefix,
                       const qpb_vpeer *peer, char *why, size_t why_len);

/* The peer's blob: shape checks, then every connection's remote half. */
static qpb_status apply_peer(qpb_session *s, const qpb_json_object *o, qpb_vpeer *peer)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    char msg[QPB_ERR_LEN] = "";
    size_t len = 0;
    const char *skeys[] = {"provider", "transport", "op", "mode"};
    const char *ours[] = {"verbs", QPB_TRANSPORT_NAMES[sp->transport], QPB_OP_NAMES[sp->op_kind],
                          QPB_MODE_NAMES[sp->mode]};
    for (int i = 0; i < 4; i++) {
        const qpb_json_field *f = qpb_json_get(o, skeys[i]);
        if (f == NULL || f->type != QPB_JSON_STRING || strcmp(f->str, ours[i]) != 0)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "; %s: peer %s, ours %s", skeys[i],
                                    f && f->type == QPB_JSON_STRING ? f->str : "missing", ours[i]);
    }
    const char *nkeys[] = {"threads", "qps_per_thread", "msg_size", "slot", "lid", "mtu", "port", "cm_port"};
    uint64_t nv[8];
    for (int i = 0; i < 8 && len < sizeof msg; i++) {
        const qpb_json_field *f = qpb_json_get(o, nkeys[i]);
        if (f == NULL || f->type != QPB_JSON_NUMBER || !f->is_int || f->i64 < 0)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "; %s missing", nkeys[i]);
        nv[i] = f && f->is_int ? (uint64_t)f->i64 : 0;
    }
    uint64_t want[] = {sp->threads, sp->qps_per_thread, sp->msg_size, vb->plan.slot};
    for (int i = 0; i < 4 && len < sizeof msg; i++)
        if (nv[i] != want[i])
            len += (size_t)snprintf(msg + len, sizeof msg - len, "; %s: peer %llu, ours %llu", nkeys[i],
                                    (unsigned long long)nv[i], (unsigned long long)want[i]);
    if (len > 0)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint does not match this spec: %s (qpb_connect)", msg + 2);
    peer->threads = (uint32_t)nv[0], peer->qps_per_thread = (uint32_t)nv[1], peer->slot = nv[3];
    peer->lid = (uint32_t)nv[4], peer->mtu = (uint32_t)nv[5], peer->port = (uint32_t)nv[6];
    peer->cm_port = (uint32_t)nv[7];
    const qpb_json_field *h = qpb_json_get(o, "host"), *mp = qpb_json_get(o, "mr_per");
    snprintf(peer->host, sizeof peer->host, "%.63s", h && h->type == QPB_JSON_STRING ? h->str : "");
    peer->mr_per_qp = mp && mp->type == QPB_JSON_STRING && !strcmp(mp->str, "qp");
    const qpb_json_field *bf = qpb_json_get(o, "bidirectional");
    bool peer_bidi = bf != NULL && bf->type == QPB_JSON_BOOL && bf->b;
    if (peer_bidi != sp->bidirectional)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint does not match this spec: bidirectional: peer %s, ours %s "
                                       "(qpb_connect)", peer_bidi ? "true" : "false", sp->bidirectional ? "true" : "false");
    uint64_t gid[16];
    char why[160] = "";
    bool ok = get_hex(o, "gid", gid, 16, 2, why, sizeof why);
    for (uint32_t i = 0; ok && i < 16; i++)
        peer->gid[i] = (uint8_t)gid[i];
    /* our side pairs with the peer's (a client's sending side with a server's receiving one); in a bidirectional
     * run our other side pairs with the peer's other ("r" fields) */
    if (ok)
        ok = apply_side(s, o, qpb_verbs_own_side(s), "", peer, why, sizeof why);
    if (ok && sp->bidirectional)
        ok = apply_side(s, o, qpb_verbs_reverse_side(s), "r", peer, why, sizeof why);
    if (!ok)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint: %s (qpb_connect)", why[0] ? why : "out of memory");
    return QPB_OK;
}

/* The remote half of every connection of side from the peer's fields qpn, psn, srqn and mr after prefix. */
static bool apply_side(qpb_session *s, const qpb_json_object *o, qpb_vside *side, const char *prefix,
                       const qpb_vpeer *peer, char *why, size_t why_len)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    uint32_t n = vb->plan.qps, nr = peer->mr_per_qp ? n : sp->qp_sharing == QPB_QPS_SHARED ? 1 : sp->threads;
    uint64_t *qpn = calloc(n, 8), *psn = calloc(n, 8), *srqn = calloc(n, 8);
    char kq[16], kp[16], ks[16], km[16];
    snprintf(kq, sizeof kq, "%sqpn", prefix), snprintf(kp, sizeof kp, "%spsn", prefix);
    snprintf(ks, sizeof ks, "%ssrqn", prefix), snprintf(km, sizeof km, "%smr", prefix);
    bool ok = qpn && psn && srqn && get_hex(o, kq, qpn, n, 6, why, why_len) && get_hex(o, kp, psn, n, 6, why, why_len) &&
              get_hex(o, ks, srqn, n, 6, why, why_len);
    const qpb_json_field *mf = qpb_json_get(o, km);
    if (ok && (mf == NULL || mf->type != QPB_JSON_STRING || mf->raw_len != (size_t)nr * 24)) {
        snprintf(why, why_len, "%s must hold %u regions of 24 hex digits", km, nr);
        ok = false;
    }
    for (uint32_t i = 0; ok && i < n; i++) {
        qpb_vconn *c = &side->conns[i];
        c->remote_qpn = (uint32_t)qpn[i], c->remote_psn = (uint32_t)psn[i], c->remote_srqn = (uint32_t)srqn[i];
        uint32_t region = peer->mr_per_qp ? i : c->thread;
        char a[17], k[9];
        memcpy(a, mf->raw + (size_t)region * 24, 16), a[16] = '\0';
        memcpy(k, mf->raw + (size_t)region * 24 + 16, 8), k[8] = '\0';
        uint64_t base = strtoull(a, NULL, 16);
        c->rkey = (uint32_t)strtoul(k, NULL, 16);
        c->remote_addr = peer->mr_per_qp ? base : base + (uint64_t)(i % sp->qps_per_thread) * vb->plan.slot;
    }
    free(qpn), free(psn), free(srqn);
    return ok;
}

qpb_status qpb_verbs_blob_read(qpb_session *s, const char *peer_json, qpb_vpeer *peer)
{
    qpb_json_object *o = malloc(sizeof(*o));
    if (o == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory parsing the peer endpoint");
    char perr[160];
    qpb_status st = QPB_OK;
    if (!qpb_json_parse_flat(peer_json, o, perr, sizeof perr))
        st = qpb_fail(s, QPB_EINVAL, "peer endpoint: %s (qpb_connect)", perr);
    if (st == QPB_OK)
        st = apply_peer(s, o, peer);
    free(o);
    return st;
}

/* ---- end of run ---- */

bool qpb_verbs_send_fin(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    uint32_t n = vb->plan.qps;
    uint64_t *msg = malloc(8 + (size_t)n * 8);
    if (msg == NULL) {
        qpb_run_fail(s, QPB_ESYS, "out of memory for the end-of-run message");
        return false;
    }
    uint32_t head[2] = {htonl(CTL_FIN), htonl(n)};
    memcpy(msg, head, 8);
    for (uint32_t i = 0; i < n; i++)
        msg[1 + i] = htobe64(qpb_verbs_posted(s, i));
    const char *why = NULL;
    pthread_mutex_lock(&vb->ctl_lock);
    bool ok = io_exact(vb->ctl_fd, msg, 8 + (size_t)n * 8, true, CTL_TIMEOUT_MS, &why);
    pthread_mutex_unlock(&vb->ctl_lock);
    free(msg);
    if (ok && s->spec.bidirectional)
        return true; /* the peer's RES comes to our receiving thread 0, which reads every control message */
    if (!ok) {
        qpb_run_fail(s, QPB_ERUN, "end of run: could not send FIN over the control socket: %s", why);
        return false;
    }
    uint64_t res[6];
    if (ok)
        ok = io_exact(vb->ctl_fd, res, sizeof res, false, CTL_TIMEOUT_MS, &why);
    uint32_t magic = 0;
    memcpy(&magic, res, 4);
    if (ok && ntohl(magic) != CTL_RES) {
        why = "unexpected answer";
        ok = false;
    }
    if (!ok) {
        qpb_run_fail(s, QPB_ERUN, "end of run: no result from the server over the control socket: %s", why);
        return false;
    }
    vb->result = (qpb_vresult){be64toh(res[1]), be64toh(res[2]), be64toh(res[3]), be64toh(res[4]), be64toh(res[5])};
    vb->have_result = true;
    return true;
}

bool qpb_verbs_read_fin(qpb_session *s, int timeout_ms, bool *got)
{
    qpb_verbs *vb = s->verbs;
    *got = false;
    struct pollfd p = {.fd = vb->ctl_fd, .events = POLLIN};
    int rc = poll(&p, 1, timeout_ms);
    if (rc <= 0)
        return rc == 0 || errno == EINTR;
    uint32_t head[2];
    const char *why = NULL;
    bool ok = io_exact(vb->ctl_fd, head, sizeof head, false, CTL_TIMEOUT_MS, &why);
    if (ok && s->spec.bidirectional && ntohl(head[0]) == CTL_RES) { /* the peer's answer to our FIN */
        uint64_t res[5];
        ok = io_exact(vb->ctl_fd, res, sizeof res, false, CTL_TIMEOUT_MS, &why);
        if (ok) {
            vb->result = (qpb_vresult){be64toh(res[0]), be64toh(res[1]), be64toh(res[2]), be64toh(res[3]),
                                       be64toh(res[4])};
            vb->have_result = true;
            atomic_store_explicit(&vb->peer_result, 1, memory_order_release);
            return true;
        }
    }
    if (ok && (ntohl(head[0]) != CTL_FIN || ntohl(head[1]) != vb->plan.qps)) {
        why = "unexpected message";
        ok = false;
    }
    for (uint32_t i = 0; ok && i < vb->plan.qps; i++) {
        uint64_t v;
        ok = io_exact(vb->ctl_fd, &v, 8, false, CTL_TIMEOUT_MS, &why);
        vb->expected[i] = be64toh(v);
    }
    if (!ok) {
        qpb_run_fail(s, QPB_ERUN, "control socket: %s before the %s's end of run", why,
                     s->spec.role == QPB_ROLE_SERVER ? "client" : "server");
        return false;
    }
    *got = true;
    return true;
}

bool qpb_verbs_poll_fin(qpb_session *s, uint32_t thread, int timeout_ms)
{
    qpb_verbs *vb = s->verbs;
    bool bidi = s->spec.bidirectional;
    if ((s->spec.role != QPB_ROLE_SERVER && !bidi) || thread != 0)
        return true;
    if (atomic_load(&vb->fin) && (!bidi || atomic_load(&vb->peer_result)))
        return true; /* nothing more to read (bidirectional: the peer's FIN and RES both came) */
    bool got = false;
    if (!qpb_verbs_read_fin(s, timeout_ms, &got))
        return false;
    if (got)
        atomic_store_explicit(&vb->fin, 1, memory_order_release);
    return true;
}

bool qpb_verbs_send_result(qpb_session *s, const qpb_vresult *r)
{
    qpb_verbs *vb = s->verbs;
    uint32_t head[2] = {htonl(CTL_RES), 0};
    uint64_t res[6];
    memcpy(res, head, 8);
    res[1] = htobe64(r->messages), res[2] = htobe64(r->bytes), res[3] = htobe64(r->errors);
    res[4] = htobe64(r->short_conns), res[5] = htobe64(r->missing);
    const char *why = NULL;
    pthread_mutex_lock(&vb->ctl_lock);
    bool ok = io_exact(vb->ctl_fd, res, sizeof res, true, CTL_TIMEOUT_MS, &why);
    pthread_mutex_unlock(&vb->ctl_lock);
    if (!ok) {
        qpb_run_fail(s, QPB_ERUN, "end of run: could not answer the %s: %s",
                     s->spec.role == QPB_ROLE_SERVER ? "client" : "server", why);
        return false;
    }
    return true;
}
