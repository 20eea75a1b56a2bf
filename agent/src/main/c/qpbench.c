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
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "qpb.h"
#include "qpb_json.h"
#include "qpbench.h"

#define QPB_LAT_SIGNAL_EVERY 8 /* the engine's latency mode signals every 8th request (QPB_LAT_SIGNAL) */
#define LINE "---------------------------------------------------------------------------------------\n"
/* perftest's latency table (perftest_parameters.h: RESULT_FMT_LAT, REPORT_FMT_LAT) */
#define RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99" \
                       "% percentile[usec]   99.9% percentile[usec] "
#define REPORT_FMT_LAT " %-7llu %llu          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("qpbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void usage(void)
{
    puts("Usage: qpbench [options]            loopback run in one process\n"
         "       qpbench --server [options]   wait for a client on the control port\n"
         "       qpbench [options] HOST       run against a qpbench --server on HOST\n"
         "\n"
         "A cycle is one message of SIZE bytes on each of a thread's connections, all of\n"
         "them acknowledged by the receiver. Results use perftest's definitions:\n"
         "BW average = bytes / (last completion - first post), BW peak = best window of\n"
         "up to 64 cycles per thread summed over threads, MB = 2^20 bytes, Mpps = 10^6 msg/s.\n"
         "\n"
         "Options (both sides of a client/server run must be given the same run shape):\n"
         "  -s, --size=SIZE        message size in bytes, suffix k/m/g for KiB/MiB/GiB (default 65536)\n"
         "  -a, --all              every size 2^1 .. 2^23, like perftest -a\n"
         "      --sizes=LIST       comma-separated sizes, e.g. 4k,64k,1m\n"
         "  -n, --iters=N          recorded cycles per thread (default 1000)\n"
         "  -D, --duration=SECS    run each size for SECS seconds instead of -n\n"
         "      --warmup=N         cycles per thread run before recording (default 0)\n"
         "  -q, --qp=N             connections per thread (default 1)\n"
         "      --threads=T        worker threads (default 1)\n"
         "  -t, --tx-depth=N       cycles a thread may have in flight (default 128)\n"
         "  -p, --port=PORT        control port (default 18515); data ports are ephemeral\n"
         "      --bind=ADDR        address to listen on (server default 0.0.0.0, loopback 127.0.0.1)\n"
         "      --verify           fill and check a payload pattern; mismatches count as errors\n"
         "  -b, --bidirectional    both sides send at once and both receive (perftest -b; client/server,\n"
         "                         op send or write); each side prints what it sent and received\n"
         "      --json=FILE        write a JSON array with the summary of every size\n"
         "      --interval=MS      print every thread's interval of MS ms (10..60000) as it closes:\n"
         "                         cycles, BW and cycle-time percentiles (default: the summary only)\n"
         "      --provider=NAME    engine provider: tcp (default) or verbs\n"
         "      --cpu_util         print each size's CPU: the engine's threads over their measured span (user,\n"
         "                         sys, %% of one CPU) and the host's (%% of all CPUs; perftest's CPU_Util beside)\n"
         "      --counters         print every NIC counter that moved in each size (verbs: sysfs counters and\n"
         "                         hw_counters of the port; tcp: the host's /proc/net/snmp Tcp counters).\n"
         "                         Warnings for retransmission, out-of-sequence, RNR and error counters that\n"
         "                         moved are printed always\n"
         "      --devices          print this host's RDMA devices and their limits (JSON) and exit\n"
         "      --rate_limit=RATE  pace every thread to RATE (perftest's flag, software pacing), in\n"
         "      --rate_units=U     g: Gb/s (default), M: MiB/s, p: messages/s per QP\n"
         "      --lat              latency mode, perftest's *_lat: every thread runs one ping-pong of SIZE\n"
         "                         (send and write: the server answers each message; tcp: over one socket\n"
         "                         per thread) or has one read in flight (verbs --op=read); prints perftest's\n"
         "                         table: t_min t_max t_typical t_avg t_stdev 99% 99.9% [usec] per iteration,\n"
         "                         half the round trip for send and write (default size 2 B; sends and\n"
         "                         writes inline up to the device's max_inline_data unless -I; no -q, -t,\n"
         "                         -Q, -l, -r, --verify; with --threads, all threads' iterations together)\n"
         "      --perftest=TOOL    act as perftest's TOOL: ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat\n"
         "                         (verbs, --lat, --op) or ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw\n"
         "                         (verbs, --op; atomics: fetch-and-add unless -A); so does a link to\n"
         "                         qpbench named TOOL (ln -s qpbench ib_write_lat)\n"
         "\n"
         "verbs provider (perftest's flags where it has them):\n"
         "      --op=OP            send (default), write, read, atomic_fadd or atomic_cswap\n"
         "  -A, --atomic_type=TYPE FETCH_AND_ADD or CMP_AND_SWAP: ib_atomic_bw's test (op atomic_fadd or\n"
         "                         atomic_cswap on the peer's 8-byte word, RC; implies --provider=verbs\n"
         "                         and -s 8 unless given)\n"
         "  -d, --ib-dev=DEV       RDMA device (default: the first with an active port)\n"
         "  -i, --ib-port=PORT     device port (default 1)\n"
         "  -x, --gid-index=N      GID index (default: RoCE v2 with an IPv4 address; LID on InfiniBand)\n"
         "  -c, --connection=TYPE  RC (default), UC, UD or XRC\n"
         "  -r, --rx-depth=N       receives posted per QP, or per SRQ (default 512)\n"
         "  -I, --inline_size=N    send messages up to N bytes inline (default 0; --lat: the device's most)\n"
         "  -Q, --cq-mod=N         signal every Nth request (default 1; perftest's default is 100)\n"
         "  -l, --post_list=N      cycles posted per ibv_post_send (default 1)\n"
         "      --use_srq          one SRQ per thread (--srq=shared: one for all threads)\n"
         "  -e, --events           sleep on a completion channel instead of busy polling\n"
         "  -m, --mtu=BYTES        path MTU 256..4096 (default: the port's active MTU)\n"
         "      --cq-mode=MODE     per_qp, per_thread (default) or shared CQs\n"
         "      --mr-mode=MODE     per_thread (default) or per_qp memory regions\n"
         "      --lock-model=MODE  shared (default) or thread_domain (ibv_alloc_td per thread)\n"
         "      --qp-sharing=MODE  per_thread (default) or shared: every thread posts to the same -q QPs\n"
         "                         (write and read; implies --cq-mode=shared unless given)\n"
         "  -R, --rdma_cm          connect the QPs through rdma_cm (RC; what iWARP needs)\n"
         "  -F                     accepted for perftest compatibility (no CPU frequency check here)\n"
         "      --report_gbits     report bandwidth in Gb/sec instead of MB/sec\n"
         "      --server           be the receiving side and wait for a client\n"
         "  -h, --help             this text\n"
         "\n"
         "Errors go to stderr with the engine's message; the exit status is then 1.");
}

