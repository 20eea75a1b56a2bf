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

#define QPB_ABI_VERSION 2

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
 * The statistics of a run flow as intervals: every interval_ms each sending
 * thread closes one record of what its cycles did in that time (a cycle is
 * one message of msg_size bytes posted on each of the thread's connections
 * and all of their completions reaped). Every cycle is in exactly one
 * interval, so the records add up to the summary, however fast the run: the
 * stream's size depends on time and threads, not on the cycle rate.
 * Times are nanoseconds since the session's t0 on one monotonic clock
 * (CLOCK_MONOTONIC_RAW). A record is this header and then `buckets` pairs
 * of qpb_interval_bucket, ascending by bucket: the sparse histogram of the
 * interval's cycle times, in the summary's layout (qpb_stats.h: bucket b
 * holds b ns below 256 ns, above 128 buckets per power of two). Fixed-width,
 * naturally aligned, no padding; tests check these offsets from Java against
 * qpb_interval_layout().
 */
typedef struct qpb_interval {
    uint32_t size;           /* bytes of this record: 88 + 16 x buckets */
    uint32_t thread;         /* 0-based worker thread index */
    uint64_t index;          /* it holds the cycles that ended from index x interval_ms after t0 ... */
    uint32_t span;           /* ... for span intervals (1; more only when its record could not be handed over) */
    uint32_t buckets;        /* histogram pairs that follow */
    uint64_t cycles;
    uint64_t messages;
    uint64_t bytes;          /* payload bytes of its cycles */
    uint64_t errors;         /* completions that carried an error */
    uint64_t min_ns;         /* shortest and longest cycle */
    uint64_t max_ns;
    uint64_t first_start_ns; /* first post of its first cycle */
    uint64_t last_end_ns;    /* last completion of its last cycle */
} qpb_interval;

typedef struct qpb_interval_bucket {
    uint32_t bucket;
    uint32_t reserved; /* 0 */
    uint64_t count;    /* cycles whose time falls in the bucket (> 0) */
} qpb_interval_bucket;

/* The largest interval record: every bucket of the histogram present. */
#define QPB_INTERVAL_MAX_BYTES 118872

/*
 * A trace record: one cycle of one thread, kept only when the spec asks for
 * a trace (trace_first / trace_every). No statistic depends on them. 48
 * bytes, naturally aligned, no padding; checked against qpb_trace_record_layout().
 */
typedef struct qpb_trace_record {
    uint32_t thread;   /* 0-based worker thread index */
    uint32_t errors;   /* completions of this cycle that carried an error */
    uint64_t cycle;    /* 0-based cycle index within the thread */
    uint64_t start_ns; /* first post of the cycle */
    uint64_t end_ns;   /* last completion of the cycle */
    uint64_t bytes;    /* payload bytes completed in the cycle */
    uint64_t messages; /* messages completed in the cycle */
} qpb_trace_record;

typedef struct qpb_session qpb_session;

