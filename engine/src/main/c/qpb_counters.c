/*
 * qpb_counters.c — counters read before and after a run (qpb_counters.h):
 * sysfs for verbs, /proc/net/snmp for tcp, their deltas and warnings. The
 * session takes one snapshot as qpb_start starts the workers and one when its
 * last worker ends (qpb_cpu.c); the roots are session fields so tests read
 * fakes. qpb_cost.c takes them around a span the engine does not run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qpb_counters.h"
#include "qpb_internal.h"
#include "qpb_json.h"

/*
 * Counters whose movement the summary warns about, by file name (either
 * directory). rxe (drivers/infiniband/sw/rxe/rxe_hw_counters.c): packets
 * resent or refused. mlx5 (its hw_counters): sequence errors, timeouts, RNR,
 * adaptive retransmission, CQE errors. The InfiniBand port counters
 * (counters/): link and receive errors. Not in it: packet and byte counts,
 * congestion notifications (np_cnp_sent, rp_cnp_handled), ack_deferred.
 */
static const char *const WARN_NAMES[] = {
    /* rxe */
    "duplicate_request", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "retry_exceeded_err",
    "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed",
    /* mlx5 */
    "out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err", "implied_nak_seq_err",
    "out_of_buffer", "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_trans",
    "req_cqe_error", "resp_cqe_error", "req_cqe_flush_error", "resp_cqe_flush_error", "req_remote_access_errors",
    "resp_remote_access_errors", "req_remote_invalid_request", "resp_local_length_error",
    "req_transport_retries_exceeded", "req_rnr_retries_exceeded", "rx_icrc_encapsulated",
    /* InfiniBand port counters */
    "symbol_error", "port_rcv_errors", "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
    "port_xmit_discards", "port_xmit_constraint_errors", "port_rcv_constraint_errors",
    "local_link_integrity_errors", "excessive_buffer_overrun_errors", "link_error_recovery", "VL15_dropped",
    /* /proc/net/snmp */
    "Tcp.RetransSegs", "Tcp.InErrs", "Tcp.InCsumErrors",
};

/* Tcp fields of /proc/net/snmp that are settings or gauges, not counters. */
static const char *const SNMP_NOT_COUNTERS[] = {"RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "CurrEstab"};

bool qpb_counter_warns(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    for (size_t i = 0; i < sizeof WARN_NAMES / sizeof WARN_NAMES[0]; i++)
        if (strcmp(base, WARN_NAMES[i]) == 0)
            return true;
    return false;
}

static qpb_counter *add(qpb_counters *c, const char *dir, const char *name)
{
    if (c->n >= QPB_COUNTERS_MAX)
        return NULL;
    qpb_counter *it = &c->items[c->n];
    int len = snprintf(it->name, sizeof it->name, "%s%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof it->name)
        return NULL;
    c->n++;
    it->ok = false;
    it->value = 0;
    return it;
}

static void note_error(qpb_counters *c, const char *what, int err)
{
    if (c->error[0] == '\0')
        snprintf(c->error, sizeof c->error, "%s: %s (errno %d)", what, strerror(err), err);
}

/* One sysfs counter file: a decimal number and a newline. */
static bool read_number(int dirfd, const char *name, uint64_t *out)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno != 0 || end == buf || (*end != '\0' && *end != '\n') || buf[0] == '-')
        return false;
    *out = v;
    return true;
}

static void read_dir(qpb_counters *c, const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    if (d == NULL) {
        if (errno != ENOENT) /* a device without hw_counters is not an error */
            note_error(c, path, errno);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "lifespan") == 0) /* lifespan: a setting (ms), not a counter */
            continue;
        qpb_counter *it = add(c, prefix, e->d_name);
        if (it != NULL)
            it->ok = read_number(dirfd(d), e->d_name, &it->value);
    }
    closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const qpb_counter *)a)->name, ((const qpb_counter *)b)->name);
}

qpb_counters *qpb_counters_read_sysfs(const char *root, const char *device, uint32_t port)
{
    qpb_counters *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->sysfs = true;
    snprintf(c->device, sizeof c->device, "%s", device);
    c->port = port;
    char path[512];
    snprintf(path, sizeof path, "%s/%s/ports/%u/counters", root, device, port);
    read_dir(c, path, "counters/");
    snprintf(path, sizeof path, "%s/%s/ports/%u/hw_counters", root, device, port);
    read_dir(c, path, "hw_counters/");
    if (c->n == 0 && c->error[0] == '\0')
        snprintf(c->error, sizeof c->error, "no counters under %s/%s/ports/%u", root, device, port);
    qsort(c->items, c->n, sizeof c->items[0], by_name);
    return c;
}

static bool snmp_counter(const char *field)
{
    for (size_t i = 0; i < sizeof SNMP_NOT_COUNTERS / sizeof SNMP_NOT_COUNTERS[0]; i++)
        if (strcmp(field, SNMP_NOT_COUNTERS[i]) == 0)
            return false;
    return true;
}