static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1024 * 1024 * 1024, end++;
    if (errno != 0 || end == s || *end != '\0' || v == 0)
        die("bad size \"%s\" (want a positive number, optionally with k, m or g)", s);
    return (uint64_t)v * mul;
}

static unsigned long parse_uint(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        die("bad %s \"%s\" (want a non-negative integer)", what, s);
    return v;
}

static char *lower(const char *s)
{
    char *out = strdup(s);
    for (char *p = out; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return out;
}

/* perftest's tool names: ib_{send,write,read}_{lat,bw}. false when name is not one of them. */
static bool act_as(const char *name, options *o)
{
    /* ib_atomic_*: fetch-and-add unless -A says otherwise, as perftest's default atomicType */
    static const char *const tools[] = {"send", "write", "read", "atomic"};
    static const char *const ops[] = {"send", "write", "read", "atomic_fadd"};
    for (int i = 0; i < 4; i++) {
        for (int lat = 0; lat < 2; lat++) {
            char tool[32];
            snprintf(tool, sizeof tool, "ib_%s_%s", tools[i], lat ? "lat" : "bw");
            if (strcmp(name, tool) == 0) {
                o->provider = "verbs";
                o->op = ops[i];
                o->latency = lat;
                return true;
            }
        }
    }
    return false;
}

static void parse_args(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"size", required_argument, 0, 's'}, {"all", no_argument, 0, 'a'}, {"sizes", required_argument, 0, 'S'},
        {"iters", required_argument, 0, 'n'}, {"duration", required_argument, 0, 'D'},
        {"warmup", required_argument, 0, 'W'}, {"qp", required_argument, 0, 'q'},
        {"threads", required_argument, 0, 'T'}, {"tx-depth", required_argument, 0, 't'},
        {"port", required_argument, 0, 'p'}, {"bind", required_argument, 0, 'B'},
        {"verify", no_argument, 0, 'V'}, {"json", required_argument, 0, 'J'},
        {"provider", required_argument, 0, 'P'}, {"report_gbits", no_argument, 0, 'G'},
        {"server", no_argument, 0, 'Z'}, {"help", no_argument, 0, 'h'}, {"op", required_argument, 0, 'O'},
        {"ib-dev", required_argument, 0, 'd'}, {"ib-port", required_argument, 0, 'i'},
        {"gid-index", required_argument, 0, 'x'}, {"connection", required_argument, 0, 'c'},
        {"rx-depth", required_argument, 0, 'r'}, {"inline_size", required_argument, 0, 'I'},
        {"cq-mod", required_argument, 0, 'Q'}, {"post_list", required_argument, 0, 'l'},
        {"use_srq", no_argument, 0, 'U'}, {"srq", required_argument, 0, 'u'}, {"events", no_argument, 0, 'e'},
        {"mtu", required_argument, 0, 'm'}, {"cq-mode", required_argument, 0, 'C'},
        {"mr-mode", required_argument, 0, 'M'}, {"lock-model", required_argument, 0, 'L'},
        {"out_json", no_argument, 0, 'j'}, {"out_json_file", required_argument, 0, 'J'},
        {"devices", no_argument, 0, 'v'}, {"rdma_cm", no_argument, 0, 'K'},
        {"qp-sharing", required_argument, 0, 'H'}, {"rate_limit", required_argument, 0, 'y'},
        {"rate_units", required_argument, 0, 'Y'}, {"rate_limit_type", required_argument, 0, 'k'},
        {"interval", required_argument, 0, 'N'}, {"cpu_util", no_argument, 0, 'w'},
        {"counters", no_argument, 0, 'z'}, {"lat", no_argument, 0, 'g'}, {"perftest", required_argument, 0, 'X'},
        {"atomic_type", required_argument, 0, 'A'}, {"bidirectional", no_argument, 0, 'b'}, {0, 0, 0, 0},
    };
    *o = (options){.iterations = 1000, .qps = 1, .threads = 1, .depth = 128, .port = 18515, .provider = "tcp",
                   .device = "", .op = "send", .transport = "rc", .srq = "none",
                   .mr_mode = "per_thread", .lock_model = "shared", .qp_sharing = "per_thread", .ib_port = 1, .gid_index = -1, .rx_depth = 512,
                   .signal_every = 1, .post_list = 1, .rate_unit = 'g'};
    const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (strncmp(self, "ib_", 3) == 0 && !act_as(self, o))
        die("called as %s: qpbench acts as ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat, ib_send_bw, "
            "ib_write_bw, ib_read_bw or ib_atomic_bw", self);
    int c;
    bool provider_given = false;
    while ((c = getopt_long(argc, argv, "s:an:D:q:t:p:hd:i:x:c:r:I:Q:l:em:FRA:b", longs, NULL)) != -1) {
        switch (c) {
        case 's': o->n_sizes = 1, o->sizes[0] = parse_size(optarg); break;
        case 'a':
            o->n_sizes = 0;
            for (int e = 1; e <= 23; e++)
                o->sizes[o->n_sizes++] = 1ull << e;
            break;
        case 'S': {
            o->n_sizes = 0;
            char *list = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o->n_sizes == MAX_SIZES)
                    die("--sizes: at most %d sizes", MAX_SIZES);
                o->sizes[o->n_sizes++] = parse_size(t);
            }
            free(list);
            break;
        }
        case 'n': o->iterations = parse_uint(optarg, "iteration count"); break;
        case 'D': o->duration_s = strtod(optarg, NULL); if (o->duration_s <= 0) die("bad -D \"%s\"", optarg); break;
        case 'W': o->warmup = parse_uint(optarg, "warm-up count"); break;
        case 'N': o->interval_ms = (unsigned)parse_uint(optarg, "interval"); break;
        case 'q': o->qps = (unsigned)parse_uint(optarg, "qp count"); break;
        case 'T': o->threads = (unsigned)parse_uint(optarg, "thread count"); break;
        case 't': o->depth = (unsigned)parse_uint(optarg, "tx depth"); break;
        case 'p': o->port = (unsigned)parse_uint(optarg, "port"); break;
        case 'B': o->bind = optarg; break;
        case 'V': o->verify = 1; break;
        case 'J': o->json_path = optarg; break;
        case 'P': o->provider = optarg, provider_given = true; break;
        case 'A':
            if (strcasecmp(optarg, "FETCH_AND_ADD") == 0)
                o->op = "atomic_fadd";
            else if (strcasecmp(optarg, "CMP_AND_SWAP") == 0)
                o->op = "atomic_cswap";
            else
                die("bad -A \"%s\": FETCH_AND_ADD or CMP_AND_SWAP", optarg);
            break;
        case 'b': o->bidirectional = 1; break;
        case 'G': o->gbits = 1; break;
        case 'Z': o->server = 1; break;
        case 'O': o->op = optarg; break;
        case 'd': o->device = optarg; break;
        case 'i': o->ib_port = (int)parse_uint(optarg, "ib port"); break;
        case 'x': o->gid_index = (int)parse_uint(optarg, "gid index"); break;
        case 'c': o->transport = lower(optarg); break;
        case 'r': o->rx_depth = (unsigned)parse_uint(optarg, "rx depth"); break;
        case 'I': o->inline_size = (unsigned)parse_uint(optarg, "inline size"), o->inline_given = 1; break;
        case 'g': o->latency = 1; break;
        case 'X':
            if (!act_as(optarg, o))
                die("--perftest %s: one of ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat, ib_send_bw, "
                    "ib_write_bw, ib_read_bw, ib_atomic_bw", optarg);
            break;
        case 'Q': o->signal_every = (unsigned)parse_uint(optarg, "cq moderation"); break;
        case 'l': o->post_list = (unsigned)parse_uint(optarg, "post list"); break;
        case 'U': o->srq = "per_thread"; break;
        case 'u': o->srq = optarg; break;
        case 'e': o->events = 1; break;
        case 'm': o->mtu = (unsigned)parse_uint(optarg, "mtu"); break;
        case 'C': o->cq_mode = optarg; break;
        case 'M': o->mr_mode = optarg; break;
        case 'L': o->lock_model = optarg; break;
        case 'j': o->json_path = "perftest_out.json"; break;
        case 'F': break;
        case 'w': o->cpu_util = 1; break;
        case 'z': o->counters = 1; break;
        case 'R': case 'K': o->rdma_cm = 1; break;
        case 'H': o->qp_sharing = optarg; break;
        case 'y': {
            char *end;
            o->rate = strtod(optarg, &end);
            if (*end != '\0' || !(o->rate > 0))
                die("bad --rate_limit \"%s\": a positive number in --rate_units", optarg);
            break;
        }
        case 'Y':
            if (strcmp(optarg, "M") != 0 && strcmp(optarg, "g") != 0 && strcmp(optarg, "p") != 0)
                die("bad --rate_units \"%s\": M (MiB/s), g (Gb/s) or p (messages/s)", optarg);
            o->rate_unit = optarg[0];
            break;
        case 'k':
            if (strcasecmp(optarg, "SW") != 0)
                die("--rate_limit_type %s: qpbench paces in software only (SW); the device's rate limiter is not "
                    "used", optarg);
            break;
        case 'v': {
            static char inv[1 << 20];
            int32_t rc = qpb_devices(inv, sizeof inv);
            puts(rc == QPB_OK ? inv : "{\"devices\":[],\"unavailable\":\"inventory larger than 1 MiB\"}");
            exit(rc == QPB_OK ? 0 : 1);
        }
        case 'h': usage(); exit(0);
        default: fputs("Try 'qpbench --help'.\n", stderr); exit(1);
        }
    }
    if (optind < argc)
        o->host = argv[optind++];
    if (optind < argc)
        die("unexpected argument \"%s\"", argv[optind]);
    if (o->server && o->host)
        die("--server takes no HOST");
    bool atomic = strncmp(o->op, "atomic_", 7) == 0;
    if (atomic && !provider_given)
        o->provider = "verbs"; /* ib_atomic_bw: there are no atomics over tcp */
    if (o->n_sizes == 0)
        o->sizes[o->n_sizes++] = atomic ? 8 : o->latency ? 2 : 65536; /* ib_atomic_*'s 8, DEF_SIZE_LAT, DEF_SIZE_BW */
    if (o->port == 0 || o->port > 65535)
        die("port must be in 1..65535");
}

