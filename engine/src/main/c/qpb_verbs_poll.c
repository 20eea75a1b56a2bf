/*
 * qpb_verbs_poll.c — reaping a thread's completions, for the sending and the
 * receiving side alike: every CQ the thread reads from, as its cq_mode says
 * (a shared CQ by one poller at a time), and with polling event, sleeping on
 * the completion channel until one has a completion.
 */
#include <poll.h>
#include <sched.h>
#include <time.h>

#include "qpb_verbs.h"

#define EVENT_WAIT_MS 10

/* Polls one CQ; returns completions processed, -1 when ibv_poll_cq failed. */
static int poll_one(qpb_session *s, qpb_vside *side, struct ibv_cq *cq, struct ibv_wc *wc,
                    void (*on)(qpb_session *, qpb_vside *, const struct ibv_wc *, uint64_t))
{
    int n = ibv_poll_cq(cq, QPB_VERBS_POLL_BATCH, wc);
    if (n < 0) {
        qpb_run_fail(s, QPB_ESYS, "ibv_poll_cq on %s: failed (%d)", s->verbs->caps.name, n);
        return -1;
    }
    if (n == 0)
        return 0;
    uint64_t now = qpb_now_ns(s);
    for (int i = 0; i < n; i++)
        on(s, side, &wc[i], now);
    return n;
}

/* Polls every CQ a thread reads from. */
int qpb_verbs_poll_thread(qpb_session *s, qpb_vside *side, qpb_vthread *th, struct ibv_wc *wc,
                       void (*on)(qpb_session *, qpb_vside *, const struct ibv_wc *, uint64_t))
{
    const qpb_spec *sp = &s->spec;
    if (sp->cq_mode == QPB_CQ_PER_THREAD)
        return poll_one(s, side, th->cq, wc, on);
    if (sp->cq_mode == QPB_CQ_SHARED) {
        if (pthread_mutex_trylock(&side->shared_cq_lock) != 0)
            return 0;
        int n = poll_one(s, side, side->shared_cq, wc, on);
        pthread_mutex_unlock(&side->shared_cq_lock);
        return n;
    }
    int total = 0;
    for (uint32_t i = 0; i < sp->qps_per_thread; i++) {
        int n = poll_one(s, side, th->conns[i].cq, wc, on);
        if (n < 0)
            return -1;
        total += n;
    }
    return total;
}

/* Event polling: arm the thread's CQs and sleep until one has a completion
 * (or timeout_ns passed, at most EVENT_WAIT_MS). Completions that raced the
 * arming are found by the next poll. */
bool qpb_verbs_wait_event(qpb_session *s, qpb_vside *side, qpb_vthread *th, uint64_t timeout_ns)
{
    const qpb_spec *sp = &s->spec;
    const qpb_ibv *v = s->verbs->v;
    struct ibv_comp_channel *ch = sp->cq_mode == QPB_CQ_SHARED ? side->shared_channel : th->channel;
    if (sp->cq_mode == QPB_CQ_SHARED && pthread_mutex_trylock(&side->shared_cq_lock) != 0) {
        sched_yield();
        return true;
    }
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    if (timeout_ns > EVENT_WAIT_MS * 1000000ull)
        timeout_ns = EVENT_WAIT_MS * 1000000ull;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)timeout_ns};
    bool ok = true;
    if (ppoll(&p, 1, &ts, NULL) > 0) {
        struct ibv_cq *cq;
        void *ctx;
        while (v->get_cq_event(ch, &cq, &ctx) == 0) {
            v->ack_cq_events(cq, 1);
            if (ibv_req_notify_cq(cq, 0) != 0) {
                qpb_run_fail(s, QPB_ESYS, "ibv_req_notify_cq on %s failed", s->verbs->caps.name);
                ok = false;
                break;
            }
        }
    }
    if (sp->cq_mode == QPB_CQ_SHARED)
        pthread_mutex_unlock(&side->shared_cq_lock);
    return ok;
}
