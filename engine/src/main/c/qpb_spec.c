/*
 * qpb_spec.c — the run spec: defaults, parsing, and validation that lists
 * every violation at once (a user fixing a matrix wants all of them, not one
 * per round trip), each with the key's name and its limit. This is the one
 * definition of what a run may be: the session parses its spec here, and the
 * controller asks the same checks through qpb_spec_check at submit time.
 *
 * Two kinds of violation: EINVAL for a spec that no engine could run (a bad
 * value, op read over UD), EUNSUPPORTED for one that this provider cannot run
 * (op write over tcp). Limits of one device (max_inline_data, XRC, its MTU)
 * are checked later, against the device itself (qpb_check.c).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpb_internal.h"
#include "qpb_json.h"

const char *const QPB_OP_NAMES[] = {"send", "write", "read", "atomic_fadd", "atomic_cswap", NULL};
const char *const QPB_TRANSPORT_NAMES[] = {"rc", "uc", "ud", "xrc", NULL};
const char *const QPB_SRQ_NAMES[] = {"none", "per_thread", "shared", NULL};
const char *const QPB_CQ_NAMES[] = {"per_qp", "per_thread", "shared", NULL};
const char *const QPB_MR_NAMES[] = {"per_thread", "per_qp", NULL};
const char *const QPB_BUFFERS_NAMES[] = {"heap", "hugepages", NULL};
const char *const QPB_POLLING_NAMES[] = {"busy", "event", NULL};
const char *const QPB_TARGET_WAIT_NAMES[] = {"sleep", "spin", NULL};
const char *const QPB_LOCK_NAMES[] = {"shared", "thread_domain", NULL};
const char *const QPB_QP_SHARING_NAMES[] = {"per_thread", "shared", NULL};
const char *const QPB_MODE_NAMES[] = {"bw", "latency", NULL};
const char *const QPB_POST_API_NAMES[] = {"wr", "legacy", NULL};
static const char *const PROVIDER_NAMES[] = {"tcp", "verbs", NULL};
static const char *const ROLE_NAMES[] = {"loopback", "client", "server", NULL};

/* A spec breaks at most one rule per key it holds, plus the rules between
 * keys: this many leave room for every one of them. */
#define MAX_VIOLATIONS 96
#define VIOLATION_LEN 320

typedef struct violation {
    char field[QPB_JSON_MAX_KEY]; /* the spec key the rule is about */
    char message[VIOLATION_LEN];
} violation;

typedef struct violations {
    violation list[MAX_VIOLATIONS];
    uint32_t count;        /* every violation, also any past the list */
    bool unsupported_only; /* every violation so far is "not supported" */
} violations;