/* perftest's header, once the first run said what it ran on. */
static void print_header(const options *o, const char *role, const char *sum)
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
        snprintf(t, sizeof t, "%s", o->transport);
        for (char *p = t; *p; p++)
            *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        printf(" Device          : %s\n", qpbench_str(sum, "device", v, sizeof v));
        printf(" Connection type : %-8s Using SRQ              : %s\n", t, strcmp(o->srq, "none") ? o->srq : "OFF");
        printf(" RX depth        : %-8.0f CQ Moderation          : %u\n", qpbench_num(sum, "rx_depth"),
               o->latency ? QPB_LAT_SIGNAL_EVERY : o->signal_every);
        printf(" Post List       : %-8u Max inline data        : %.0f[B]\n", o->post_list,
               qpbench_num(sum, "inline_size"));
        printf(" Mtu             : %.0f[B]\n", qpbench_num(sum, "path_mtu"));
        printf(" Link type       : %s\n", qpbench_str(sum, "link_layer", v, sizeof v));
        printf(" GID index       : %.0f\n", qpbench_num(sum, "gid_index"));
        printf(" CQ mode         : %-8s Polling                : %s\n", qpbench_str(sum, "cq_mode", v, sizeof v),
               o->events ? "event" : "busy");
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
static void print_latency(const options *o, const char *sum)
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

