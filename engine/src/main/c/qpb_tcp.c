/*
 * qpb_tcp.c — the tcp provider's set-up: listen, endpoint blobs, connecting
 * (client), accepting (server) or both (loopback), and the hello that maps a
 * connection to its thread and qp. The data path is in qpb_tcp_run.c.
 *
 * Every failure message names the call, the peer, the errno string and
 * number: "connect 127.0.0.1:4711: Connection refused (qpb_tcp connect,
 * errno 111)".
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qpb_json.h"
#include "qpb_tcp.h"

static qpb_status sys_fail(qpb_session *s, const char *call, const char *peer)
{
    int e = errno;
    return qpb_fail(s, QPB_ESYS, "%s %s: %s (qpb_tcp %s, errno %d)", call, peer, strerror(e), call, e);
}

static void addr_string(const struct sockaddr_in *a, char *out, size_t len)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(out, len, "%s:%u", ip, ntohs(a->sin_port));
}

static int set_nonblocking(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static qpb_status qpb_tcp_create(qpb_session *s)
{
    const qpb_spec *sp = &s->spec;
    qpb_tcp *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return qpb_fail(s, QPB_ESYS, "out of memory for the tcp provider (qpb_tcp create)");
    s->tcp = t;
    t->listen_fd = -1;
    t->n_conns = sp->threads * sp->qps_per_thread;
    snprintf(t->host, sizeof t->host, "%s", sp->bind);

    /* A run needs one descriptor per connection end; say so before trying. */
    uint64_t fds = (uint64_t)t->n_conns * (sp->role == QPB_ROLE_LOOPBACK || sp->bidirectional ? 2 : 1) +
                   2u * sp->threads * (sp->bidirectional ? 2 : 1) + 16;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && fds > rl.rlim_cur)
        return qpb_fail(s, QPB_EUNSUPPORTED,
                        "%u threads x %u qps_per_thread need about %llu file descriptors, RLIMIT_NOFILE is %llu "
                        "(raise it with ulimit -n)",
                        sp->threads, sp->qps_per_thread, (unsigned long long)fds, (unsigned long long)rl.rlim_cur);

    if (sp->role != QPB_ROLE_SERVER || sp->bidirectional) {
        t->tx = calloc(t->n_conns, sizeof(qpb_tx_conn));
        if (t->tx == NULL)
            return qpb_fail(s, QPB_ESYS, "out of memory for %u connections (qpb_tcp create)", t->n_conns);
        for (uint32_t i = 0; i < t->n_conns; i++)
            t->tx[i].fd = -1;
    }
    if (sp->role != QPB_ROLE_CLIENT || sp->bidirectional) {
        t->rx = calloc(t->n_conns, sizeof(qpb_rx_conn));
        if (t->rx == NULL)
            return qpb_fail(s, QPB_ESYS, "out of memory for %u connections (qpb_tcp create)", t->n_conns);
        for (uint32_t i = 0; i < t->n_conns; i++)
            t->rx[i].fd = -1;
    }
    if (sp->role == QPB_ROLE_CLIENT)
        return QPB_OK;

    char where[80];
    snprintf(where, sizeof where, "%s:%u", sp->bind, sp->port);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sp->port)};
    inet_pton(AF_INET, sp->bind, &a.sin_addr);
    t->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (t->listen_fd < 0)
        return sys_fail(s, "socket", where);
    int one = 1;
    setsockopt(t->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(t->listen_fd, (struct sockaddr *)&a, sizeof a) < 0)
        return sys_fail(s, "bind", where);
    if (listen(t->listen_fd, SOMAXCONN) < 0)
        return sys_fail(s, "listen", where);
    socklen_t alen = sizeof a;
    if (getsockname(t->listen_fd, (struct sockaddr *)&a, &alen) < 0)
        return sys_fail(s, "getsockname", where);
    t->port = ntohs(a.sin_port);
    return QPB_OK;
}

