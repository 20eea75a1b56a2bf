/*
 * qpb_session.c — the public API: session lifecycle, worker threads, record
 * draining and the summary. Providers (qpb_tcp*.c) only move bytes and call
 * qpb_record_cycle; everything a caller sees is decided here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpb_ibv.h"
#include "qpb_internal.h"
#include "qpb_json.h"

qpb_status qpb_fail(qpb_session *s, qpb_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return status;
}

void qpb_run_fail(qpb_session *s, qpb_status status, const char *fmt, ...)
{
    pthread_mutex_lock(&s->lock);
    if (s->run_status == QPB_OK) {
        s->run_status = status;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->run_err, sizeof s->run_err, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&s->lock);
    atomic_store(&s->abort, 1);
}

void qpb_record_cycle(qpb_session *s, uint32_t thread, const qpb_sample *sample)
{
    qpb_sender_out *out = &s->senders[thread];
    qpb_stats_add(&out->stats, sample);
    if (s->spec.records)
        qpb_ring_push(&out->ring, sample);
}

static void free_outputs(qpb_session *s)
{
    for (uint32_t i = 0; s->senders != NULL && i < s->spec.threads; i++) {
        qpb_ring_free(&s->senders[i].ring);
        qpb_stats_free(&s->senders[i].stats);
    }
    free(s->senders);
    free(s->receivers);
    s->senders = NULL;
    s->receivers = NULL;
}

static qpb_status alloc_outputs(qpb_session *s)
{
    uint32_t t = s->spec.threads;
    if (s->spec.role != QPB_ROLE_SERVER) {
        s->senders = calloc(t, sizeof(qpb_sender_out));
        if (s->senders == NULL)
            return QPB_ESYS;
        for (uint32_t i = 0; i < t; i++) {
            if (!qpb_ring_init(&s->senders[i].ring, s->spec.records ? s->spec.ring_capacity : 1) ||
                !qpb_stats_init(&s->senders[i].stats))
                return QPB_ESYS;
        }
    }
    if (s->spec.role != QPB_ROLE_CLIENT) {
        s->receivers = calloc(t, sizeof(qpb_receiver_out));
        if (s->receivers == NULL)
            return QPB_ESYS;
    }
    return QPB_OK;
}

QPB_EXPORT qpb_session *qpb_session_create(const char *spec_json, char *err, uint32_t err_len)
{
    char local_err[QPB_ERR_LEN];
    if (err == NULL || err_len == 0) {
        err = local_err;
        err_len = sizeof local_err;
    }
    err[0] = '\0';
    qpb_session *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        snprintf(err, err_len, "out of memory allocating the session (qpb_session_create)");
        return NULL;
    }
    if (qpb_spec_parse(spec_json, &s->spec, err, err_len) != QPB_OK) {
        free(s);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC_RAW, &s->t0);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    s->t0_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
    atomic_init(&s->stop, 0);
    atomic_init(&s->abort, 0);
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->ended, &ca);
    pthread_condattr_destroy(&ca);

    if (alloc_outputs(s) != QPB_OK) {
        snprintf(err, err_len, "out of memory for %u rings of %u records (qpb_session_create)",
                 s->spec.threads, s->spec.ring_capacity);
        qpb_session_destroy(s);
        return NULL;
    }
    s->provider = s->spec.provider_kind == QPB_PROVIDER_VERBS ? &qpb_verbs_provider : &qpb_tcp_provider;
    if (s->provider->create(s) != QPB_OK) {
        snprintf(err, err_len, "%s", s->err);
        qpb_session_destroy(s);
        return NULL;
    }
    return s;
}

QPB_EXPORT int32_t qpb_local_endpoint(qpb_session *s, char *buf, uint32_t buf_len)
{
    if (s == NULL)
        return QPB_EINVAL;
    if (buf == NULL)
        return qpb_fail(s, QPB_EINVAL, "qpb_local_endpoint: buf is NULL");
    return s->provider->local_endpoint(s, buf, buf_len);
}

QPB_EXPORT int32_t qpb_connect(qpb_session *s, const char *peer_endpoint_json)
{
    if (s == NULL)
        return QPB_EINVAL;
    if (s->state != QPB_ST_CREATED)
        return qpb_fail(s, QPB_ESTATE, "qpb_connect: the session is already connected or running");
    if (s->spec.role == QPB_ROLE_LOOPBACK)
        return qpb_fail(s, QPB_ESTATE, "qpb_connect: a loopback session connects itself in qpb_start");
    if (peer_endpoint_json == NULL)
        return qpb_fail(s, QPB_EINVAL, "qpb_connect: the peer endpoint is NULL (role %s needs the peer's blob)",
                        qpb_role_name(s->spec.role));
    qpb_status st = s->provider->connect(s, peer_endpoint_json);
    if (st == QPB_OK)
        s->state = QPB_ST_CONNECTED;
    return st;
}

typedef struct worker_arg {
    qpb_session *s;
    uint32_t index;
    bool sender;
} worker_arg;

static void *worker_main(void *p)
{
    worker_arg a = *(worker_arg *)p;
    free(p);
    char name[16]; /* what top -H and perf show: qpb-send-0, qpb-recv-3 */
    snprintf(name, sizeof name, "qpb-%s-%u", a.sender ? "send" : "recv", a.index);
    pthread_setname_np(pthread_self(), name);
    if (a.sender)
        a.s->provider->run_sender(a.s, a.index);
    else
        a.s->provider->run_receiver(a.s, a.index);
    pthread_mutex_lock(&a.s->lock);
    if (--a.s->live == 0)
        pthread_cond_broadcast(&a.s->ended);
    pthread_mutex_unlock(&a.s->lock);
    return NULL;
}

