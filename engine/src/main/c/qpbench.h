/*
 * qpbench.h — what the qpbench CLI's files share: its options, and
 *   qpbench.c          main: each size's session, from its spec to its summary
 *   qpbench_args.c     the command line into options, and --help
 *   qpbench_output.c   what it prints: perftest's header and tables, intervals
 *   qpbench_control.c  the control socket between a client and a server
 *   qpbench_json.c     the JSON it exchanges with the engine: the spec it hands
 *                      over, written with the engine's JSON writer, and the
 *                      summary it reads back, with the engine's parser
 * The CLI is not part of libqpbench.so. Its errors end the process
 * (qpbench_die); the C tests link qpbench_json.c only, which never does.
 */
#ifndef QPBENCH_H
#define QPBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_SIZES 64
#define MEGA_BYTE 1048576.0 /* perftest's MB: 0x100000 bytes */
#define GIGA_BIT 125000000.0 /* perftest's Gb: 1e9 bits in bytes */

typedef struct options {
    uint64_t sizes[MAX_SIZES];
    int n_sizes;
    uint64_t iterations, warmup;
    double duration_s;
    unsigned qps, threads, depth, port, interval_ms;
    int verify, server, gbits;
    int cpu_util, counters; /* print the run's CPU (--cpu_util) and every counter that moved (--counters) */
    int latency;      /* --lat: the engine's mode latency, perftest's *_lat output */
    int bidirectional; /* -b: both sides send at once (perftest -b) */
    double rate;     /* --rate_limit in rate_unit, per thread; 0 = unpaced */
    char rate_unit;  /* 'M' MiB/s, 'g' Gb/s, 'p' messages/s (perftest's --rate_units) */
    const char *json_path, *provider, *bind, *host;
    /* verbs */
    const char *device, *op, *transport, *srq, *cq_mode, *mr_mode, *lock_model, *qp_sharing;
    int ib_port, gid_index, events, rdma_cm;
    const char *post_api; /* --post-api, or "legacy" for --use_old_post_send; NULL: the engine's choice */
    const char *target_wait; /* --target-wait; NULL: the engine's default (sleep) */
    unsigned rx_depth, inline_size, signal_every, post_list, mtu;
    int inline_given; /* -I was given (else latency mode leaves inline_size to the engine: the device's most) */
    int no_relaxed, hugepages, odp; /* --disable_pcie_relaxed, --use_hugepages, --odp */
} options;

/* qpbench.c: "qpbench: " and the message on stderr, then exit status 1. */
void qpbench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* qpbench_args.c: the options of argv, every default filled in; --help and --devices print and exit. */
void qpbench_parse_args(int argc, char **argv, options *o);

/* qpbench_output.c: perftest's header (once the first size's summary says what the run used), a row of its
 * bandwidth or latency table per size, the intervals in buf (n bytes of qpb_drain_intervals), and the closing
 * line. */
void qpbench_print_header(const options *o, const char *role, const char *sum);
void qpbench_print_result(const options *o, const char *sum);
void qpbench_print_latency(const options *o, const char *sum);
void qpbench_print_intervals(const options *o, const uint8_t *buf, int32_t n);
void qpbench_print_footer(void);

/* qpbench_control.c: the control socket to the peer (a server accepts one client; a client retries for 5 s
 * while its server starts), and one length-prefixed message each way. */
int qpbench_ctl_open(const options *o);
void qpbench_ctl_send(int fd, const char *msg);
char *qpbench_ctl_recv(int fd); /* malloc'd */

/* qpbench_json.c */
/* The engine's spec for one size in role ("loopback", "client" or "server"), however long the
 * options' strings, every one escaped: malloc'd, or NULL with the reason in why. */
char *qpbench_spec(const options *o, uint64_t size, const char *role, char *why, size_t why_len);

/* The server's endpoint blob as its client connects to it: a server listening on 0.0.0.0 advertises that, and
 * the client means host, which is written in its place with the JSON writer; every other field as the server wrote
 * it. A blob with another host, or one that is not an endpoint (qpb_connect says why), is copied unchanged.
 * malloc'd, or NULL with the reason in why. */
char *qpbench_peer_endpoint(const char *blob, const char *host, char *why, size_t why_len);

/* A value of a summary by path ("msg_size", "cycle_ns.p99"); 0 and "" when the summary has none. */
double qpbench_num(const char *summary, const char *path);
const char *qpbench_str(const char *summary, const char *path, char *out, size_t len);
bool qpbench_bool(const char *summary, const char *path); /* false when the summary has none */
/* Every "name":delta of the summary's counters.deltas, and every string of its warnings, in order, to fn;
 * return how many. */
int qpbench_counter_deltas(const char *summary, void (*fn)(const char *name, long long delta, void *arg), void *arg);
int qpbench_warnings(const char *summary, void (*fn)(const char *warning, void *arg), void *arg);
/* Whether a summary is one JSON document; false with the parser's reason in why. */
bool qpbench_summary_ok(const char *summary, char *why, size_t why_len);

#endif /* QPBENCH_H */