static qpb_status qpb_tcp_local_endpoint(qpb_session *s, char *buf, uint32_t buf_len)
{
    const qpb_spec *sp = &s->spec;
    qpb_jw w;
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "provider");
    qpb_jw_str(&w, "tcp");
    qpb_jw_key(&w, "role");
    qpb_jw_str(&w, qpb_role_name(sp->role));
    qpb_jw_key(&w, "host");
    qpb_jw_str(&w, sp->role == QPB_ROLE_CLIENT ? "" : s->tcp->host);
    qpb_jw_key(&w, "port");
    qpb_jw_u64(&w, s->tcp->port);
    qpb_jw_key(&w, "threads");
    qpb_jw_u64(&w, sp->threads);
    qpb_jw_key(&w, "qps_per_thread");
    qpb_jw_u64(&w, sp->qps_per_thread);
    qpb_jw_key(&w, "msg_size");
    qpb_jw_u64(&w, sp->msg_size);
    qpb_jw_key(&w, "mode");
    qpb_jw_str(&w, QPB_MODE_NAMES[sp->mode]);
    qpb_jw_key(&w, "bidirectional");
    qpb_jw_bool(&w, sp->bidirectional);
    qpb_jw_obj_end(&w);
    if (!qpb_jw_ok(&w))
        return qpb_fail(s, QPB_ENOSPC, "qpb_local_endpoint: needs %zu bytes, the buffer has %u", w.len + 1,
                        buf_len);
    return QPB_OK;
}

/* Reads or writes exactly len bytes on a blocking-mode socket within
 * timeout_ms. */
