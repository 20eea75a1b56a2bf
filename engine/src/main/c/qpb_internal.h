/*
 * qpb_internal.h — what the engine's files share and nobody outside sees.
 *
 * The session owns everything: the parsed spec, one stats block and one ring
 * per sender thread, the provider state, and the first run error. Workers
 * write their own stats and ring only; the session reads stats after joining
 * them, so no stats field needs to be atomic.
 */
#ifndef QPB_INTERNAL_H
#define QPB_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "qpb.h"
#include "qpb_cpu.h"
#include "qpb_ring.h"
#include "qpb_stats.h"

/* Only the symbols of qpb.h leave the shared object. */
#define QPB_EXPORT __attribute__((visibility("default")))

#define QPB_ERR_LEN 512
#define QPB_VERSION "0.1.0"

/* Bounds of the spec; qpb_spec_parse names them in its messages. */
#define QPB_MAX_THREADS 1024u
#define QPB_MAX_QPS 65536u
#define QPB_MAX_MSG_SIZE (1ull << 30)
#define QPB_MAX_DEPTH 4096u
#define QPB_MAX_RING (1u << 24)
#define QPB_MAX_DURATION_MS (24ull * 3600 * 1000)
#define QPB_MIN_INTERVAL_MS 10u
#define QPB_MAX_INTERVAL_MS 60000u
#define QPB_MAX_TRACE 1000000u /* trace records per run */
/* Bytes of a thread's interval ring. A record that can never fit still loses
 * nothing: its interval grows to the end of the run and waits in scratch. */
#define QPB_MIN_INTERVAL_RING (1u << 14)
#define QPB_MAX_INTERVAL_RING (1u << 26)
/* Latency mode's fixed queues (verbs): requests a QP may have posted, every QPB_LAT_SIGNAL-th of them
 * signaled (at most one reply is ever awaited), and receives kept posted (op send) */
#define QPB_LAT_SEND_WR 16u
#define QPB_LAT_SIGNAL 8u
#define QPB_LAT_RECV_WR 16u

typedef enum qpb_role { QPB_ROLE_LOOPBACK, QPB_ROLE_CLIENT, QPB_ROLE_SERVER } qpb_role;
typedef enum qpb_provider_kind { QPB_PROVIDER_TCP, QPB_PROVIDER_VERBS } qpb_provider_kind;
typedef enum qpb_op { QPB_OP_SEND, QPB_OP_WRITE, QPB_OP_READ, QPB_OP_ATOMIC_FADD, QPB_OP_ATOMIC_CSWAP } qpb_op;

/* The 8-byte remote atomics (RC only): fetch-and-add and compare-and-swap. */
static inline bool qpb_op_atomic(qpb_op op)
{
    return op == QPB_OP_ATOMIC_FADD || op == QPB_OP_ATOMIC_CSWAP;
}

/* Read and the atomics: one-sided requests whose completion brings data back (the peer only serves them). */
static inline bool qpb_op_fetches(qpb_op op)
{
    return op == QPB_OP_READ || qpb_op_atomic(op);
}
typedef enum qpb_transport { QPB_TR_RC, QPB_TR_UC, QPB_TR_UD, QPB_TR_XRC } qpb_transport;
typedef enum qpb_srq_mode { QPB_SRQ_NONE, QPB_SRQ_PER_THREAD, QPB_SRQ_SHARED } qpb_srq_mode;
typedef enum qpb_cq_mode { QPB_CQ_PER_QP, QPB_CQ_PER_THREAD, QPB_CQ_SHARED } qpb_cq_mode;
typedef enum qpb_mr_mode { QPB_MR_PER_THREAD, QPB_MR_PER_QP } qpb_mr_mode;
typedef enum qpb_buffers { QPB_BUF_HEAP, QPB_BUF_HUGEPAGES } qpb_buffers;
typedef enum qpb_polling { QPB_POLL_BUSY, QPB_POLL_EVENT } qpb_polling;
/* How the target of a one-sided op (write, read, atomics: nothing to poll) waits for the end of the run */
typedef enum qpb_target_wait { QPB_TARGET_SLEEP, QPB_TARGET_SPIN } qpb_target_wait;
typedef enum qpb_lock_model { QPB_LOCK_SHARED, QPB_LOCK_THREAD_DOMAIN } qpb_lock_model;
typedef enum qpb_qp_sharing { QPB_QPS_PER_THREAD, QPB_QPS_SHARED } qpb_qp_sharing;
typedef enum qpb_mode { QPB_MODE_BW, QPB_MODE_LATENCY } qpb_mode;
/* wr: ibv_create_qp_ex, then ibv_wr_start, ibv_wr_<op> and ibv_wr_complete (perftest's new post path); legacy: ibv_post_send */
typedef enum qpb_post_api { QPB_POST_WR, QPB_POST_LEGACY } qpb_post_api;