/*
 * Spec JSON (unknown keys are rejected with their name):
 *   provider        "tcp" | "verbs"                             required
 *   role            "loopback" | "client" | "server"            default "loopback"
 *   op              "send" | "write" | "read" | "atomic_fadd" |
 *                   "atomic_cswap" (all but send: verbs)        default "send"
 *                   atomic_fadd / atomic_cswap: RDMA fetch-and-add (add 1) and
 *                   compare-and-swap (compare 0, swap 0) of the peer's 8-byte
 *                   word, as perftest's ib_atomic_bw -A FETCH_AND_ADD /
 *                   CMP_AND_SWAP: msg_size 8, transport rc, a device whose
 *                   atomic_cap is not IBV_ATOMIC_NONE; up to the device's
 *                   max_qp_rd_atom / max_qp_init_rd_atom in flight per QP
 *                   (as read); verify checks, after a fetch-and-add run, that
 *                   the peer's word counts every add of its connection
 *   mode            "bw" | "latency"                            default "bw"
 *                   latency is perftest's *_lat: every thread runs one
 *                   ping-pong of msg_size (send: the server sends each
 *                   message back; write: each side writes into the other's
 *                   buffer and polls its own last byte; tcp: one socket per
 *                   thread), or has one read in flight (op read, the client
 *                   only). A cycle is one iteration and its recorded time is
 *                   the latency perftest reports: half the round trip for
 *                   send and write, the whole of it for read. Refused in
 *                   latency mode: qps_per_thread > 1 (one ping-pong per
 *                   thread), verify, transport xrc, polling event, and
 *                   tx_depth, rate_limit, post_list, signal_every, rx_depth,
 *                   srq, cq_mode or qp_sharing at other than their default
 *                   (the queues are fixed: one QP and one CQ per thread, at
 *                   most 16 requests posted, every 8th signaled, 16 receives;
 *                   the summary reports tx_depth 1). inline_size not given:
 *                   the device's max_inline_data capped at msg_size (send
 *                   and write; perftest's lat tests inline by default too).
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
 *   interval_ms     close an interval record every this long,
 *                   10..60000, or 0: none, the summary only
 *                   (what qpbench asks for without --interval)  default 100
 *   interval_ring   bytes of interval records buffered per thread until
 *                   qpb_drain_intervals, a power of two, 16 KiB..64 MiB
 *                   (nearly full: the open interval stays open and grows,
 *                   losing no cycle, and intervals_late counts it)
 *                                                               default 1 MiB
 *   trace_first     keep trace records (qpb_trace_record) of at most this many
 *                   cycles per thread, 0..1000000; trace_first x threads
 *                   <= 1000000 per run                          default 0
 *   trace_every     of the cycles 0, K, 2K, ... (1..2^40); alone it keeps
 *                   up to 1000000 / threads per thread          default 1
 *   ring_capacity   trace records buffered per thread until qpb_drain,
 *                   a power of two (full: the record is dropped and
 *                   counted)                                    default 65536
 *   verify          check payload bytes on the receiver         default false
 *   bidirectional   client/server: both sides send at once and both
 *                   receive (perftest -b; op send and write); each
 *                   side's summary reports what it sent ("side":
 *                   "sender" on both) and "received" what came the
 *                   other way. tcp: the client opens every connection
 *                   a second time for the server's direction. verbs op
 *                   send with polling busy: each sender thread also
 *                   reaps and reposts its receives in its own loop (as
 *                   perftest's run_iter_bi) and no receiving thread runs
 *                   ("worker_threads" = threads, "bidirectional_loop":
 *                   "one"; op write or polling event: "split", a
 *                   receiving thread each). Not in loopback (one
 *                   process holds both ends)                    default false
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
 *   post_list       cycles posted at once (one ibv_post_send, or one
 *                   ibv_wr_start..ibv_wr_complete), 1..tx_depth default 1
 *   rx_depth        receives kept posted per QP, or per SRQ
 *                                                               default 512
 *   cq_mode         "per_qp" | "per_thread" | "shared"          default "per_thread"
 *   mr_mode         "per_thread" | "per_qp"                     default "per_thread"
 *   relaxed_ordering  MRs with IBV_ACCESS_RELAXED_ORDERING (perftest's PCIe
 *                   relax order ON; --disable_pcie_relaxed is false), through
 *                   ibv_reg_mr_iova2, which drops the optional flag where the
 *                   kernel does not take it; without that symbol (rdma-core
 *                   < 28) the run goes without, and its summary says false.
 *                   Mode latency op write: false (it polls the buffer's last
 *                   byte; perftest's ib_write_lat says OFF too), and true is
 *                   refused                                     default true
 *   buffers         "heap" | "hugepages": the message buffers on 2 MiB
 *                   hugepages (mmap MAP_HUGETLB, each rounded up; perftest
 *                   --use_hugepages); refused before any verbs object exists
 *                   when /proc/sys/vm/nr_hugepages is 0 or HugePages_Free is
 *                   short, naming the sysctl and the pages to reserve
 *                                                               default "heap"
 *   odp             MRs with IBV_ACCESS_ON_DEMAND (perftest --odp); refused
 *                   on a device whose odp_caps lack IBV_ODP_SUPPORT or the
 *                   run's op over its transport (send: send and recv, or
 *                   srq_recv with an SRQ); such MRs pin nothing, so
 *                   RLIMIT_MEMLOCK does not bound them          default false
 *   polling         "busy" | "event" (completion channel)       default "busy"
 *   target_wait     "sleep" | "spin": how the target of a one-sided op
 *                   (write, read, atomics), which has no completion to poll,
 *                   waits for the end of the run: its thread sleeps on the
 *                   control socket (perftest's server, exchanging over TCP),
 *                   or spins on it (perftest's with -R, which polls its QP for
 *                   the end-of-test message). On a software device the
 *                   target's CPU does the receiving, and whether it idles
 *                   moves the result both ways (bench/verbs-vs-perftest)
 *                                                               default "sleep"
 *   lock_model      "shared" | "thread_domain" (ibv_alloc_td + a parent
 *                   domain per thread)                          default "shared"
 *   mtu             0 = the port's active MTU, else 256..4096   default 0
 *   post_api        "wr" | "legacy": how requests are posted     default "wr"
 *                   wr is perftest's new post path: QPs that send are made
 *                   with ibv_create_qp_ex (send_ops_flags for the run's op)
 *                   and each post list is one ibv_wr_start, per request an
 *                   ibv_wr_<op> with ibv_wr_set_sge or _set_inline_data (and
 *                   _set_ud_addr, _set_xrc_srqn), then one ibv_wr_complete;
 *                   legacy is ibv_post_send with a chain of requests. Left
 *                   out, wr runs only where perftest uses it by default (the
 *                   mlx5 family, EFA, HNS: not rxe or siw) and the device has
 *                   the extended QP API, else legacy; given as wr on a device
 *                   without that API it is refused, naming the device. The
 *                   summary's "post_api" says which ran (qpbench:
 *                   --use_old_post_send for legacy, "ibv_wr* API" ON/OFF).
 * A verbs session is checked against its device before any verbs object
 * exists: every limit it exceeds is refused at once with QPB_EUNSUPPORTED,
 * naming the limit and the device ("inline_size 512 B > max_inline_data
 * 400 B on rxe0"). libibverbs.so.1 is loaded at run time, so the library
 * loads on hosts without rdma-core (verbs then says why it cannot run).
 */
