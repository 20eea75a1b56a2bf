/*
 * qpb.h — the public API of qplab's native benchmark engine (libqpbench.so).
 *
 * One library, two front ends: the Java agent (through jnr-ffi) and the
 * `qpbench` CLI. The API is FFI-friendly: fixed-width fields, JSON strings for
 * rich data, an opaque session handle, no globals, and no exit/abort/printf.
 *
 * Lifecycle of a session:
 *   qpb_session_create(spec) -> [qpb_local_endpoint -> qpb_connect(peer)]
 *   -> qpb_start -> qpb_drain* / qpb_wait -> qpb_summary -> qpb_session_destroy
 * With "role":"loopback" both ends live in the session: start right after
 * create. With "role":"server"/"client" the two sessions (two processes or
 * two hosts) exchange their endpoint JSON blobs first.
 *
 * Every call that can fail returns a qpb_status; the message of the last
 * failure on a session is qpb_last_error(session). qpb_session_create reports
 * through its err buffer because there is no session yet.
 */
#ifndef QPB_H
#define QPB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QPB_ABI_VERSION 1

typedef enum qpb_status {
    QPB_OK = 0,
    QPB_EINVAL = 1,       /* the spec or an argument is invalid */
    QPB_EUNSUPPORTED = 2, /* the provider/device cannot do the requested combination */
    QPB_ESYS = 3,         /* a system or verbs call failed (message names it and errno) */
    QPB_ESTATE = 4,       /* call out of lifecycle order */
    QPB_ETIMEOUT = 5,     /* qpb_wait: the run has not finished yet */
    QPB_ENOSPC = 6,       /* the output buffer is too small */
    QPB_ERUN = 7          /* the run itself failed (peer closed, error completion) */
} qpb_status;

/*
 * One record per cycle of one thread: a cycle is one message of msg_size
 * bytes posted on each of the thread's connections and all of their
 * completions reaped. Times are nanoseconds since the session's t0 on one
 * monotonic clock (CLOCK_MONOTONIC_RAW). 48 bytes, naturally aligned, no
 * padding; tests check these offsets from Java against qpb_sample_layout().
 */
typedef struct qpb_sample {
    uint32_t thread;   /* 0-based worker thread index */
    uint32_t errors;   /* completions of this cycle that carried an error */
    uint64_t cycle;    /* 0-based cycle index within the thread */
    uint64_t start_ns; /* first post of the cycle */
    uint64_t end_ns;   /* last completion of the cycle */
    uint64_t bytes;    /* payload bytes completed in the cycle */
    uint64_t messages; /* messages completed in the cycle */
} qpb_sample;

typedef struct qpb_session qpb_session;

/*
 * Spec JSON (unknown keys are rejected with their name):
 *   provider        "tcp" | "verbs"                             required
 *   role            "loopback" | "client" | "server"            default "loopback"
 *   op              "send" | "write" | "read" (verbs)           default "send"
 *   threads         1..1024                                     default 1
 *   qps_per_thread  1..65536 connections per thread             default 1
 *   msg_size        1..(1<<30) bytes                            required
 *   iterations      cycles per thread (>0) unless duration_ms   default 1000
 *   duration_ms     run for this long instead of iterations     default 0 (off)
 *   warmup_cycles   cycles per thread run but not recorded      default 0
 *   rate_limit      cycles per second per thread, paced from its first
 *                   cycle (a late thread catches up); 0 = as fast as it
 *                   can (perftest's --rate_limit in packets/s with one QP
 *                   per thread; software pacing in both providers, verbs
 *                   event polling sleeps no longer than until the next
 *                   cycle is due)                               default 0
 *   tx_depth        cycles a thread may have in flight, 1..4096 default 128
 *                   (verbs: the send queue depth of every QP)
 *   ring_capacity   records per thread ring, power of two       default 65536
 *   records         keep per-cycle records for qpb_drain        default true
 *                   (false: the summary only, nothing to drain and
 *                   nothing dropped; qpbench asks for that)
 *   verify          check payload bytes on the receiver         default false
 *   tcp_nodelay     TCP_NODELAY on data sockets (tcp)           default true
 *   bind            address to listen on (server/loopback)      default "127.0.0.1"
 *                   (verbs: the server's control socket; without bind it
 *                   listens on every address and advertises the IPv4
 *                   address of its RoCE GID)
 *   port            port to listen on, 0 = any                  default 0
 * The verbs provider's knobs (tcp accepts them only at their default):
 *   device          RDMA device; "" = the first with an ACTIVE port   default ""
 *   ib_port         1..255                                      default 1
 *   gid_index       -1 = chosen (RoCE v2 with an IPv4 address; the LID on
 *                   InfiniBand), else 0..255                    default -1
 *   transport       "rc" | "uc" | "ud" | "xrc"                  default "rc"
 *   srq             "none" | "per_thread" | "shared" (op send; XRC sends
 *                   always go through an SRQ: none means per_thread)  default "none"
 *   inline_size     0..65536 bytes; messages up to it go inline default 0
 *   signal_every    signal every Nth request of a QP (CQ moderation), and
 *                   the last of a run; 1..tx_depth             default 1
 *   post_list       cycles posted per ibv_post_send, 1..tx_depth default 1
 *   rx_depth        receives kept posted per QP, or per SRQ
 *                                                               default 512
 *   cq_mode         "per_qp" | "per_thread" | "shared"          default "per_thread"
 *   mr_mode         "per_thread" | "per_qp"                     default "per_thread"
 *   polling         "busy" | "event" (completion channel)       default "busy"
 *   lock_model      "shared" | "thread_domain" (ibv_alloc_td + a parent
 *                   domain per thread)                          default "shared"
 *   mtu             0 = the port's active MTU, else 256..4096   default 0
 * A verbs session is checked against its device before any verbs object
 * exists: every limit it exceeds is refused at once with QPB_EUNSUPPORTED,
 * naming the limit and the device ("inline_size 512 B > max_inline_data
 * 400 B on rxe0"). libibverbs.so.1 is loaded at run time, so the library
 * loads on hosts without rdma-core (verbs then says why it cannot run).
 */