static qpb_status io_exact(qpb_session *s, int fd, void *p, size_t len, bool out, const char *peer)
{
    size_t done = 0;
    while (done < len) {
        struct pollfd pfd = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        int rc = poll(&pfd, 1, QPB_TCP_ACCEPT_TIMEOUT_MS);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return sys_fail(s, "poll", peer);
        if (rc == 0)
            return qpb_fail(s, QPB_ERUN, "%s %s: no hello within %d ms (qpb_tcp hello)", out ? "send" : "recv",
                            peer, QPB_TCP_ACCEPT_TIMEOUT_MS);
        ssize_t n = out ? send(fd, (char *)p + done, len - done, MSG_NOSIGNAL)
                        : recv(fd, (char *)p + done, len - done, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return sys_fail(s, out ? "send" : "recv", peer);
        if (n == 0)
            return qpb_fail(s, QPB_ERUN, "recv %s: peer closed during the hello (qpb_tcp hello)", peer);
        done += (size_t)n;
    }
    return QPB_OK;
}

static void put32(uint8_t *p, uint32_t v)
{
    v = htobe32(v);
    memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return be32toh(v);
}

static qpb_status send_hello(qpb_session *s, int fd, const char *peer, uint32_t thread, uint32_t qp, bool reverse)
{
    uint8_t h[QPB_TCP_HELLO_LEN];
    put32(h, QPB_TCP_MAGIC);
    put32(h + 4, QPB_TCP_VERSION);
    put32(h + 8, s->spec.threads);
    put32(h + 12, s->spec.qps_per_thread);
    put32(h + 16, thread | (reverse ? QPB_TCP_HELLO_REVERSE : 0));
    put32(h + 20, qp);
    uint64_t m = htobe64(s->spec.msg_size);
    memcpy(h + 24, &m, 8);
    return io_exact(s, fd, h, sizeof h, true, peer);
}

static qpb_status tune_socket(qpb_session *s, int fd, const char *peer)
{
    int one = 1;
    if (s->spec.tcp_nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
        return sys_fail(s, "setsockopt(TCP_NODELAY)", peer);
    return QPB_OK;
}

/* Connects *fd to the server and says hello for thread and qp (reverse: the server sends on it). */
static qpb_status connect_one(qpb_session *s, int *fd, char *peer, size_t peer_len, const struct sockaddr_in *to,
                              uint32_t thread, uint32_t qp, bool reverse)
{
    qpb_tx_conn conn = {.fd = -1}, *c = &conn;
    addr_string(to, peer, peer_len);
    memcpy(c->peer, peer, sizeof c->peer < peer_len ? sizeof c->peer : peer_len);
    c->fd = *fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c->fd < 0)
        return sys_fail(s, "socket", c->peer);
    if (connect(c->fd, (const struct sockaddr *)to, sizeof *to) < 0) {
        if (errno != EINPROGRESS)
            return sys_fail(s, "connect", c->peer);
        struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
        int rc;
        do
            rc = poll(&pfd, 1, QPB_TCP_CONNECT_TIMEOUT_MS);
        while (rc < 0 && errno == EINTR);
        if (rc == 0)
            return qpb_fail(s, QPB_ERUN, "connect %s: no answer within %d ms (qpb_tcp connect)", c->peer,
                            QPB_TCP_CONNECT_TIMEOUT_MS);
        int soerr = 0;
        socklen_t l = sizeof soerr;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
        if (rc < 0 || soerr != 0) {
            errno = rc < 0 ? errno : soerr;
            return sys_fail(s, "connect", c->peer);
        }
    }
    qpb_status st = tune_socket(s, c->fd, c->peer);
    if (st == QPB_OK)
        st = send_hello(s, c->fd, c->peer, thread, qp, reverse);
    return st;
}

/* Accepts one connection and files it under the thread and qp its hello
 * names, after checking the hello against our own spec. */
static qpb_status accept_one(qpb_session *s, uint32_t have)
{
    qpb_tcp *t = s->tcp;
    const qpb_spec *sp = &s->spec;
    struct pollfd pfd = {.fd = t->listen_fd, .events = POLLIN};
    int rc;
    do
        rc = poll(&pfd, 1, QPB_TCP_ACCEPT_TIMEOUT_MS);
    while (rc < 0 && errno == EINTR);
    char where[80];
    snprintf(where, sizeof where, "%s:%u", t->host, t->port);
    if (rc < 0)
        return sys_fail(s, "poll", where);
    if (rc == 0)
        return qpb_fail(s, QPB_ERUN,
                        "accept on %s: timed out after %d ms with %u of %u connections up (qpb_tcp accept)", where,
                        QPB_TCP_ACCEPT_TIMEOUT_MS, have, t->n_conns * (sp->bidirectional ? 2 : 1));
    struct sockaddr_in from;
    socklen_t fl = sizeof from;
    int fd = accept4(t->listen_fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
    if (fd < 0)
        return sys_fail(s, "accept", where);
    char peer[48];
    addr_string(&from, peer, sizeof peer);
    uint8_t h[QPB_TCP_HELLO_LEN];
    qpb_status st = io_exact(s, fd, h, sizeof h, false, peer);
    if (st != QPB_OK) {
        close(fd);
        return st;
    }
    uint64_t msz;
    memcpy(&msz, h + 24, 8);
    msz = be64toh(msz);
    uint32_t threads = get32(h + 8), qps = get32(h + 12), th = get32(h + 16), qp = get32(h + 20);
    bool reverse = (th & QPB_TCP_HELLO_REVERSE) != 0;
    th &= ~QPB_TCP_HELLO_REVERSE;
    const char *bad = NULL;
    if (get32(h) != QPB_TCP_MAGIC || get32(h + 4) != QPB_TCP_VERSION)
        bad = "not a qpbench tcp hello (magic/version)";
    else if (threads != sp->threads || qps != sp->qps_per_thread || msz != sp->msg_size)
        bad = "spec mismatch";
    else if (reverse && !sp->bidirectional)
        bad = "a bidirectional peer (this run is not)";
    else if (th >= threads || qp >= qps || (reverse ? t->tx[th * qps + qp].fd : t->rx[th * qps + qp].fd) >= 0)
        bad = "bad or duplicate thread/qp";
    if (bad != NULL) {
        close(fd);
        return qpb_fail(s, QPB_EINVAL,
                        "hello from %s: %s: peer has threads=%u qps_per_thread=%u msg_size=%llu (thread %u qp %u), "
                        "we have threads=%u qps_per_thread=%u msg_size=%llu (qpb_tcp accept)",
                        peer, bad, threads, qps, (unsigned long long)msz, th, qp, sp->threads, sp->qps_per_thread,
                        (unsigned long long)sp->msg_size);
    }
    if (reverse) { /* the server sends on it */
        qpb_tx_conn *c = &t->tx[th * qps + qp];
        c->fd = fd;
        c->qp = qp;
        snprintf(c->peer, sizeof c->peer, "%s", peer);
        return tune_socket(s, fd, peer);
    }
    qpb_rx_conn *c = &t->rx[th * qps + qp];
    c->fd = fd;
    c->qp = qp;
    c->open = true;
    c->ack_out_off = QPB_TCP_ACK_LEN;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    return tune_socket(s, fd, peer);
}

/* The peer's blob must describe the same run shape as our spec. */
static qpb_status check_peer(qpb_session *s, const qpb_json_object *o)
{
    const qpb_spec *sp = &s->spec;
    const char *keys[] = {"threads", "qps_per_thread", "msg_size"};
    uint64_t ours[] = {sp->threads, sp->qps_per_thread, sp->msg_size};
    char msg[QPB_ERR_LEN] = "";
    size_t len = 0;
    const qpb_json_field *p = qpb_json_get(o, "provider");
    if (p == NULL || p->type != QPB_JSON_STRING || strcmp(p->str, "tcp") != 0)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "; provider is not \"tcp\"");
    const qpb_json_field *m = qpb_json_get(o, "mode");
    if (m == NULL || m->type != QPB_JSON_STRING || strcmp(m->str, QPB_MODE_NAMES[sp->mode]) != 0)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "; mode: peer %s, ours %s",
                                m && m->type == QPB_JSON_STRING ? m->str : "missing", QPB_MODE_NAMES[sp->mode]);
    for (int i = 0; i < 3 && len < sizeof msg; i++) {
        const qpb_json_field *f = qpb_json_get(o, keys[i]);
        if (f == NULL || f->type != QPB_JSON_NUMBER || !f->is_int)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "; %s missing", keys[i]);
        else if ((uint64_t)f->i64 != ours[i])
            len += (size_t)snprintf(msg + len, sizeof msg - len, "; %s: peer %lld, ours %llu", keys[i],
                                    (long long)f->i64, (unsigned long long)ours[i]);
    }
    const qpb_json_field *b = qpb_json_get(o, "bidirectional");
    bool peer_bidi = b != NULL && b->type == QPB_JSON_BOOL && b->b;
    if (peer_bidi != sp->bidirectional && len < sizeof msg)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "; bidirectional: peer %s, ours %s",
                                peer_bidi ? "true" : "false", sp->bidirectional ? "true" : "false");
    if (len > 0)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint does not match this spec: %s (qpb_connect)", msg + 2);
    return QPB_OK;
}

