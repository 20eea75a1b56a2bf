/*
 * qpb_spec.c — the run spec: defaults, parsing, and validation that lists
 * every violation at once (a user fixing a matrix wants all of them, not one
 * per round trip), each with the key's name and its limit.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "qpb_internal.h"
#include "qpb_json.h"

typedef struct violations {
    char *buf;
    uint32_t cap;
    uint32_t len;
    uint32_t count;
    bool unsupported_only; /* every violation so far is "not supported" */
} violations;

static void add(violations *v, bool unsupported, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(violations *v, bool unsupported, const char *fmt, ...)
{
    v->unsupported_only = (v->count == 0 || v->unsupported_only) && unsupported;
    v->count++;
    if (v->cap == 0)
        return;
    if (v->len > 0 && v->len + 2 < v->cap) {
        memcpy(v->buf + v->len, "; ", 3);
        v->len += 2;
    }
    if (v->len >= v->cap - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->buf + v->len, v->cap - v->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        v->len = v->len + (uint32_t)n < v->cap ? v->len + (uint32_t)n : v->cap - 1;
}

const char *qpb_role_name(qpb_role role)
{
    switch (role) {
    case QPB_ROLE_CLIENT: return "client";
    case QPB_ROLE_SERVER: return "server";
    default: return "loopback";
    }
}

enum kind { K_STRING, K_UINT, K_BOOL };

typedef struct key_def {
    const char *name;
    enum kind kind;
    uint64_t min, max; /* K_UINT */
} key_def;

static const key_def KEYS[] = {
    {"provider", K_STRING, 0, 0},
    {"role", K_STRING, 0, 0},
    {"op", K_STRING, 0, 0},
    {"threads", K_UINT, 1, QPB_MAX_THREADS},
    {"qps_per_thread", K_UINT, 1, QPB_MAX_QPS},
    {"msg_size", K_UINT, 1, QPB_MAX_MSG_SIZE},
    {"iterations", K_UINT, 0, 1ull << 40},
    {"duration_ms", K_UINT, 0, QPB_MAX_DURATION_MS},
    {"warmup_cycles", K_UINT, 0, 1ull << 40},
    {"tx_depth", K_UINT, 1, QPB_MAX_DEPTH},
    {"ring_capacity", K_UINT, 1, QPB_MAX_RING},
    {"verify", K_BOOL, 0, 0},
    {"tcp_nodelay", K_BOOL, 0, 0},
    {"bind", K_STRING, 0, 0},
    {"port", K_UINT, 0, 65535},
};

static const key_def *find_key(const char *name)
{
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(KEYS[i].name, name) == 0)
            return &KEYS[i];
    return NULL;
}

static void set_uint(qpb_spec *s, const char *name, uint64_t v)
{
    if (!strcmp(name, "threads")) s->threads = (uint32_t)v;
    else if (!strcmp(name, "qps_per_thread")) s->qps_per_thread = (uint32_t)v;
    else if (!strcmp(name, "msg_size")) s->msg_size = v;
    else if (!strcmp(name, "iterations")) s->iterations = v;
    else if (!strcmp(name, "duration_ms")) s->duration_ms = v;
    else if (!strcmp(name, "warmup_cycles")) s->warmup_cycles = v;
    else if (!strcmp(name, "tx_depth")) s->tx_depth = (uint32_t)v;
    else if (!strcmp(name, "ring_capacity")) s->ring_capacity = (uint32_t)v;
    else if (!strcmp(name, "port")) s->port = (uint32_t)v;
}

static void check_field(const qpb_json_field *f, qpb_spec *s, violations *v)
{
    const key_def *k = find_key(f->key);
    if (k == NULL) {
        add(v, false, "unknown key \"%s\"", f->key);
        return;
    }
    switch (k->kind) {
    case K_BOOL:
        if (f->type != QPB_JSON_BOOL)
            add(v, false, "%s must be true or false", k->name);
        else if (!strcmp(k->name, "verify"))
            s->verify = f->b;
        else
            s->tcp_nodelay = f->b;
        return;
    case K_STRING:
        if (f->type != QPB_JSON_STRING) {
            add(v, false, "%s must be a string", k->name);
            return;
        }
        if (!strcmp(k->name, "provider")) {
            snprintf(s->provider, sizeof s->provider, "%s", f->str);
            if (!strcmp(f->str, "verbs"))
                add(v, true, "provider \"verbs\" is not built into this engine (v0 has \"tcp\")");
            else if (strcmp(f->str, "tcp") != 0)
                add(v, false, "provider must be \"tcp\" or \"verbs\" (got \"%s\")", f->str);
        } else if (!strcmp(k->name, "role")) {
            if (!strcmp(f->str, "loopback")) s->role = QPB_ROLE_LOOPBACK;
            else if (!strcmp(f->str, "client")) s->role = QPB_ROLE_CLIENT;
            else if (!strcmp(f->str, "server")) s->role = QPB_ROLE_SERVER;
            else add(v, false, "role must be \"loopback\", \"client\" or \"server\" (got \"%s\")", f->str);
        } else if (!strcmp(k->name, "op")) {
            snprintf(s->op, sizeof s->op, "%s", f->str);
            if (!strcmp(f->str, "write") || !strcmp(f->str, "read"))
                add(v, true, "op \"%s\" is not supported by provider tcp (only \"send\")", f->str);
            else if (strcmp(f->str, "send") != 0)
                add(v, false, "op must be \"send\", \"write\" or \"read\" (got \"%s\")", f->str);
        } else {
            struct in_addr a;
            if (strlen(f->str) >= sizeof s->bind || inet_pton(AF_INET, f->str, &a) != 1)
                add(v, false, "bind must be an IPv4 address like \"127.0.0.1\" (got \"%s\")", f->str);
            else
                snprintf(s->bind, sizeof s->bind, "%s", f->str);
        }
        return;
    case K_UINT:
        if (f->type != QPB_JSON_NUMBER || !f->is_int) {
            add(v, false, "%s must be an integer in %llu..%llu", k->name, (unsigned long long)k->min,
                (unsigned long long)k->max);
        } else if (f->i64 < 0 || (uint64_t)f->i64 < k->min || (uint64_t)f->i64 > k->max) {
            add(v, false, "%s must be in %llu..%llu (got %lld)", k->name, (unsigned long long)k->min,
                (unsigned long long)k->max, (long long)f->i64);
        } else {
            set_uint(s, k->name, (uint64_t)f->i64);
        }
        return;
    }
}

qpb_status qpb_spec_parse(const char *json, qpb_spec *s, char *err, uint32_t err_len)
{
    static const qpb_spec defaults = {
        .provider = "", .role = QPB_ROLE_LOOPBACK, .op = "send", .threads = 1,
        .qps_per_thread = 1, .msg_size = 0, .iterations = 1000, .duration_ms = 0,
        .warmup_cycles = 0, .tx_depth = 128, .ring_capacity = 65536, .verify = false,
        .tcp_nodelay = true, .bind = "127.0.0.1", .port = 0,
    };
    violations v = {err, err_len, 0, 0, true};
    if (err_len > 0)
        err[0] = '\0';
    *s = defaults;

    qpb_json_object o;
    char perr[160];
    if (!qpb_json_parse_flat(json, &o, perr, sizeof perr)) {
        add(&v, false, "spec: %s", perr);
        return QPB_EINVAL;
    }
    for (uint32_t i = 0; i < o.n; i++)
        check_field(&o.fields[i], s, &v);
    if (qpb_json_get(&o, "provider") == NULL)
        add(&v, false, "provider is required (\"tcp\")");
    if (qpb_json_get(&o, "msg_size") == NULL)
        add(&v, false, "msg_size is required (1..%llu bytes)", (unsigned long long)QPB_MAX_MSG_SIZE);
    if (s->iterations == 0 && s->duration_ms == 0 && qpb_json_get(&o, "iterations") != NULL)
        add(&v, false, "iterations must be > 0 unless duration_ms is set");
    if (s->ring_capacity & (s->ring_capacity - 1))
        add(&v, false, "ring_capacity must be a power of two (got %u)", s->ring_capacity);
    if (v.count == 0)
        return QPB_OK;
    return v.unsupported_only ? QPB_EUNSUPPORTED : QPB_EINVAL;
}
