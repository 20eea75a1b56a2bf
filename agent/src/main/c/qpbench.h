/*
 * qpbench.h — what the qpbench CLI's files share: its options, and the JSON
 * it exchanges with the engine (qpbench_json.c): the spec it hands over,
 * written with the engine's JSON writer, and the summary it reads back, with
 * the engine's parser. The CLI is not part of libqpbench.so.
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
    unsigned rx_depth, inline_size, signal_every, post_list, mtu;
    int inline_given; /* -I was given (else latency mode leaves inline_size to the engine: the device's most) */
} options;

/* The engine's spec for one size in role ("loopback", "client" or "server"), however long the
 * options' strings, every one escaped: malloc'd, or NULL with the reason in why. */
char *qpbench_spec(const options *o, uint64_t size, const char *role, char *why, size_t why_len);

/* A value of a summary by path ("msg_size", "cycle_ns.p99"); 0 and "" when the summary has none. */
double qpbench_num(const char *summary, const char *path);
const char *qpbench_str(const char *summary, const char *path, char *out, size_t len);
/* Every "name":delta of the summary's counters.deltas, and every string of its warnings, in order, to fn;
 * return how many. */
int qpbench_counter_deltas(const char *summary, void (*fn)(const char *name, long long delta, void *arg), void *arg);
int qpbench_warnings(const char *summary, void (*fn)(const char *warning, void *arg), void *arg);
/* Whether a summary is one JSON document; false with the parser's reason in why. */
bool qpbench_summary_ok(const char *summary, char *why, size_t why_len);

#endif /* QPBENCH_H */
