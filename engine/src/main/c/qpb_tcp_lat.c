/*
 * qpb_tcp_lat.c — the tcp provider's latency mode: one ping-pong per thread
 * over the thread's one connection (qps_per_thread is 1, qpb_spec.c).
 *
 * Initiator (client thread): sends msg_size bytes, reads msg_size bytes back,
 * and records the cycle with half the round trip as its time (perftest's
 * *_lat), ending at the moment the reply was read. Responder (server thread):
 * reads a whole message and sends it back. The initiator closes its write
 * side when it is done; the responder ends at end-of-stream on a message
 * boundary.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "qpb_record.h"
#include "qpb_tcp.h"

#define WAIT_MS 100
/* Nothing moved on the socket for this long while a message is due: the run fails (the peer is alive
 * but not answering; a closed peer is seen at once). */
#define STALL_NS (30ull * 1000000000ull)

typedef enum move_result { MOVED, PEER_CLOSED, FAILED } move_result;

/* Moves exactly len bytes through the non-blocking socket fd: tries the call first (the reply is often
 * there already) and waits in poll only when the socket has nothing. A peer that closes before the
 * first byte gives PEER_CLOSED (the caller decides whether that ends the run well); the run failing,
 * FAILED. */
static move_result move(qpb_session *s, int fd, uint8_t *buf, size_t len, bool out, const char *peer,
                        uint32_t thread)
{
    size_t done = 0;
    uint64_t last_move = qpb_now_ns(s);
    while (done < len) {
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            return FAILED;
        /* A cancelled server stops waiting for the next ping (between messages only), as if the client were done. */
        if (done == 0 && s->spec.role == QPB_ROLE_SERVER && atomic_load_explicit(&s->stop, memory_order_relaxed))
            return PEER_CLOSED;
        ssize_t n = out ? send(fd, buf + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL)
                        : recv(fd, buf + done, len - done, MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            last_move = qpb_now_ns(s);
            continue;
        }
        if (n == 0) {
            if (done == 0)
                return PEER_CLOSED;
            qpb_run_fail(s, QPB_ERUN, "recv %s (thread %u): peer closed in the middle of a message (qpb_tcp latency)",
                         peer, thread);
            return FAILED;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            int e = errno;
            qpb_run_fail(s, e == ECONNRESET || e == EPIPE ? QPB_ERUN : QPB_ESYS,
                         "%s %s (thread %u): %s (qpb_tcp latency, errno %d)", out ? "send" : "recv", peer, thread,
                         strerror(e), e);
            return FAILED;
        }
        if (qpb_now_ns(s) - last_move > STALL_NS) {
            qpb_run_fail(s, QPB_ERUN, "%s %s (thread %u): nothing moved for %llu s (qpb_tcp latency)",
                         out ? "send" : "recv", peer, thread, STALL_NS / 1000000000ull);
            return FAILED;
        }
        struct pollfd p = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        if (poll(&p, 1, WAIT_MS) < 0 && errno != EINTR) {
            int e = errno;
            qpb_run_fail(s, QPB_ESYS, "poll %s (thread %u): %s (qpb_tcp latency, errno %d)", peer, thread,
                         strerror(e), e);
            return FAILED;
        }
    }
    return MOVED;
}

void qpb_tcp_lat_sender(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    qpb_tx_conn *c = &s->tcp->tx[thread];
    qpb_sender_out *out = &s->senders[thread];
    uint64_t total = sp->duration_ms > 0 ? UINT64_MAX : sp->warmup_cycles + sp->iterations;
    uint64_t deadline = UINT64_MAX;
    uint8_t *buf = calloc(1, sp->msg_size);
    if (buf == NULL) {
        qpb_run_fail(s, QPB_ESYS, "out of memory for a %llu-byte message (qpb_tcp latency)",
                     (unsigned long long)sp->msg_size);
        return;
    }
    bool ok = true;
    for (uint64_t k = 0; ok && k < total; k++) {
        if (k == sp->warmup_cycles) /* the measured span begins; before the clock read: not part of the iteration */
            qpb_cpu_begin(s, &out->cpu, true);
        uint64_t start = qpb_now_ns(s);
        if (atomic_load_explicit(&s->stop, memory_order_relaxed) || start >= deadline)
            break;
        if (k == sp->warmup_cycles && sp->duration_ms > 0)
            deadline = start + sp->duration_ms * 1000000ull;
        move_result r = move(s, c->fd, buf, sp->msg_size, true, c->peer, thread);
        if (r == MOVED)
            r = move(s, c->fd, buf, sp->msg_size, false, c->peer, thread);
        if (r == PEER_CLOSED)
            qpb_run_fail(s, QPB_ERUN, "recv %s (thread %u): peer closed the connection after %llu replies "
                                      "(qpb_tcp latency)", c->peer, thread, (unsigned long long)k);
        ok = r == MOVED;
        if (!ok)
            break;
        uint64_t end = qpb_now_ns(s);
        c->written += sp->msg_size;
        c->acked++;
        if (k >= sp->warmup_cycles) /* half the round trip, ending when the reply was read */
            qpb_record_cycle(out, k - sp->warmup_cycles, end - (end - start) / 2, end, 0);
        qpb_interval_tick(out, end);
    }
    if (ok)
        shutdown(c->fd, SHUT_WR); /* the responder's end of run */
    free(buf);
}

void qpb_tcp_lat_receiver(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    qpb_rx_conn *c = &s->tcp->rx[thread];
    qpb_receiver_out *out = &s->receivers[thread];
    uint8_t *buf = calloc(1, sp->msg_size);
    if (buf == NULL) {
        qpb_run_fail(s, QPB_ESYS, "out of memory for a %llu-byte message (qpb_tcp latency)",
                     (unsigned long long)sp->msg_size);
        return;
    }
    for (;;) {
        /* A server has no cycles to finish: a cancel ends it at once. */
        if (sp->role == QPB_ROLE_SERVER && atomic_load_explicit(&s->stop, memory_order_relaxed))
            break;
        move_result r = move(s, c->fd, buf, sp->msg_size, false, c->peer, thread);
        if (r != MOVED)
            break; /* PEER_CLOSED: the initiator is done */
        uint64_t now = qpb_now_ns(s);
        if (out->bytes == 0)
            out->first_ns = now;
        out->last_ns = now;
        out->bytes += sp->msg_size;
        out->messages++;
        c->received += sp->msg_size;
        if (move(s, c->fd, buf, sp->msg_size, true, c->peer, thread) != MOVED)
            break;
    }
    c->open = false;
    free(buf);
}