qpb_session *qpb_session_create(const char *spec_json, char *err, uint32_t err_len);

/*
 * Checks a spec as qpb_session_create would, without creating anything and
 * without a device: the same table and the same rules between keys (the
 * session's own parse goes through this check). out receives a JSON array of
 * every violation, each naming the spec key the rule is about, in the words
 * qpb_session_create would use:
 *   [{"field":"post_list","message":"post_list 300 > tx_depth 128 (...)"}]
 * and [] for a spec the engine accepts. Limits of one device (qpb_check.c)
 * are not checked here. Returns QPB_OK (accepted), QPB_EINVAL or
 * QPB_EUNSUPPORTED (refused: out lists why), or QPB_ENOSPC when out is too
 * small for the list (call again with a larger one).
 */
int32_t qpb_spec_check(const char *spec_json, char *out, uint32_t out_len);

/*
 * The spec table itself, for documents that show the rules (the controller's
 * OpenAPI document, its parameter names and defaults): a JSON array, one
 * object per key, in the table's order, each with its default (none for a
 * required key: msg_size) and "format":"bytes" for a byte count:
 *   [{"name":"threads","type":"integer","minimum":1,"maximum":1024,
 *     "default":1,"verbs_only":false},{"name":"op","type":"string",
 *     "enum":["send",...],"default":"send","verbs_only":false},...]
 * The rules between keys are not in it: qpb_spec_check applies them. Returns
 * QPB_OK, or QPB_ENOSPC when out is too small.
 */
int32_t qpb_spec_schema(char *out, uint32_t out_len);

/* Endpoint blob of this side, JSON (for tcp: {"provider":"tcp","host":..,"port":..,
 * "threads":..,"qps_per_thread":..}; for verbs also the QP numbers, PSNs, GID
 * or LID and memory keys, see qpb_verbs_oob.c). Server/loopback listen here.
 * A verbs blob grows with the number of QPs (about 40 bytes each). */
int32_t qpb_local_endpoint(qpb_session *s, char *buf, uint32_t buf_len);

/* Connect to the peer described by its endpoint blob (client side connects,
 * server side accepts; both return when every connection is up). */
int32_t qpb_connect(qpb_session *s, const char *peer_endpoint_json);

/* Start the worker threads; returns at once. */
int32_t qpb_start(qpb_session *s);

/* Moves whole interval records (qpb_interval, each followed by its buckets)
 * out of the threads' interval rings into buf, and returns the bytes written
 * (>= 0) or -qpb_status (-QPB_ENOSPC when buf_len < QPB_INTERVAL_MAX_BYTES).
 * Safe to call from one thread concurrently with the running workers; after
 * the run has ended, call it until it returns 0: a thread's last interval is
 * closed when the thread ends. */
int32_t qpb_drain_intervals(qpb_session *s, void *buf, uint32_t buf_len);

/* Moves up to max trace records out of the per-thread rings into out. Returns
 * the number of records written (>= 0) or -qpb_status. Safe to call from one
 * thread concurrently with the running workers. */
int32_t qpb_drain(qpb_session *s, qpb_trace_record *out, int32_t max);

/* Wait up to timeout_ms (0 = poll, <0 = forever) for the run to end.
 * QPB_OK when it ended (successfully or not: see qpb_summary / last error),
 * QPB_ETIMEOUT when it is still running. */
int32_t qpb_wait(qpb_session *s, int32_t timeout_ms);

