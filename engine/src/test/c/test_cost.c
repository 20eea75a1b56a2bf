/*
 * test_cost.c — qpb_cost_begin / qpb_cost_end / qpb_cost_json over fake
 * /proc and /sys/class/infiniband trees: the "cpu" of a span no engine
 * thread ran, the counters of a named port, of a device's first port, of
 * the port found through an address's interface (127.0.0.1 is lo's on every
 * host), of the host's TCP, and the warnings; a span not ended, one never
 * begun, and the specs it refuses.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qpb.h"
#include "qpb_json.h"
#include "qpb_test.h"

/* A fresh temporary root; its proc/ and ib/ (the fake /sys/class/infiniband) are made by the tests. */
typedef struct tree {
    char root[64];
    char spec_roots[256]; /* "\"proc\":\"ROOT/proc\",\"infiniband\":\"ROOT/ib\"" */
} tree;

static void tree_make(tree *t)
{
    snprintf(t->root, sizeof t->root, "/tmp/qpb-cost-XXXXXX");
    CHECK(mkdtemp(t->root) != NULL);
    snprintf(t->spec_roots, sizeof t->spec_roots, "\"proc\":\"%s/proc\",\"infiniband\":\"%s/ib\"", t->root, t->root);
}

static void tree_remove(const tree *t)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->root);
    CHECK(system(cmd) == 0);
}

/* Writes ROOT/rel (its directories made first). */
static void put_file(const tree *t, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put_file(const tree *t, const char *rel, const char *fmt, ...)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", t->root, rel);
    va_list ap;
    va_start(ap, fmt);
    qpb_test_vwrite(path, fmt, ap);
    va_end(ap);
}

static qpb_cost *begin(const tree *t, const char *keys)
{
    char spec[512], err[256] = "";
    snprintf(spec, sizeof spec, "{%s,%s}", keys, t->spec_roots);
    qpb_cost *c = qpb_cost_begin(spec, err, sizeof err);
    CHECKF(c != NULL, "%s: %s", spec, err);
    return c;
}

static const char *json_of(const qpb_cost *c)
{
    static char buf[16384];
    int32_t st = qpb_cost_json(c, buf, sizeof buf);
    CHECKF(st == QPB_OK, "qpb_cost_json: %d", st);
    return buf;
}

static double num_at(const char *json, const char *path)
{
    qpb_json_field f;
    char err[128];
    return qpb_json_find(json, path, &f, err, sizeof err) == 1 && f.type == QPB_JSON_NUMBER ? f.num : -1.0;
}

#define STAT_BEFORE "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\nintr 1\n"
#define STAT_AFTER "cpu  150 0 150 900 0 0 0 0 0 0\ncpu0 150 0 150 900 0 0 0 0 0 0\nintr 1\n"

