/*
 * qpb_verbs.h — state shared by the verbs provider's files, top to bottom:
 *   qpb_verbs.c           the provider's operations (qpb_provider): create, connect, summary, destroy
 *   qpb_verbs_conn.c      connecting: a server's listeners, QPs to RTR and RTS, loopback pairing
 *   qpb_verbs_cm.c        connecting through rdma_cm instead (RC)
 *   qpb_verbs_sender.c    the data path's sending side: posting cycles, counting down their completions
 *   qpb_verbs_receiver.c  the data path's receiving side: reaping and reposting receives, the end of run
 *   qpb_verbs_poll.c      the data path's CQs: polling a thread's, or sleeping on its completion channel
 *   qpb_verbs_lat.c       the data path in mode latency: ping-pongs (perftest's *_lat)
 *   qpb_verbs_oob.c       out of band: the endpoint blob and the control socket (hello, FIN, result)
 *   qpb_verbs_res.c       resources: GID, PD, XRC domain, thread domains, MRs, CQs, SRQs, QPs
 * The rest of the engine sees only qpb_verbs_provider, qpb_verbs_loadable and qpb_verbs_device_name
 * (qpb_internal.h); an engine built without rdma-core's headers has qpb_noverbs.c instead of these files.
 *
 * Who calls whom (a file calls only files below it; no cycles; verbs-callgraph.sh lists it):
 *   qpb_verbs.c          -> conn, cm, sender, receiver, oob, res
 *   qpb_verbs_conn.c     -> cm, oob
 *   qpb_verbs_cm.c       -> res
 *   qpb_verbs_sender.c   -> receiver, lat, oob, poll, res
 *   qpb_verbs_receiver.c -> lat, oob, poll, res
 *   qpb_verbs_lat.c      -> oob, res
 *   qpb_verbs_oob.c      -> res
 *   qpb_verbs_poll.c     -> (none)
 *   qpb_verbs_res.c      -> (none)
 *
 * A run has a sending side (client, or the first half of a loopback run) and
 * a receiving side (server, or the second half). Connection i of thread t on
 * one side is paired with connection i of thread t on the other. A cycle of
 * sending thread t posts message k (its cycle index) on each of its QPs; the
 * cycle ends when a completion covering message k was polled on every one of
 * them. With signal_every N only every Nth request of a QP is signaled (and
 * the last of a run); a signaled completion covers the earlier requests.
 *
 * The end of a run: when its last sender thread is done, the sending side
 * tells the receiving side how many messages it posted on every connection
 * (over the control socket, or in memory in loopback); the receivers finish
 * reaping up to those counts (reliable transports) or until nothing arrives
 * for a grace period (UC, UD), and answer with what they received, which the
 * summary reports as "peer".
 *
 * Bidirectional runs (client/server, as perftest -b): each end has both a
 * sending and a receiving side of QPs; the client's sending side pairs with
 * the server's receiving side as usual, and the server's sending side with
 * the client's receiving side (the blob's "r" fields). Each end sends FIN when
 * its senders are done and RES when its receivers are; receiving thread 0 of
 * each end reads both of the peer's messages, whatever their order. With op
 * send (polling busy) an end runs its senders only: sending thread t also
 * reaps and reposts receiving thread t's receives in its loop, as perftest's
 * run_iter_bi does, and after its last cycle it goes on as receiving thread
 * t (qpb_verbs_run_receiver, from qpb_session.c); no second busy thread.
 */
#ifndef QPB_VERBS_H
#define QPB_VERBS_H

#include <pthread.h>
#include <stdatomic.h>

#include "qpb_caps.h"
#include "qpb_ibv.h"
#include "qpb_internal.h"
#include "qpb_rdmacm.h"

#define QPB_VERBS_QKEY 0x11111111u
#define QPB_VERBS_UD_GRH 40u
#define QPB_VERBS_POLL_BATCH 64

/* One in-flight cycle of a sending thread. end_ns != 0 once it completed;
 * written by whichever thread polled the last completion (shared CQs). */
typedef struct qpb_vcycle {
    uint64_t start_ns;
    _Atomic uint64_t end_ns;
    atomic_uint remaining; /* QPs whose completion has not covered the cycle */
    atomic_uint errors;
} qpb_vcycle;

