/*
 * qpbench.c — the engine's command-line front end, shaped like perftest's
 * ib_send_bw so results can be read side by side with it:
 *   qpbench [options]            loopback: both ends in this process
 *   qpbench --server [options]   listen on the control port, wait for a client
 *   qpbench [options] HOST       connect to HOST's control port and run
 * The two processes exchange their endpoint blobs over the control socket
 * (as perftest does), then run every size in turn. Unlike perftest, --json
 * keeps the summary of every size.
 *
 * --lat (or --perftest=ib_send_lat, or a link named ib_send_lat to qpbench)
 * runs the engine's latency mode and prints perftest's *_lat table, in its
 * exact header and row format, so that what parses perftest parses this.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qpb.h"
#include "qpbench.h"

void qpbench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("qpbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void check(qpb_session *s, int32_t rc, const char *what)
{
    if (rc != QPB_OK)
        qpbench_die("%s: %s", what, qpb_last_error(s));
}

/* Runs a started session to its end. Without --interval the engine keeps the summary only (its figures
 * count every cycle); with it, each closed interval is printed as it comes. */
static void run_to_end(const options *o, qpb_session *s)
{
    static uint8_t buf[4 * QPB_INTERVAL_MAX_BYTES];
    bool ended = false;
    while (!ended) {
        ended = qpb_wait(s, o->interval_ms > 0 ? 20 : -1) == QPB_OK;
        int32_t n;
        while (o->interval_ms > 0 && (n = qpb_drain_intervals(s, buf, sizeof buf)) > 0)
            qpbench_print_intervals(o, buf, n);
    }
    const char *e = qpb_last_error(s);
    if (e[0] != '\0')
        qpbench_die("run failed: %s", e);
}

/* The session's endpoint blob, however long (a verbs blob grows with its QPs). */
static char *endpoint_of(qpb_session *s)
{
    for (uint32_t len = 4096;; len *= 4) {
        char *buf = malloc(len);
        if (buf == NULL)
            qpbench_die("out of memory for the endpoint");
        int32_t rc = qpb_local_endpoint(s, buf, len);
        if (rc == QPB_OK)
            return buf;
        free(buf);
        if (rc != QPB_ENOSPC || len > (1u << 28))
            qpbench_die("endpoint: %s", qpb_last_error(s));
    }
}

static void run_size(const options *o, uint64_t size, int ctl, char *sum, uint32_t sum_len)
{
    const char *role = o->server ? "server" : o->host ? "client" : "loopback";
    char err[2048];
    char *spec = qpbench_spec(o, size, role, err, sizeof err);
    if (spec == NULL)
        qpbench_die("%s", err);
    qpb_session *s = qpb_session_create(spec, err, sizeof err);
    free(spec);
    if (s == NULL)
        qpbench_die("%s", err);
    if (ctl >= 0) {
        char *blob = endpoint_of(s), *peer;
        if (o->server) {
            qpbench_ctl_send(ctl, blob);
            peer = qpbench_ctl_recv(ctl);
        } else {
            char *server = qpbench_ctl_recv(ctl);
            peer = qpbench_peer_endpoint(server, o->host, err, sizeof err);
            free(server);
            if (peer == NULL)
                qpbench_die("%s", err);
            qpbench_ctl_send(ctl, blob);
        }
        free(blob);
        check(s, qpb_connect(s, peer), "connect");
        free(peer);
    }
    check(s, qpb_start(s), "start");
    run_to_end(o, s);
    check(s, qpb_summary(s, sum, sum_len), "summary");
    if (!qpbench_summary_ok(sum, err, sizeof err))
        qpbench_die("summary: %s", err);
    if (ctl >= 0) {
        /* Lockstep: neither side starts the next size before both ended. */
        if (o->server)
            free(qpbench_ctl_recv(ctl));
        else
            qpbench_ctl_send(ctl, "done");
    }
    qpb_session_destroy(s);
}

int main(int argc, char **argv)
{
    options o;
    qpbench_parse_args(argc, argv, &o);
    const char *role = o.server ? "server" : o.host ? "client" : "loopback";
    int ctl = o.server || o.host ? qpbench_ctl_open(&o) : -1;
    uint32_t sum_len = 65536 + 2048u * o.threads;
    char *sum = malloc(sum_len);
    size_t all_len = (size_t)sum_len * (size_t)o.n_sizes + 16, used = 0;
    char *all = o.json_path ? malloc(all_len) : NULL;
    for (int i = 0; i < o.n_sizes; i++) {
        run_size(&o, o.sizes[i], ctl, sum, sum_len);
        if (i == 0)
            qpbench_print_header(&o, role, sum);
        if (o.latency)
            qpbench_print_latency(&o, sum);
        else
            qpbench_print_result(&o, sum);
        if (all != NULL) {
            used += (size_t)snprintf(all + used, all_len - used, "%s%s", i ? ",\n" : "[", sum);
            FILE *f = fopen(o.json_path, "w");
            if (f == NULL || fprintf(f, "%s]\n", all) < 0 || fclose(f) != 0)
                qpbench_die("--json %s: %s", o.json_path, strerror(errno));
        }
    }
    qpbench_print_footer();
    if (ctl >= 0)
        close(ctl);
    free(sum);
    free(all);
    return 0;
}