static void add(violations *v, const char *field, bool unsupported, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(violations *v, const char *field, bool unsupported, const char *fmt, ...)
{
    v->unsupported_only = (v->count == 0 || v->unsupported_only) && unsupported;
    if (v->count++ >= MAX_VIOLATIONS)
        return;
    violation *at = &v->list[v->count - 1];
    snprintf(at->field, sizeof at->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(at->message, sizeof at->message, fmt, ap);
    va_end(ap);
}

const char *qpb_role_name(qpb_role role)
{
    return ROLE_NAMES[role];
}

/* K_BYTES: an unsigned count of bytes (a matrix may write it as "4K") */
enum kind { K_STRING, K_UINT, K_BYTES, K_INT, K_BOOL, K_CHOICE };

/* One spec key. Offsets place the parsed value in qpb_spec; verbs_only keys
 * belong to the verbs provider (tcp accepts them only at their default). */
typedef struct key_def {
    const char *name;
    enum kind kind;
    int64_t min, max;            /* K_UINT, K_BYTES, K_INT */
    const char *const *choices;  /* K_CHOICE: the enum's names */
    size_t offset;               /* of the uint32/uint64/int32/bool/enum field */
    uint8_t width;               /* bytes of an integer field */
    bool verbs_only;
} key_def;

#define AT(field) offsetof(qpb_spec, field), (uint8_t)sizeof(((qpb_spec *)0)->field)

static const key_def KEYS[] = {
    {"provider", K_CHOICE, 0, 0, PROVIDER_NAMES, AT(provider_kind), false},
    {"role", K_CHOICE, 0, 0, ROLE_NAMES, AT(role), false},
    {"op", K_CHOICE, 0, 0, QPB_OP_NAMES, AT(op_kind), false},
    {"mode", K_CHOICE, 0, 0, QPB_MODE_NAMES, AT(mode), false},
    {"threads", K_UINT, 1, QPB_MAX_THREADS, NULL, AT(threads), false},
    {"qps_per_thread", K_UINT, 1, QPB_MAX_QPS, NULL, AT(qps_per_thread), false},
    {"msg_size", K_BYTES, 1, (int64_t)QPB_MAX_MSG_SIZE, NULL, AT(msg_size), false},
    {"iterations", K_UINT, 0, 1ll << 40, NULL, AT(iterations), false},
    {"duration_ms", K_UINT, 0, (int64_t)QPB_MAX_DURATION_MS, NULL, AT(duration_ms), false},
    {"warmup_cycles", K_UINT, 0, 1ll << 40, NULL, AT(warmup_cycles), false},
    {"rate_limit", K_UINT, 0, 1000000000, NULL, AT(rate_limit), false},
    {"tx_depth", K_UINT, 1, QPB_MAX_DEPTH, NULL, AT(tx_depth), false},
    {"interval_ms", K_UINT, 0, QPB_MAX_INTERVAL_MS, NULL, AT(interval_ms), false},
    {"interval_ring", K_UINT, QPB_MIN_INTERVAL_RING, QPB_MAX_INTERVAL_RING, NULL, AT(interval_ring), false},
    {"trace_first", K_UINT, 0, QPB_MAX_TRACE, NULL, AT(trace_first), false},
    {"trace_every", K_UINT, 1, 1ll << 40, NULL, AT(trace_every), false},
    {"ring_capacity", K_UINT, 1, QPB_MAX_RING, NULL, AT(ring_capacity), false},
    {"verify", K_BOOL, 0, 0, NULL, AT(verify), false},
    {"bidirectional", K_BOOL, 0, 0, NULL, AT(bidirectional), false},
    {"tcp_nodelay", K_BOOL, 0, 0, NULL, AT(tcp_nodelay), false},
    {"bind", K_STRING, 0, 0, NULL, 0, 0, false},
    {"port", K_UINT, 0, 65535, NULL, AT(port), false},
    {"device", K_STRING, 0, 0, NULL, 0, 0, true},
    {"ib_port", K_UINT, 1, 255, NULL, AT(ib_port), true},
    {"gid_index", K_INT, -1, 255, NULL, AT(gid_index), true},
    {"transport", K_CHOICE, 0, 0, QPB_TRANSPORT_NAMES, AT(transport), true},
    {"srq", K_CHOICE, 0, 0, QPB_SRQ_NAMES, AT(srq), true},
    {"inline_size", K_BYTES, 0, 65536, NULL, AT(inline_size), true},
    {"signal_every", K_UINT, 1, QPB_MAX_DEPTH, NULL, AT(signal_every), true},
    {"post_list", K_UINT, 1, QPB_MAX_DEPTH, NULL, AT(post_list), true},
    {"rx_depth", K_UINT, 1, 16384, NULL, AT(rx_depth), true},
    {"cq_mode", K_CHOICE, 0, 0, QPB_CQ_NAMES, AT(cq_mode), true},
    {"mr_mode", K_CHOICE, 0, 0, QPB_MR_NAMES, AT(mr_mode), true},
    {"relaxed_ordering", K_BOOL, 0, 0, NULL, AT(relaxed_ordering), true},
    {"buffers", K_CHOICE, 0, 0, QPB_BUFFERS_NAMES, AT(buffers), true},
    {"odp", K_BOOL, 0, 0, NULL, AT(odp), true},
    {"polling", K_CHOICE, 0, 0, QPB_POLLING_NAMES, AT(polling), true},
    {"target_wait", K_CHOICE, 0, 0, QPB_TARGET_WAIT_NAMES, AT(target_wait), true},
    {"lock_model", K_CHOICE, 0, 0, QPB_LOCK_NAMES, AT(lock_model), true},
    {"mtu", K_UINT, 0, 4096, NULL, AT(mtu), true},
    {"rdma_cm", K_BOOL, 0, 0, NULL, AT(rdma_cm), true},
    {"qp_sharing", K_CHOICE, 0, 0, QPB_QP_SHARING_NAMES, AT(qp_sharing), true},
    {"post_api", K_CHOICE, 0, 0, QPB_POST_API_NAMES, AT(post_api), true},
};

static const qpb_spec DEFAULTS = {
    .provider = "", .provider_kind = QPB_PROVIDER_TCP, .role = QPB_ROLE_LOOPBACK, .op = "send",
    .op_kind = QPB_OP_SEND, .mode = QPB_MODE_BW, .threads = 1, .qps_per_thread = 1, .msg_size = 0, .iterations = 1000,
    .duration_ms = 0, .warmup_cycles = 0, .tx_depth = 128, .interval_ms = 100, .interval_ring = 1u << 20, .trace_first = 0,
    .trace_every = 1, .ring_capacity = 65536, .verify = false,
    .tcp_nodelay = true, .bind = "127.0.0.1", .port = 0, .device = "", .ib_port = 1, .gid_index = -1,
    .transport = QPB_TR_RC, .srq = QPB_SRQ_NONE, .inline_size = 0, .signal_every = 1, .post_list = 1,
    .rx_depth = 512, .cq_mode = QPB_CQ_PER_THREAD, .mr_mode = QPB_MR_PER_THREAD, .polling = QPB_POLL_BUSY,
    .target_wait = QPB_TARGET_SLEEP,
    .relaxed_ordering = true, .buffers = QPB_BUF_HEAP, .odp = false,
    .lock_model = QPB_LOCK_SHARED, .mtu = 0, .rdma_cm = false, .qp_sharing = QPB_QPS_PER_THREAD,
    .bidirectional = false, .post_api = QPB_POST_WR,
};

static const key_def *find_key(const char *name)
{
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(KEYS[i].name, name) == 0)
            return &KEYS[i];
    return NULL;
}

static void store(qpb_spec *s, const key_def *k, int64_t v)
{
    char *at = (char *)s + k->offset;
    switch (k->width) {
    case 1: *(bool *)at = v != 0; break;
    case 4: {
        uint32_t u = (uint32_t)v;
        memcpy(at, &u, 4);
        break;
    }
    default: {
        uint64_t u = (uint64_t)v;
        memcpy(at, &u, 8);
        break;
    }
    }
}

static int64_t load(const qpb_spec *s, const key_def *k)
{
    const char *at = (const char *)s + k->offset;
    if (k->width == 1)
        return *(const bool *)at;
    if (k->width == 4) {
        uint32_t u;
        memcpy(&u, at, 4);
        return k->kind == K_INT ? (int32_t)u : (int64_t)u;
    }
    uint64_t u;
    memcpy(&u, at, 8);
    return (int64_t)u;
}

static void choices_text(const char *const *names, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; names[i] != NULL && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s\"%s\"", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
}

static void check_string(const qpb_json_field *f, const key_def *k, qpb_spec *s, violations *v)
{
    if (!strcmp(k->name, "device")) {
        size_t n = strlen(f->str);
        bool ok = n < sizeof s->device && !f->long_str;
        for (size_t i = 0; ok && i < n; i++) {
            char c = f->str[i];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                 c == '.';
        }
        if (!ok)
            add(v, "device", false, "device must be a device name like \"mlx5_0\" or \"rxe0\" (got \"%.64s\")", f->str);
        else
            snprintf(s->device, sizeof s->device, "%s", f->str);
        return;
    }
    struct in_addr a;
    if (f->long_str || strlen(f->str) >= sizeof s->bind || inet_pton(AF_INET, f->str, &a) != 1)
        add(v, "bind", false, "bind must be an IPv4 address like \"127.0.0.1\" (got \"%.64s\")", f->str);
    else
        snprintf(s->bind, sizeof s->bind, "%s", f->str);
    s->bind_given = true;
}

static void check_field(const qpb_json_field *f, qpb_spec *s, violations *v)
{
    const key_def *k = find_key(f->key);
    if (k == NULL) {
        add(v, f->key, false, "unknown key \"%s\"", f->key);
        return;
    }
    switch (k->kind) {
    case K_BOOL:
        if (f->type != QPB_JSON_BOOL)
            add(v, k->name, false, "%s must be true or false", k->name);
        else
            store(s, k, f->b);
        return;
    case K_STRING:
        if (f->type != QPB_JSON_STRING)
            add(v, k->name, false, "%s must be a string", k->name);
        else
            check_string(f, k, s, v);
        return;
    case K_CHOICE: {
        for (int i = 0; f->type == QPB_JSON_STRING && k->choices[i] != NULL; i++) {
            if (!strcmp(f->str, k->choices[i])) {
                store(s, k, i);
                return;
            }
        }
        char names[160];
        choices_text(k->choices, names, sizeof names);
        if (f->type != QPB_JSON_STRING)
            add(v, k->name, false, "%s must be %s", k->name, names);
        else
            add(v, k->name, false, "%s must be %s (got \"%.64s\")", k->name, names, f->str);
        return;
    }
    case K_UINT:
    case K_BYTES:
    case K_INT:
        if (f->type != QPB_JSON_NUMBER || !f->is_int)
            add(v, k->name, false, "%s must be an integer in %lld..%lld", k->name, (long long)k->min, (long long)k->max);
        else if (f->i64 < k->min || f->i64 > k->max)
            add(v, k->name, false, "%s must be in %lld..%lld (got %lld)", k->name, (long long)k->min, (long long)k->max,
                (long long)f->i64);
        else
            store(s, k, f->i64);
        return;
    }
}

/* interval_ms and the trace: what flows besides the summary. */
static void check_statistics(const qpb_json_object *o, qpb_spec *s, violations *v)
{
    if (s->interval_ms != 0 && s->interval_ms < QPB_MIN_INTERVAL_MS)
        add(v, "interval_ms", false, "interval_ms must be 0 (the summary only) or in %u..%u (got %u)", QPB_MIN_INTERVAL_MS,
            QPB_MAX_INTERVAL_MS, s->interval_ms);
    if (s->interval_ring & (s->interval_ring - 1))
        add(v, "interval_ring", false, "interval_ring must be a power of two (got %u)", s->interval_ring);
    if (qpb_json_get(o, "trace_first") == NULL && qpb_json_get(o, "trace_every") != NULL)
        s->trace_first = QPB_MAX_TRACE / s->threads; /* every K-th cycle, up to the run's bound */
    if ((uint64_t)s->trace_first * s->threads > QPB_MAX_TRACE)
        add(v, "trace_first", false, "trace_first %u x threads %u = %llu trace records > %u per run", s->trace_first, s->threads,
            (unsigned long long)s->trace_first * s->threads, QPB_MAX_TRACE);
}

/* Rules between keys that hold whatever the device. */
static void check_combinations(const qpb_json_object *o, qpb_spec *s, violations *v)
{
    if (s->bidirectional && s->op_kind != QPB_OP_SEND && s->op_kind != QPB_OP_WRITE)
        add(v, "bidirectional", false, "bidirectional: op %s (both sides send at once for op send and write only, as "
            "perftest -b)", QPB_OP_NAMES[s->op_kind]);
    if (s->bidirectional && s->mode == QPB_MODE_LATENCY)
        add(v, "bidirectional", false, "bidirectional: mode latency is a ping-pong already (both sides send in turn); "
            "bidirectional runs are mode bw");
    if (s->bidirectional && s->role == QPB_ROLE_LOOPBACK && qpb_json_get(o, "role") != NULL)
        add(v, "bidirectional", true, "bidirectional: role loopback holds both ends in one process (a bidirectional "
            "run is a client/server pair)");
    if (s->provider_kind == QPB_PROVIDER_TCP) {
        if (s->op_kind != QPB_OP_SEND)
            add(v, "op", true, "op \"%s\" is not supported by provider tcp (only \"send\")", QPB_OP_NAMES[s->op_kind]);
        for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
            const key_def *k = &KEYS[i];
            bool set = qpb_json_get(o, k->name) != NULL;
            bool changed = k->kind == K_STRING ? strcmp(s->device, DEFAULTS.device) != 0
                                               : load(s, k) != load(&DEFAULTS, k);
            if (k->verbs_only && set && changed)
                add(v, k->name, true, "%s applies to provider verbs only", k->name);
        }
        return;
    }
    if (qpb_json_get(o, "tcp_nodelay") != NULL)
        add(v, "tcp_nodelay", false, "tcp_nodelay applies to provider tcp only");
    if (s->bidirectional && (s->transport == QPB_TR_XRC || s->qp_sharing == QPB_QPS_SHARED))
        add(v, "bidirectional", true, "bidirectional: not supported with %s (verbs: rc, uc or ud QPs per thread)",
            s->transport == QPB_TR_XRC ? "transport xrc" : "qp_sharing shared");
    const char *tr = QPB_TRANSPORT_NAMES[s->transport], *op = QPB_OP_NAMES[s->op_kind];
    if (s->op_kind == QPB_OP_READ && (s->transport == QPB_TR_UC || s->transport == QPB_TR_UD))
        add(v, "op", false, "op read: transport %s has no RDMA read (use rc or xrc)", tr);
    if (s->op_kind == QPB_OP_WRITE && s->transport == QPB_TR_UD)
        add(v, "op", false, "op write: transport ud has no RDMA write (use rc, uc or xrc)");
    if (s->transport == QPB_TR_UD && s->msg_size > 4096)
        add(v, "transport", false, "transport ud: message %llu B > 4096 B, the largest path MTU (a UD message is one packet)",
            (unsigned long long)s->msg_size);
    if (s->transport == QPB_TR_UD && s->mtu > 0 && s->msg_size > s->mtu)
        add(v, "transport", false, "transport ud: message %llu B > mtu %u B", (unsigned long long)s->msg_size, s->mtu);
    if (s->srq != QPB_SRQ_NONE && s->op_kind != QPB_OP_SEND)
        add(v, "srq", false, "srq %s: only op send consumes receive requests (got op %s)", QPB_SRQ_NAMES[s->srq], op);
    if (s->transport == QPB_TR_XRC && s->srq == QPB_SRQ_NONE && s->op_kind == QPB_OP_SEND)
        s->srq = QPB_SRQ_PER_THREAD; /* XRC receives only through an XRC SRQ */
    if ((s->op_kind == QPB_OP_READ || qpb_op_atomic(s->op_kind)) && s->inline_size > 0)
        add(v, "inline_size", false, "op %s: inline_size applies to send and write only", op);
    if (qpb_op_atomic(s->op_kind)) {
        if (s->msg_size != 8 && qpb_json_get(o, "msg_size") != NULL)
            add(v, "msg_size", false, "op %s: msg_size must be 8 (an RDMA atomic works on one 8-byte word; got %llu)", op,
                (unsigned long long)s->msg_size);
        if (s->transport != QPB_TR_RC)
            add(v, "transport", false, "op %s: transport %s has no RDMA atomics (rc only)", op, tr);
    }
    if (s->signal_every > s->tx_depth)
        add(v, "signal_every", false, "signal_every %u > tx_depth %u (the send queue would fill with unsignaled requests)",
            s->signal_every, s->tx_depth);
    if (s->post_list > s->tx_depth)
        add(v, "post_list", false, "post_list %u > tx_depth %u (one post would not fit in the send queue)", s->post_list,
            s->tx_depth);
    if (s->qp_sharing == QPB_QPS_SHARED) {
        /* Every thread posts to the same QPs: their completions arrive on one CQ per QP (or one for all)
         * and are told apart by thread, one request each. */
        if (s->op_kind == QPB_OP_SEND)
            add(v, "qp_sharing", false, "qp_sharing shared: only one-sided ops (write, read); a shared QP's receives could not "
                          "be told apart by thread");
        if (s->transport != QPB_TR_RC && s->transport != QPB_TR_UC)
            add(v, "qp_sharing", false, "qp_sharing shared: transport %s (rc or uc only)", tr);
        if (s->signal_every != 1)
            add(v, "qp_sharing", false, "qp_sharing shared needs signal_every 1 (one completion would cover other threads' "
                          "requests)");
        if (s->lock_model == QPB_LOCK_THREAD_DOMAIN)
            add(v, "qp_sharing", false, "qp_sharing shared: a thread domain's QPs belong to one thread (use lock_model shared)");
        if (s->polling == QPB_POLL_EVENT)
            add(v, "qp_sharing", false, "qp_sharing shared: polling event is not supported (use busy)");
        if (qpb_json_get(o, "cq_mode") == NULL)
            s->cq_mode = QPB_CQ_SHARED; /* a shared QP has one send CQ for all its threads */
        else if (s->cq_mode == QPB_CQ_PER_THREAD)
            add(v, "qp_sharing", false, "qp_sharing shared: cq_mode per_thread: a shared QP has one CQ for all threads (use "
                          "per_qp or shared)");
    }
    if (s->rdma_cm && s->transport != QPB_TR_RC)
        add(v, "rdma_cm", false, "rdma_cm: transport %s is not connected through rdma_cm here (rc only, as on iWARP)", tr);
    if (s->mtu != 0 && s->mtu != 256 && s->mtu != 512 && s->mtu != 1024 && s->mtu != 2048 && s->mtu != 4096)
        add(v, "mtu", false, "mtu must be 0 (the port's active MTU), 256, 512, 1024, 2048 or 4096 (got %u)", s->mtu);
}

