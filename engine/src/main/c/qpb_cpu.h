/*
 * qpb_cpu.h — what a run cost in CPU: the engine's worker threads
 * (getrusage(RUSAGE_THREAD) at each thread's measured span start and end)
 * and the whole host (/proc/stat at the run's span start and end).
 * The summary's "cpu" key (qpb.h) is written from these.
 */
#ifndef QPB_CPU_H
#define QPB_CPU_H

#include <stdbool.h>
#include <stdint.h>

typedef struct qpb_jw qpb_jw;

/* One worker thread's CPU over its span (ns on the session's clock, CPU time in ns). */
typedef struct qpb_thread_cpu {
    uint64_t begin_ns, end_ns;
    uint64_t user0_ns, sys0_ns; /* the thread's own CPU time at begin_ns ... */
    uint64_t user1_ns, sys1_ns; /* ... and at end_ns */
    bool measured;              /* begin is the first measured cycle's (else the thread's start) */
    bool ended;
} qpb_thread_cpu;

/* The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal ..."), in
 * USER_HZ ticks, and the number of cpuN lines. */
typedef struct qpb_proc_cpu {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
    uint32_t cpus;
    bool ok;
} qpb_proc_cpu;

/* Reads path (/proc/stat, or a test's fake); false (and out->ok false) when it cannot be read or parsed. */
bool qpb_proc_cpu_read(const char *path, qpb_proc_cpu *out);

/* The calling thread's CPU time now, into user/sys (ns); false if getrusage failed. */
bool qpb_thread_cpu_now(uint64_t *user_ns, uint64_t *sys_ns);

/* What the summary reports, from the threads' spans and the host's two readings. */
typedef struct qpb_cpu_figures {
    bool no_engine;       /* no engine thread ran the span (qpb_cost): engine_* are written as null */
    uint32_t threads;     /* threads added (those that ended) */
    uint64_t first_ns, last_ns;
    uint64_t span_ns;     /* earliest begin to latest end over the threads */
    uint64_t user_ns, sys_ns;
    double engine_util_pct; /* (user + sys) / span x 100: above 100 with several busy threads */
    bool host;            /* both /proc/stat readings worked and ticks passed between them */
    uint32_t host_cpus;
    double host_user_pct, host_sys_pct, host_util_pct; /* of all CPUs: 0..100 */
    double perftest_util_pct; /* perftest --cpu_util: user / (user + idle) ticks x 100 */
} qpb_cpu_figures;

/* Start from a zeroed qpb_cpu_figures, add every thread, then finish with the host's two readings
 * (either may be NULL or not ok: the host figures stay unset). */
void qpb_cpu_add_thread(qpb_cpu_figures *f, const qpb_thread_cpu *c);
void qpb_cpu_finish(qpb_cpu_figures *f, const qpb_proc_cpu *before, const qpb_proc_cpu *after);

/* Writes "cpu":{...} (the key too); with no_engine, engine_user_ns, engine_sys_ns and engine_util_pct are null. */
void qpb_cpu_put(qpb_jw *w, const qpb_cpu_figures *f);

#endif /* QPB_CPU_H */
