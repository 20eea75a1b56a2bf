/*
 * qpb_cpu.c — the CPU a run cost (qpb_cpu.h), and when the session takes
 * its readings: every worker thread reads its own getrusage(RUSAGE_THREAD)
 * when its measured span begins (a sender: as it posts its first cycle after
 * the warm-up; a receiver: as it starts) and as it ends; the first thread to
 * begin a measured span reads /proc/stat, and the last one to end reads it
 * again together with the counters after the run (qpb_counters.c).
 *
 * perftest's --cpu_util reads the first line of /proc/stat when its duration
 * run enters the sample state and when it leaves it, and reports
 * user / (user + idle) ticks x 100 (perftest_resources.c calc_cpu_util). The
 * summary reports that figure as perftest_util_pct, and next to it the
 * usual host figures over every tick: util = (total - idle - iowait) / total,
 * user = (user + nice) / total, sys = (system + irq + softirq) / total, where
 * total excludes guest (already counted in user).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "qpb_counters.h"
#include "qpb_cpu.h"
#include "qpb_internal.h"
#include "qpb_json.h"

bool qpb_proc_cpu_read(const char *path, qpb_proc_cpu *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    char line[512];
    bool first = true, ok = false;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "cpu", 3) != 0)
            break; /* the cpu lines come first */
        if (first) {
            first = false;
            uint64_t v[8] = {0};
            int n = sscanf(line, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                                 " %" SCNu64 " %" SCNu64,
                           &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
            if (n < 4) /* user nice system idle: every kernel has them */
                break;
            out->user = v[0], out->nice = v[1], out->system = v[2], out->idle = v[3];
            out->iowait = v[4], out->irq = v[5], out->softirq = v[6], out->steal = v[7];
            ok = true;
        } else if (line[3] >= '0' && line[3] <= '9') {
            out->cpus++;
        }
    }
    fclose(f);
    out->ok = ok;
    return ok;
}

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

bool qpb_thread_cpu_now(uint64_t *user_ns, uint64_t *sys_ns)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        *user_ns = *sys_ns = 0;
        return false;
    }
    *user_ns = tv_ns(ru.ru_utime);
    *sys_ns = tv_ns(ru.ru_stime);
    return true;
}

static uint64_t since(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

void qpb_cpu_add_thread(qpb_cpu_figures *f, const qpb_thread_cpu *c)
{
    if (!c->ended)
        return;
    if (f->threads == 0 || c->begin_ns < f->first_ns)
        f->first_ns = c->begin_ns;
    if (c->end_ns > f->last_ns)
        f->last_ns = c->end_ns;
    f->threads++;
    f->user_ns += since(c->user0_ns, c->user1_ns);
    f->sys_ns += since(c->sys0_ns, c->sys1_ns);
}

void qpb_cpu_finish(qpb_cpu_figures *f, const qpb_proc_cpu *before, const qpb_proc_cpu *after)
{
    f->span_ns = f->threads ? since(f->first_ns, f->last_ns) : 0;
    f->engine_util_pct = f->span_ns ? (double)(f->user_ns + f->sys_ns) * 100.0 / (double)f->span_ns : 0.0;
    if (before == NULL || after == NULL || !before->ok || !after->ok)
        return;
    uint64_t user = since(before->user, after->user) + since(before->nice, after->nice);
    uint64_t sys = since(before->system, after->system) + since(before->irq, after->irq) +
                   since(before->softirq, after->softirq);
    uint64_t idle = since(before->idle, after->idle) + since(before->iowait, after->iowait);
    uint64_t total = user + sys + idle + since(before->steal, after->steal);
    f->host_cpus = after->cpus;
    if (total == 0)
        return; /* under one tick (10 ms of one CPU): too short to say */
    f->host = true;
    f->host_user_pct = (double)user * 100.0 / (double)total;
    f->host_sys_pct = (double)sys * 100.0 / (double)total;
    f->host_util_pct = (double)(total - idle) * 100.0 / (double)total;
    uint64_t pu = since(before->user, after->user), pi = since(before->idle, after->idle);
    f->perftest_util_pct = pu + pi ? (double)pu * 100.0 / (double)(pu + pi) : 0.0;
}

static void put_pct(qpb_jw *w, const char *key, bool have, double v)
{
    qpb_jw_key(w, key);
    if (have)
        qpb_jw_dbl(w, v);
    else
        qpb_jw_null(w);
}

void qpb_cpu_put(qpb_jw *w, const qpb_cpu_figures *f)
{
    qpb_jw_key(w, "cpu");
    qpb_jw_obj_begin(w);
    qpb_jw_key(w, "span_ns");
    qpb_jw_u64(w, f->span_ns);
    qpb_jw_key(w, "engine_user_ns");
    if (f->no_engine)
        qpb_jw_null(w);
    else
        qpb_jw_u64(w, f->user_ns);
    qpb_jw_key(w, "engine_sys_ns");
    if (f->no_engine)
        qpb_jw_null(w);
    else
        qpb_jw_u64(w, f->sys_ns);
    put_pct(w, "engine_util_pct", !f->no_engine && f->span_ns > 0, f->engine_util_pct);
    qpb_jw_key(w, "host_cpus");
    qpb_jw_u64(w, f->host_cpus);
    put_pct(w, "host_user_pct", f->host, f->host_user_pct);
    put_pct(w, "host_sys_pct", f->host, f->host_sys_pct);
    put_pct(w, "host_util_pct", f->host, f->host_util_pct);
    put_pct(w, "perftest_util_pct", f->host, f->perftest_util_pct);
    qpb_jw_obj_end(w);
}

/* ---- the session's readings ---- */

void qpb_cpu_begin(qpb_session *s, qpb_thread_cpu *c, bool measured)
{
    c->begin_ns = qpb_now_ns(s);
    qpb_thread_cpu_now(&c->user0_ns, &c->sys0_ns);
    c->measured = measured;
    if (measured && atomic_exchange(&s->host_begun, 1) == 0)
        qpb_proc_cpu_read(s->proc_stat_path, &s->host_before);
}

void qpb_cpu_end(qpb_session *s, qpb_thread_cpu *c)
{
    qpb_thread_cpu_now(&c->user1_ns, &c->sys1_ns);
    c->end_ns = qpb_now_ns(s);
    c->ended = true;
    if (atomic_fetch_sub(&s->workers_running, 1) == 1)
        qpb_host_run_ended(s);
}

void qpb_host_run_ended(qpb_session *s)
{
    if (atomic_load(&s->host_begun))
        qpb_proc_cpu_read(s->proc_stat_path, &s->host_after);
    s->counters_after = qpb_counters_take(s);
}

void qpb_cpu_summary(qpb_session *s, qpb_jw *w)
{
    qpb_cpu_figures f = {0};
    for (uint32_t i = 0; s->senders != NULL && i < s->spec.threads; i++)
        qpb_cpu_add_thread(&f, &s->senders[i].cpu);
    for (uint32_t i = 0; s->receivers != NULL && i < s->spec.threads; i++)
        qpb_cpu_add_thread(&f, &s->receivers[i].cpu);
    qpb_cpu_finish(&f, &s->host_before, &s->host_after);
    qpb_cpu_put(w, &f);
}