static void print_result(const options *o, const char *sum)
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
        if (strcmp(qpbench_str(sum, "provider", v, sizeof v), "verbs") == 0)
            printf(" window full: %.1f %% of the time (tx depth %.0f in flight, waiting for a completion)\n",
                   100.0 * qpbench_num(sum, "window_full_share"), qpbench_num(sum, "tx_depth"));
    }
    print_cost(stdout, o, sum);
    fflush(stdout);
}

static void check(qpb_session *s, int32_t rc, const char *what)
{
    if (rc != QPB_OK)
        die("%s: %s", what, qpb_last_error(s));
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
static void print_intervals(const options *o, const uint8_t *buf, int32_t n)
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
            print_intervals(o, buf, n);
    }
    const char *e = qpb_last_error(s);
    if (e[0] != '\0')
        die("run failed: %s", e);
}

/* ---- control channel: length-prefixed strings over one TCP socket ---- */

static void ctl_send(int fd, const char *msg)
{
    size_t n = strlen(msg), done = 0;
    uint32_t len = htonl((uint32_t)n);
    if (send(fd, &len, 4, MSG_NOSIGNAL) != 4)
        die("control connection: send: %s", strerror(errno));
    while (done < n) {
        ssize_t k = send(fd, msg + done, n - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            die("control connection: send: %s", strerror(errno));
        done += (size_t)k;
    }
}

static char *ctl_recv(int fd)
{
    uint32_t len;
    if (recv(fd, &len, 4, MSG_WAITALL) != 4)
        die("control connection: the peer closed it (are both sides given the same sizes?)");
    len = ntohl(len);
    if (len > (1u << 28))
        die("control connection: message of %u bytes: not a qpbench peer", len);
    char *m = malloc(len + 1);
    if (m == NULL || (len > 0 && recv(fd, m, len, MSG_WAITALL) != (ssize_t)len))
        die("control connection: short read");
    m[len] = '\0';
    return m;
}

static int ctl_open(const options *o)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
    const char *addr = o->server ? (o->bind ? o->bind : "0.0.0.0") : o->host;
    if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
        die("\"%s\" is not an IPv4 address", addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    if (o->server) {
        int one = 1, c;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1) < 0)
            die("listen on %s:%u: %s", addr, o->port, strerror(errno));
        if ((c = accept(fd, NULL, NULL)) < 0)
            die("accept on %s:%u: %s", addr, o->port, strerror(errno));
        close(fd);
        return c;
    }
    /* The server may still be starting: retry for up to 5 s. */
    for (int tries = 0; connect(fd, (struct sockaddr *)&a, sizeof a) < 0; tries++) {
        if (errno != ECONNREFUSED || tries >= 50)
            die("connect %s:%u: %s", addr, o->port, strerror(errno));
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    return fd;
}