static void named_port_deltas_warnings_and_host_cpu(void)
{
    tree t;
    tree_make(&t);
    put_file(&t, "proc/stat", STAT_BEFORE);
    put_file(&t, "ib/rxe0/ports/1/hw_counters/duplicate_request", "5\n");
    put_file(&t, "ib/rxe0/ports/1/hw_counters/rcvd_seq_err", "7\n");
    put_file(&t, "ib/rxe0/ports/1/hw_counters/sent_pkts", "100\n");
    put_file(&t, "ib/rxe0/ports/1/hw_counters/lifespan", "10\n");
    put_file(&t, "ib/rxe0/ports/1/counters/port_rcv_errors", "0\n");
    qpb_cost *c = begin(&t, "\"counters\":\"sysfs\",\"device\":\"rxe0\",\"ib_port\":1");
    put_file(&t, "proc/stat", STAT_AFTER);
    put_file(&t, "ib/rxe0/ports/1/hw_counters/duplicate_request", "8\n");
    put_file(&t, "ib/rxe0/ports/1/hw_counters/sent_pkts", "250\n");
    put_file(&t, "ib/rxe0/ports/1/counters/port_rcv_errors", "1\n");
    CHECK(qpb_cost_end(c) == QPB_OK);
    put_file(&t, "ib/rxe0/ports/1/counters/port_rcv_errors", "9\n");
    CHECK(qpb_cost_end(c) == QPB_OK); /* the span ended: a second end reads nothing */
    const char *j = json_of(c);
    CHECKF(strstr(j, "{\"cpu\":{\"span_ns\":") == j, "%s", j);
    CHECKF(num_at(j, "cpu.span_ns") > 0, "%s", j);
    CHECKF(strstr(j, "\"engine_user_ns\":null,\"engine_sys_ns\":null,\"engine_util_pct\":null,\"host_cpus\":1,") !=
               NULL,
           "%s", j);
    /* 50 user + 50 system of 200 ticks; perftest: user 50 / (user 50 + idle 100) */
    CHECKF(num_at(j, "cpu.host_util_pct") == 50.0 && num_at(j, "cpu.host_user_pct") == 25.0 &&
               num_at(j, "cpu.host_sys_pct") == 25.0,
           "%s", j);
    CHECKF(num_at(j, "cpu.perftest_util_pct") > 33.33 && num_at(j, "cpu.perftest_util_pct") < 33.34, "%s", j);
    CHECKF(strstr(j, "\"counters\":{\"source\":\"sysfs\",\"device\":\"rxe0\",\"port\":1,\"deltas\":{"
                     "\"counters/port_rcv_errors\":1,\"hw_counters/duplicate_request\":3,"
                     "\"hw_counters/rcvd_seq_err\":0,\"hw_counters/sent_pkts\":150},\"unreadable\":[],\"error\":null}") !=
               NULL,
           "%s", j);
    /* the error counters that moved, not the traffic, not the one that stood still */
    CHECKF(strstr(j, ",\"warnings\":[\"counters/port_rcv_errors moved by 1\",\"hw_counters/duplicate_request moved by "
                     "3\"]}") != NULL,
           "%s", j);
    qpb_cost_destroy(c);
    tree_remove(&t);
}

static void a_devices_first_port_and_a_device_without_ports(void)
{
    tree t;
    tree_make(&t);
    put_file(&t, "ib/mlx5_0/ports/2/counters/port_xmit_data", "1\n");
    put_file(&t, "ib/mlx5_0/ports/10/counters/port_xmit_data", "1\n");
    put_file(&t, "ib/rxe0/device", "\n");
    qpb_cost *c = begin(&t, "\"counters\":\"sysfs\",\"device\":\"mlx5_0\"");
    qpb_cost_end(c);
    const char *j = json_of(c);
    CHECKF(strstr(j, "\"device\":\"mlx5_0\",\"port\":2,\"deltas\":{\"counters/port_xmit_data\":0}") != NULL, "%s", j);
    /* no proc/stat in this tree: the host figures are null, the span is still measured */
    CHECKF(strstr(j, "\"host_cpus\":0,\"host_user_pct\":null") != NULL && num_at(j, "cpu.span_ns") > 0, "%s", j);
    qpb_cost_destroy(c);

    c = begin(&t, "\"counters\":\"sysfs\",\"device\":\"rxe0\"");
    qpb_cost_end(c);
    j = json_of(c);
    char want[256];
    snprintf(want, sizeof want, "\"counters\":{\"source\":\"sysfs\",\"deltas\":{},\"unreadable\":[],\"error\":\"no ports "
                                "under %s/ib/rxe0\"},\"warnings\":[]}",
             t.root);
    CHECKF(strstr(j, want) != NULL, "%s", j);
    qpb_cost_destroy(c);
    tree_remove(&t);
}

