/*
 * qpb_tcp.h — state shared by the tcp provider's set-up (qpb_tcp.c) and its
 * data path (qpb_tcp_run.c).
 *
 * Wire protocol, per connection, all integers big-endian:
 *   client -> server  hello (32 bytes): magic "QPB1", version, threads,
 *                     qps_per_thread, thread, qp, msg_size (u64)
 *   client -> server  messages of msg_size bytes, back to back; message n of
 *                     a connection belongs to cycle n of its sender thread
 *   server -> client  acks (16 bytes): complete messages so far (u64) and
 *                     messages that failed verification so far (u64); one
 *                     after each read that completed at least one message,
 *                     and one right at the end of every bad message so the
 *                     sender can charge the error to its exact cycle.
 * In mode latency (qpb_tcp_lat.c) there are no acks: the server sends every
 * message back whole, and the client's next message waits for it.
 * Bidirectional runs: the client opens every connection twice; the second
 * set's hellos carry QPB_TCP_HELLO_REVERSE in the thread field, and on those
 * the server is the sender and the client the receiver (the same protocol
 * with the roles swapped; one direction per connection, as iperf3 --bidir).
 * A sender never has more than tx_depth cycles unacknowledged, and every ack
 * covers at least one new message, so unread acks never exceed tx_depth per
 * connection (16 * 4096 bytes at most): acks cannot fill a socket buffer.
 */
#ifndef QPB_TCP_H
#define QPB_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "qpb_internal.h"

#define QPB_TCP_MAGIC 0x51504231u /* "QPB1" */
#define QPB_TCP_VERSION 1u
#define QPB_TCP_HELLO_LEN 32
#define QPB_TCP_HELLO_REVERSE 0x80000000u /* in the hello's thread: the server sends on this connection */
#define QPB_TCP_ACK_LEN 16
#define QPB_TCP_ACCEPT_TIMEOUT_MS 30000
#define QPB_TCP_CONNECT_TIMEOUT_MS 10000

/* The sending end of a connection (client side; also the server's in a bidirectional run). */
typedef struct qpb_tx_conn {
    int fd;
    uint32_t qp;
    bool unwritten;    /* bytes of admitted cycles still to hand to the kernel */
    uint64_t written;  /* payload bytes handed to the kernel */
    uint64_t acked;    /* messages the receiver reported complete */
    uint64_t bad_seen; /* verification failures the receiver reported */
    uint8_t ack_in[QPB_TCP_ACK_LEN];
    uint32_t ack_in_len;
    char peer[48];
} qpb_tx_conn;

/* The receiving end of a connection (server side; also the client's in a bidirectional run). */
typedef struct qpb_rx_conn {
    int fd;
    uint32_t qp;
    bool open;
    bool cur_bad;       /* the message being received already mismatched */
    bool ack_blocked;   /* an ack is waiting for socket space */
    uint64_t received;  /* payload bytes read */
    uint64_t bad_total; /* messages that failed verification */
    uint64_t ack_count; /* values of the last ack queued */
    uint64_t ack_bad;
    uint8_t ack_out[QPB_TCP_ACK_LEN];
    uint32_t ack_out_off; /* bytes of ack_out already sent; LEN = none pending */
    char peer[48];
} qpb_rx_conn;

struct qpb_tcp {
    int listen_fd;
    char host[64];
    uint16_t port;
    uint32_t n_conns;  /* threads * qps_per_thread */
    qpb_tx_conn *tx;   /* [thread * qps + qp], NULL on a server (unless bidirectional) */
    qpb_rx_conn *rx;   /* [thread * qps + qp], NULL on a client (unless bidirectional) */
};

/* Byte of the payload stream at: message k, offset o. Cheap to compute on
 * both ends and different for neighbouring messages and offsets. */
static inline uint8_t qpb_tcp_pattern(uint64_t k, uint64_t o)
{
    return (uint8_t)((k * 0x9Du) ^ (o + (o >> 8)));
}

/* Latency mode's workers (qpb_tcp_lat.c): one ping-pong per thread. */
void qpb_tcp_lat_sender(qpb_session *s, uint32_t thread);
void qpb_tcp_lat_receiver(qpb_session *s, uint32_t thread);

#endif /* QPB_TCP_H */