static void join_all(qpb_session *s)
{
    if (s->joined)
        return;
    for (uint32_t i = 0; i < s->n_threads; i++)
        pthread_join(s->threads[i], NULL);
    s->joined = true;
}

QPB_EXPORT int32_t qpb_start(qpb_session *s)
{
    if (s == NULL)
        return QPB_EINVAL;
    if (s->state == QPB_ST_CREATED && s->spec.role == QPB_ROLE_LOOPBACK) {
        qpb_status st = s->provider->connect(s, NULL);
        if (st != QPB_OK)
            return st;
        s->state = QPB_ST_CONNECTED;
    }
    if (s->state != QPB_ST_CONNECTED)
        return qpb_fail(s, QPB_ESTATE, s->state == QPB_ST_CREATED
                                           ? "qpb_start: call qpb_connect with the peer's endpoint first"
                                           : "qpb_start: the session was already started");
    uint32_t t = s->spec.threads;
    uint32_t want = (s->senders ? t : 0) + (s->receivers ? t : 0);
    s->threads = calloc(want, sizeof(pthread_t));
    if (s->threads == NULL)
        return qpb_fail(s, QPB_ESYS, "qpb_start: out of memory for %u threads", want);
    s->state = QPB_ST_RUNNING;
    s->live = want;
    for (uint32_t k = 0; k < want; k++) {
        worker_arg *a = malloc(sizeof(*a));
        int rc = a == NULL ? ENOMEM : 0;
        if (a != NULL) {
            /* Receivers first so data meets a reader as early as possible. */
            a->s = s;
            a->sender = s->receivers == NULL || k >= t;
            a->index = s->receivers != NULL && k >= t ? k - t : k;
            rc = pthread_create(&s->threads[k], NULL, worker_main, a);
            if (rc != 0)
                free(a);
        }
        if (rc != 0) {
            qpb_run_fail(s, QPB_ESYS, "pthread_create of worker %u of %u: %s (qpb_start, errno %d)", k, want,
                         strerror(rc), rc);
            pthread_mutex_lock(&s->lock);
            s->live -= want - k;
            pthread_mutex_unlock(&s->lock);
            s->n_threads = k;
            join_all(s);
            s->state = QPB_ST_ENDED;
            return qpb_fail(s, QPB_ESYS, "%s", s->run_err);
        }
        s->n_threads = k + 1;
    }
    return QPB_OK;
}

QPB_EXPORT int32_t qpb_drain(qpb_session *s, qpb_sample *out, int32_t max)
{
    if (s == NULL)
        return -QPB_EINVAL;
    if (out == NULL || max < 0)
        return -qpb_fail(s, QPB_EINVAL, "qpb_drain: out is NULL or max < 0");
    if (s->state < QPB_ST_RUNNING || s->senders == NULL)
        return s->state < QPB_ST_RUNNING ? -qpb_fail(s, QPB_ESTATE, "qpb_drain: the session was not started") : 0;
    uint32_t t = s->spec.threads, got = 0;
    /* Round-robin over the rings so one busy thread cannot starve the
     * others' rings into dropping. */
    for (uint32_t k = 0; k < t && got < (uint32_t)max; k++) {
        uint32_t i = (s->drain_next + k) % t;
        got += qpb_ring_pop(&s->senders[i].ring, out + got, (uint32_t)max - got);
    }
    s->drain_next = (s->drain_next + 1) % t;
    return (int32_t)got;
}