/* Whether a key is in the spec with a value other than its default. */
static bool changed(const qpb_json_object *o, const qpb_spec *s, const char *name)
{
    const key_def *k = find_key(name);
    return qpb_json_get(o, name) != NULL && load(s, k) != load(&DEFAULTS, k);
}

/*
 * Latency mode is perftest's *_lat: one ping-pong per thread (send and write), or one read in flight,
 * over fixed queues (QPB_LAT_*). The knobs that shape a bandwidth run's window have no meaning there:
 * given at a value other than their default they are refused, not ignored; the session then runs with
 * tx_depth 1 and rx_depth QPB_LAT_RECV_WR, which is what its summary reports.
 */
static void check_latency(const qpb_json_object *o, qpb_spec *s, violations *v)
{
    if (s->mode != QPB_MODE_LATENCY)
        return;
    if (s->qps_per_thread > 1)
        add(v, "qps_per_thread", false,
            "mode latency: qps_per_thread %u > 1 (one ping-pong per thread: use threads for several at once)",
            s->qps_per_thread);
    if (s->verify)
        add(v, "verify", false, "mode latency: verify is not supported (a ping-pong's payload is not checked)");
    const char *window[] = {"tx_depth", "rate_limit"};
    for (size_t i = 0; i < sizeof window / sizeof window[0]; i++)
        if (changed(o, s, window[i]))
            add(v, window[i], false, "mode latency: %s applies to mode bw only (one message in flight per thread, "
                                     "sent as soon as the last one came back)", window[i]);
    if (s->provider_kind == QPB_PROVIDER_VERBS) {
        if (s->transport == QPB_TR_XRC)
            add(v, "transport", false, "mode latency: transport xrc is not supported (rc, uc or ud)");
        const char *queues[] = {"post_list", "signal_every", "rx_depth", "srq", "cq_mode", "qp_sharing"};
        for (size_t i = 0; i < sizeof queues / sizeof queues[0]; i++)
            if (changed(o, s, queues[i]))
                add(v, queues[i], false, "mode latency: %s applies to mode bw only (a latency run's queues are "
                                         "fixed: one CQ and one QP per thread, one request awaited at a time)",
                    queues[i]);
        if (s->polling == QPB_POLL_EVENT)
            add(v, "polling", false, "mode latency: polling event is not supported (busy polling, like perftest's "
                                     "latency tests without -e)");
        if (s->op_kind == QPB_OP_WRITE && s->relaxed_ordering && qpb_json_get(o, "relaxed_ordering") != NULL)
            add(v, "relaxed_ordering", false, "mode latency: op write polls the last byte of its buffer, which "
                                              "relaxed ordering may place before the rest (perftest's ib_write_lat "
                                              "runs with PCIe relax order OFF)");
        if (s->op_kind == QPB_OP_WRITE)
            s->relaxed_ordering = false;
    }
    s->tx_depth = 1;
    s->rx_depth = QPB_LAT_RECV_WR;
}