/* A server listening on 0.0.0.0 advertises that; the client means HOST. */
static char *fix_host(char *blob, const char *host)
{
    const char *any = "\"host\":\"0.0.0.0\"";
    char *at = strstr(blob, any);
    if (at == NULL)
        return blob;
    size_t head = (size_t)(at - blob), tail = strlen(at + strlen(any));
    char *out = malloc(head + tail + strlen(host) + 16);
    if (out == NULL)
        die("out of memory");
    sprintf(out, "%.*s\"host\":\"%s\"%s", (int)head, blob, host, at + strlen(any));
    free(blob);
    return out;
}

/* The session's endpoint blob, however long (a verbs blob grows with its QPs). */
static char *endpoint_of(qpb_session *s)
{
    for (uint32_t len = 4096;; len *= 4) {
        char *buf = malloc(len);
        if (buf == NULL)
            die("out of memory for the endpoint");
        int32_t rc = qpb_local_endpoint(s, buf, len);
        if (rc == QPB_OK)
            return buf;
        free(buf);
        if (rc != QPB_ENOSPC || len > (1u << 28))
            die("endpoint: %s", qpb_last_error(s));
    }
}

static void run_size(const options *o, uint64_t size, int ctl, char *sum, uint32_t sum_len)
{
    const char *role = o->server ? "server" : o->host ? "client" : "loopback";
    char err[2048];
    char *spec = qpbench_spec(o, size, role, err, sizeof err);
    if (spec == NULL)
        die("%s", err);
    qpb_session *s = qpb_session_create(spec, err, sizeof err);
    free(spec);
    if (s == NULL)
        die("%s", err);
    if (ctl >= 0) {
        char *blob = endpoint_of(s), *peer;
        if (o->server) {
            ctl_send(ctl, blob);
            peer = ctl_recv(ctl);
        } else {
            peer = fix_host(ctl_recv(ctl), o->host);
            ctl_send(ctl, blob);
        }
        free(blob);
        check(s, qpb_connect(s, peer), "connect");
        free(peer);
    }
    check(s, qpb_start(s), "start");
    run_to_end(o, s);
    check(s, qpb_summary(s, sum, sum_len), "summary");
    if (!qpbench_summary_ok(sum, err, sizeof err))
        die("summary: %s", err);
    if (ctl >= 0) {
        /* Lockstep: neither side starts the next size before both ended. */
        if (o->server)
            free(ctl_recv(ctl));
        else
            ctl_send(ctl, "done");
    }
    qpb_session_destroy(s);
}