/* The "Tcp:" header line names the fields, the next "Tcp:" line holds their values. */
qpb_counters *qpb_counters_read_snmp(const char *path)
{
    qpb_counters *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        note_error(c, path, errno);
        return c;
    }
    char names[1024], values[1024];
    bool found = false;
    while (fgets(names, sizeof names, f) != NULL) {
        if (strncmp(names, "Tcp:", 4) != 0)
            continue;
        found = fgets(values, sizeof values, f) != NULL && strncmp(values, "Tcp:", 4) == 0;
        break;
    }
    fclose(f);
    if (!found) {
        snprintf(c->error, sizeof c->error, "%s has no Tcp lines", path);
        return c;
    }
    char *sn, *sv;
    char *n = strtok_r(names + 4, " \n", &sn), *v = strtok_r(values + 4, " \n", &sv);
    for (; n != NULL; n = strtok_r(NULL, " \n", &sn), v = v != NULL ? strtok_r(NULL, " \n", &sv) : NULL) {
        if (!snmp_counter(n))
            continue;
        qpb_counter *it = add(c, "Tcp.", n);
        if (it == NULL)
            continue;
        char *end;
        errno = 0;
        unsigned long long x = v != NULL ? strtoull(v, &end, 10) : 0;
        it->ok = v != NULL && errno == 0 && *end == '\0' && v[0] != '-';
        it->value = it->ok ? x : 0;
    }
    qsort(c->items, c->n, sizeof c->items[0], by_name);
    return c;
}

static const qpb_counter *find(const qpb_counters *c, const char *name)
{
    qpb_counter key;
    snprintf(key.name, sizeof key.name, "%s", name);
    return bsearch(&key, c->items, c->n, sizeof c->items[0], by_name);
}

/* The delta of counter i of before, or false when either reading is missing or unreadable. */
static bool delta_of(const qpb_counters *before, const qpb_counters *after, uint32_t i, int64_t *d)
{
    const qpb_counter *b = &before->items[i];
    const qpb_counter *a = after != NULL ? find(after, b->name) : NULL;
    if (!b->ok || a == NULL || !a->ok)
        return false;
    *d = (int64_t)(a->value - b->value); /* negative: reset (or a 32-bit counter wrapped) during the run */
    return true;
}

void qpb_counters_put(qpb_jw *w, const qpb_counters *before, const qpb_counters *after)
{
    qpb_jw_key(w, "counters");
    if (before == NULL) {
        qpb_jw_null(w);
        qpb_jw_key(w, "warnings");
        qpb_jw_arr_begin(w);
        qpb_jw_arr_end(w);
        return;
    }
    qpb_jw_obj_begin(w);
    qpb_jw_key(w, "source");
    qpb_jw_str(w, before->sysfs ? "sysfs" : "/proc/net/snmp");
    if (before->sysfs && before->device[0] != '\0') { /* none: no port was found (qpb_cost.c), error says why */
        qpb_jw_key(w, "device");
        qpb_jw_str(w, before->device);
        qpb_jw_key(w, "port");
        qpb_jw_u64(w, before->port);
    }
    qpb_jw_key(w, "deltas");
    qpb_jw_obj_begin(w);
    int64_t d;
    for (uint32_t i = 0; i < before->n; i++) {
        if (delta_of(before, after, i, &d)) {
            qpb_jw_key(w, before->items[i].name);
            qpb_jw_i64(w, d);
        }
    }
    qpb_jw_obj_end(w);
    qpb_jw_key(w, "unreadable");
    qpb_jw_arr_begin(w);
    for (uint32_t i = 0; i < before->n; i++)
        if (!delta_of(before, after, i, &d))
            qpb_jw_str(w, before->items[i].name);
    qpb_jw_arr_end(w);
    qpb_jw_key(w, "error");
    const char *err = before->error[0] ? before->error : after != NULL ? after->error : "no reading after the run";
    if (err[0] != '\0')
        qpb_jw_str(w, err);
    else
        qpb_jw_null(w);
    qpb_jw_obj_end(w);

    qpb_jw_key(w, "warnings");
    qpb_jw_arr_begin(w);
    for (uint32_t i = 0; i < before->n; i++) {
        if (delta_of(before, after, i, &d) && d != 0 && qpb_counter_warns(before->items[i].name)) {
            char msg[QPB_COUNTER_NAME + 64];
            snprintf(msg, sizeof msg, "%s moved by %" PRId64 "%s", before->items[i].name, d,
                     before->sysfs ? "" : " (host-wide)");
            qpb_jw_str(w, msg);
        }
    }
    qpb_jw_arr_end(w);
}

qpb_counters *qpb_counters_take(qpb_session *s)
{
    if (s->spec.provider_kind == QPB_PROVIDER_VERBS) {
        const char *device = qpb_verbs_device_name(s);
        return device != NULL ? qpb_counters_read_sysfs(s->sysfs_ib_root, device, s->spec.ib_port) : NULL;
    }
    return qpb_counters_read_snmp(s->proc_snmp_path);
}