/* Names of the enum values above, as the spec spells them. */
extern const char *const QPB_OP_NAMES[];
extern const char *const QPB_TRANSPORT_NAMES[];
extern const char *const QPB_SRQ_NAMES[];
extern const char *const QPB_CQ_NAMES[];
extern const char *const QPB_MR_NAMES[];
extern const char *const QPB_BUFFERS_NAMES[];
extern const char *const QPB_POLLING_NAMES[];
extern const char *const QPB_TARGET_WAIT_NAMES[];
extern const char *const QPB_LOCK_NAMES[];
extern const char *const QPB_QP_SHARING_NAMES[];
extern const char *const QPB_MODE_NAMES[];
extern const char *const QPB_POST_API_NAMES[];

typedef struct qpb_spec {
    char provider[16];
    qpb_provider_kind provider_kind;
    qpb_role role;
    char op[16];
    qpb_op op_kind;
    qpb_mode mode; /* latency: one ping-pong (or one outstanding read) per thread, perftest's *_lat */
    uint32_t threads;
    uint32_t qps_per_thread;
    uint64_t msg_size;
    uint64_t iterations;
    uint64_t duration_ms;
    uint64_t warmup_cycles;
    uint64_t rate_limit; /* cycles per second per thread, 0 = unpaced */
    uint32_t tx_depth;
    uint32_t interval_ms; /* 0: no interval records, the summary only */
    uint32_t trace_first; /* trace records per thread, at most */
    uint64_t trace_every; /* of every this many cycles */
    uint32_t interval_ring; /* bytes per thread */
    uint32_t ring_capacity;
    bool verify;
    bool tcp_nodelay;
    char bind[64];
    bool bind_given; /* bind was in the spec (else a verbs server picks its RoCE address) */
    uint32_t port;
    /* verbs provider */
    char device[64]; /* "" = the first device with an active port */
    uint32_t ib_port;
    int32_t gid_index; /* -1 = chosen: RoCE v2 with an IPv4 address, else the LID on InfiniBand */
    qpb_transport transport;
    qpb_srq_mode srq;
    uint32_t inline_size;
    bool inline_given; /* inline_size was in the spec (else latency mode picks the device's, qpb_verbs.c) */
    uint32_t signal_every;
    uint32_t post_list;
    uint32_t rx_depth;
    qpb_cq_mode cq_mode;
    qpb_mr_mode mr_mode;
    bool relaxed_ordering; /* MRs with IBV_ACCESS_RELAXED_ORDERING where rdma-core takes optional access flags */
    qpb_buffers buffers;   /* message buffers on the heap, or on 2 MiB hugepages (mmap MAP_HUGETLB) */
    bool odp;              /* MRs with IBV_ACCESS_ON_DEMAND (on-demand paging) */
    qpb_polling polling;
    qpb_target_wait target_wait;
    qpb_lock_model lock_model;
    uint32_t mtu; /* bytes; 0 = the port's active MTU */
    bool rdma_cm; /* connect through the RDMA connection manager (RC) */
    qpb_qp_sharing qp_sharing; /* shared: every thread posts to the same qps_per_thread QPs */
    bool bidirectional; /* client/server: both sides send at once (perftest -b) */
    qpb_post_api post_api;
    bool post_api_given; /* post_api was in the spec (else wr only where perftest would use it: qpb_check.c) */
} qpb_spec;

const char *qpb_role_name(qpb_role role);

/* Parses and validates a spec; on failure err lists every violation, joined
 * by "; ", and the status says EINVAL or EUNSUPPORTED. */