/* One connection end: a QP and its buffer slot. */
typedef struct qpb_vconn {
    struct ibv_qp *qp;
    struct ibv_qp_ex *qpx;   /* post_api wr: qp as an ibv_qp_ex (the QPs that send), else NULL */
    struct rdma_cm_id *cm_id; /* rdma_cm runs: the connection's id (its qp is qp) */
    struct ibv_cq *cq;       /* where its completions arrive */
    uint32_t index;          /* thread * qps_per_thread + i */
    uint32_t thread;
    uint32_t qpn, psn;
    uint8_t *buf;            /* its slot */
    uint32_t lkey;
    uint32_t remote_qpn, remote_psn, remote_srqn;
    uint64_t remote_addr;
    uint32_t rkey;
    /* sending side; posted and last_signaled belong to the owning thread,
     * completed to whoever polls its CQ (one poller at a time) */
    uint64_t posted;
    uint64_t last_signaled;  /* messages up to this one are signaled (count, not index) */
    uint64_t completed;
    /* receiving side */
    atomic_ullong received;
    atomic_ullong received_bytes;
    atomic_ullong bad;
} qpb_vconn;

/* What one thread of one side owns. */
typedef struct qpb_vthread {
    struct ibv_td *td;
    struct ibv_pd *pd;                  /* a parent domain with td, or the session's PD */
    struct ibv_comp_channel *channel;   /* event polling */
    struct ibv_cq *cq;                  /* cq_mode per_thread */
    uint8_t *buf;                       /* qps_per_thread slots */
    uint64_t buf_mapped;                /* buffers hugepages: the mapping's length (qpb_buffers.h) */
    struct ibv_mr *mr;                  /* mr_mode per_thread */
    struct ibv_mr **qp_mrs;             /* mr_mode per_qp */
    struct ibv_srq *srq;                /* srq per_thread (or the side's shared one) */
    uint32_t srqn;
    qpb_vconn *conns;                   /* qps_per_thread */
    qpb_vcycle *cycles;                 /* tx_depth, sending side */
    uint64_t admitted, done;            /* sending side: cycles posted / completed */
    unsigned cq_events;                 /* unacknowledged CQ events */
} qpb_vthread;

/* A pool of receive slots behind one SRQ. */
typedef struct qpb_vsrq {
    struct ibv_srq *srq;
    uint32_t srqn;
    uint8_t *buf;
    uint64_t buf_mapped;
    struct ibv_mr *mr;
    uint32_t depth;
} qpb_vsrq;

typedef struct qpb_vside {
    bool sending;
    qpb_vthread *threads;
    qpb_vconn *conns;                   /* threads * qps_per_thread, by index */
    struct ibv_cq *shared_cq;           /* cq_mode shared */
    struct ibv_comp_channel *shared_channel;
    pthread_mutex_t shared_cq_lock;
    bool shared_cq_lock_init;
    qpb_vsrq *srqs;                     /* n_srq */
    struct ibv_ah *ah;                  /* UD: the peer's port */
    uint32_t *qpn_keys, *qpn_values;    /* qp_num -> conn index (open addressing) */
    uint32_t qpn_mask;
} qpb_vside;

/* The peer as its endpoint blob describes it. */
typedef struct qpb_vpeer {
    uint32_t threads, qps_per_thread;
    uint64_t slot;
    uint32_t lid, mtu;
    uint8_t gid[16];
    bool mr_per_qp;
    char host[64];
    uint32_t port;
    uint32_t cm_port; /* rdma_cm runs: the server's cm listener */
} qpb_vpeer;

/* The receiving side's answer at the end of a run. */
typedef struct qpb_vresult {
    uint64_t messages, bytes, errors;
    uint64_t short_conns; /* connections that received fewer messages than were posted */
    uint64_t missing;     /* messages posted but not received */
} qpb_vresult;

struct qpb_verbs {
    const qpb_ibv *v;
    struct ibv_context *ctx;
    qpb_dev_caps caps;
    qpb_plan plan;
    struct ibv_pd *pd;
    struct ibv_xrcd *xrcd;
    qpb_vside *tx, *rx;
    union ibv_gid gid;
    uint32_t lid;
    /* control socket (client/server) */
    int listen_fd, ctl_fd;
    char host[64];
    uint16_t port;
    /* end of run */
    atomic_uint senders_left, receivers_left;
    atomic_int fin;        /* expected[] is filled: the sending side is done */
    uint64_t *expected;    /* per connection: messages the sending side posted */
    qpb_vresult result;    /* receiving side's totals; on a client (and bidirectional), the peer's answer */
    bool have_result;
    qpb_vresult received;  /* bidirectional: what this side's receivers got, sent to the peer */
    atomic_int peer_result; /* bidirectional: the peer's RES arrived (result holds it) */
    pthread_mutex_t ctl_lock; /* bidirectional: two threads write to the control socket */
    /* rdma_cm runs (qpb_verbs_cm.c) */
    const qpb_rdmacm *cm;
    struct ibv_context **cm_devices;   /* librdmacm's contexts; ctx is one of them */
    struct rdma_event_channel *cm_channel;
    struct rdma_cm_id *cm_listen;
    uint16_t cm_port;
    uint32_t cm_accepted, cm_established;
};

