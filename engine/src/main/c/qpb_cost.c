/*
 * qpb_cost.c — what a span the engine does not run itself cost the host
 * (qpb.h: qpb_cost_begin, qpb_cost_end, qpb_cost_json, qpb_cost_destroy): the
 * readings of qpb_cpu.c and qpb_counters.c at its start and end, written by
 * their writers, with no engine thread's figures. The RDMA port whose
 * counters are read is named by the spec, or found through the network
 * interface that has an address (its GIDs' gid_attrs/ndevs): sysfs files
 * only, so both builds of the engine have it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "qpb_counters.h"
#include "qpb_cpu.h"
#include "qpb_internal.h"
#include "qpb_json.h"

#define COST_PATH 256

struct qpb_cost {
    char proc[COST_PATH];       /* "/proc" */
    char infiniband[COST_PATH]; /* "/sys/class/infiniband" */
    bool sysfs;                 /* else /proc/net/snmp */
    char device[64];            /* sysfs: the port read, "" when none was found ... */
    uint32_t port;
    char address[64];
    char lookup_error[512];     /* ... and why */
    uint64_t begin_ns, end_ns;
    bool ended;
    qpb_proc_cpu host_before, host_after;
    qpb_counters *counters_before, *counters_after; /* NULL: out of memory */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool fail(char *err, uint32_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, uint32_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}