QPB_EXPORT int32_t qpb_wait(qpb_session *s, int32_t timeout_ms)
{
    if (s == NULL)
        return QPB_EINVAL;
    if (s->state < QPB_ST_RUNNING)
        return qpb_fail(s, QPB_ESTATE, "qpb_wait: the session was not started");
    if (s->state == QPB_ST_RUNNING) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        if (timeout_ms > 0) {
            until.tv_sec += timeout_ms / 1000;
            until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
        }
        pthread_mutex_lock(&s->lock);
        while (s->live > 0) {
            if (timeout_ms < 0)
                pthread_cond_wait(&s->ended, &s->lock);
            else if (timeout_ms == 0 || pthread_cond_timedwait(&s->ended, &s->lock, &until) == ETIMEDOUT)
                break;
        }
        bool done = s->live == 0;
        pthread_mutex_unlock(&s->lock);
        if (!done)
            return QPB_ETIMEOUT;
        join_all(s);
        s->state = QPB_ST_ENDED;
    }
    if (s->run_status != QPB_OK)
        qpb_fail(s, s->run_status, "%s", s->run_err);
    return QPB_OK;
}

QPB_EXPORT int32_t qpb_stop(qpb_session *s)
{
    if (s == NULL)
        return QPB_EINVAL;
    if (s->state < QPB_ST_RUNNING)
        return qpb_fail(s, QPB_ESTATE, "qpb_stop: the session was not started");
    atomic_store(&s->stop, 1);
    return QPB_OK;
}

QPB_EXPORT const char *qpb_last_error(qpb_session *s)
{
    return s == NULL ? "session is NULL" : s->err;
}

QPB_EXPORT void qpb_session_destroy(qpb_session *s)
{
    if (s == NULL)
        return;
    if (s->state == QPB_ST_RUNNING) {
        atomic_store(&s->abort, 1);
        join_all(s);
    }
    if (s->provider != NULL)
        s->provider->destroy(s);
    free_outputs(s);
    free(s->threads);
    pthread_cond_destroy(&s->ended);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

QPB_EXPORT int32_t qpb_engine_info(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    char why[384] = "";
    bool verbs = qpb_ibv_get(why, sizeof why) != NULL;
    qpb_jw w;
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "abi");
    qpb_jw_u64(&w, QPB_ABI_VERSION);
    qpb_jw_key(&w, "version");
    qpb_jw_str(&w, QPB_VERSION);
    qpb_jw_key(&w, "providers");
    qpb_jw_arr_begin(&w);
    qpb_jw_str(&w, "tcp");
    if (verbs)
        qpb_jw_str(&w, "verbs");
    qpb_jw_arr_end(&w);
    if (!verbs) {
        qpb_jw_key(&w, "verbs_unavailable");
        qpb_jw_str(&w, why);
    }
    qpb_jw_obj_end(&w);
    return qpb_jw_ok(&w) ? QPB_OK : QPB_ENOSPC;
}

QPB_EXPORT int32_t qpb_sample_layout(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    int n = snprintf(buf, buf_len,
                     "{\"size\":%zu,\"thread\":%zu,\"errors\":%zu,\"cycle\":%zu,\"start_ns\":%zu,"
                     "\"end_ns\":%zu,\"bytes\":%zu,\"messages\":%zu}",
                     sizeof(qpb_sample), offsetof(qpb_sample, thread), offsetof(qpb_sample, errors),
                     offsetof(qpb_sample, cycle), offsetof(qpb_sample, start_ns), offsetof(qpb_sample, end_ns),
                     offsetof(qpb_sample, bytes), offsetof(qpb_sample, messages));
    return n >= 0 && (uint32_t)n < buf_len ? QPB_OK : QPB_ENOSPC;
}

_Static_assert(sizeof(qpb_sample) == 48, "qpb_sample is 48 bytes: the Java binding relies on it");