qpb_session *qpb_session_create(const char *spec_json, char *err, uint32_t err_len);

/* Endpoint blob of this side, JSON (for tcp: {"provider":"tcp","host":..,"port":..,
 * "threads":..,"qps_per_thread":..}; for verbs also the QP numbers, PSNs, GID
 * or LID and memory keys, see qpb_verbs_conn.c). Server/loopback listen here.
 * A verbs blob grows with the number of QPs (about 40 bytes each). */
int32_t qpb_local_endpoint(qpb_session *s, char *buf, uint32_t buf_len);

/* Connect to the peer described by its endpoint blob (client side connects,
 * server side accepts; both return when every connection is up). */
int32_t qpb_connect(qpb_session *s, const char *peer_endpoint_json);

/* Start the worker threads; returns at once. */
int32_t qpb_start(qpb_session *s);

/* Move up to max records out of the per-thread rings into out. Returns the
 * number of records written (>= 0) or -qpb_status. Safe to call from one
 * thread concurrently with the running workers. */
int32_t qpb_drain(qpb_session *s, qpb_sample *out, int32_t max);

/* Wait up to timeout_ms (0 = poll, <0 = forever) for the run to end.
 * QPB_OK when it ended (successfully or not: see qpb_summary / last error),
 * QPB_ETIMEOUT when it is still running. */
int32_t qpb_wait(qpb_session *s, int32_t timeout_ms);

/* Ask a running session to stop early (cancel). Workers finish the current
 * cycle; the summary then says "stopped":true. */
int32_t qpb_stop(qpb_session *s);

/* Summary JSON of an ended run (perftest's definitions, see README; verbs
 * adds its knobs, the device, path_mtu and "peer": what the receiving side
 * got, {"messages","bytes","errors","short_connections","missing"}):
 * {"provider","role","op","threads","qps_per_thread","msg_size",
 *  "iterations","cycles","messages","bytes","errors","dropped","stopped",
 *  "duration_ns","bw_avg_bps","bw_peak_bps","msg_rate",
 *  "window_full_ns","window_full_share",
 *  "cycle_ns":{"min","median","avg","stdev","p99","p999","max"},
 *  "per_thread":[{"thread","cycles","bytes","messages","errors","dropped",
 *                 "duration_ns","bw_avg_bps","bw_peak_bps","msg_rate",
 *                 "window_full_ns","cycle_ns":{...}}],
 *  "clock":{"source":"CLOCK_MONOTONIC_RAW","t0_realtime_ns":..}}
 * bw_* are bytes per second. window_full_ns (verbs; 0 for tcp): how long a
 * thread had all tx_depth cycles in flight and nothing completing, i.e. waited
 * on the device and the link, not on itself; window_full_share is that over
 * the threads' spans (near 1: the window or the device sets the pace, not
 * the engine's own work). */
int32_t qpb_summary(qpb_session *s, char *buf, uint32_t buf_len);

/* Message of the last failure on this session ("" if none). Valid until the
 * next call on the session. */
const char *qpb_last_error(qpb_session *s);

/* Stops the run if needed, joins threads, frees everything. NULL is a no-op. */
void qpb_session_destroy(qpb_session *s);

/* {"abi":1,"version":"0.1.0","providers":["tcp","verbs"]}, or with only
 * "tcp" and "verbs_unavailable":"why" where libibverbs cannot be loaded. */
int32_t qpb_engine_info(char *buf, uint32_t buf_len);

/* The RDMA devices of this host and their limits, ibv_devinfo-like:
 * {"devices":[{"name","fw_ver","node_guid","vendor_id","vendor_part_id",
 *   "hw_ver","max_qp","max_qp_wr","max_sge","max_cq","max_cqe","max_mr",
 *   "max_mr_size","max_pd","max_srq","max_srq_wr","max_qp_rd_atom",
 *   "max_qp_init_rd_atom","max_ah","max_inline_data","xrc","thread_domain",
 *   "device_cap_flags","ports":[{"port","state","link_layer","max_mtu",
 *   "active_mtu","lid","gids":[{"index","gid","type"}]}]}],
 *  "unavailable":"why"}   (the last key only when there is no device) */
int32_t qpb_devices(char *buf, uint32_t buf_len);

/* {"size":48,"thread":0,"errors":4,"cycle":8,"start_ns":16,"end_ns":24,
 *  "bytes":32,"messages":40} — for the binding's layout test. */
int32_t qpb_sample_layout(char *buf, uint32_t buf_len);

#ifdef __cplusplus
}
#endif

#endif /* QPB_H */