/* Every check of a spec, in one place: the session's parse and
 * qpb_spec_check both come through here. */
static qpb_status validate(const char *json, qpb_spec *s, violations *v)
{
    *s = DEFAULTS;
    v->count = 0;
    v->unsupported_only = true;

    qpb_json_object o;
    char perr[160];
    if (!qpb_json_parse_flat(json, &o, perr, sizeof perr)) {
        add(v, "spec", false, "spec: %s", perr);
        return QPB_EINVAL;
    }
    for (uint32_t i = 0; i < o.n; i++)
        check_field(&o.fields[i], s, v);
    if (qpb_json_get(&o, "provider") == NULL)
        add(v, "provider", false, "provider is required (\"tcp\" or \"verbs\")");
    if (qpb_json_get(&o, "msg_size") == NULL)
        add(v, "msg_size", false, "msg_size is required (1..%llu bytes)", (unsigned long long)QPB_MAX_MSG_SIZE);
    if (s->iterations == 0 && s->duration_ms == 0 && qpb_json_get(&o, "iterations") != NULL)
        add(v, "iterations", false, "iterations must be > 0 unless duration_ms is set");
    if (s->ring_capacity & (s->ring_capacity - 1))
        add(v, "ring_capacity", false, "ring_capacity must be a power of two (got %u)", s->ring_capacity);
    s->inline_given = qpb_json_get(&o, "inline_size") != NULL;
    s->post_api_given = qpb_json_get(&o, "post_api") != NULL;
    check_statistics(&o, s, v);
    check_combinations(&o, s, v);
    check_latency(&o, s, v);
    snprintf(s->provider, sizeof s->provider, "%s", PROVIDER_NAMES[s->provider_kind]);
    snprintf(s->op, sizeof s->op, "%s", QPB_OP_NAMES[s->op_kind]);
    if (v->count == 0)
        return QPB_OK;
    return v->unsupported_only ? QPB_EUNSUPPORTED : QPB_EINVAL;
}

