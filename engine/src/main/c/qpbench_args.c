/*
 * qpbench_args.c — qpbench's command line: --help's text, and the options
 * (perftest's flags where it has them) parsed into an options struct.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qpb.h"
#include "qpbench.h"

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
         "  -l, --post_list=N      cycles posted at once: one ibv_post_send or ibv_wr_complete (default 1)\n"
         "      --use_srq          one SRQ per thread (--srq=shared: one for all threads)\n"
         "  -e, --events           sleep on a completion channel instead of busy polling\n"
         "  -m, --mtu=BYTES        path MTU 256..4096 (default: the port's active MTU)\n"
         "      --cq-mode=MODE     per_qp, per_thread (default) or shared CQs\n"
         "      --mr-mode=MODE     per_thread (default) or per_qp memory regions\n"
         "      --lock-model=MODE  shared (default) or thread_domain (ibv_alloc_td per thread)\n"
         "      --qp-sharing=MODE  per_thread (default) or shared: every thread posts to the same -q QPs\n"
         "                         (write and read; implies --cq-mode=shared unless given)\n"
         "  -R, --rdma_cm          connect the QPs through rdma_cm (RC; what iWARP needs)\n"
         "      --disable_pcie_relaxed  register memory without relaxed ordering (default: with it, as perftest)\n"
         "      --use_hugepages    message buffers on 2 MiB hugepages (reserve them: sysctl vm.nr_hugepages=N)\n"
         "      --odp              register memory on demand (IBV_ACCESS_ON_DEMAND; the device must page on demand)\n"
         "      --use_old_post_send  post with ibv_post_send (post_api legacy); without it ibv_wr_* where perftest\n"
         "                         uses them (mlx5, EFA, HNS), else ibv_post_send\n"
         "      --post-api=API     wr (ibv_wr_*, wherever the device has them) or legacy (ibv_post_send)\n"
         "      --target-wait=HOW  how the target of a write/read/atomic waits: sleep (default; perftest's server\n"
         "                         when it exchanges over TCP) or spin (busy, as perftest's with -R)\n"
         "  -F                     accepted for perftest compatibility (no CPU frequency check here)\n"
         "      --report_gbits     report bandwidth in Gb/sec instead of MB/sec\n"
         "      --server           be the receiving side and wait for a client\n"
         "  -h, --help             this text\n"
         "\n"
         "Errors go to stderr with the engine's message; the exit status is then 1.");
}

enum { OPT_NO_RELAXED = 0x100, OPT_HUGEPAGES, OPT_ODP }; /* long options without a short one */

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
        qpbench_die("bad size \"%s\" (want a positive number, optionally with k, m or g)", s);
    return (uint64_t)v * mul;
}

static unsigned long parse_uint(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        qpbench_die("bad %s \"%s\" (want a non-negative integer)", what, s);
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

void qpbench_parse_args(int argc, char **argv, options *o)
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
        {"atomic_type", required_argument, 0, 'A'}, {"bidirectional", no_argument, 0, 'b'},
        {"disable_pcie_relaxed", no_argument, 0, OPT_NO_RELAXED}, {"use_hugepages", no_argument, 0, OPT_HUGEPAGES},
        {"odp", no_argument, 0, OPT_ODP},
        {"use_old_post_send", no_argument, 0, 1001}, {"post-api", required_argument, 0, 1002},
        {"target-wait", required_argument, 0, 1003}, {0, 0, 0, 0},
    };
    *o = (options){.iterations = 1000, .qps = 1, .threads = 1, .depth = 128, .port = 18515, .provider = "tcp",
                   .device = "", .op = "send", .transport = "rc", .srq = "none",
                   .mr_mode = "per_thread", .lock_model = "shared", .qp_sharing = "per_thread", .ib_port = 1, .gid_index = -1, .rx_depth = 512,
                   .signal_every = 1, .post_list = 1, .rate_unit = 'g'};
    const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (strncmp(self, "ib_", 3) == 0 && !act_as(self, o))
        qpbench_die("called as %s: qpbench acts as ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat, ib_send_bw, "
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
                    qpbench_die("--sizes: at most %d sizes", MAX_SIZES);
                o->sizes[o->n_sizes++] = parse_size(t);
            }
            free(list);
            break;
        }
        case 'n': o->iterations = parse_uint(optarg, "iteration count"); break;
        case 'D': o->duration_s = strtod(optarg, NULL); if (o->duration_s <= 0) qpbench_die("bad -D \"%s\"", optarg); break;
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
                qpbench_die("bad -A \"%s\": FETCH_AND_ADD or CMP_AND_SWAP", optarg);
            break;
        case 'b': o->bidirectional = 1; break;
        case OPT_NO_RELAXED: o->no_relaxed = 1; break;
        case OPT_HUGEPAGES: o->hugepages = 1; break;
        case OPT_ODP: o->odp = 1; break;
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
                qpbench_die("--perftest %s: one of ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat, ib_send_bw, "
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
        case 1001: o->post_api = "legacy"; break;
        case 1002: o->post_api = optarg; break;
        case 1003: o->target_wait = optarg; break;
        case 'y': {
            char *end;
            o->rate = strtod(optarg, &end);
            if (*end != '\0' || !(o->rate > 0))
                qpbench_die("bad --rate_limit \"%s\": a positive number in --rate_units", optarg);
            break;
        }
        case 'Y':
            if (strcmp(optarg, "M") != 0 && strcmp(optarg, "g") != 0 && strcmp(optarg, "p") != 0)
                qpbench_die("bad --rate_units \"%s\": M (MiB/s), g (Gb/s) or p (messages/s)", optarg);
            o->rate_unit = optarg[0];
            break;
        case 'k':
            if (strcasecmp(optarg, "SW") != 0)
                qpbench_die("--rate_limit_type %s: qpbench paces in software only (SW); the device's rate limiter is not "
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
        qpbench_die("unexpected argument \"%s\"", argv[optind]);
    if (o->server && o->host)
        qpbench_die("--server takes no HOST");
    bool atomic = strncmp(o->op, "atomic_", 7) == 0;
    if (atomic && !provider_given)
        o->provider = "verbs"; /* ib_atomic_bw: there are no atomics over tcp */
    if (o->n_sizes == 0)
        o->sizes[o->n_sizes++] = atomic ? 8 : o->latency ? 2 : 65536; /* ib_atomic_*'s 8, DEF_SIZE_LAT, DEF_SIZE_BW */
    if (o->port == 0 || o->port > 65535)
        qpbench_die("port must be in 1..65535");
}
