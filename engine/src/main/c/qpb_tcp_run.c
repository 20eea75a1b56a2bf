/*
 * qpb_tcp_run.c — the tcp provider's data path: one sender worker per client
 * thread, one receiver worker per server thread (loopback runs both).
 *
 * Sender: admits cycles (a cycle = one message on each of its connections)
 * while fewer than tx_depth are unacknowledged, hands their bytes to the
 * kernel with non-blocking sends, and reads acks whenever epoll says they are
 * there. It blocks in epoll only when it cannot admit (at depth, all cycles
 * admitted, or a socket is full). Acks are cumulative, so a cycle ends when
 * its last connection's ack covering it is read.
 * Receiver: reads whatever arrived on a readable connection and answers each
 * read that completed a message with one cumulative ack (coalesced, like CQ
 * moderation). A sender closes its write side when it is done; the receiver
 * ends when all of its connections reached end-of-stream at a message
 * boundary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qpb_record.h"
#include "qpb_tcp.h"

/* How much one send()/recv() moves: a quarter of the in-flight window
 * (depth x message size), so four calls keep the pipe full, clamped to
 * IO_CHUNK_MIN..IO_CHUNK_WIN (big calls amortize the syscall, as iperf3's -l
 * blocks do; small messages are batched like perftest's post list), and
 * never less than one message up to IO_CHUNK_MAX. Measured in
 * bench/tcp-vs-iperf3: 512 KiB lifts 64-128 KiB messages from ~0.88x to
 * ~1.4x iperf3, while 4 KiB messages need the quarter-window rule. */
#define IO_CHUNK_MIN (128u * 1024)
#define IO_CHUNK_WIN (512u * 1024)
#define IO_CHUNK_MAX (4u * 1024 * 1024)
#define MAX_EVENTS 256
#define BLOCK_MS 100
#define STOP_GRACE_NS (5ull * 1000000000ull)

typedef struct cycle_slot {
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t remaining; /* connections whose ack has not covered the cycle */
    uint32_t errors;
} cycle_slot;

typedef struct sender {
    qpb_session *s;
    uint32_t thread, q, depth;
    uint64_t msz, warmup, total;
    uint64_t posted, done;
    uint64_t rate, first_ns; /* rate_limit and when the first cycle started */
    uint32_t n_unwritten;
    bool verify;
    size_t chunk;
    qpb_tx_conn *conns;
    cycle_slot *slots;
    uint8_t *buf;
    qpb_sender_out *out;
} sender;

typedef struct receiver {
    qpb_session *s;
    uint32_t thread, q;
    uint64_t msz;
    bool verify;
    size_t chunk;
    uint32_t n_blocked;
    qpb_rx_conn *conns;
    qpb_receiver_out *out;
    uint8_t *buf;
} receiver;

static void io_fail(qpb_session *s, const char *call, const char *peer, uint32_t thread, uint32_t qp)
{
    int e = errno;
    bool peer_gone = e == ECONNRESET || e == EPIPE || e == ECONNABORTED;
    qpb_run_fail(s, peer_gone ? QPB_ERUN : QPB_ESYS, "%s %s (thread %u qp %u): %s (qpb_tcp %s, errno %d)", call,
                 peer, thread, qp, strerror(e), call, e);
}

static size_t chunk_for(uint64_t msz, uint32_t depth)
{
    uint64_t c = msz * depth / 4;
    c = c < IO_CHUNK_MIN ? IO_CHUNK_MIN : c > IO_CHUNK_WIN ? IO_CHUNK_WIN : c;
    if (c < msz)
        c = msz > IO_CHUNK_MAX ? IO_CHUNK_MAX : msz;
    return (size_t)c;
}

static void fill_pattern(uint8_t *p, size_t len, uint64_t pos, uint64_t msz)
{
    uint64_t k = pos / msz, o = pos % msz;
    for (size_t i = 0; i < len; i++) {
        p[i] = qpb_tcp_pattern(k, o);
        if (++o == msz) {
            o = 0;
            k++;
        }
    }
}

/* 1: everything admitted is written; 0: the socket is full; -1: failed. */
static int write_conn(sender *x, qpb_tx_conn *c)
{
    uint64_t target = x->posted * x->msz;
    while (c->written < target) {
        size_t len = target - c->written < x->chunk ? (size_t)(target - c->written) : x->chunk;
        if (x->verify)
            fill_pattern(x->buf, len, c->written, x->msz);
        ssize_t n = send(c->fd, x->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            io_fail(x->s, "send", c->peer, x->thread, c->qp);
            return -1;
        }
        c->written += (uint64_t)n;
    }
    return 1;
}