qpb_status qpb_spec_parse(const char *json, qpb_spec *s, char *err, uint32_t err_len)
{
    violations *v = malloc(sizeof *v);
    if (v == NULL) {
        if (err_len > 0)
            snprintf(err, err_len, "out of memory checking the spec");
        return QPB_ESYS;
    }
    qpb_status st = validate(json, s, v);
    /* the violations' messages joined by "; ", cut short where err ends */
    size_t len = 0;
    if (err_len > 0)
        err[0] = '\0';
    uint32_t listed = v->count < MAX_VIOLATIONS ? v->count : MAX_VIOLATIONS;
    for (uint32_t i = 0; i < listed && len + 1 < err_len; i++) {
        int n = snprintf(err + len, err_len - len, "%s%s", i == 0 ? "" : "; ", v->list[i].message);
        len = n < 0 ? len : len + (size_t)n < err_len ? len + (size_t)n : err_len - 1;
    }
    free(v);
    return st;
}

QPB_EXPORT int32_t qpb_spec_check(const char *spec_json, char *out, uint32_t out_len)
{
    if (out == NULL || out_len == 0)
        return QPB_EINVAL;
    violations *v = malloc(sizeof *v);
    qpb_spec *s = malloc(sizeof *s);
    if (v == NULL || s == NULL) {
        free(v);
        free(s);
        snprintf(out, out_len, "[{\"field\":\"spec\",\"message\":\"out of memory checking the spec\"}]");
        return QPB_ESYS;
    }
    qpb_status st = validate(spec_json, s, v);
    uint32_t listed = v->count < MAX_VIOLATIONS ? v->count : MAX_VIOLATIONS;
    qpb_jw w;
    qpb_jw_init(&w, out, out_len);
    qpb_jw_arr_begin(&w);
    for (uint32_t i = 0; i < listed; i++) {
        qpb_jw_obj_begin(&w);
        qpb_jw_key(&w, "field");
        qpb_jw_str(&w, v->list[i].field);
        qpb_jw_key(&w, "message");
        qpb_jw_str(&w, v->list[i].message);
        qpb_jw_obj_end(&w);
    }
    qpb_jw_arr_end(&w);
    free(v);
    free(s);
    return qpb_jw_ok(&w) ? st : QPB_ENOSPC;
}

