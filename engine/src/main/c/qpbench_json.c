/*
 * qpbench_json.c — the CLI's side of the engine's JSON (see qpbench.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpb_json.h"
#include "qpbench.h"

static void put_str(qpb_jw *w, const char *key, const char *value)
{
    qpb_jw_key(w, key);
    qpb_jw_str(w, value);
}

static void put_u(qpb_jw *w, const char *key, uint64_t value)
{
    qpb_jw_key(w, key);
    qpb_jw_u64(w, value);
}

static void put_i(qpb_jw *w, const char *key, int64_t value)
{
    qpb_jw_key(w, key);
    qpb_jw_i64(w, value);
}

static void put_b(qpb_jw *w, const char *key, bool value)
{
    qpb_jw_key(w, key);
    qpb_jw_bool(w, value);
}

/* Cycles per second per thread that --rate_limit asks for (the engine paces cycles of one message per QP). */
static bool rate_cycles(const options *o, uint64_t size, uint64_t *out, char *why, size_t why_len)
{
    double bytes_per_cycle = (double)size * o->qps;
    double cycles = o->rate_unit == 'p'   ? o->rate / o->qps
                    : o->rate_unit == 'M' ? o->rate * MEGA_BYTE / bytes_per_cycle
                                          : o->rate * GIGA_BIT / bytes_per_cycle;
    if (cycles > 1e9) {
        snprintf(why, why_len,
                 "--rate_limit %g%s at %llu B x %u QPs is %.3g cycles/s per thread, more than the engine paces (1e9)",
                 o->rate, o->rate_unit == 'p' ? " messages/s" : o->rate_unit == 'M' ? " MiB/s" : " Gb/s",
                 (unsigned long long)size, o->qps, cycles);
        return false;
    }
    *out = (uint64_t)(cycles < 1.0 ? 1.0 : cycles + 0.5);
    return true;
}

static void write_spec(qpb_jw *w, const options *o, uint64_t size, const char *role, uint64_t rate)
{
    bool verbs = strcmp(o->provider, "verbs") == 0;
    qpb_jw_obj_begin(w);
    put_str(w, "provider", o->provider);
    put_str(w, "role", role);
    put_u(w, "threads", o->threads);
    put_u(w, "qps_per_thread", o->qps);
    put_u(w, "msg_size", size);
    put_u(w, "iterations", o->duration_s > 0 ? 1 : o->iterations);
    put_u(w, "duration_ms", (uint64_t)(o->duration_s * 1000.0));
    put_u(w, "warmup_cycles", o->warmup);
    put_u(w, "tx_depth", o->depth);
    if (o->latency)
        put_str(w, "mode", "latency");
    put_b(w, "verify", o->verify);
    put_str(w, "bind", o->bind ? o->bind : strcmp(role, "server") == 0 ? "0.0.0.0" : "127.0.0.1");
    put_u(w, "interval_ms", o->interval_ms); /* 0 without --interval: the summary only */
    if (verbs) {
        put_str(w, "op", o->op);
        put_str(w, "device", o->device);
        put_i(w, "ib_port", o->ib_port);
        put_i(w, "gid_index", o->gid_index);
        put_str(w, "transport", o->transport);
        put_str(w, "srq", o->srq);
        if (!o->latency || o->inline_given)
            put_u(w, "inline_size", o->inline_size);
        put_u(w, "signal_every", o->signal_every);
        put_u(w, "post_list", o->post_list);
        put_u(w, "rx_depth", o->rx_depth);
        put_str(w, "mr_mode", o->mr_mode);
        put_str(w, "polling", o->events ? "event" : "busy");
        put_str(w, "lock_model", o->lock_model);
        put_u(w, "mtu", o->mtu);
        put_b(w, "rdma_cm", o->rdma_cm);
        put_str(w, "qp_sharing", o->qp_sharing);
        if (o->post_api != NULL) /* else the engine's default: wr where perftest would use it */
            put_str(w, "post_api", o->post_api);
        if (o->target_wait != NULL)
            put_str(w, "target_wait", o->target_wait);
        if (o->cq_mode != NULL) /* else the engine's default for the run */
            put_str(w, "cq_mode", o->cq_mode);
    } else if (strcmp(o->op, "send") != 0) {
        put_str(w, "op", o->op);
    }
    /* verbs knobs, also for tcp: the engine refuses them there with the reason */
    if (o->no_relaxed)
        put_b(w, "relaxed_ordering", false);
    if (o->hugepages)
        put_str(w, "buffers", "hugepages");
    if (o->odp)
        put_b(w, "odp", true);
    if (o->rate > 0)
        put_u(w, "rate_limit", rate);
    if (o->bidirectional)
        put_b(w, "bidirectional", true);
    qpb_jw_obj_end(w);
}

