/*
 * qpbench_output.c — what qpbench prints: perftest's header and tables (the
 * bandwidth table of ib_send_bw, and of *_lat exactly, so that what parses
 * perftest parses this), each size's CPU, counters and warnings, and the
 * intervals of --interval as they close.
 */
#include <stdio.h>
#include <string.h>

#include "qpb.h"
#include "qpb_json.h"
#include "qpbench.h"

#define QPB_LAT_SIGNAL_EVERY 8 /* the engine's latency mode signals every 8th request (QPB_LAT_SIGNAL) */
#define LINE "---------------------------------------------------------------------------------------\n"
/* perftest's latency table (perftest_parameters.h: RESULT_FMT_LAT, REPORT_FMT_LAT) */
#define RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99" \
                       "% percentile[usec]   99.9% percentile[usec] "
#define REPORT_FMT_LAT " %-7llu %llu          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"

/* perftest's header, once the first run said what it ran on. */
void qpbench_print_header(const options *o, const char *role, const char *sum)
{
    static const char *titles[][2] = {{"send", "Send"}, {"write", "RDMA_Write"}, {"read", "RDMA_Read"},
                                      {"atomic_fadd", "Atomic FETCH_AND_ADD"},
                                      {"atomic_cswap", "Atomic CMP_AND_SWAP"}};
    const char *title = "Send";
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (!strcmp(o->op, titles[i][0]))
            title = titles[i][1];
    char v[64];
    printf(LINE);
    if (o->latency) { /* the title alone on its line, as perftest prints it (parsers key on it) */
        printf("                    %s Latency Test\n", title);
        printf(" Tool            : qpbench, provider %s\n", o->provider);
    } else {
        printf("                    %s BW Test (qpbench, provider %s)\n", title, o->provider);
    }
    printf(" Role            : %s\n", role);
    printf(" Threads         : %-8u Connections per thread : %u\n", o->threads, o->qps);
    printf(" TX depth        : %-8.0f Warm-up cycles         : %llu\n", qpbench_num(sum, "tx_depth"),
           (unsigned long long)o->warmup);
    if (!strcmp(o->provider, "verbs")) {
        char t[16];
        bool iwarp = !strcmp(qpbench_str(sum, "device_transport", t, sizeof t), "iwarp");
        printf(" Device          : %-8s Transport type         : %s\n", qpbench_str(sum, "device", v, sizeof v),
               iwarp ? "IW" : "IB"); /* perftest's: IB for InfiniBand and RoCE, IW for iWARP */
        snprintf(t, sizeof t, "%s", o->transport);
        for (char *p = t; *p; p++)
            *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        printf(" Connection type : %-8s Using SRQ              : %s\n", t, strcmp(o->srq, "none") ? o->srq : "OFF");
        printf(" PCIe relax order: %s\n", qpbench_bool(sum, "relaxed_ordering") ? "ON" : "OFF");
        printf(" ibv_wr* API     : %s\n", !strcmp(qpbench_str(sum, "post_api", v, sizeof v), "wr") ? "ON" : "OFF");
        if (!strcmp(qpbench_str(sum, "buffers", v, sizeof v), "hugepages"))
            printf(" Using hugepages : ON\n");
        printf(" RX depth        : %-8.0f CQ Moderation          : %u\n", qpbench_num(sum, "rx_depth"),
               o->latency ? QPB_LAT_SIGNAL_EVERY : o->signal_every);
        printf(" Post List       : %-8u Max inline data        : %.0f[B]\n", o->post_list,
               qpbench_num(sum, "inline_size"));
        printf(" Mtu             : %.0f[B]\n", qpbench_num(sum, "path_mtu"));
        printf(" Link type       : %s\n", qpbench_str(sum, "link_layer", v, sizeof v));
        printf(" GID index       : %.0f\n", qpbench_num(sum, "gid_index"));
        printf(" CQ mode         : %-8s Polling                : %s\n", qpbench_str(sum, "cq_mode", v, sizeof v),
               o->events ? "event" : "busy");
        if (!strcmp(qpbench_str(sum, "target_wait", v, sizeof v), "spin"))
            printf(" QP sharing      : %-8s Target wait            : spin\n", o->qp_sharing);
        else
            printf(" QP sharing      : %s\n", o->qp_sharing);
        printf(" Lock model      : %-8s rdma_cm QPs            : %s\n", o->lock_model, o->rdma_cm ? "ON" : "OFF");
    }
    if (o->duration_s > 0)
        printf(" Duration        : %.3g s\n", o->duration_s);
    printf(" Verify          : %-8s Bidirectional          : %s\n", o->verify ? "on" : "off",
           o->bidirectional ? "on" : "off");
    if (o->rate > 0)
        printf(" Rate limit      : %g %s per thread (software pacing)\n", o->rate,
               o->rate_unit == 'p' ? "messages/s per QP" : o->rate_unit == 'M' ? "MiB/s" : "Gb/s");
    printf(LINE);
    if (o->latency && o->server)
        printf(" server: answers the client's ping-pongs; the client measures\n");
    else if (o->latency)
        fputs(RESULT_FMT_LAT "\n", stdout);
    else
        printf(o->gbits ? " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
                        : " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
    fflush(stdout);
}

static void print_delta(const char *name, long long delta, void *arg)
{
    if (delta != 0)
        fprintf(arg, "   %-40s %+lld\n", name, delta);
}

static void print_warning(const char *warning, void *arg)
{
    fprintf(arg, " WARNING: %s\n", warning);
}

/* The run's CPU, its counters that moved (when asked) and its warnings (always), to out. */
static void print_cost(FILE *out, const options *o, const char *sum)
{
    if (o->cpu_util) {
        fprintf(out, " cpu: engine %.1f %% of one CPU (user %.3f s, sys %.3f s over %.3f s)",
               qpbench_num(sum, "cpu.engine_util_pct"), qpbench_num(sum, "cpu.engine_user_ns") / 1e9,
               qpbench_num(sum, "cpu.engine_sys_ns") / 1e9, qpbench_num(sum, "cpu.span_ns") / 1e9);
        qpb_json_field f;
        char err[160];
        if (qpb_json_find(sum, "cpu.host_util_pct", &f, err, sizeof err) == 1)
            fprintf(out, "; host %.1f %% of %.0f CPUs (user %.1f %%, sys %.1f %%), CPU_Util[%%] %.2f\n", f.num,
                   qpbench_num(sum, "cpu.host_cpus"), qpbench_num(sum, "cpu.host_user_pct"),
                   qpbench_num(sum, "cpu.host_sys_pct"), qpbench_num(sum, "cpu.perftest_util_pct"));
        else
            fprintf(out, "; host: not measured (/proc/stat unreadable or the run shorter than a tick)\n");
    }
    if (o->counters) {
        char src[64], dev[64];
        qpbench_str(sum, "counters.source", src, sizeof src);
        qpbench_str(sum, "counters.device", dev, sizeof dev);
        if (src[0] == '\0')
            fprintf(out, " counters: none read\n");
        else if (dev[0] != '\0')
            fprintf(out, " counters that moved (%s, %s port %.0f):\n", src, dev, qpbench_num(sum, "counters.port"));
        else
            fprintf(out, " counters that moved (%s, host-wide):\n", src);
        qpbench_counter_deltas(sum, print_delta, out);
        char err[256];
        if (qpbench_str(sum, "counters.error", err, sizeof err)[0] != '\0')
            fprintf(out, "   (%s)\n", err);
    }
    qpbench_warnings(sum, print_warning, out);
}

static void count_warning(const char *warning, void *arg)
{
    (void)warning;
    (*(int *)arg)++;
}

/* One row of perftest's latency table; nothing else between the header and the closing line (the run's CPU,
 * counters and warnings go to stderr, each after the size it is about). */
void qpbench_print_latency(const options *o, const char *sum)
{
    char v[64];
    if (strcmp(qpbench_str(sum, "side", v, sizeof v), "receiver") == 0) {
        if (strcmp(qpbench_str(sum, "op", v, sizeof v), "read") == 0)
            printf(" %-7llu passive: the client reads this side's buffer\n",
                   (unsigned long long)qpbench_num(sum, "msg_size"));
        else
            printf(" %-7llu answered %.0f messages\n", (unsigned long long)qpbench_num(sum, "msg_size"),
                   qpbench_num(sum, "messages"));
    } else {
        printf(REPORT_FMT_LAT "\n", (unsigned long long)qpbench_num(sum, "msg_size"),
               (unsigned long long)qpbench_num(sum, "iterations"), qpbench_num(sum, "latency_us.min"),
               qpbench_num(sum, "latency_us.max"), qpbench_num(sum, "latency_us.typical"),
               qpbench_num(sum, "latency_us.avg"), qpbench_num(sum, "latency_us.stdev"),
               qpbench_num(sum, "latency_us.p99"), qpbench_num(sum, "latency_us.p999"));
    }
    fflush(stdout);
    int warnings = 0;
    qpbench_warnings(sum, count_warning, &warnings);
    if (o->cpu_util || o->counters || warnings > 0) {
        fprintf(stderr, " #bytes %llu:\n", (unsigned long long)qpbench_num(sum, "msg_size"));
        print_cost(stderr, o, sum);
    }
}

void qpbench_print_result(const options *o, const char *sum)
{
    double unit = o->gbits ? GIGA_BIT : MEGA_BYTE;
    char v[64];
    printf(" %-7llu    %-10llu       %-7.2lf            %-7.2lf\t\t   %-7.6lf\n",
           (unsigned long long)qpbench_num(sum, "msg_size"), (unsigned long long)qpbench_num(sum, "iterations"),
           qpbench_num(sum, "bw_peak_bps") / unit, qpbench_num(sum, "bw_avg_bps") / unit,
           qpbench_num(sum, "msg_rate") / 1e6);
    if (strcmp(qpbench_str(sum, "side", v, sizeof v), "receiver") == 0) {
        printf(" received %.0f bytes, %.0f messages, %.0f errors (receiver side: no cycle times)\n",
               qpbench_num(sum, "bytes"), qpbench_num(sum, "messages"), qpbench_num(sum, "errors"));
    } else {
        printf(" cycle[usec]: min %.2f median %.2f avg %.2f stdev %.2f p99 %.2f p99.9 %.2f max %.2f"
               "  errors %.0f dropped %.0f\n",
               qpbench_num(sum, "cycle_ns.min") / 1e3, qpbench_num(sum, "cycle_ns.median") / 1e3,
               qpbench_num(sum, "cycle_ns.avg") / 1e3, qpbench_num(sum, "cycle_ns.stdev") / 1e3,
               qpbench_num(sum, "cycle_ns.p99") / 1e3, qpbench_num(sum, "cycle_ns.p999") / 1e3,
               qpbench_num(sum, "cycle_ns.max") / 1e3, qpbench_num(sum, "errors"), qpbench_num(sum, "dropped"));
        if (o->bidirectional)
            printf(" received from the peer: %.0f bytes, %.0f messages, %.0f errors\n", qpbench_num(sum, "received.bytes"),
                   qpbench_num(sum, "received.messages"), qpbench_num(sum, "received.errors"));
        char loop[16];
        if (o->bidirectional && qpbench_str(sum, "bidirectional_loop", loop, sizeof loop)[0] != '\0')
            printf(" bidirectional loop: %s (%.0f worker threads: %s)\n", loop, qpbench_num(sum, "worker_threads"),
                   strcmp(loop, "one") == 0 ? "each sender also reaps its receives, as perftest's run_iter_bi"
                                            : "a sender and a receiver per thread");
        if (strcmp(qpbench_str(sum, "provider", v, sizeof v), "verbs") == 0)
            printf(" window full: %.1f %% of the time (tx depth %.0f in flight, waiting for a completion)\n",
                   100.0 * qpbench_num(sum, "window_full_share"), qpbench_num(sum, "tx_depth"));
    }
    print_cost(stdout, o, sum);
    fflush(stdout);
}

/* The value in the middle of histogram bucket b (qpb.h's layout). */
static double bucket_mid_ns(uint32_t b)
{
    if (b < 256)
        return b;
    uint32_t shift = b / 128 - 1;
    return ((double)(b - shift * 128) + 0.5) * (double)(1ull << shift);
}

static double interval_percentile(const qpb_interval *iv, const qpb_interval_bucket *pairs, double p)
{
    uint64_t rank = (uint64_t)(p * (double)iv->cycles + 0.999999), seen = 0;
    for (uint32_t k = 0; k < iv->buckets; k++) {
        seen += pairs[k].count;
        if (seen >= rank) {
            double v = bucket_mid_ns(pairs[k].bucket);
            return v < (double)iv->min_ns ? (double)iv->min_ns : v > (double)iv->max_ns ? (double)iv->max_ns : v;
        }
    }
    return (double)iv->max_ns;
}

/* Prints the interval records in buf (n bytes), one line each. */
void qpbench_print_intervals(const options *o, const uint8_t *buf, int32_t n)
{
    for (int32_t at = 0; at < n;) {
        qpb_interval iv;
        memcpy(&iv, buf + at, sizeof iv);
        const qpb_interval_bucket *pairs = (const qpb_interval_bucket *)(buf + at + sizeof iv);
        double from = (double)iv.index * o->interval_ms / 1e3, to = from + (double)iv.span * o->interval_ms / 1e3;
        double span_ns = iv.last_end_ns > iv.first_start_ns ? (double)(iv.last_end_ns - iv.first_start_ns) : 0;
        double bw = span_ns > 0 ? (double)iv.bytes * 1e9 / span_ns : 0;
        printf(" [thread %u] %7.3f-%-7.3f s %10llu cycles  BW %10.2f %s  cycle[usec] p50 %.2f p99 %.2f p99.9 %.2f "
               "max %.2f\n",
               iv.thread, from, to, (unsigned long long)iv.cycles, o->gbits ? bw / GIGA_BIT : bw / MEGA_BYTE,
               o->gbits ? "Gb/sec" : "MB/sec", interval_percentile(&iv, pairs, 0.5) / 1e3,
               interval_percentile(&iv, pairs, 0.99) / 1e3, interval_percentile(&iv, pairs, 0.999) / 1e3,
               (double)iv.max_ns / 1e3);
        at += (int32_t)iv.size;
    }
    fflush(stdout);
}

void qpbench_print_footer(void)
{
    printf(LINE);
}