/* qpb_verbs_res.c */
/* The run's GID, PD and XRC domain, both sides' resources and the end-of-run counters; destroy frees
 * whatever create made, also after a failure. */
qpb_status qpb_verbs_res_create(qpb_session *s);
void qpb_verbs_res_destroy(qpb_session *s);
int32_t qpb_verbs_conn_of_qpn(const qpb_vside *side, uint32_t qpn); /* -1 when unknown */
/* Registers len bytes at addr with the run's access flags (relaxed ordering, on-demand paging, remote
 * atomics), through ibv_reg_mr_iova2 where rdma-core exports it, as perftest's build calls it; NULL with the
 * failure reported (qpb_fail). */
struct ibv_mr *qpb_verbs_reg_mr(qpb_session *s, struct ibv_pd *pd, void *addr, uint64_t len);
int qpb_verbs_mr_access(const qpb_session *s); /* those access flags */
/* Whether the run's MRs ask for relaxed ordering: the spec's relaxed_ordering where rdma-core exports
 * ibv_reg_mr_iova2 (an older one would hand the optional flag to a kernel that may refuse it). */
bool qpb_verbs_relaxed_ordering(const qpb_session *s);
uint8_t qpb_verbs_pattern(uint32_t conn, uint64_t offset);
/* Posts one receive on c's QP, or on srq when it is not NULL. Returns 0 or what ibv_post_recv /
 * ibv_post_srq_recv returned (an errno value), and reports nothing: the caller knows whether a failure
 * fails its call (set-up, qpb_fail) or the run (a worker, qpb_run_fail). */
int qpb_verbs_post_recv(qpb_session *s, qpb_vconn *c, uint64_t wr_id, uint8_t *buf, uint32_t lkey, qpb_vsrq *srq);
void qpb_verbs_qp_attr(qpb_session *s, const qpb_vside *side, const qpb_vthread *th, const qpb_vconn *c,
                       struct ibv_qp_init_attr *attr);
/* Makes c's QP from attr (qpb_verbs_qp_attr) on th's PD: on cm_id when not NULL (rdma_create_qp), XRC through
 * ibv_create_qp_ex, and with post_api wr a QP that sends through ibv_create_qp_ex with the run's send_ops_flags
 * (c->qpx set). Fails naming the call. */
qpb_status qpb_verbs_create_qp(qpb_session *s, const qpb_vside *side, qpb_vthread *th, qpb_vconn *c,
                               struct ibv_qp_init_attr *attr, struct rdma_cm_id *cm_id);
/* A new QP of c: its number and PSN; receiving side: posts its receives. */
qpb_status qpb_verbs_qp_ready(qpb_session *s, qpb_vside *side, qpb_vthread *th, qpb_vconn *c);
qpb_status qpb_verbs_qp_fail(qpb_session *s, const qpb_vconn *c, const struct ibv_qp_cap *cap, const char *call);
/* Messages the sending side posted on connection conn (after its threads ended). */
uint64_t qpb_verbs_posted(qpb_session *s, uint32_t conn);