qpb_status qpb_spec_parse(const char *json, qpb_spec *out, char *err, uint32_t err_len);

typedef struct qpb_tcp qpb_tcp;     /* provider state, qpb_tcp*.c */
typedef struct qpb_verbs qpb_verbs; /* provider state, qpb_verbs*.c */
typedef struct qpb_jw qpb_jw;

/* What a provider does; the session (qpb_session.c) does everything else. */
typedef struct qpb_provider {
    qpb_status (*create)(qpb_session *s);
    qpb_status (*local_endpoint)(qpb_session *s, char *buf, uint32_t buf_len);
    /* peer_json NULL: loopback, connect the session's two ends to each other */
    qpb_status (*connect)(qpb_session *s, const char *peer_json);
    void (*run_sender)(qpb_session *s, uint32_t thread);
    void (*run_receiver)(qpb_session *s, uint32_t thread);
    /* Whether each sender thread also reaps its receivers' completions, so that the receivers get no
     * thread of their own (verbs bidirectional send, perftest's run_iter_bi); may be NULL: never. */
    bool (*receives_in_sender)(const qpb_session *s);
    void (*summary)(qpb_session *s, qpb_jw *w); /* extra keys; may be NULL */
    void (*destroy)(qpb_session *s);
} qpb_provider;

extern const qpb_provider qpb_tcp_provider;
extern const qpb_provider qpb_verbs_provider;

/* The verbs side as the rest of the engine sees it, so that no other file needs rdma-core's
 * headers: qpb_verbs.c and qpb_ibv.c, or qpb_noverbs.c in an engine built without those headers
 * (the Makefile picks one; there the provider refuses with QPB_NO_VERBS_REASON). */
#define QPB_NO_VERBS_REASON                                                                                 \
    "this engine was built without rdma-core's headers: the verbs provider needs libibverbs-dev and "   \
    "librdmacm-dev (dnf: rdma-core-devel) at build time; install them and rebuild"
/* Whether the verbs provider can run here; if not, why (libibverbs not loadable, or not built in). */
bool qpb_verbs_loadable(char *why, uint32_t why_len);
/* The RDMA device a verbs session opened, NULL before that (or for tcp). */
const char *qpb_verbs_device_name(const qpb_session *s);

enum qpb_state { QPB_ST_CREATED, QPB_ST_CONNECTED, QPB_ST_RUNNING, QPB_ST_ENDED };

/*
 * What a sender worker owns: its statistics (the per-cycle path, qpb_record.h,
 * touches only stats), its closed intervals and its trace.
 */
typedef struct qpb_sender_out {
    qpb_stats stats;
    uint64_t trace_next;        /* the next cycle to trace; UINT64_MAX: none */
    uint64_t trace_every;
    uint64_t trace_left;        /* cycles still to trace */
    uint64_t traced;            /* trace records kept (the ring counts those dropped) */
    qpb_ring ring;              /* trace records, for qpb_drain */
    qpb_bytes_ring intervals;   /* closed interval records, for qpb_drain_intervals */
    uint8_t *scratch;           /* QPB_INTERVAL_MAX_BYTES: the record being closed */
    atomic_uint pending;        /* bytes of scratch left for the drain when the thread ended with a full ring */
    uint64_t late;              /* closes put off because the interval ring was full */
    qpb_session *s;
    uint32_t thread;
    /* verbs: how long the thread had its whole window (tx_depth cycles) in flight with nothing completing,
     * i.e. waited on the device and the link rather than on itself (written by the thread, read after it) */
    uint64_t window_full_ns;
    qpb_thread_cpu cpu; /* its CPU over its measured span (qpb_cpu.c) */
} qpb_sender_out;

/* What a receiver worker counts (server role reports these). */
typedef struct qpb_receiver_out {
    uint64_t bytes;
    uint64_t messages;
    uint64_t errors;
    uint64_t first_ns;
    uint64_t last_ns;
    qpb_thread_cpu cpu; /* its CPU from its start to its end (qpb_cpu.c) */
} qpb_receiver_out;

typedef struct qpb_counters qpb_counters;

struct qpb_session {
    qpb_spec spec;
    enum qpb_state state;
    char err[QPB_ERR_LEN];

