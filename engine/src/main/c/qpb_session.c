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

#include "qpb_counters.h"
#include "qpb_json.h"
#include "qpb_record.h"

qpb_status qpb_fail(qpb_session *s, qpb_status status, const char *fmt, ...)
{
    /* Formatted into a local first: the lock is held for the copy only, and an argument may be s->err itself. */
    char msg[QPB_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&s->lock);
    memcpy(s->err, msg, strlen(msg) + 1);
    pthread_mutex_unlock(&s->lock);
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

static uint64_t interval_ns(const qpb_session *s)
{
    return (uint64_t)s->spec.interval_ms * 1000000ull;
}

/* Closes the open interval into the thread's ring; false (and it stays open) when the ring has no room
 * for its record: the drain fell behind, and no cycle may be lost, so the interval grows instead. */
static bool close_interval(qpb_sender_out *out)
{
    uint64_t room = qpb_bytes_ring_room(&out->intervals);
    if (room < qpb_stats_record_bound(&out->stats) && room < qpb_stats_record_bytes(&out->stats)) {
        out->late++;
        return false;
    }
    uint32_t len = qpb_stats_close(&out->stats, out->thread, interval_ns(out->s), out->scratch);
    if (len > 0)
        qpb_bytes_ring_put(&out->intervals, out->scratch, len);
    return true;
}

/* Closes the open interval if the cycle ends past it, and opens the next one at the cycle. */
static void roll(qpb_sender_out *out, uint64_t cycle, uint64_t start_ns, uint64_t end_ns)
{
    uint64_t every = interval_ns(out->s);
    if (every == 0) { /* the summary only: one interval for the whole run */
        qpb_stats_open(&out->stats, 0, UINT64_MAX, cycle, start_ns);
        return;
    }
    uint64_t index = end_ns / every;
    if (out->stats.iv.open && !close_interval(out)) {
        out->stats.iv.boundary_ns = (index + 1) * every; /* try again at the next boundary */
        return;
    }
    qpb_stats_open(&out->stats, index, (index + 1) * every, cycle, start_ns);
}

static void trace_keep(qpb_sender_out *out, uint64_t cycle, uint64_t start_ns, uint64_t end_ns, uint64_t errors)
{
    qpb_trace_record rec = {
        .thread = out->thread, .errors = (uint32_t)errors, .cycle = cycle, .start_ns = start_ns, .end_ns = end_ns,
        .bytes = out->stats.cycle_bytes, .messages = out->stats.cycle_messages,
    };
    out->traced += qpb_ring_push(&out->ring, &rec);
    out->trace_next = --out->trace_left > 0 ? cycle + out->trace_every : UINT64_MAX;
}

void qpb_record_slow(qpb_sender_out *out, uint64_t cycle, uint64_t start_ns, uint64_t end_ns, uint64_t errors)
{
    if (cycle == 0 && !out->cpu.measured) /* a provider that did not mark its first measured post */
        qpb_cpu_begin(out->s, &out->cpu, true);
    if (end_ns >= out->stats.iv.boundary_ns)
        roll(out, cycle, start_ns, end_ns);
    if (cycle == out->trace_next)
        trace_keep(out, cycle, start_ns, end_ns, errors);
}

void qpb_interval_tick_slow(qpb_sender_out *out, uint64_t now_ns)
{
    if (!close_interval(out))
        out->stats.iv.boundary_ns = (now_ns / interval_ns(out->s) + 1) * interval_ns(out->s);
    out->stats.end_seen = UINT64_MAX; /* the next cycle opens an interval, whatever its end */
}

void qpb_interval_finish(qpb_sender_out *out)
{
    if (interval_ns(out->s) == 0) {
        qpb_stats_close(&out->stats, out->thread, 0, NULL);
    } else if (out->stats.iv.open && !close_interval(out)) {
        /* the ring is full and the thread ends: its last record waits in scratch for the drain */
        uint32_t len = qpb_stats_close(&out->stats, out->thread, interval_ns(out->s), out->scratch);
        atomic_store_explicit(&out->pending, len, memory_order_release);
    }
}

static void free_outputs(qpb_session *s)
{
    for (uint32_t i = 0; s->senders != NULL && i < s->spec.threads; i++) {
        qpb_ring_free(&s->senders[i].ring);
        qpb_bytes_ring_free(&s->senders[i].intervals);
        qpb_stats_free(&s->senders[i].stats);
        free(s->senders[i].scratch);
    }
    free(s->senders);
    free(s->receivers);
    s->senders = NULL;
    s->receivers = NULL;
}

static qpb_status alloc_outputs(qpb_session *s)
{
    const qpb_spec *sp = &s->spec;
    uint32_t t = sp->threads;
    /* bidirectional: both sides of the pair send and receive */
    if (sp->role != QPB_ROLE_SERVER || sp->bidirectional) {
        s->senders = calloc(t, sizeof(qpb_sender_out));
        if (s->senders == NULL)
            return QPB_ESYS;
        for (uint32_t i = 0; i < t; i++) {
            qpb_sender_out *out = &s->senders[i];
            out->s = s;
            out->thread = i;
            out->trace_every = sp->trace_every;
            out->trace_left = sp->trace_first;
            out->trace_next = sp->trace_first > 0 ? 0 : UINT64_MAX;
            atomic_init(&out->pending, 0);
            uint32_t trace_slots = sp->trace_first > 0 ? sp->ring_capacity : 1;
            if (!qpb_ring_init(&out->ring, trace_slots) ||
                !qpb_stats_init(&out->stats, sp->msg_size * sp->qps_per_thread, sp->qps_per_thread))
                return QPB_ESYS;
            if (sp->interval_ms > 0 && (!qpb_bytes_ring_init(&out->intervals, sp->interval_ring) ||
                                        (out->scratch = malloc(QPB_INTERVAL_MAX_BYTES)) == NULL))
                return QPB_ESYS;
        }
    }
    if (sp->role != QPB_ROLE_CLIENT || sp->bidirectional) {
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
    if (s->spec.bidirectional && s->spec.role == QPB_ROLE_LOOPBACK) {
        snprintf(err, err_len, "bidirectional: role loopback holds both ends in one process (a bidirectional run is "
                               "a client/server pair: role client or server)");
        free(s);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC_RAW, &s->t0);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    s->t0_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
    atomic_init(&s->stop, 0);
    atomic_init(&s->abort, 0);
    atomic_init(&s->host_begun, 0);
    atomic_init(&s->workers_running, 0);
    s->proc_stat_path = "/proc/stat";
    s->proc_snmp_path = "/proc/net/snmp";
    s->sysfs_ib_root = "/sys/class/infiniband";
    s->proc_nr_hugepages_path = "/proc/sys/vm/nr_hugepages";
    s->proc_meminfo_path = "/proc/meminfo";
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->ended, &ca);
    pthread_condattr_destroy(&ca);

    if (alloc_outputs(s) != QPB_OK) {
        snprintf(err, err_len, "out of memory for the statistics and rings of %u threads (qpb_session_create)",
                 s->spec.threads);
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
    bool then_receiver; /* a sender that reaped its receiver's completions goes on as that receiver (receives_in_sender) */
} worker_arg;

static void *worker_main(void *p)
{
    worker_arg a = *(worker_arg *)p;
    free(p);
    char name[16]; /* what top -H and perf show: qpb-send-0, qpb-recv-3 */
    snprintf(name, sizeof name, "qpb-%s-%u", a.sender ? "send" : "recv", a.index);
    pthread_setname_np(pthread_self(), name);
    qpb_thread_cpu *cpu = a.sender ? &a.s->senders[a.index].cpu : &a.s->receivers[a.index].cpu;
    qpb_cpu_begin(a.s, cpu, !a.sender); /* a sender's measured span begins at its first cycle after the warm-up */
    if (a.sender) {
        a.s->provider->run_sender(a.s, a.index);
        qpb_interval_finish(&a.s->senders[a.index]);
        if (a.then_receiver) /* its cycles are done: the receiver's end of run (the peer's FIN, the totals) */
            a.s->provider->run_receiver(a.s, a.index);
    } else
        a.s->provider->run_receiver(a.s, a.index);
    qpb_cpu_end(a.s, cpu);
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
    /* receivers whose reaping a sender's loop does (verbs bidirectional send) get no thread */
    bool merged = s->provider->receives_in_sender != NULL && s->provider->receives_in_sender(s);
    uint32_t rx = s->receivers != NULL && !merged ? t : 0;
    uint32_t want = (s->senders ? t : 0) + rx;
    s->threads = calloc(want, sizeof(pthread_t));
    if (s->threads == NULL)
        return qpb_fail(s, QPB_ESYS, "qpb_start: out of memory for %u threads", want);
    s->state = QPB_ST_RUNNING;
    s->live = want;
    s->counters_before = qpb_counters_take(s);
    atomic_store(&s->workers_running, want);
    for (uint32_t k = 0; k < want; k++) {
        worker_arg *a = malloc(sizeof(*a));
        int rc = a == NULL ? ENOMEM : 0;
        if (a != NULL) {
            /* Receivers first so data meets a reader as early as possible. */
            a->s = s;
            a->sender = k >= rx;
            a->index = k >= rx ? k - rx : k;
            a->then_receiver = a->sender && merged && s->receivers != NULL;
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
            if (atomic_fetch_sub(&s->workers_running, want - k) == want - k)
                qpb_host_run_ended(s);
            s->n_threads = k;
            join_all(s);
            s->state = QPB_ST_ENDED;
            return qpb_fail(s, QPB_ESYS, "%s", s->run_err);
        }
        s->n_threads = k + 1;
    }
    return QPB_OK;
}

QPB_EXPORT int32_t qpb_drain(qpb_session *s, qpb_trace_record *out, int32_t max)
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

QPB_EXPORT int32_t qpb_drain_intervals(qpb_session *s, void *buf, uint32_t buf_len)
{
    if (s == NULL)
        return -QPB_EINVAL;
    if (buf == NULL || buf_len < QPB_INTERVAL_MAX_BYTES)
        return -qpb_fail(s, QPB_ENOSPC, "qpb_drain_intervals: buf is NULL or shorter than QPB_INTERVAL_MAX_BYTES (%u)",
                         (unsigned)QPB_INTERVAL_MAX_BYTES);
    if (s->state < QPB_ST_RUNNING)
        return -qpb_fail(s, QPB_ESTATE, "qpb_drain_intervals: the session was not started");
    if (s->senders == NULL || s->spec.interval_ms == 0)
        return 0;
    uint32_t t = s->spec.threads, moved = 0;
    for (uint32_t k = 0; k < t; k++) {
        qpb_sender_out *out = &s->senders[(s->interval_drain_next + k) % t];
        moved += qpb_bytes_ring_take(&out->intervals, (char *)buf + moved, buf_len - moved);
        uint32_t pending = atomic_load_explicit(&out->pending, memory_order_acquire);
        if (pending > 0 && qpb_bytes_ring_room(&out->intervals) == s->spec.interval_ring && pending <= buf_len - moved) {
            memcpy((char *)buf + moved, out->scratch, pending); /* after the ring's records: its last */
            moved += pending;
            atomic_store_explicit(&out->pending, 0, memory_order_relaxed);
        }
    }
    s->interval_drain_next = (s->interval_drain_next + 1) % t;
    return (int32_t)moved;
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
    free(s->counters_before);
    free(s->counters_after);
    pthread_cond_destroy(&s->ended);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

QPB_EXPORT int32_t qpb_engine_info(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    char why[384] = "";
    bool verbs = qpb_verbs_loadable(why, sizeof why);
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

QPB_EXPORT int32_t qpb_trace_record_layout(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    int n = snprintf(buf, buf_len,
                     "{\"size\":%zu,\"thread\":%zu,\"errors\":%zu,\"cycle\":%zu,\"start_ns\":%zu,"
                     "\"end_ns\":%zu,\"bytes\":%zu,\"messages\":%zu}",
                     sizeof(qpb_trace_record), offsetof(qpb_trace_record, thread),
                     offsetof(qpb_trace_record, errors), offsetof(qpb_trace_record, cycle),
                     offsetof(qpb_trace_record, start_ns), offsetof(qpb_trace_record, end_ns),
                     offsetof(qpb_trace_record, bytes), offsetof(qpb_trace_record, messages));
    return n >= 0 && (uint32_t)n < buf_len ? QPB_OK : QPB_ENOSPC;
}

QPB_EXPORT int32_t qpb_interval_layout(char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    int n = snprintf(buf, buf_len,
                     "{\"size\":%zu,\"bucket_size\":%zu,\"max_bytes\":%u,\"size_field\":%zu,\"thread\":%zu,"
                     "\"index\":%zu,\"span\":%zu,\"buckets\":%zu,\"cycles\":%zu,\"messages\":%zu,\"bytes\":%zu,"
                     "\"errors\":%zu,\"min_ns\":%zu,\"max_ns\":%zu,\"first_start_ns\":%zu,\"last_end_ns\":%zu,"
                     "\"bucket\":%zu,\"count\":%zu}",
                     sizeof(qpb_interval), sizeof(qpb_interval_bucket), (unsigned)QPB_INTERVAL_MAX_BYTES,
                     offsetof(qpb_interval, size), offsetof(qpb_interval, thread), offsetof(qpb_interval, index),
                     offsetof(qpb_interval, span), offsetof(qpb_interval, buckets), offsetof(qpb_interval, cycles),
                     offsetof(qpb_interval, messages), offsetof(qpb_interval, bytes), offsetof(qpb_interval, errors),
                     offsetof(qpb_interval, min_ns), offsetof(qpb_interval, max_ns),
                     offsetof(qpb_interval, first_start_ns), offsetof(qpb_interval, last_end_ns),
                     offsetof(qpb_interval_bucket, bucket), offsetof(qpb_interval_bucket, count));
    return n >= 0 && (uint32_t)n < buf_len ? QPB_OK : QPB_ENOSPC;
}

_Static_assert(sizeof(qpb_trace_record) == 48, "qpb_trace_record is 48 bytes: the Java binding relies on it");