/* A string key's default: check_string's two keys. */
static const char *string_default(const key_def *k)
{
    return strcmp(k->name, "device") == 0 ? DEFAULTS.device : DEFAULTS.bind;
}

/* The key's default from DEFAULTS, as JSON; none for an integer whose default is
 * outside its bounds (msg_size: required). */
static void write_default(qpb_jw *w, const key_def *k)
{
    int64_t d = k->kind == K_STRING ? 0 : load(&DEFAULTS, k);
    if ((k->kind == K_UINT || k->kind == K_BYTES || k->kind == K_INT) && (d < k->min || d > k->max))
        return;
    qpb_jw_key(w, "default");
    switch (k->kind) {
    case K_STRING: qpb_jw_str(w, string_default(k)); break;
    case K_BOOL: qpb_jw_bool(w, d != 0); break;
    case K_CHOICE: qpb_jw_str(w, k->choices[d]); break;
    default: qpb_jw_i64(w, d); break;
    }
}

QPB_EXPORT int32_t qpb_spec_schema(char *out, uint32_t out_len)
{
    if (out == NULL || out_len == 0)
        return QPB_EINVAL;
    static const char *const TYPES[] = {
        [K_STRING] = "string", [K_UINT] = "integer", [K_BYTES] = "integer", [K_INT] = "integer",
        [K_BOOL] = "boolean", [K_CHOICE] = "string",
    };
    qpb_jw w;
    qpb_jw_init(&w, out, out_len);
    qpb_jw_arr_begin(&w);
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
        const key_def *k = &KEYS[i];
        qpb_jw_obj_begin(&w);
        qpb_jw_key(&w, "name");
        qpb_jw_str(&w, k->name);
        qpb_jw_key(&w, "type");
        qpb_jw_str(&w, TYPES[k->kind]);
        if (k->kind == K_BYTES) {
            qpb_jw_key(&w, "format");
            qpb_jw_str(&w, "bytes");
        }
        if (k->kind == K_UINT || k->kind == K_BYTES || k->kind == K_INT) {
            qpb_jw_key(&w, "minimum");
            qpb_jw_i64(&w, k->min);
            qpb_jw_key(&w, "maximum");
            qpb_jw_i64(&w, k->max);
        }
        if (k->kind == K_CHOICE) {
            qpb_jw_key(&w, "enum");
            qpb_jw_arr_begin(&w);
            for (const char *const *c = k->choices; *c != NULL; c++)
                qpb_jw_str(&w, *c);
            qpb_jw_arr_end(&w);
        }
        write_default(&w, k);
        qpb_jw_key(&w, "verbs_only");
        qpb_jw_bool(&w, k->verbs_only);
        qpb_jw_obj_end(&w);
    }
    qpb_jw_arr_end(&w);
    return qpb_jw_ok(&w) ? QPB_OK : QPB_ENOSPC;
}