static void the_port_of_an_address_is_found_through_its_interface(void)
{
    tree t;
    tree_make(&t);
    put_file(&t, "ib/mlx5_0/ports/1/gid_attrs/ndevs/0", "eth9\n");
    put_file(&t, "ib/rxe0/ports/1/gid_attrs/ndevs/0", "eth9\n");
    put_file(&t, "ib/rxe0/ports/2/gid_attrs/ndevs/0", "eth9\n");
    put_file(&t, "ib/rxe0/ports/2/gid_attrs/ndevs/1", "lo\n");
    put_file(&t, "ib/rxe0/ports/2/hw_counters/rcvd_pkts", "4\n");
    qpb_cost *c = begin(&t, "\"counters\":\"sysfs\",\"address\":\"127.0.0.1\"");
    put_file(&t, "ib/rxe0/ports/2/hw_counters/rcvd_pkts", "6\n");
    qpb_cost_end(c);
    const char *j = json_of(c);
    CHECKF(strstr(j, "\"device\":\"rxe0\",\"port\":2,\"deltas\":{\"hw_counters/rcvd_pkts\":2}") != NULL, "%s", j);
    qpb_cost_destroy(c);

    /* an address on lo, but no GID on lo */
    put_file(&t, "ib/rxe0/ports/2/gid_attrs/ndevs/1", "eth9\n");
    c = begin(&t, "\"counters\":\"sysfs\",\"address\":\"127.0.0.1\"");
    qpb_cost_end(c);
    j = json_of(c);
    CHECKF(strstr(j, "\"counters\":{\"source\":\"sysfs\",\"deltas\":{},\"unreadable\":[],\"error\":\"no RDMA port has a "
                     "GID on lo (the address 127.0.0.1)\"}") != NULL,
           "%s", j);
    qpb_cost_destroy(c);

    /* an address no interface has (TEST-NET-1), and one that is no address */
    const char *nobody[] = {"192.0.2.1", "not-an-address"};
    for (size_t i = 0; i < 2; i++) {
        char keys[128], want[128];
        snprintf(keys, sizeof keys, "\"counters\":\"sysfs\",\"address\":\"%s\"", nobody[i]);
        snprintf(want, sizeof want, "\"error\":\"no network interface has the address %s\"", nobody[i]);
        c = begin(&t, keys);
        qpb_cost_end(c);
        j = json_of(c);
        CHECKF(strstr(j, want) != NULL && strstr(j, "\"device\"") == NULL, "%s", j);
        qpb_cost_destroy(c);
    }
    tree_remove(&t);
}

static const char *SNMP = "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
                          "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
                          "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
                          "Tcp: 1 200 120000 -1 %d 5 0 0 %d %d %d %d 0 2 0\n";

static void snmp_counters_are_host_wide(void)
{
    tree t;
    tree_make(&t);
    put_file(&t, "proc/net/snmp", SNMP, 10, 4, 1000, 900, 2);
    qpb_cost *c = begin(&t, "\"counters\":\"snmp\"");
    put_file(&t, "proc/net/snmp", SNMP, 12, 3, 3000, 2800, 9);
    qpb_cost_end(c);
    const char *j = json_of(c);
    CHECKF(strstr(j, "\"counters\":{\"source\":\"/proc/net/snmp\",\"deltas\":{\"Tcp.ActiveOpens\":2,") != NULL, "%s",
           j);
    CHECK(strstr(j, "\"Tcp.InSegs\":2000") != NULL && strstr(j, "CurrEstab") == NULL);
    CHECKF(strstr(j, "\"warnings\":[\"Tcp.RetransSegs moved by 7 (host-wide)\"]") != NULL, "%s", j);
    qpb_cost_destroy(c);
    tree_remove(&t);
}