static qpb_status finish(qpb_session *s)
{
    qpb_tcp *t = s->tcp;
    for (uint32_t i = 0; i < t->n_conns; i++) {
        if ((t->tx && set_nonblocking(t->tx[i].fd, true) < 0) || (t->rx && set_nonblocking(t->rx[i].fd, true) < 0))
            return sys_fail(s, "fcntl(O_NONBLOCK)", t->tx ? t->tx[i].peer : t->rx[i].peer);
    }
    return QPB_OK;
}

static qpb_status connect_all(qpb_session *s, const struct sockaddr_in *to, bool accept_each)
{
    qpb_tcp *t = s->tcp;
    uint32_t q = s->spec.qps_per_thread;
    for (uint32_t i = 0; i < t->n_conns; i++) {
        qpb_tx_conn *c = &t->tx[i];
        c->qp = i % q;
        qpb_status st = connect_one(s, &c->fd, c->peer, sizeof c->peer, to, i / q, c->qp, false);
        /* Loopback accepts as it goes so a long run of connects can never
         * overflow the listen backlog. */
        if (st == QPB_OK && accept_each)
            st = accept_one(s, i);
        if (st != QPB_OK)
            return st;
    }
    for (uint32_t i = 0; s->spec.bidirectional && i < t->n_conns; i++) { /* the server's direction */
        qpb_rx_conn *c = &t->rx[i];
        c->qp = i % q;
        c->open = true;
        c->ack_out_off = QPB_TCP_ACK_LEN;
        qpb_status st = connect_one(s, &c->fd, c->peer, sizeof c->peer, to, i / q, c->qp, true);
        if (st != QPB_OK)
            return st;
    }
    return finish(s);
}