char *qpbench_spec(const options *o, uint64_t size, const char *role, char *why, size_t why_len)
{
    uint64_t rate = 0;
    if (o->rate > 0 && !rate_cycles(o, size, &rate, why, why_len))
        return NULL;
    qpb_jw w;
    qpb_jw_init(&w, NULL, 0); /* measures */
    write_spec(&w, o, size, role, rate);
    size_t len = w.len + 1;
    char *spec = malloc(len);
    if (spec == NULL) {
        snprintf(why, why_len, "out of memory for a %zu-byte spec", len);
        return NULL;
    }
    qpb_jw_init(&w, spec, len);
    write_spec(&w, o, size, role, rate);
    return spec;
}

static void write_endpoint(qpb_jw *w, const qpb_json_object *o, const char *host)
{
    qpb_jw_obj_begin(w);
    for (uint32_t i = 0; i < o->n; i++) {
        if (strcmp(o->fields[i].key, "host") == 0) {
            qpb_jw_key(w, "host");
            qpb_jw_str(w, host);
        } else {
            qpb_jw_field(w, &o->fields[i]);
        }
    }
    qpb_jw_obj_end(w);
}

char *qpbench_peer_endpoint(const char *blob, const char *host, char *why, size_t why_len)
{
    qpb_json_object *o = malloc(sizeof(*o));
    if (o == NULL) {
        snprintf(why, why_len, "out of memory for the server's endpoint");
        return NULL;
    }
    char err[160];
    const qpb_json_field *h = qpb_json_parse_flat(blob, o, err, sizeof err) ? qpb_json_get(o, "host") : NULL;
    char *out;
    if (h == NULL || h->type != QPB_JSON_STRING || strcmp(h->str, "0.0.0.0") != 0) {
        out = strdup(blob); /* as the server wrote it: if it is not an endpoint, qpb_connect says why */
    } else {
        qpb_jw w;
        qpb_jw_init(&w, NULL, 0); /* measures */
        write_endpoint(&w, o, host);
        size_t len = w.len + 1;
        if ((out = malloc(len)) != NULL) {
            qpb_jw_init(&w, out, len);
            write_endpoint(&w, o, host);
        }
    }
    free(o);
    if (out == NULL)
        snprintf(why, why_len, "out of memory for the server's %zu-byte endpoint", strlen(blob));
    return out;
}

double qpbench_num(const char *summary, const char *path)
{
    qpb_json_field f;
    char err[160];
    return qpb_json_find(summary, path, &f, err, sizeof err) == 1 && f.type == QPB_JSON_NUMBER ? f.num : 0.0;
}

const char *qpbench_str(const char *summary, const char *path, char *out, size_t len)
{
    qpb_json_field f;
    char err[160];
    bool found = qpb_json_find(summary, path, &f, err, sizeof err) == 1 && f.type == QPB_JSON_STRING;
    snprintf(out, len, "%s", found ? f.str : "");
    return out;
}

bool qpbench_bool(const char *summary, const char *path)
{
    qpb_json_field f;
    char err[160];
    return qpb_json_find(summary, path, &f, err, sizeof err) == 1 && f.type == QPB_JSON_BOOL && f.b;
}

bool qpbench_summary_ok(const char *summary, char *why, size_t why_len)
{
    qpb_json_field f;
    return qpb_json_find(summary, "", &f, why, why_len) >= 0;
}

/* Reads the JSON string at *p (at its opening quote) into out, escapes of \" and \\ undone (the engine
 * writes counter names and warnings, plain text); *p moves past the closing quote. */
static bool read_string(const char **p, char *out, size_t len)
{
    if (**p != '"')
        return false;
    size_t n = 0;
    for ((*p)++; **p != '\0' && **p != '"'; (*p)++) {
        if (**p == '\\' && (*p)[1] != '\0')
            (*p)++;
        if (n + 1 < len)
            out[n++] = **p;
    }
    out[n] = '\0';
    if (**p != '"')
        return false;
    (*p)++;
    return true;
}

int qpbench_counter_deltas(const char *summary, void (*fn)(const char *name, long long delta, void *arg), void *arg)
{
    const char *c = strstr(summary, "\"counters\":{");
    const char *p = c != NULL ? strstr(c, "\"deltas\":{") : NULL;
    if (p == NULL)
        return 0;
    p += strlen("\"deltas\":{");
    int n = 0;
    char name[160];
    while (*p == '"' && read_string(&p, name, sizeof name) && *p == ':') {
        char *end;
        long long v = strtoll(p + 1, &end, 10);
        if (end == p + 1)
            break;
        fn(name, v, arg);
        n++;
        p = end;
        if (*p == ',')
            p++;
    }
    return n;
}

int qpbench_warnings(const char *summary, void (*fn)(const char *warning, void *arg), void *arg)
{
    const char *p = strstr(summary, "\"warnings\":[");
    if (p == NULL)
        return 0;
    p += strlen("\"warnings\":[");
    int n = 0;
    char msg[256];
    while (*p == '"' && read_string(&p, msg, sizeof msg)) {
        fn(msg, arg);
        n++;
        if (*p == ',')
            p++;
    }
    return n;
}