static bool device_name(const char *s)
{
    size_t n = strlen(s);
    bool ok = n > 0 && n < 64 && s[0] != '.';
    for (size_t i = 0; ok && i < n; i++) {
        char c = s[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
             c == '.';
    }
    return ok;
}

/* A string field of at most cap - 1 bytes into out. */
static bool text(const qpb_json_field *f, char *out, size_t cap, char *err, uint32_t err_len)
{
    if (f->type != QPB_JSON_STRING || f->long_str || strlen(f->str) >= cap)
        return fail(err, err_len, "%s must be a string of at most %zu bytes", f->key, cap - 1);
    snprintf(out, cap, "%s", f->str);
    return true;
}

static bool field(qpb_cost *c, const qpb_json_field *f, char *err, uint32_t err_len)
{
    if (!strcmp(f->key, "counters")) {
        if (f->type != QPB_JSON_STRING || (strcmp(f->str, "sysfs") && strcmp(f->str, "snmp")))
            return fail(err, err_len, "counters must be \"sysfs\" or \"snmp\"");
        c->sysfs = !strcmp(f->str, "sysfs");
        return true;
    }
    if (!strcmp(f->key, "device")) {
        if (f->type != QPB_JSON_STRING || f->long_str || (f->str[0] != '\0' && !device_name(f->str)))
            return fail(err, err_len, "device must be a device name like \"mlx5_0\" or \"rxe0\" (got \"%.64s\")",
                        f->type == QPB_JSON_STRING ? f->str : "");
        snprintf(c->device, sizeof c->device, "%s", f->str);
        return true;
    }
    if (!strcmp(f->key, "ib_port")) {
        if (f->type != QPB_JSON_NUMBER || !f->is_int || f->i64 < 0 || f->i64 > 255)
            return fail(err, err_len, "ib_port must be an integer 0..255 (0: the device's first port)");
        c->port = (uint32_t)f->i64;
        return true;
    }
    if (!strcmp(f->key, "address"))
        return text(f, c->address, sizeof c->address, err, err_len);
    if (!strcmp(f->key, "proc"))
        return text(f, c->proc, sizeof c->proc, err, err_len) &&
               (c->proc[0] != '\0' || fail(err, err_len, "proc must not be empty"));
    if (!strcmp(f->key, "infiniband"))
        return text(f, c->infiniband, sizeof c->infiniband, err, err_len) &&
               (c->infiniband[0] != '\0' || fail(err, err_len, "infiniband must not be empty"));
    return fail(err, err_len, "unknown key \"%s\"", f->key);
}

static bool parse(const char *json, qpb_cost *c, char *err, uint32_t err_len)
{
    snprintf(c->proc, sizeof c->proc, "/proc");
    snprintf(c->infiniband, sizeof c->infiniband, "/sys/class/infiniband");
    qpb_json_object *o = malloc(sizeof *o);
    if (o == NULL)
        return fail(err, err_len, "out of memory reading the spec (qpb_cost_begin)");
    char perr[160];
    bool ok = json != NULL && qpb_json_parse_flat(json, o, perr, sizeof perr);
    if (!ok)
        fail(err, err_len, "spec: %s", json == NULL ? "NULL" : perr);
    for (uint32_t i = 0; ok && i < o->n; i++)
        ok = field(c, &o->fields[i], err, err_len);
    if (ok && qpb_json_get(o, "counters") == NULL)
        ok = fail(err, err_len, "counters is required (\"sysfs\" or \"snmp\")");
    if (ok && !c->sysfs) {
        const char *sysfs_only[] = {"device", "ib_port", "address"};
        for (size_t i = 0; ok && i < sizeof sysfs_only / sizeof sysfs_only[0]; i++)
            if (qpb_json_get(o, sysfs_only[i]) != NULL)
                ok = fail(err, err_len, "%s applies to counters \"sysfs\" only", sysfs_only[i]);
    }
    if (ok && c->sysfs && c->device[0] == '\0' && c->address[0] == '\0')
        ok = fail(err, err_len, "counters \"sysfs\" needs a device or an address (whose network interface carries "
                                "the RDMA port's GID)");
    if (ok && c->device[0] == '\0' && c->port != 0)
        ok = fail(err, err_len, "ib_port needs a device");
    free(o);
    return ok;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* The entries of a directory but . and .., sorted by name (free with entries_free); 0 when none or unreadable. */
static int entries(const char *path, struct dirent ***out)
{
    int n = scandir(path, out, visible, by_name);
    if (n < 0)
        *out = NULL;
    return n < 0 ? 0 : n;
}

static void entries_free(struct dirent **list, int n)
{
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* The device's first port (the smallest number under ports/). */
static void first_port(qpb_cost *c)
{
    char path[COST_PATH + 96];
    snprintf(path, sizeof path, "%s/%s/ports", c->infiniband, c->device);
    struct dirent **list;
    int n = entries(path, &list);
    for (int i = 0; i < n; i++) {
        char *end;
        unsigned long p = strtoul(list[i]->d_name, &end, 10);
        if (*end == '\0' && p >= 1 && p <= 255 && (c->port == 0 || p < c->port))
            c->port = (uint32_t)p;
    }
    entries_free(list, n);
    if (c->port == 0) {
        snprintf(c->lookup_error, sizeof c->lookup_error, "no ports under %s/%s", c->infiniband, c->device);
        c->device[0] = '\0';
    }
}

/* The network interface that has address, into name; false when none has it (or it is no IP address). */
static bool interface_of(const char *address, char *name, size_t cap)
{
    unsigned char want[sizeof(struct in6_addr)];
    int family = inet_pton(AF_INET, address, want) == 1 ? AF_INET : inet_pton(AF_INET6, address, want) == 1 ? AF_INET6 : 0;
    struct ifaddrs *all;
    if (family == 0 || getifaddrs(&all) != 0)
        return false;
    bool found = false;
    for (struct ifaddrs *i = all; i != NULL && !found; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != family)
            continue;
        const void *have = family == AF_INET ? (const void *)&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr
                                             : (const void *)&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
        if (memcmp(have, want, family == AF_INET ? sizeof(struct in_addr) : sizeof(struct in6_addr)) == 0) {
            snprintf(name, cap, "%s", i->ifa_name);
            name[strcspn(name, ":")] = '\0'; /* an IPv4 alias's label "eth0:1" is eth0's */
            found = true;
        }
    }
    freeifaddrs(all);
    return found;
}

/* Whether a GID of device's port names netdev in gid_attrs/ndevs/. */
static bool port_on(const qpb_cost *c, const char *device, const char *port, const char *netdev)
{
    char dir[COST_PATH + 192];
    snprintf(dir, sizeof dir, "%s/%.63s/ports/%.3s/gid_attrs/ndevs", c->infiniband, device, port);
    struct dirent **list;
    int n = entries(dir, &list);
    bool on = false;
    for (int i = 0; i < n && !on; i++) {
        char path[sizeof dir + 256], line[IF_NAMESIZE + 2] = "";
        snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
        FILE *f = fopen(path, "re"); /* an unused GID's file cannot be read */
        if (f == NULL)
            continue;
        if (fgets(line, sizeof line, f) != NULL) {
            line[strcspn(line, "\n")] = '\0';
            on = strcmp(line, netdev) == 0;
        }
        fclose(f);
    }
    entries_free(list, n);
    return on;
}

/* The first port (by device, port and GID index names) with a GID on the interface that has the address. */
static void port_of_address(qpb_cost *c)
{
    char netdev[IF_NAMESIZE + 8];
    if (!interface_of(c->address, netdev, sizeof netdev)) {
        snprintf(c->lookup_error, sizeof c->lookup_error, "no network interface has the address %s", c->address);
        return;
    }
    struct dirent **devices;
    int nd = entries(c->infiniband, &devices);
    for (int d = 0; d < nd && c->device[0] == '\0'; d++) {
        if (!device_name(devices[d]->d_name))
            continue;
        char path[COST_PATH + 96];
        snprintf(path, sizeof path, "%s/%.63s/ports", c->infiniband, devices[d]->d_name);
        struct dirent **ports;
        int np = entries(path, &ports);
        for (int p = 0; p < np && c->device[0] == '\0'; p++) {
            char *end;
            unsigned long port = strtoul(ports[p]->d_name, &end, 10);
            if (*end == '\0' && port >= 1 && port <= 255 && port_on(c, devices[d]->d_name, ports[p]->d_name, netdev)) {
                snprintf(c->device, sizeof c->device, "%.63s", devices[d]->d_name); /* device_name: < 64 */
                c->port = (uint32_t)port;
            }
        }
        entries_free(ports, np);
    }
    entries_free(devices, nd);
    if (c->device[0] == '\0')
        snprintf(c->lookup_error, sizeof c->lookup_error, "no RDMA port has a GID on %s (the address %s)", netdev,
                 c->address);
}

/* The counters now: the port's, none with why when no port was found, or the host's TCP. */
static qpb_counters *take(const qpb_cost *c)
{
    char path[COST_PATH + 16];
    if (!c->sysfs) {
        snprintf(path, sizeof path, "%s/net/snmp", c->proc);
        return qpb_counters_read_snmp(path);
    }
    if (c->device[0] != '\0')
        return qpb_counters_read_sysfs(c->infiniband, c->device, c->port);
    qpb_counters *none = calloc(1, sizeof *none);
    if (none != NULL) {
        none->sysfs = true;
        snprintf(none->error, sizeof none->error, "%.255s", c->lookup_error);
    }
    return none;
}

static void read_stat(const qpb_cost *c, qpb_proc_cpu *out)
{
    char path[COST_PATH + 16];
    snprintf(path, sizeof path, "%s/stat", c->proc);
    qpb_proc_cpu_read(path, out);
}

QPB_EXPORT qpb_cost *qpb_cost_begin(const char *spec_json, char *err, uint32_t err_len)
{
    char local_err[QPB_ERR_LEN];
    if (err == NULL || err_len == 0) {
        err = local_err;
        err_len = sizeof local_err;
    }
    err[0] = '\0';
    qpb_cost *c = calloc(1, sizeof *c);
    if (c == NULL) {
        fail(err, err_len, "out of memory (qpb_cost_begin)");
        return NULL;
    }
    if (!parse(spec_json, c, err, err_len)) {
        free(c);
        return NULL;
    }
    if (c->sysfs && c->device[0] != '\0' && c->port == 0)
        first_port(c);
    else if (c->sysfs && c->device[0] == '\0')
        port_of_address(c);
    c->begin_ns = now_ns();
    read_stat(c, &c->host_before);
    c->counters_before = take(c);
    return c;
}

QPB_EXPORT int32_t qpb_cost_end(qpb_cost *c)
{
    if (c == NULL)
        return QPB_EINVAL;
    if (!c->ended) {
        c->end_ns = now_ns();
        read_stat(c, &c->host_after);
        c->counters_after = take(c);
        c->ended = true;
    }
    return QPB_OK;
}

QPB_EXPORT int32_t qpb_cost_json(const qpb_cost *c, char *buf, uint32_t buf_len)
{
    if (buf == NULL)
        return QPB_EINVAL;
    qpb_cpu_figures f = {.no_engine = true};
    if (c != NULL && c->ended)
        qpb_cpu_finish(&f, &c->host_before, &c->host_after);
    f.span_ns = c != NULL && c->ended && c->end_ns > c->begin_ns ? c->end_ns - c->begin_ns : 0;
    qpb_jw w;
    qpb_jw_init(&w, buf, buf_len);
    qpb_jw_obj_begin(&w);
    qpb_cpu_put(&w, &f);
    qpb_counters_put(&w, c != NULL ? c->counters_before : NULL, c != NULL && c->ended ? c->counters_after : NULL);
    qpb_jw_obj_end(&w);
    return qpb_jw_ok(&w) ? QPB_OK : QPB_ENOSPC;
}

QPB_EXPORT void qpb_cost_destroy(qpb_cost *c)
{
    if (c == NULL)
        return;
    free(c->counters_before);
    free(c->counters_after);
    free(c);
}