static qpb_status qpb_tcp_connect(qpb_session *s, const char *peer_json)
{
    qpb_tcp *t = s->tcp;
    qpb_json_object o;
    char perr[160];
    if (s->spec.role == QPB_ROLE_LOOPBACK) {
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(t->port)};
        inet_pton(AF_INET, strcmp(t->host, "0.0.0.0") == 0 ? "127.0.0.1" : t->host, &to.sin_addr);
        return connect_all(s, &to, true);
    }
    if (peer_json == NULL)
        return qpb_fail(s, QPB_EINVAL, "qpb_connect: the peer endpoint is NULL (role %s needs the peer's blob)",
                        qpb_role_name(s->spec.role));
    if (!qpb_json_parse_flat(peer_json, &o, perr, sizeof perr))
        return qpb_fail(s, QPB_EINVAL, "peer endpoint: %s (qpb_connect)", perr);
    qpb_status st = check_peer(s, &o);
    if (st != QPB_OK)
        return st;
    if (s->spec.role == QPB_ROLE_SERVER) {
        uint32_t all = t->n_conns * (s->spec.bidirectional ? 2 : 1);
        for (uint32_t i = 0; i < all; i++)
            if ((st = accept_one(s, i)) != QPB_OK)
                return st;
        return finish(s);
    }
    const qpb_json_field *h = qpb_json_get(&o, "host"), *p = qpb_json_get(&o, "port");
    struct sockaddr_in to = {.sin_family = AF_INET};
    if (h == NULL || h->type != QPB_JSON_STRING || inet_pton(AF_INET, h->str, &to.sin_addr) != 1)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint: host must be an IPv4 address (qpb_connect)");
    if (p == NULL || !p->is_int || p->i64 <= 0 || p->i64 > 65535)
        return qpb_fail(s, QPB_EINVAL, "peer endpoint: port must be in 1..65535 (qpb_connect)");
    if (strcmp(h->str, "0.0.0.0") == 0)
        inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    to.sin_port = htons((uint16_t)p->i64);
    return connect_all(s, &to, false);
}

static void qpb_tcp_destroy(qpb_session *s)
{
    qpb_tcp *t = s->tcp;
    if (t == NULL)
        return;
    for (uint32_t i = 0; i < t->n_conns; i++) {
        if (t->tx && t->tx[i].fd >= 0)
            close(t->tx[i].fd);
        if (t->rx && t->rx[i].fd >= 0)
            close(t->rx[i].fd);
    }
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    free(t->tx);
    free(t->rx);
    free(t);
    s->tcp = NULL;
}

const qpb_provider qpb_tcp_provider = {
    .create = qpb_tcp_create,
    .local_endpoint = qpb_tcp_local_endpoint,
    .connect = qpb_tcp_connect,
    .run_sender = qpb_tcp_run_sender,
    .run_receiver = qpb_tcp_run_receiver,
    .summary = NULL,
    .destroy = qpb_tcp_destroy,
};
