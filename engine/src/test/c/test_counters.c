/*
 * test_counters.c — the summary's "cpu", "counters" and "warnings" keys:
 * counters read from a fake sysfs tree and a fake /proc/net/snmp (their
 * deltas, the unreadable ones, the warnings), host CPU from a fake
 * /proc/stat, and a real loopback tcp run whose summary carries all three.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qpb_counters.h"
#include "qpb_cpu.h"
#include "qpb_internal.h"
#include "qpb_json.h"
#include "qpb_test.h"

static void write_file(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    qpb_test_vwrite(path, fmt, ap);
    va_end(ap);
}

/* A fake /sys/class/infiniband/rxe0/ports/1 under a fresh temporary root; root receives its path. */
static void fake_sysfs(char *root, size_t len)
{
    snprintf(root, len, "/tmp/qpb-counters-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    char p[512];
    const char *dirs[] = {"rxe0", "rxe0/ports", "rxe0/ports/1", "rxe0/ports/1/hw_counters", "rxe0/ports/1/counters"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        CHECK(mkdir(p, 0755) == 0);
    }
}

static void set_counter(const char *root, const char *file, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/rxe0/ports/1/%s", root, file);
    write_file(p, "%s", text);
}

static void remove_tree(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

static void put(const qpb_counters *before, const qpb_counters *after, char *buf, size_t len)
{
    qpb_jw w;
    qpb_jw_init(&w, buf, len);
    qpb_jw_obj_begin(&w);
    qpb_counters_put(&w, before, after);
    qpb_jw_obj_end(&w);
    CHECK(qpb_jw_ok(&w));
}

static double num_at(const char *json, const char *path)
{
    qpb_json_field f;
    char err[128];
    return qpb_json_find(json, path, &f, err, sizeof err) == 1 && f.type == QPB_JSON_NUMBER ? f.num : -1.0;
}

static void sysfs_deltas_and_warnings(void)
{
    char root[64];
    fake_sysfs(root, sizeof root);
    set_counter(root, "hw_counters/sent_pkts", "1000\n");
    set_counter(root, "hw_counters/rcvd_seq_err", "3\n");
    set_counter(root, "hw_counters/retry_exceeded_err", "0\n");
    set_counter(root, "hw_counters/lifespan", "10\n");
    set_counter(root, "hw_counters/garbled", "n/a\n");
    set_counter(root, "counters/port_rcv_errors", "7\n");
    qpb_counters *before = qpb_counters_read_sysfs(root, "rxe0", 1);
    set_counter(root, "hw_counters/sent_pkts", "1500\n");
    set_counter(root, "hw_counters/rcvd_seq_err", "15\n");
    set_counter(root, "counters/port_rcv_errors", "7\n");
    qpb_counters *after = qpb_counters_read_sysfs(root, "rxe0", 1);
    CHECK(before != NULL && after != NULL);
    if (before == NULL || after == NULL)
        return;
    CHECKF(before->n == 5, "%u counters (lifespan is a setting, not a counter)", before->n);
    CHECKF(before->error[0] == '\0', "error %s", before->error);

    char buf[8192];
    put(before, after, buf, sizeof buf);
    CHECK(strstr(buf, "\"source\":\"sysfs\",\"device\":\"rxe0\",\"port\":1") != NULL);
    CHECK(strstr(buf, "\"hw_counters/sent_pkts\":500") != NULL);
    CHECK(strstr(buf, "\"hw_counters/rcvd_seq_err\":12") != NULL);
    CHECK(strstr(buf, "\"hw_counters/retry_exceeded_err\":0") != NULL);
    CHECK(strstr(buf, "\"counters/port_rcv_errors\":0") != NULL);
    CHECK(strstr(buf, "lifespan") == NULL);
    CHECKF(strstr(buf, "\"unreadable\":[\"hw_counters/garbled\"]") != NULL, "%s", buf);
    /* only the error counter that moved warns: not the packets, not the error counter that stood still */
    CHECKF(strstr(buf, "\"warnings\":[\"hw_counters/rcvd_seq_err moved by 12\"]") != NULL, "%s", buf);
    free(before);
    free(after);
    remove_tree(root);
}

static void sysfs_missing_device_is_named(void)
{
    qpb_counters *c = qpb_counters_read_sysfs("/nonexistent-qpb-root", "mlx5_0", 2);
    CHECK(c != NULL);
    if (c == NULL)
        return;
    CHECK(c->n == 0);
    CHECKF(strstr(c->error, "/nonexistent-qpb-root/mlx5_0/ports/2") != NULL, "error %s", c->error);
    char buf[2048];
    put(c, c, buf, sizeof buf);
    CHECK(strstr(buf, "\"deltas\":{}") != NULL);
    CHECK(strstr(buf, "\"warnings\":[]") != NULL);
    CHECK(strstr(buf, "\"error\":\"no counters under /nonexistent-qpb-root/mlx5_0/ports/2\"") != NULL);
    free(c);
}

static void no_reading_after_lists_every_counter_unreadable(void)
{
    char root[64];
    fake_sysfs(root, sizeof root);
    set_counter(root, "hw_counters/send_err", "1\n");
    qpb_counters *before = qpb_counters_read_sysfs(root, "rxe0", 1);
    char buf[2048];
    put(before, NULL, buf, sizeof buf);
    CHECKF(strstr(buf, "\"deltas\":{},\"unreadable\":[\"hw_counters/send_err\"],\"error\":\"no reading after "
                       "the run\"},\"warnings\":[]") != NULL,
           "%s", buf);
    put(NULL, NULL, buf, sizeof buf);
    CHECKF(strcmp(buf, "{\"counters\":null,\"warnings\":[]}") == 0, "%s", buf);
    free(before);
    remove_tree(root);
}

static const char *SNMP = "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
                          "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
                          "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
                          "Tcp: 1 200 120000 -1 %d 5 0 0 %d %d %d %d 0 2 0\n"
                          "Udp: InDatagrams\nUdp: 3\n";

static void snmp_tcp_counters(void)
{
    char path[] = "/tmp/qpb-snmp-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    write_file(path, SNMP, 10, 4, 1000, 900, 2);
    qpb_counters *before = qpb_counters_read_snmp(path);
    write_file(path, SNMP, 12, 3, 3000, 2800, 9);
    qpb_counters *after = qpb_counters_read_snmp(path);
    CHECK(before != NULL && after != NULL);
    if (before == NULL || after == NULL)
        return;
    CHECKF(before->n == 10, "%u counters (5 of the 15 Tcp fields are settings or gauges)", before->n);
    char buf[4096];
    put(before, after, buf, sizeof buf);
    CHECK(strstr(buf, "\"source\":\"/proc/net/snmp\",\"deltas\":{") != NULL);
    CHECK(strstr(buf, "\"Tcp.ActiveOpens\":2") != NULL);
    CHECK(strstr(buf, "\"Tcp.InSegs\":2000") != NULL);
    CHECK(strstr(buf, "\"Tcp.RetransSegs\":7") != NULL);
    CHECK(strstr(buf, "CurrEstab") == NULL && strstr(buf, "MaxConn") == NULL);
    CHECKF(strstr(buf, "\"warnings\":[\"Tcp.RetransSegs moved by 7 (host-wide)\"]") != NULL, "%s", buf);
    free(before);
    free(after);
    unlink(path);
}

static void warn_table_covers_rxe_and_mlx5(void)
{
    const char *warn[] = {"hw_counters/rcvd_seq_err", "hw_counters/duplicate_request", "hw_counters/out_of_seq_request",
                          "hw_counters/retry_exceeded_err", "hw_counters/rcvd_rnr_err", "hw_counters/completer_retry_err",
                          "hw_counters/out_of_sequence", "hw_counters/packet_seq_err",
                          "hw_counters/local_ack_timeout_err", "hw_counters/rnr_nak_retry_err",
                          "hw_counters/implied_nak_seq_err", "hw_counters/roce_adp_retrans",
                          "counters/port_rcv_errors", "counters/symbol_error", "Tcp.RetransSegs"};
    const char *quiet[] = {"hw_counters/sent_pkts", "hw_counters/rcvd_pkts", "hw_counters/ack_deferred",
                           "hw_counters/np_cnp_sent", "counters/port_xmit_data", "Tcp.InSegs", "Tcp.OutRsts"};
    for (size_t i = 0; i < sizeof warn / sizeof warn[0]; i++)
        CHECKF(qpb_counter_warns(warn[i]), "%s", warn[i]);
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        CHECKF(!qpb_counter_warns(quiet[i]), "%s", quiet[i]);
}

static void host_cpu_from_proc_stat(void)
{
    char path[] = "/tmp/qpb-stat-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    /* user nice system idle iowait irq softirq steal guest guest_nice */
    write_file(path, "cpu  100 0 50 800 50 0 0 0 30 0\ncpu0 50 0 25 400 25 0 0 0 15 0\n"
                     "cpu1 50 0 25 400 25 0 0 0 15 0\nintr 1\n");
    qpb_proc_cpu before, after;
    CHECK(qpb_proc_cpu_read(path, &before));
    write_file(path, "cpu  160 20 90 1080 60 5 5 0 50 0\ncpu0 80 10 45 540 30 0 5 0 25 0\n"
                     "cpu1 80 10 45 540 30 5 0 0 25 0\nintr 1\n");
    CHECK(qpb_proc_cpu_read(path, &after));
    CHECK(after.cpus == 2);
    /* busy: user 60 + nice 20, system 40 + irq 5 + softirq 5 = 130 ticks of 130 + idle 280 + iowait 10 = 420
     * (guest is inside user already) */
    qpb_thread_cpu t[2] = {
        {.begin_ns = 1000, .end_ns = 2001000, .user0_ns = 0, .user1_ns = 1000000, .sys0_ns = 0, .sys1_ns = 500000,
         .ended = true},
        {.begin_ns = 500000, .end_ns = 1001000, .user0_ns = 10, .user1_ns = 1000010, .ended = true},
    };
    qpb_cpu_figures f = {0};
    qpb_cpu_add_thread(&f, &t[0]);
    qpb_cpu_add_thread(&f, &t[1]);
    qpb_cpu_finish(&f, &before, &after);
    CHECK(f.span_ns == 2000000);
    CHECK(f.user_ns == 2000000 && f.sys_ns == 500000);
    CHECKF(f.engine_util_pct > 124.99 && f.engine_util_pct < 125.01, "%f", f.engine_util_pct);
    CHECK(f.host && f.host_cpus == 2);
    CHECKF(f.host_util_pct > 30.95 && f.host_util_pct < 30.96, "%f (130 of 420 ticks)", f.host_util_pct);
    CHECKF(f.host_user_pct > 19.04 && f.host_user_pct < 19.05, "%f (80 of 420)", f.host_user_pct);
    CHECKF(f.host_sys_pct > 11.90 && f.host_sys_pct < 11.91, "%f (50 of 420)", f.host_sys_pct);
    CHECKF(f.perftest_util_pct > 17.64 && f.perftest_util_pct < 17.65, "%f (user 60 / (60 + idle 280))",
           f.perftest_util_pct);

    qpb_cpu_figures none = {0};
    qpb_cpu_finish(&none, &before, &before); /* no tick passed */
    CHECK(!none.host && none.span_ns == 0);
    char buf[512];
    qpb_jw w;
    qpb_jw_init(&w, buf, sizeof buf);
    qpb_jw_obj_begin(&w);
    qpb_cpu_put(&w, &none);
    qpb_jw_obj_end(&w);
    CHECKF(strstr(buf, "\"engine_util_pct\":null") != NULL && strstr(buf, "\"host_util_pct\":null") != NULL, "%s",
           buf);
    CHECK(!qpb_proc_cpu_read("/nonexistent-qpb-stat", &before) && !before.ok);
    unlink(path);
}

/* A real loopback run: its summary carries cpu, counters and warnings, with plausible figures. */
static void loopback_summary_has_cpu_and_counters(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":65536,\"iterations\":3000,"
                                        "\"interval_ms\":0,\"warmup_cycles\":100}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    CHECK(qpb_start(s) == QPB_OK);
    CHECK(qpb_wait(s, 60000) == QPB_OK);
    static char sum[64 * 1024];
    CHECKF(qpb_summary(s, sum, sizeof sum) == QPB_OK, "%s", qpb_last_error(s));
    double span = num_at(sum, "cpu.span_ns"), util = num_at(sum, "cpu.engine_util_pct");
    double cpus = num_at(sum, "cpu.host_cpus"), host = num_at(sum, "cpu.host_util_pct");
    double busy = num_at(sum, "cpu.engine_user_ns") + num_at(sum, "cpu.engine_sys_ns");
    CHECKF(span > 0 && span >= num_at(sum, "duration_ns"), "span %.0f ns, run %.0f ns", span,
           num_at(sum, "duration_ns"));
    CHECKF(busy > 0, "engine CPU %.0f ns", busy);
    /* two threads (sender and receiver): at most two CPUs' worth, with room for getrusage's tick rounding */
    CHECKF(util > 0 && util <= 200.0 * 1.05, "engine util %f %%", util);
    CHECKF(cpus >= 1 && cpus == (double)sysconf(_SC_NPROCESSORS_ONLN), "host_cpus %f", cpus);
    CHECKF(host == -1.0 || (host >= 0 && host <= 100), "host util %f %% (null when under a tick)", host);
    CHECK(strstr(sum, "\"counters\":{\"source\":\"/proc/net/snmp\",\"deltas\":{") != NULL);
    CHECKF(strstr(sum, "\"Tcp.InSegs\":") != NULL, "%s", strstr(sum, "\"counters\""));
    CHECK(strstr(sum, "\"warnings\":[") != NULL);
    qpb_session_destroy(s);
}

/* The session reads the paths it is given: a fake snmp file that does not move gives zero deltas and
 * no warning; a missing one is named. */
static void session_reads_its_fake_paths(void)
{
    char path[] = "/tmp/qpb-snmp-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    write_file(path, SNMP, 10, 4, 1000, 900, 2);
    for (int missing = 0; missing < 2; missing++) {
        char err[512];
        qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":4096,\"iterations\":200,"
                                            "\"interval_ms\":0}",
                                            err, sizeof err);
        CHECKF(s != NULL, "%s", err);
        if (s == NULL)
            return;
        s->proc_snmp_path = missing ? "/nonexistent-qpb-snmp" : path;
        s->proc_stat_path = "/nonexistent-qpb-stat";
        CHECK(qpb_start(s) == QPB_OK);
        CHECK(qpb_wait(s, 60000) == QPB_OK);
        static char sum[64 * 1024];
        CHECK(qpb_summary(s, sum, sizeof sum) == QPB_OK);
        if (missing)
            CHECKF(strstr(sum, "\"deltas\":{},\"unreadable\":[],\"error\":\"/nonexistent-qpb-snmp: No such file") !=
                       NULL,
                   "%s", strstr(sum, "\"counters\""));
        else
            CHECKF(strstr(sum, "\"Tcp.RetransSegs\":0") != NULL && strstr(sum, "\"warnings\":[]") != NULL, "%s",
                   strstr(sum, "\"counters\""));
        /* no /proc/stat: the engine's own figures stay, the host's are null */
        CHECK(strstr(sum, "\"host_util_pct\":null") != NULL && num_at(sum, "cpu.span_ns") > 0);
        qpb_session_destroy(s);
    }
    unlink(path);
}

const qpb_test_case qpb_counters_tests[] = {
    {"counters: sysfs deltas, unreadable files, warnings for error counters that moved", sysfs_deltas_and_warnings},
    {"counters: a device without counters is named", sysfs_missing_device_is_named},
    {"counters: without a reading after the run every counter is unreadable", no_reading_after_lists_every_counter_unreadable},
    {"counters: /proc/net/snmp Tcp counters, settings and gauges left out", snmp_tcp_counters},
    {"counters: the warning table covers rxe, mlx5, IB port errors and TCP", warn_table_covers_rxe_and_mlx5},
    {"cpu: engine and host figures from thread spans and /proc/stat", host_cpu_from_proc_stat},
    {"cpu: a loopback run reports plausible cpu, counters and warnings", loopback_summary_has_cpu_and_counters},
    {"counters: a session reads the paths it is given", session_reads_its_fake_paths},
    {NULL, NULL},
};