static bool apply_ack(sender *x, qpb_tx_conn *c, const uint8_t *a, uint64_t now)
{
    uint64_t count, bad;
    memcpy(&count, a, 8);
    memcpy(&bad, a + 8, 8);
    count = be64toh(count);
    bad = be64toh(bad);
    if (count < c->acked || count > x->posted || bad < c->bad_seen) {
        qpb_run_fail(x->s, QPB_ERUN,
                     "ack from %s (thread %u qp %u): %llu messages acked, %llu posted, %llu acked before: "
                     "protocol error (qpb_tcp ack)",
                     c->peer, x->thread, c->qp, (unsigned long long)count, (unsigned long long)x->posted,
                     (unsigned long long)c->acked);
        return false;
    }
    if (bad > c->bad_seen && count > c->acked)
        x->slots[(count - 1) % x->depth].errors += (uint32_t)(bad - c->bad_seen);
    for (uint64_t m = c->acked; m < count; m++) {
        cycle_slot *sl = &x->slots[m % x->depth];
        if (--sl->remaining == 0)
            sl->end_ns = now;
    }
    c->acked = count;
    c->bad_seen = bad;
    return true;
}

/* Edge-triggered: read until the socket is empty. A short read means it is:
 * what arrives after it raises a new edge, so no recv() is spent on EAGAIN
 * (that was half of the sender's recv calls at 1 MiB). 0 ok, -1 failed. */
static int read_acks(sender *x, qpb_tx_conn *c)
{
    uint8_t in[QPB_TCP_ACK_LEN * 64];
    for (;;) {
        memcpy(in, c->ack_in, c->ack_in_len);
        size_t room = sizeof in - c->ack_in_len;
        ssize_t n = recv(c->fd, in + c->ack_in_len, room, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            io_fail(x->s, "recv", c->peer, x->thread, c->qp);
            return -1;
        }
        if (n == 0) {
            qpb_run_fail(x->s, QPB_ERUN,
                         "recv %s (thread %u qp %u): peer closed the connection with %llu of %llu messages acked "
                         "(qpb_tcp recv)",
                         c->peer, x->thread, c->qp, (unsigned long long)c->acked, (unsigned long long)x->posted);
            return -1;
        }
        uint64_t now = qpb_now_ns(x->s);
        size_t have = c->ack_in_len + (size_t)n, off = 0;
        for (; off + QPB_TCP_ACK_LEN <= have; off += QPB_TCP_ACK_LEN)
            if (!apply_ack(x, c, in + off, now))
                return -1;
        c->ack_in_len = (uint32_t)(have - off);
        memcpy(c->ack_in, in + off, c->ack_in_len);
        if ((size_t)n < room)
            return 0;
    }
}

static void complete_cycles(sender *x)
{
    qpb_sender_out *out = x->out;
    while (x->done < x->posted) {
        cycle_slot *sl = &x->slots[x->done % x->depth];
        if (sl->remaining != 0)
            break;
        if (x->done >= x->warmup)
            qpb_record_cycle(out, x->done - x->warmup, sl->start_ns, sl->end_ns, sl->errors);
        x->done++;
    }
}

/* Whether the next cycle's time has come (always, unpaced). */
static bool due(const sender *x, uint64_t now)
{
    return x->rate == 0 || x->posted == 0 || x->first_ns + qpb_cycle_due_ns(x->posted, x->rate) <= now;
}

/* Admits a batch of cycles and writes them. -1 on failure. */
static int admit(sender *x, uint64_t now, uint64_t *deadline)
{
    uint64_t n = 0;
    if (x->posted == 0)
        x->first_ns = now;
    while (x->posted < x->total && x->posted - x->done < x->depth && (n == 0 || (n + 1) * x->msz <= x->chunk) &&
           due(x, now)) {
        if (x->posted == x->warmup) { /* the measured span begins */
            qpb_cpu_begin(x->s, &x->out->cpu, true);
            now = qpb_now_ns(x->s); /* after the CPU readings: they are not part of the cycle */
            if (x->posted == 0)
                x->first_ns = now;
            if (x->s->spec.duration_ms > 0)
                *deadline = now + x->s->spec.duration_ms * 1000000ull;
        }
        cycle_slot *sl = &x->slots[x->posted % x->depth];
        sl->start_ns = now;
        sl->end_ns = 0;
        sl->remaining = x->q;
        sl->errors = 0;
        x->posted++;
        n++;
    }
    for (uint32_t i = 0; n > 0 && i < x->q; i++) {
        int r = write_conn(x, &x->conns[i]);
        if (r < 0)
            return -1;
        if (r == 0) {
            x->conns[i].unwritten = true;
            x->n_unwritten++;
        }
    }
    return 0;
}