static void not_ended_and_never_begun(void)
{
    tree t;
    tree_make(&t);
    put_file(&t, "proc/stat", STAT_BEFORE);
    put_file(&t, "ib/rxe0/ports/1/hw_counters/send_err", "1\n");
    qpb_cost *c = begin(&t, "\"counters\":\"sysfs\",\"device\":\"rxe0\"");
    const char *j = json_of(c);
    CHECKF(strstr(j, "{\"cpu\":{\"span_ns\":0,") == j && strstr(j, "\"host_util_pct\":null") != NULL, "%s", j);
    CHECKF(strstr(j, "\"deltas\":{},\"unreadable\":[\"hw_counters/send_err\"],\"error\":\"no reading after the "
                     "run\"},\"warnings\":[]}") != NULL,
           "%s", j);
    qpb_cost_destroy(c); /* never ended: nothing leaks (ASan) */

    j = json_of(NULL);
    CHECKF(strcmp(j, "{\"cpu\":{\"span_ns\":0,\"engine_user_ns\":null,\"engine_sys_ns\":null,\"engine_util_pct\":null,"
                     "\"host_cpus\":0,\"host_user_pct\":null,\"host_sys_pct\":null,\"host_util_pct\":null,"
                     "\"perftest_util_pct\":null},\"counters\":null,\"warnings\":[]}") == 0,
           "%s", j);
    CHECK(qpb_cost_end(NULL) == QPB_EINVAL);
    qpb_cost_destroy(NULL);
    tree_remove(&t);
}

static void a_small_buffer_asks_for_more_and_keeps_the_readings(void)
{
    tree t;
    tree_make(&t);
    put_file(&t, "proc/net/snmp", SNMP, 1, 1, 1, 1, 1);
    qpb_cost *c = begin(&t, "\"counters\":\"snmp\"");
    qpb_cost_end(c);
    char small[64], whole[4096];
    CHECK(qpb_cost_json(c, small, sizeof small) == QPB_ENOSPC);
    CHECK(qpb_cost_json(c, NULL, 10) == QPB_EINVAL);
    CHECK(qpb_cost_json(c, whole, sizeof whole) == QPB_OK);
    CHECKF(strstr(whole, "\"Tcp.InSegs\":0") != NULL, "%s", whole);
    qpb_cost_destroy(c);
    tree_remove(&t);
}

static void refused_specs_say_why(void)
{
    struct {
        const char *spec, *why;
    } cases[] = {
        {"{}", "counters is required"},
        {"{\"counters\":\"nic\"}", "counters must be \"sysfs\" or \"snmp\""},
        {"{\"counters\":\"snmp\",\"colour\":1}", "unknown key \"colour\""},
        {"{\"counters\":\"snmp\",\"device\":\"rxe0\"}", "device applies to counters \"sysfs\" only"},
        {"{\"counters\":\"sysfs\"}", "needs a device or an address"},
        {"{\"counters\":\"sysfs\",\"device\":\"../etc\"}", "device must be a device name"},
        {"{\"counters\":\"sysfs\",\"device\":\"rxe0\",\"ib_port\":256}", "ib_port must be an integer 0..255"},
        {"{\"counters\":\"sysfs\",\"address\":\"127.0.0.1\",\"ib_port\":1}", "ib_port needs a device"},
        {"{\"counters\":\"snmp\",\"proc\":\"\"}", "proc must not be empty"},
        {"{\"counters\":\"snmp\",\"proc\":3}", "proc must be a string"},
        {"[1]", "spec: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[256] = "";
        qpb_cost *c = qpb_cost_begin(cases[i].spec, err, sizeof err);
        CHECKF(c == NULL && strstr(err, cases[i].why) != NULL, "%s: %s", cases[i].spec, err);
        qpb_cost_destroy(c);
    }
    CHECK(qpb_cost_begin(NULL, NULL, 0) == NULL);
}

const qpb_test_case qpb_cost_tests[] = {
    {"cost: a named port's deltas and warnings, host CPU with no engine figures",
     named_port_deltas_warnings_and_host_cpu},
    {"cost: a device's first port; a device without ports is named", a_devices_first_port_and_a_device_without_ports},
    {"cost: the port of an address, through its interface's GIDs", the_port_of_an_address_is_found_through_its_interface},
    {"cost: /proc/net/snmp's Tcp counters, host-wide", snmp_counters_are_host_wide},
    {"cost: a span not ended, and one never begun", not_ended_and_never_begun},
    {"cost: a small buffer asks for more, the readings stay", a_small_buffer_asks_for_more_and_keeps_the_readings},
    {"cost: refused specs say why", refused_specs_say_why},
    {NULL, NULL},
};