/* Ask a running session to stop early (cancel). Workers finish the current
 * cycle; the summary then says "stopped":true. */
int32_t qpb_stop(qpb_session *s);

/* Summary JSON of an ended run (perftest's definitions, see README; verbs
 * adds its knobs, the device, path_mtu, "post_api" (the one that ran: "wr"
 * or "legacy"), in bidirectional runs "bidirectional_loop" ("one": the sender threads reaped the receives
 * too, no receiving thread; "split": a receiving thread per thread) and "peer": what the receiving side got,
 * {"messages","bytes","errors","short_connections","missing"}):
 * {"provider","role","op","threads","qps_per_thread","msg_size",
 *  "iterations","cycles","messages","bytes","errors","stopped",
 *  "worker_threads" (the threads qpb_start ran: senders, and receivers where they have threads of their own),
 *  "interval_ms","intervals","intervals_late","traced","dropped",
 *  "duration_ns","bw_avg_bps","bw_peak_bps","msg_rate",
 *  "window_full_ns","window_full_share",
 *  "cycle_ns":{"min","median","avg","stdev","p99","p999","max"},
 *  "mode":"bw"|"latency",
 *  "latency_us":{"min","max","typical","avg","stdev","p99","p999"}  (mode latency only),
 *  "per_thread":[{"thread","cycles","bytes","messages","errors","intervals","intervals_late","traced","dropped",
 *                 "duration_ns","bw_avg_bps","bw_peak_bps","msg_rate",
 *                 "window_full_ns","cycle_ns":{...},"latency_us":{...}}],
 *  "clock":{"source":"CLOCK_MONOTONIC_RAW","t0_realtime_ns":..}}
 * bw_* are bytes per second. intervals: the interval records closed (their
 * cycles add up to "cycles"); intervals_late: closes put off because the
 * records were not drained in time (the interval grew instead); traced: trace records kept, dropped: those
 * lost to a full ring. window_full_ns (verbs; 0 for tcp): how long a
 * thread had all tx_depth cycles in flight and nothing completing, i.e. waited
 * on the device and the link, not on itself; window_full_share is that over
 * the threads' spans (near 1: the window or the device sets the pace, not
 * the engine's own work). latency_us (mode latency): the cycle times in
 * microseconds under perftest's *_lat names (typical = the median; a
 * receiving server has no cycles: zeros).
 *
 * What the run cost and what the NIC counted (both providers, both sides):
 *  "cpu":{"span_ns","engine_user_ns","engine_sys_ns","engine_util_pct",
 *         "host_cpus","host_user_pct","host_sys_pct","host_util_pct",
 *         "perftest_util_pct"}
 *   engine_*: getrusage(RUSAGE_THREAD) of every worker thread over its
 *   measured span, summed: a sender's span begins as it posts its first
 *   cycle after the warm-up, a receiver's as it starts; both end as the
 *   thread ends. span_ns: the earliest begin to the latest end.
 *   engine_util_pct = (user + sys) / span_ns x 100 (one busy thread: 100;
 *   above 100 with several). host_*: /proc/stat's first line read as the
 *   first measured span begins and as the last thread ends, in % of every
 *   CPU of the host (0..100): util = (total - idle - iowait) / total, user =
 *   user + nice, sys = system + irq + softirq. perftest_util_pct is
 *   perftest --cpu_util's figure over the same readings: user / (user +
 *   idle) ticks x 100. Host figures are null when /proc/stat could not be
 *   read or no tick (10 ms of one CPU) passed; engine_util_pct when the
 *   span is 0.
 *  "counters":{"source":"sysfs","device":"rxe0","port":1,
 *              "deltas":{"counters/<file>":n,"hw_counters/<file>":n,...},
 *              "unreadable":["hw_counters/<file>",...],"error":null|"why"}
 *   verbs: every file under /sys/class/infiniband/<device>/ports/<port>/
 *   counters/ and hw_counters/ (but hw_counters/lifespan, a setting), read
 *   as qpb_start starts the workers and as the last one ends; deltas of
 *   every counter read both times (0 included; negative: reset or wrapped).
 *   Files that could not be read or held no number are "unreadable";
 *   "error" names a directory that could not be opened. tcp:
 *   {"source":"/proc/net/snmp","deltas":{"Tcp.InSegs":n,"Tcp.OutSegs":n,
 *   "Tcp.RetransSegs":n,"Tcp.InErrs":n,"Tcp.OutRsts":n,...},...}: the
 *   host's Tcp counters (settings and gauges left out), host-wide: every
 *   TCP connection of the host moves them, not only the run's.
 *   null when the run never started.
 *  "warnings":["hw_counters/rcvd_seq_err moved by 12",...]
 *   every counter of the table in qpb_counters.c that moved: retransmission,
 *   out-of-sequence, RNR and error counters of rxe and mlx5, the InfiniBand
 *   port error counters, Tcp.RetransSegs/InErrs/InCsumErrors (those end in
 *   " (host-wide)"); [] when none moved.
 *
 * Every key above, its type and unit, and the nvmeof provider's summary
 * beside them: protocol's run-summary.schema.json (JSON Schema, in
 * protocol/src/main/resources/org/qplab/protocol/). A key added here is
 * documented there, or EngineSessionIntegrationTests fails. */
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
 *   "odp":{"supported","implicit","rc":["send","recv","write","read",
 *   "atomic","srq_recv"],"uc":[...],"ud":[...],"xrc":[...]} (odp_caps of
 *   ibv_query_device_ex: the ops each transport pages on demand),
 *   "wr_api" (ibv_create_qp_ex with send_ops_flags works: post_api wr),
 *   "device_cap_flags","ports":[{"port","state","link_layer","max_mtu",
 *   "active_mtu","lid","gids":[{"index","gid","type"}]}]}],
 *  "unavailable":"why"}   (the last key only when there is no device) */