static bool sender_loop(sender *x, int ep)
{
    qpb_session *s = x->s;
    uint64_t deadline = UINT64_MAX, stop_by = UINT64_MAX;
    struct epoll_event evs[MAX_EVENTS];
    for (;;) {
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            return false;
        uint64_t now = qpb_now_ns(s);
        if (stop_by == UINT64_MAX && atomic_load_explicit(&s->stop, memory_order_relaxed))
            stop_by = now + STOP_GRACE_NS;
        bool closing = stop_by != UINT64_MAX || now >= deadline;
        if (now > stop_by) {
            qpb_run_fail(s, QPB_ERUN, "thread %u: %llu cycles still in flight 5 s after qpb_stop (qpb_tcp stop)",
                         x->thread, (unsigned long long)(x->posted - x->done));
            return false;
        }
        bool can_admit = !closing && x->n_unwritten == 0 && x->posted < x->total && x->posted - x->done < x->depth;
        if (can_admit && due(x, now) && admit(x, now, &deadline) < 0)
            return false;
        if (x->done == x->posted && (x->posted == x->total || closing))
            return true;
        can_admit = !closing && x->n_unwritten == 0 && x->posted < x->total && x->posted - x->done < x->depth;
        int wait_ms = BLOCK_MS;
        if (can_admit && due(x, now)) {
            wait_ms = 0;
        } else if (can_admit) { /* paced: sleep until the next cycle is due (at least 1 ms: no spinning) */
            uint64_t next = x->first_ns + qpb_cycle_due_ns(x->posted, x->rate);
            uint64_t ms = (next - now + 999999) / 1000000;
            wait_ms = ms < (uint64_t)BLOCK_MS ? (int)ms : BLOCK_MS;
        }
        int n = epoll_wait(ep, evs, MAX_EVENTS, wait_ms);
        if (n < 0 && errno != EINTR) {
            io_fail(s, "epoll_wait", "sender", x->thread, 0);
            return false;
        }
        for (int i = 0; i < n; i++) {
            qpb_tx_conn *c = evs[i].data.ptr;
            if ((evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && read_acks(x, c) < 0)
                return false;
            if ((evs[i].events & EPOLLOUT) && c->unwritten) {
                int r = write_conn(x, c);
                if (r < 0)
                    return false;
                if (r > 0) {
                    c->unwritten = false;
                    x->n_unwritten--;
                }
            }
        }
        complete_cycles(x);
        qpb_interval_tick(x->out, now);
    }
}

void qpb_tcp_run_sender(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    if (sp->mode == QPB_MODE_LATENCY) {
        qpb_tcp_lat_sender(s, thread);
        return;
    }
    sender x = {
        .s = s, .thread = thread, .q = sp->qps_per_thread, .depth = sp->tx_depth, .msz = sp->msg_size,
        .warmup = sp->warmup_cycles, .verify = sp->verify, .rate = sp->rate_limit,
        .total = sp->duration_ms > 0 ? UINT64_MAX : sp->warmup_cycles + sp->iterations,
        .conns = &s->tcp->tx[(size_t)thread * sp->qps_per_thread], .out = &s->senders[thread],
    };
    x.chunk = chunk_for(x.msz, x.depth);
    x.slots = calloc(x.depth, sizeof(cycle_slot));
    x.buf = calloc(1, x.chunk);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (x.slots == NULL || x.buf == NULL || ep < 0) {
        io_fail(s, ep < 0 ? "epoll_create1" : "calloc", "sender", thread, 0);
        goto out;
    }
    for (uint32_t i = 0; i < x.q; i++) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = &x.conns[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, x.conns[i].fd, &ev) < 0) {
            io_fail(s, "epoll_ctl", x.conns[i].peer, thread, i);
            goto out;
        }
    }
    if (sender_loop(&x, ep))
        for (uint32_t i = 0; i < x.q; i++)
            shutdown(x.conns[i].fd, SHUT_WR); /* the receiver's end-of-run */
out:
    if (ep >= 0)
        close(ep);
    free(x.slots);
    free(x.buf);
}

/* Sends the newest ack state of c (count and bad so far). 1 sent, 0 the
 * socket is full (retried later), -1 failed. */
static int flush_ack(receiver *r, qpb_rx_conn *c)
{
    for (;;) {
        if (c->ack_out_off < QPB_TCP_ACK_LEN) {
            ssize_t n = send(c->fd, c->ack_out + c->ack_out_off, QPB_TCP_ACK_LEN - c->ack_out_off,
                             MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK) {
                    io_fail(r->s, "send ack", c->peer, r->thread, c->qp);
                    return -1;
                }
                if (!c->ack_blocked) {
                    c->ack_blocked = true;
                    r->n_blocked++;
                }
                return 0;
            }
            c->ack_out_off += (uint32_t)n;
            continue;
        }
        uint64_t count = c->received / r->msz;
        if (count > c->ack_count || c->bad_total > c->ack_bad) {
            uint64_t be_count = htobe64(count), be_bad = htobe64(c->bad_total);
            memcpy(c->ack_out, &be_count, 8);
            memcpy(c->ack_out + 8, &be_bad, 8);
            c->ack_count = count;
            c->ack_bad = c->bad_total;
            c->ack_out_off = 0;
            continue;
        }
        if (c->ack_blocked) {
            c->ack_blocked = false;
            r->n_blocked--;
        }
        return 1;
    }
}