int main(int argc, char **argv)
{
    options o;
    parse_args(argc, argv, &o);
    const char *role = o.server ? "server" : o.host ? "client" : "loopback";
    int ctl = o.server || o.host ? ctl_open(&o) : -1;
    uint32_t sum_len = 65536 + 2048u * o.threads;
    char *sum = malloc(sum_len);
    size_t all_len = (size_t)sum_len * (size_t)o.n_sizes + 16, used = 0;
    char *all = o.json_path ? malloc(all_len) : NULL;
    for (int i = 0; i < o.n_sizes; i++) {
        run_size(&o, o.sizes[i], ctl, sum, sum_len);
        if (i == 0)
            print_header(&o, role, sum);
        if (o.latency)
            print_latency(&o, sum);
        else
            print_result(&o, sum);
        if (all != NULL) {
            used += (size_t)snprintf(all + used, all_len - used, "%s%s", i ? ",\n" : "[", sum);
            FILE *f = fopen(o.json_path, "w");
            if (f == NULL || fprintf(f, "%s]\n", all) < 0 || fclose(f) != 0)
                die("--json %s: %s", o.json_path, strerror(errno));
        }
    }
    printf(LINE);
    if (ctl >= 0)
        close(ctl);
    free(sum);
    free(all);
    return 0;
}