    struct timespec t0;      /* CLOCK_MONOTONIC_RAW at create */
    int64_t t0_realtime_ns;  /* CLOCK_REALTIME at the same moment */

    qpb_sender_out *senders;     /* spec.threads, NULL on the server */
    qpb_receiver_out *receivers; /* spec.threads, NULL on the client */
    uint32_t drain_next;         /* round-robin start of qpb_drain */
    uint32_t interval_drain_next; /* and of qpb_drain_intervals */

    const qpb_provider *provider;
    qpb_tcp *tcp;
    qpb_verbs *verbs;

    atomic_int stop;  /* cancel: finish in-flight cycles, post no more */
    atomic_int abort; /* leave now: an error or destroy */

    pthread_t *threads;
    uint32_t n_threads;   /* worker threads started (the summary's "worker_threads") */
    pthread_mutex_t lock; /* guards live, run_status, run_err, err */
    pthread_cond_t ended;
    uint32_t live;
    qpb_status run_status;
    char run_err[QPB_ERR_LEN];
    bool joined;

    /* What the run cost and what the NIC counted (qpb_cpu.c, qpb_counters.c). The paths are fields
     * so that tests can point them at fakes. */
    const char *proc_stat_path;  /* "/proc/stat" */
    const char *proc_snmp_path;  /* "/proc/net/snmp" */
    const char *sysfs_ib_root;   /* "/sys/class/infiniband" */
    const char *proc_nr_hugepages_path; /* "/proc/sys/vm/nr_hugepages" (buffers hugepages) */
    const char *proc_meminfo_path;      /* "/proc/meminfo" */
    atomic_int host_begun;       /* the first measured span began: host_before was read */
    atomic_uint workers_running; /* the last worker to end reads host_after and counters_after */
    qpb_proc_cpu host_before, host_after;
    qpb_counters *counters_before, *counters_after; /* NULL: not read */
};

/* ns since the session's t0 on CLOCK_MONOTONIC_RAW. */
static inline uint64_t qpb_now_ns(const qpb_session *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    int64_t ns = (int64_t)(ts.tv_sec - s->t0.tv_sec) * 1000000000LL + (ts.tv_nsec - s->t0.tv_nsec);
    return ns < 0 ? 0 : (uint64_t)ns;
}

/* When cycle k (0-based, warm-up included) of a thread paced at rate cycles/s
 * is due: ns after the thread's first cycle. */
static inline uint64_t qpb_cycle_due_ns(uint64_t k, uint64_t rate)
{
    return rate == 0 ? 0 : (uint64_t)((unsigned __int128)k * 1000000000u / rate);
}

/* Sets s->err (printf-style, under s->lock) and returns status: the one way calls fail. A worker
 * thread reports through qpb_run_fail instead: the caller reads s->err without the lock. */
qpb_status qpb_fail(qpb_session *s, qpb_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A worker reports the first run failure; the run is aborted. */
void qpb_run_fail(qpb_session *s, qpb_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A sender thread's statistics as it ends: its open interval is closed (qpb_session.c). */
void qpb_interval_finish(qpb_sender_out *out);

/* A worker's CPU readings (qpb_cpu.c): begin when its measured span begins (measured: a sender's
 * first cycle after the warm-up, a receiver's start; not measured: a sender's start, kept if it never
 * gets there), end as it ends; the last worker to end reads the host's figures after the run. */
void qpb_cpu_begin(qpb_session *s, qpb_thread_cpu *c, bool measured);
void qpb_cpu_end(qpb_session *s, qpb_thread_cpu *c);
void qpb_host_run_ended(qpb_session *s);
void qpb_cpu_summary(qpb_session *s, qpb_jw *w); /* "cpu" */
/* The counters of the session's device and port (verbs) or of the host's TCP, now (qpb_counters.c). */
qpb_counters *qpb_counters_take(qpb_session *s);

/* --- tcp provider (qpb_tcp.c, qpb_tcp_run.c) --- */
/* Worker bodies; index i of 0..threads-1. */
void qpb_tcp_run_sender(qpb_session *s, uint32_t thread);
void qpb_tcp_run_receiver(qpb_session *s, uint32_t thread);

#endif /* QPB_INTERNAL_H */