/* Checks a chunk against the pattern; a bad message is acked right at its
 * end so the sender charges the right cycle. */
static int verify_chunk(receiver *r, qpb_rx_conn *c, const uint8_t *p, size_t len)
{
    size_t at = 0;
    while (at < len) {
        uint64_t k = c->received / r->msz, o = c->received % r->msz;
        size_t seg = len - at < r->msz - o ? len - at : (size_t)(r->msz - o);
        for (size_t i = 0; i < seg && !c->cur_bad; i++)
            if (p[at + i] != qpb_tcp_pattern(k, o + i))
                c->cur_bad = true;
        at += seg;
        c->received += seg;
        if (o + seg == r->msz && c->cur_bad) {
            c->cur_bad = false;
            c->bad_total++;
            r->out->errors++;
            if (flush_ack(r, c) < 0)
                return -1;
        }
    }
    return 0;
}

/* 1 data read, 0 nothing, 2 end of stream, -1 failed. */
static int on_readable(receiver *r, qpb_rx_conn *c)
{
    ssize_t n = recv(c->fd, r->buf, r->chunk, MSG_DONTWAIT);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        io_fail(r->s, "recv", c->peer, r->thread, c->qp);
        return -1;
    }
    if (n == 0) {
        if (c->received % r->msz != 0) {
            qpb_run_fail(r->s, QPB_ERUN,
                         "recv %s (thread %u qp %u): peer closed in the middle of message %llu (qpb_tcp recv)",
                         c->peer, r->thread, c->qp, (unsigned long long)(c->received / r->msz));
            return -1;
        }
        return 2;
    }
    uint64_t now = qpb_now_ns(r->s);
    if (r->out->bytes == 0)
        r->out->first_ns = now;
    r->out->last_ns = now;
    r->out->bytes += (uint64_t)n;
    uint64_t before = c->received / r->msz;
    if (!r->verify)
        c->received += (uint64_t)n;
    else if (verify_chunk(r, c, r->buf, (size_t)n) < 0)
        return -1;
    uint64_t after = c->received / r->msz;
    r->out->messages += after - before;
    if (after > c->ack_count && flush_ack(r, c) < 0)
        return -1;
    return 1;
}

void qpb_tcp_run_receiver(qpb_session *s, uint32_t thread)
{
    const qpb_spec *sp = &s->spec;
    if (sp->mode == QPB_MODE_LATENCY) {
        qpb_tcp_lat_receiver(s, thread);
        return;
    }
    receiver r = {
        .s = s, .thread = thread, .q = sp->qps_per_thread, .msz = sp->msg_size, .verify = sp->verify,
        .conns = &s->tcp->rx[(size_t)thread * sp->qps_per_thread], .out = &s->receivers[thread],
    };
    struct epoll_event evs[MAX_EVENTS];
    uint32_t open = r.q;
    r.chunk = chunk_for(r.msz, sp->tx_depth);
    r.buf = malloc(r.chunk);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (r.buf == NULL || ep < 0) {
        io_fail(s, ep < 0 ? "epoll_create1" : "malloc", "receiver", thread, 0);
        goto out;
    }
    for (uint32_t i = 0; i < r.q; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &r.conns[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, r.conns[i].fd, &ev) < 0) {
            io_fail(s, "epoll_ctl", r.conns[i].peer, thread, i);
            goto out;
        }
    }
    while (open > 0) {
        if (atomic_load_explicit(&s->abort, memory_order_relaxed))
            break;
        /* A server has no cycles to finish: a cancel ends it at once. */
        if (sp->role == QPB_ROLE_SERVER && atomic_load_explicit(&s->stop, memory_order_relaxed))
            break;
        int n = epoll_wait(ep, evs, MAX_EVENTS, r.n_blocked ? 1 : BLOCK_MS);
        if (n < 0 && errno != EINTR) {
            io_fail(s, "epoll_wait", "receiver", thread, 0);
            break;
        }
        for (int i = 0; i < n; i++) {
            qpb_rx_conn *c = evs[i].data.ptr;
            int rc = on_readable(&r, c);
            if (rc < 0)
                goto out;
            if (rc == 2) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                c->open = false;
                open--;
            }
        }
        for (uint32_t i = 0; r.n_blocked > 0 && i < r.q; i++)
            if (r.conns[i].ack_blocked && flush_ack(&r, &r.conns[i]) < 0)
                goto out;
    }
out:
    if (ep >= 0)
        close(ep);
    free(r.buf);
}