/* qpb_verbs_oob.c */
qpb_vside *qpb_verbs_own_side(qpb_session *s); /* the side a client or server advertises */
/* Regions of a side as (address, rkey) pairs; returns how many. */
uint32_t qpb_verbs_regions(qpb_session *s, const qpb_vside *side, uint64_t *addr, uint64_t *rkey);
/* The IPv4 address of the run's RoCE GID, if it has one. */
bool qpb_verbs_roce_ipv4(qpb_session *s, char *out, size_t len);
qpb_status qpb_verbs_blob_write(qpb_session *s, char *buf, uint32_t buf_len);
/* Parses and checks the peer's blob, fills every connection's remote half and *peer. */
qpb_status qpb_verbs_blob_read(qpb_session *s, const char *peer_json, qpb_vpeer *peer);
qpb_status qpb_verbs_ctl_listen(qpb_session *s);  /* server: at its first endpoint */
qpb_status qpb_verbs_ctl_accept(qpb_session *s);  /* server: hello in, READY out */
qpb_status qpb_verbs_ctl_connect(qpb_session *s, const char *host, uint32_t port); /* client */
void qpb_verbs_ctl_close(qpb_session *s);
/* Control messages; false on failure (the run failed with the reason). */
bool qpb_verbs_send_fin(qpb_session *s);
/* Reads one control message if one is waiting (FIN; bidirectional also RES): *got says which arrived. */
bool qpb_verbs_read_fin(qpb_session *s, int timeout_ms, bool *got);
bool qpb_verbs_send_result(qpb_session *s, const qpb_vresult *r);
/* The side whose QPs pair with the peer's reverse side (bidirectional only; NULL otherwise). */
qpb_vside *qpb_verbs_reverse_side(qpb_session *s);
/* Receiving thread 0 of a server (of either end, bidirectional) reads the peer's control messages (waiting up
 * to timeout_ms): the FIN sets fin, a bidirectional peer's RES its result. Any other thread or role returns at
 * once. false: the run failed. (A bidirectional send end has no receiving thread: its sending thread 0 calls it,
 * as thread 0, while it sends.) */
bool qpb_verbs_poll_fin(qpb_session *s, uint32_t thread, int timeout_ms);

/* qpb_verbs_cm.c: rdma_cm connection set-up (RC) */
qpb_status qpb_verbs_cm_open(qpb_session *s, char *err, uint32_t err_len);
qpb_status qpb_verbs_cm_listen(qpb_session *s, const char *address);
qpb_status qpb_verbs_cm_connect(qpb_session *s, const char *host, uint32_t port);
qpb_status qpb_verbs_cm_accept_all(qpb_session *s);
qpb_status qpb_verbs_cm_connect_back(qpb_session *s, uint32_t port);
void qpb_verbs_cm_close(qpb_session *s);

/* qpb_verbs_conn.c */
qpb_status qpb_verbs_endpoint(qpb_session *s, char *buf, uint32_t buf_len);
qpb_status qpb_verbs_connect_peer(qpb_session *s, const char *peer_json);
qpb_status qpb_verbs_connect_loopback(qpb_session *s);

/* qpb_verbs_lat.c: a latency run's initiating thread (false: the run failed) and answering thread */
bool qpb_verbs_lat_initiate(qpb_session *s, uint32_t thread);
void qpb_verbs_lat_respond(qpb_session *s, uint32_t thread);

/* qpb_verbs_poll.c */
/* Polls every CQ a thread reads from (a shared CQ only when no other thread is polling it), handing each
 * completion to on; returns how many, or -1 when ibv_poll_cq failed (the run failed). */
int qpb_verbs_poll_thread(qpb_session *s, qpb_vside *side, qpb_vthread *th, struct ibv_wc *wc,
                          void (*on)(qpb_session *, qpb_vside *, const struct ibv_wc *, uint64_t));
/* Polling event: sleeps until one of the thread's CQs has a completion or timeout_ns passed (false: the run
 * failed). */
bool qpb_verbs_wait_event(qpb_session *s, qpb_vside *side, qpb_vthread *th, uint64_t timeout_ns);

/* qpb_verbs_sender.c and qpb_verbs_receiver.c: a thread of the sending and of the receiving side, to its end */
void qpb_verbs_run_sender(qpb_session *s, uint32_t thread);
void qpb_verbs_run_receiver(qpb_session *s, uint32_t thread);
/* qpb_verbs_receiver.c: bidirectional send in one loop. Whether this end's receivers run in its sender
 * threads (bidirectional, op send, mode bw, polling busy: qpb_start then starts no receiving thread, and each
 * sender thread runs qpb_verbs_run_receiver after its cycles, for the end of run; polling event keeps a
 * receiving thread, which sleeps on its own completion channel), and receiving thread `thread`'s reaping: one
 * poll of its CQs, every receive posted again (completions, or -1: the run failed). */
bool qpb_verbs_receives_in_sender(const qpb_session *s);
/* Whether this run's receiving side is the target of a one-sided op, which waits as target_wait says (write,
 * read and atomics in bw mode; read and atomics in latency mode, where a write is answered by a write). */
bool qpb_verbs_target_waits(const qpb_session *s);
int qpb_verbs_reap_receives(qpb_session *s, uint32_t thread, struct ibv_wc *wc);

#endif /* QPB_VERBS_H */