int32_t qpb_devices(char *buf, uint32_t buf_len);

/* {"size":48,"thread":0,"errors":4,"cycle":8,"start_ns":16,"end_ns":24,
 *  "bytes":32,"messages":40} — for the binding's layout test. */
int32_t qpb_trace_record_layout(char *buf, uint32_t buf_len);

/* {"size":88,"bucket_size":16,"max_bytes":118872,"size_field":0,"thread":4,
 *  "index":8,...,"bucket":0,"count":8} — every field's offset, for the
 * binding's layout test. */
int32_t qpb_interval_layout(char *buf, uint32_t buf_len);

/*
 * What a span the engine does not run itself cost the host (the agent's
 * nvmeof provider: fio and the kernel do the work): the summary's "cpu",
 * "counters" and "warnings" (qpb_summary), read by the same code, over the
 * span from qpb_cost_begin to qpb_cost_end.
 *
 * qpb_cost_begin reads /proc/stat and the counters now. Its spec is one flat
 * JSON object (unknown keys are rejected with their name):
 *   counters    "sysfs" | "snmp"                                required
 *               sysfs: an RDMA port's counters/ and hw_counters/ (as a
 *               verbs run's); snmp: /proc/net/snmp's Tcp (host-wide)
 *   device      sysfs: the RDMA device (a name like "rxe0")     default ""
 *   ib_port     sysfs: 1..255, or 0: the device's first port     default 0
 *   address     sysfs without device: an IP address of this host; the
 *               port read is the first (by device, port and GID index)
 *               with a GID on the network interface that has it
 *               (gid_attrs/ndevs)                               default ""
 *               sysfs needs device or address
 *   proc        where /proc is (tests: a fake tree)            default "/proc"
 *   infiniband  where /sys/class/infiniband is                 default "/sys/class/infiniband"
 * A port that cannot be found is no failure: "counters" then has no
 * "device" and "port" and its "error" says why. NULL, with err saying why,
 * for an invalid spec or no memory. Not thread-safe: one thread at a time
 * per qpb_cost.
 */
typedef struct qpb_cost qpb_cost;

qpb_cost *qpb_cost_begin(const char *spec_json, char *err, uint32_t err_len);

/* Reads /proc/stat and the counters again: the span has ended. Later calls
 * change nothing. QPB_OK, or QPB_EINVAL for NULL. */
int32_t qpb_cost_end(qpb_cost *c);

/* {"cpu":{...},"counters":{...},"warnings":[...]} with the summary's keys and
 * meanings, except that no engine thread ran: span_ns is qpb_cost_begin to
 * qpb_cost_end (CLOCK_MONOTONIC_RAW), engine_user_ns, engine_sys_ns and
 * engine_util_pct are null, the host_* and perftest_util_pct figures are over
 * the span. Before qpb_cost_end: span_ns 0, host figures null, every counter
 * "unreadable" with "error":"no reading after the run". c NULL: a span that
 * never began: span_ns 0, host figures null, "counters":null,
 * "warnings":[]. Returns QPB_OK, or QPB_ENOSPC when buf is too small (call
 * again with a larger one: the readings stay). */
int32_t qpb_cost_json(const qpb_cost *c, char *buf, uint32_t buf_len);

/* Frees everything, ended or not. NULL is a no-op. */
void qpb_cost_destroy(qpb_cost *c);

#ifdef __cplusplus
}
#endif

#endif /* QPB_H */
