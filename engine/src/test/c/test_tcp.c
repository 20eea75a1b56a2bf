/*
 * test_tcp.c — the tcp provider end to end on 127.0.0.1: exact byte and
 * record accounting in loopback, payload verification, client and server as
 * two sessions, and the errors a user meets (refused, mismatch, lifecycle).
 */
#include <time.h>

#include "qpb.h"
#include "qpb_test.h"

#define SUMMARY_LEN (64 * 1024)
#define INTERVAL_BUF (2 * QPB_INTERVAL_MAX_BYTES)

typedef struct drained {
    /* trace records */
    uint64_t records, bytes, messages, errors;
    uint64_t first_start, last_end, min_cycle, max_cycle;
    uint64_t next_cycle[8]; /* per thread: cycles must come in order */
    int out_of_order, bad_records;
    /* interval records */
    uint64_t intervals, iv_cycles, iv_bytes, iv_messages, iv_errors, iv_min, iv_max, iv_first, iv_last;
    uint64_t next_index[8]; /* per thread: intervals come in order and do not overlap */
    int bad_intervals;
    uint8_t *buf;
} drained;

static void take(drained *d, const qpb_trace_record *r, int n, uint32_t qps, uint64_t msz)
{
    for (int i = 0; i < n; i++) {
        const qpb_trace_record *x = &r[i];
        uint64_t c = x->end_ns - x->start_ns;
        if (d->records == 0 || x->start_ns < d->first_start)
            d->first_start = x->start_ns;
        if (x->end_ns > d->last_end)
            d->last_end = x->end_ns;
        if (d->records == 0 || c < d->min_cycle)
            d->min_cycle = c;
        if (c > d->max_cycle)
            d->max_cycle = c;
        if (x->thread < 8) {
            if (x->cycle < d->next_cycle[x->thread])
                d->out_of_order++;
            d->next_cycle[x->thread] = x->cycle + 1;
        }
        if (x->bytes != msz * qps || x->messages != qps || x->end_ns < x->start_ns)
            d->bad_records++;
        d->records++;
        d->bytes += x->bytes;
        d->messages += x->messages;
        d->errors += x->errors;
    }
}

/* Interval records: each one's histogram adds up to its cycles, its buckets ascend and lie within
 * [min, max], and a thread's intervals follow one another. */
static void take_intervals(drained *d, const uint8_t *buf, int32_t n)
{
    for (int32_t at = 0; at < n;) {
        qpb_interval iv;
        memcpy(&iv, buf + at, sizeof iv);
        const qpb_interval_bucket *b = (const qpb_interval_bucket *)(buf + at + sizeof iv);
        uint64_t sum = 0;
        int bad = iv.size != sizeof iv + iv.buckets * sizeof *b || iv.cycles == 0 || iv.span < 1 ||
                  iv.thread >= 8 || iv.index < d->next_index[iv.thread] || iv.min_ns > iv.max_ns ||
                  iv.first_start_ns > iv.last_end_ns;
        for (uint32_t k = 0; k < iv.buckets; k++) {
            sum += b[k].count;
            bad |= b[k].count == 0 || (k > 0 && b[k].bucket <= b[k - 1].bucket) || b[k].reserved != 0;
        }
        bad |= sum != iv.cycles;
        d->bad_intervals += bad;
        if (iv.thread < 8)
            d->next_index[iv.thread] = iv.index + iv.span;
        if (d->intervals == 0 || iv.min_ns < d->iv_min)
            d->iv_min = iv.min_ns;
        if (iv.max_ns > d->iv_max)
            d->iv_max = iv.max_ns;
        if (d->intervals == 0 || iv.first_start_ns < d->iv_first)
            d->iv_first = iv.first_start_ns;
        if (iv.last_end_ns > d->iv_last)
            d->iv_last = iv.last_end_ns;
        d->intervals++;
        d->iv_cycles += iv.cycles;
        d->iv_bytes += iv.bytes;
        d->iv_messages += iv.messages;
        d->iv_errors += iv.errors;
        at += (int32_t)iv.size;
    }
}

static void drain_all(qpb_session *s, drained *d, uint32_t qps, uint64_t msz)
{
    qpb_trace_record buf[128];
    int n;
    while ((n = qpb_drain(s, buf, 128)) > 0)
        take(d, buf, n, qps, msz);
    if (d->buf == NULL)
        d->buf = malloc(INTERVAL_BUF);
    int32_t m;
    while ((m = qpb_drain_intervals(s, d->buf, INTERVAL_BUF)) > 0)
        take_intervals(d, d->buf, m);
}

/* Runs a session to its end, draining concurrently like the agent does (or only at the end). */
static int run_and_drain(qpb_session *s, drained *d, uint32_t qps, uint64_t msz, int drain)
{
    int rc = qpb_start(s);
    if (rc != QPB_OK)
        return rc;
    for (int i = 0; i < 60000; i++) {
        if (drain)
            drain_all(s, d, qps, msz);
        if (qpb_wait(s, 1) == QPB_OK)
            break;
    }
    drain_all(s, d, qps, msz);
    free(d->buf);
    d->buf = NULL;
    return QPB_OK;
}

/* The interval records add up to the summary, exactly: every cycle, once. */
static void check_intervals_add_up(const drained *d, const char *sum)
{
    CHECKF(d->bad_intervals == 0, "%d malformed interval records", d->bad_intervals);
    CHECKF((double)d->iv_cycles == qpb_test_json_num(sum, "cycles"), "intervals hold %llu cycles: %s",
           (unsigned long long)d->iv_cycles, sum);
    CHECK((double)d->iv_bytes == qpb_test_json_num(sum, "bytes"));
    CHECK((double)d->iv_messages == qpb_test_json_num(sum, "messages"));
    CHECK((double)d->iv_errors == qpb_test_json_num(sum, "errors"));
    CHECKF((double)d->intervals == qpb_test_json_num(sum, "intervals"), "%llu records: %s",
           (unsigned long long)d->intervals, sum);
    CHECK((double)d->iv_min == qpb_test_json_num(sum, "min") && (double)d->iv_max == qpb_test_json_num(sum, "max"));
    CHECK((double)(d->iv_last - d->iv_first) == qpb_test_json_num(sum, "duration_ns"));
}

static void loopback_case(const char *extra, int drain)
{
    char spec[512], err[512];
    snprintf(spec, sizeof spec,
             "{\"provider\":\"tcp\",\"threads\":2,\"qps_per_thread\":3,\"msg_size\":4096,\"iterations\":200%s}",
             extra);
    qpb_session *s = qpb_session_create(spec, err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    drained d = {0};
    CHECKF(run_and_drain(s, &d, 3, 4096, drain) == QPB_OK, "%s", qpb_last_error(s));
    char *sum = malloc(SUMMARY_LEN);
    CHECKF(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK, "%s", qpb_last_error(s));
    double dropped = qpb_test_json_num(sum, "dropped");
    CHECKF(d.records + (uint64_t)dropped == 400 && d.records == qpb_test_json_num(sum, "traced"),
           "drained %llu + dropped %.0f: %s", (unsigned long long)d.records, dropped, sum);
    CHECKF(qpb_test_json_num(sum, "bytes") == 200.0 * 4096 * 3 * 2, "%s", sum);
    CHECK(qpb_test_json_num(sum, "cycles") == 400 && qpb_test_json_num(sum, "messages") == 1200);
    CHECK(qpb_test_json_num(sum, "errors") == 0 && d.errors == 0);
    CHECK(qpb_test_json_num(sum, "iterations") == 200);
    CHECKF(strstr(sum, "\"status\":\"ok\"") != NULL, "%s", sum);
    CHECK(d.bad_records == 0 && d.out_of_order == 0);
    CHECK(d.bytes == d.records * 3 * 4096);
    check_intervals_add_up(&d, sum);
    if (dropped == 0) {
        /* Nothing dropped: the summary must be exactly what the trace says. */
        CHECK(d.records == 400);
        CHECK(qpb_test_json_num(sum, "duration_ns") == (double)(d.last_end - d.first_start));
        CHECK(qpb_test_json_num(sum, "min") == (double)d.min_cycle);
        CHECK(qpb_test_json_num(sum, "max") == (double)d.max_cycle);
        double bw = (double)d.bytes * 1e9 / (double)(d.last_end - d.first_start);
        CHECKF(qpb_test_json_num(sum, "bw_avg_bps") / bw - 1 < 1e-9 &&
                   bw / qpb_test_json_num(sum, "bw_avg_bps") - 1 < 1e-9,
               "%f vs %f", qpb_test_json_num(sum, "bw_avg_bps"), bw);
        CHECK(qpb_test_json_num(sum, "bw_peak_bps") >= qpb_test_json_num(sum, "bw_avg_bps") * 0.999);
    }
    free(sum);
    qpb_session_destroy(s);
}

static void loopback_accounts_every_byte_and_record(void) { loopback_case(",\"trace_first\":200", 1); }
static void loopback_with_verify_has_no_errors(void) { loopback_case(",\"verify\":true,\"tx_depth\":7,\"trace_first\":200", 1); }
static void loopback_counts_drops_of_a_tiny_ring(void) { loopback_case(",\"trace_first\":200,\"ring_capacity\":16", 0); }

/* No trace by default: nothing to drain but intervals, and they count every cycle. */
static void loopback_without_trace_counts_every_cycle_in_intervals(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"threads\":2,\"msg_size\":64,\"duration_ms\":400,"
                                        "\"interval_ms\":10}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    drained d = {0};
    CHECKF(run_and_drain(s, &d, 1, 64, 1) == QPB_OK, "%s", qpb_last_error(s));
    char *sum = malloc(SUMMARY_LEN);
    CHECKF(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK, "%s", qpb_last_error(s));
    CHECKF(d.records == 0 && qpb_test_json_num(sum, "traced") == 0 && qpb_test_json_num(sum, "dropped") == 0, "%s", sum);
    check_intervals_add_up(&d, sum);
    /* about 40 per thread; a thread descheduled on a busy machine closes fewer (its gap falls in one), none is lost */
    CHECKF(d.intervals >= 2 * 20 && d.intervals <= 2 * 45, "%llu intervals of 10 ms in 400 ms x 2 threads",
           (unsigned long long)d.intervals);
    CHECKF(qpb_test_json_num(sum, "intervals_late") == 0 && qpb_test_json_num(sum, "interval_ms") == 10, "%s", sum);
    free(sum);
    qpb_session_destroy(s);
}

/* interval_ms 0 (qpbench): the summary counts every cycle, nothing is left to drain, none dropped. */
static void loopback_summary_only_leaves_nothing_to_drain(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"threads\":2,\"msg_size\":64,\"iterations\":50000,"
                                        "\"interval_ms\":0}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    CHECKF(qpb_start(s) == QPB_OK && qpb_wait(s, -1) == QPB_OK, "%s", qpb_last_error(s));
    qpb_trace_record r[16];
    uint8_t *buf = malloc(QPB_INTERVAL_MAX_BYTES);
    CHECK(qpb_drain(s, r, 16) == 0 && qpb_drain_intervals(s, buf, QPB_INTERVAL_MAX_BYTES) == 0);
    CHECK(qpb_drain_intervals(s, buf, 1000) == -QPB_ENOSPC);
    char *sum = malloc(SUMMARY_LEN);
    CHECKF(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK, "%s", qpb_last_error(s));
    CHECKF(qpb_test_json_num(sum, "cycles") == 100000 && qpb_test_json_num(sum, "dropped") == 0, "%s", sum);
    CHECKF(qpb_test_json_num(sum, "intervals") == 0, "%s", sum);
    CHECKF(qpb_test_json_num(sum, "bytes") == 100000.0 * 64 && qpb_test_json_num(sum, "bw_avg_bps") > 0, "%s", sum);
    CHECKF(qpb_test_json_num(sum, "p99") >= qpb_test_json_num(sum, "min"), "%s", sum);
    free(buf);
    free(sum);
    qpb_session_destroy(s);
}

/* Nobody drains while it runs and the ring is small: intervals stay open and grow instead of losing a
 * cycle, the last one waits for the drain after the thread ended, and all of them add up. */
static void undrained_intervals_grow_and_lose_nothing(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":64,\"duration_ms\":500,"
                                        "\"interval_ms\":10,\"interval_ring\":16384}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    drained d = {0};
    CHECKF(run_and_drain(s, &d, 1, 64, 0) == QPB_OK, "%s", qpb_last_error(s));
    char *sum = malloc(SUMMARY_LEN);
    CHECKF(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK, "%s", qpb_last_error(s));
    check_intervals_add_up(&d, sum);
    CHECKF(qpb_test_json_num(sum, "intervals_late") > 0, "the ring never filled: %s", sum);
    free(sum);
    qpb_session_destroy(s);
}

static void loopback_skips_warmup_and_records_odd_sizes(void)
{
    loopback_case(",\"warmup_cycles\":50,\"verify\":true,\"tcp_nodelay\":false,\"trace_first\":200", 1);
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":333333,\"qps_per_thread\":2,"
                                        "\"iterations\":60,\"verify\":true,\"tx_depth\":3,\"trace_first\":60}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    drained d = {0};
    CHECK(run_and_drain(s, &d, 2, 333333, 1) == QPB_OK);
    CHECK(d.records == 60 && d.bytes == 60ull * 2 * 333333 && d.errors == 0 && d.bad_records == 0);
    CHECK(d.iv_cycles == 60 && d.iv_bytes == 60ull * 2 * 333333);
    qpb_session_destroy(s);
}

static void client_and_server_sessions_agree(void)
{
    char sblob[512];
    const char *shape =
        "\"threads\":2,\"qps_per_thread\":2,\"msg_size\":65536,\"iterations\":100,\"verify\":true,\"trace_first\":100";
    qpb_session *srv, *cli;
    if (qpb_test_tcp_pair(shape, "", &srv, &cli, sblob, sizeof sblob) != 0)
        return;
    CHECKF(strstr(sblob, "\"host\":\"127.0.0.1\"") && strstr(sblob, "\"threads\":2"), "%s", sblob);
    CHECK(qpb_start(srv) == QPB_OK);
    drained d = {0};
    CHECK(run_and_drain(cli, &d, 2, 65536, 1) == QPB_OK);
    CHECK(qpb_wait(srv, 10000) == QPB_OK);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(srv, sum, SUMMARY_LEN) == QPB_OK);
    CHECKF(qpb_test_json_num(sum, "bytes") == 100.0 * 65536 * 2 * 2 && strstr(sum, "\"side\":\"receiver\""), "%s",
           sum);
    CHECK(qpb_test_json_num(sum, "errors") == 0);
    CHECK(qpb_summary(cli, sum, SUMMARY_LEN) == QPB_OK);
    CHECK(qpb_test_json_num(sum, "bytes") == 100.0 * 65536 * 2 * 2 && d.records == 200 && d.errors == 0);
    check_intervals_add_up(&d, sum);
    free(sum);
    qpb_session_destroy(cli);
    qpb_session_destroy(srv);
}

/* Bidirectional: each side sends the whole run and receives the peer's, over connections of their own. */
static void bidirectional_sides_each_send_and_receive_everything(void)
{
    char err[512];
    const char *shape = "\"threads\":2,\"qps_per_thread\":2,\"msg_size\":4096,\"iterations\":300,\"verify\":true,"
                        "\"bidirectional\":true";
    qpb_session *srv, *cli;
    if (qpb_test_tcp_pair(shape, "", &srv, &cli, NULL, 0) != 0)
        return;
    CHECK(qpb_start(srv) == QPB_OK);
    CHECK(qpb_start(cli) == QPB_OK);
    CHECK(qpb_wait(cli, 20000) == QPB_OK);
    CHECK(qpb_wait(srv, 20000) == QPB_OK);
    char *sum = malloc(SUMMARY_LEN);
    const double all = 300.0 * 4096 * 2 * 2;
    for (int side = 0; side < 2; side++) {
        qpb_session *s = side ? srv : cli;
        CHECKF(qpb_last_error(s)[0] == '\0', "%s", qpb_last_error(s));
        CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
        CHECKF(strstr(sum, "\"side\":\"sender\",\"bidirectional\":true") != NULL, "%s", sum);
        CHECKF(qpb_test_json_num(sum, "bytes") == all && qpb_test_json_num(sum, "cycles") == 600 &&
                   qpb_test_json_num(sum, "errors") == 0 && qpb_test_json_num(sum, "bw_avg_bps") > 0,
               "%s", sum);
        CHECKF(strstr(sum, "\"received\":{\"bytes\":4915200,\"messages\":1200,\"errors\":0}") != NULL, "%s", sum);
    }
    free(sum);
    qpb_session_destroy(cli);
    qpb_session_destroy(srv);
    /* one process cannot be both ends of a bidirectional run */
    CHECK(qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":64,\"bidirectional\":true}", err, sizeof err) ==
          NULL);
    CHECKF(strstr(err, "bidirectional: role loopback holds both ends in one process") != NULL, "%s", err);
}

/* A client that does not fill the pattern talking to a verifying server:
 * every message is bad, and each error lands on its own cycle's record. */
static void verify_charges_each_bad_message_to_its_cycle(void)
{
    const char *shape = "\"qps_per_thread\":2,\"msg_size\":1000,\"iterations\":10,\"tx_depth\":4,\"trace_first\":10";
    qpb_session *srv, *cli;
    if (qpb_test_tcp_pair(shape, "\"verify\":true,", &srv, &cli, NULL, 0) != 0)
        return;
    CHECK(qpb_start(srv) == QPB_OK);
    CHECK(qpb_start(cli) == QPB_OK);
    CHECK(qpb_wait(cli, 10000) == QPB_OK && qpb_wait(srv, 10000) == QPB_OK);
    qpb_trace_record r[16];
    int n = qpb_drain(cli, r, 16);
    CHECK(n == 10);
    for (int i = 0; i < n; i++)
        CHECKF(r[i].errors == 2, "cycle %llu has %u errors", (unsigned long long)r[i].cycle, r[i].errors);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(srv, sum, SUMMARY_LEN) == QPB_OK);
    CHECKF(qpb_test_json_num(sum, "errors") == 20, "%s", sum);
    free(sum);
    qpb_session_destroy(cli);
    qpb_session_destroy(srv);
}

static void spec_mismatch_is_a_clear_error(void)
{
    char err[512], blob[512];
    qpb_session *srv = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"server\",\"threads\":2,\"msg_size\":64}",
                                          err, sizeof err);
    qpb_session *cli = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"client\",\"msg_size\":128}", err,
                                          sizeof err);
    CHECK(srv && cli);
    CHECK(qpb_local_endpoint(srv, blob, sizeof blob) == QPB_OK);
    CHECK(qpb_connect(cli, blob) == QPB_EINVAL);
    CHECKF(strstr(qpb_last_error(cli), "threads: peer 2, ours 1") &&
               strstr(qpb_last_error(cli), "msg_size: peer 64, ours 128"),
           "%s", qpb_last_error(cli));
    CHECK(qpb_start(cli) == QPB_ESTATE);
    qpb_session_destroy(cli);
    qpb_session_destroy(srv);
}

static void refused_connect_names_call_peer_and_errno(void)
{
    char err[512], blob[512];
    /* Take a free port from a server session, then close it. */
    qpb_session *srv = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"server\",\"msg_size\":64}", err,
                                          sizeof err);
    CHECK(qpb_local_endpoint(srv, blob, sizeof blob) == QPB_OK);
    qpb_session_destroy(srv);
    qpb_session *cli = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"client\",\"msg_size\":64}", err,
                                          sizeof err);
    CHECK(qpb_connect(cli, blob) == QPB_ESYS);
    CHECKF(strstr(qpb_last_error(cli), "connect 127.0.0.1:") && strstr(qpb_last_error(cli), "Connection refused") &&
               strstr(qpb_last_error(cli), "errno 111"),
           "%s", qpb_last_error(cli));
    qpb_session_destroy(cli);
}

static void stop_ends_a_duration_run_early(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":1024,\"duration_ms\":20000,"
                                        "\"ring_capacity\":1024}",
                                        err, sizeof err);
    CHECK(s != NULL);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK(qpb_start(s) == QPB_OK);
    CHECK(qpb_wait(s, 200) == QPB_ETIMEOUT);
    CHECK(qpb_stop(s) == QPB_OK);
    CHECK(qpb_wait(s, 10000) == QPB_OK);
    clock_gettime(CLOCK_MONOTONIC, &b);
    CHECK(b.tv_sec - a.tv_sec < 5);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    CHECKF(strstr(sum, "\"stopped\":true") && qpb_test_json_num(sum, "cycles") > 0, "%s", sum);
    CHECK(qpb_test_json_num(sum, "bytes") == qpb_test_json_num(sum, "cycles") * 1024);
    CHECK(qpb_summary(s, sum, 100) == QPB_ENOSPC);
    CHECKF(strstr(qpb_last_error(s), "needs") != NULL, "%s", qpb_last_error(s));
    free(sum);
    qpb_session_destroy(s);
}

static void duration_run_ends_on_time(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":8192,\"duration_ms\":300,"
                                        "\"threads\":2,\"warmup_cycles\":10}",
                                        err, sizeof err);
    drained d = {0};
    CHECK(run_and_drain(s, &d, 1, 8192, 1) == QPB_OK);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    double dur = qpb_test_json_num(sum, "duration_ns");
    CHECKF(dur >= 300e6 && dur < 1500e6, "%f", dur);
    CHECKF(d.records == 0 && d.intervals >= 2 * 3, "drained %llu intervals, %s", (unsigned long long)d.intervals, sum);
    check_intervals_add_up(&d, sum);
    CHECK(strstr(sum, "\"stopped\":false") != NULL);
    free(sum);
    qpb_session_destroy(s);
}

static void calls_out_of_order_are_refused(void)
{
    char err[512], buf[256];
    qpb_trace_record recs[4];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":10}", err, sizeof err);
    CHECK(qpb_summary(s, buf, sizeof buf) == QPB_ESTATE);
    CHECK(qpb_wait(s, 0) == QPB_ESTATE);
    CHECK(qpb_drain(s, recs, 4) == -QPB_ESTATE);
    CHECK(qpb_start(s) == QPB_OK);
    CHECK(qpb_start(s) == QPB_ESTATE);
    CHECK(qpb_wait(s, 10000) == QPB_OK);
    CHECK(qpb_connect(s, NULL) == QPB_ESTATE);
    qpb_session_destroy(s);
    qpb_session_destroy(NULL);
}

#define PACE_N 400 /* cycles per thread of each run of the pacing test */

/* The start times of every cycle of a 2-thread run (trace_first covers them all); the number of trace records drained. */
static int cycle_starts(uint32_t rate, uint64_t starts[2][PACE_N])
{
    char spec[256], err[512];
    snprintf(spec, sizeof spec,
             "{\"provider\":\"tcp\",\"threads\":2,\"msg_size\":256,\"iterations\":%d,\"rate_limit\":%u,"
             "\"trace_first\":%d}",
             PACE_N, rate, PACE_N);
    qpb_session *s = qpb_session_create(spec, err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return 0;
    qpb_trace_record buf[512];
    int got = 0;
    CHECK(qpb_start(s) == QPB_OK);
    for (int i = 0; i < 20000 && got < 2 * PACE_N; i++) {
        int n = qpb_drain(s, buf, 512);
        for (int k = 0; k < n; k++) {
            if (buf[k].thread < 2 && buf[k].cycle < PACE_N)
                starts[buf[k].thread][buf[k].cycle] = buf[k].start_ns;
            got++;
        }
        if (n == 0)
            qpb_wait(s, 1);
    }
    CHECKF(qpb_wait(s, 10000) == QPB_OK, "%s", qpb_last_error(s));
    qpb_session_destroy(s);
    return got;
}

/*
 * rate_limit paces each thread from its first cycle, and a late thread catches up (qpb.h). What the code
 * controls is checked, not how fast this machine is at the moment:
 *  - no cycle k starts before k periods after cycle 0 (0.2 ms allowed between the engine's reading of the
 *    first start and the trace's);
 *  - lateness does not accumulate: some cycle of the second half starts less than one period after it was
 *    due (a thread that paced each cycle from the one before, without catching up, would carry every
 *    oversleep of the first half: tens of ms; a stall of the machine makes cycles late but the thread
 *    catches up after it);
 *  - the paced rate is the asked one where the machine can do more: at least half of the lower of the rate
 *    asked and this machine's own unpaced rate for the same shape, measured just before.
 */
static void rate_limit_paces_each_thread(void)
{
    const uint32_t rate = 1000;
    const int64_t period = 1000000000 / rate;
    static uint64_t unpaced[2][PACE_N], paced[2][PACE_N];
    CHECK(cycle_starts(0, unpaced) == 2 * PACE_N);
    CHECK(cycle_starts(rate, paced) == 2 * PACE_N);
    for (int t = 0; t < 2; t++) {
        int early = 0;
        int64_t least_late = INT64_MAX; /* in the second half */
        for (int k = 0; k < PACE_N; k++) {
            int64_t late = (int64_t)(paced[t][k] - paced[t][0]) - (int64_t)k * period;
            early += late < -200000;
            if (k >= PACE_N / 2 && late < least_late)
                least_late = late;
        }
        CHECKF(early == 0, "thread %d: %d cycles started before they were due", t, early);
        double paced_rate = (PACE_N - 1) * 1e9 / (double)(paced[t][PACE_N - 1] - paced[t][0]);
        double own_rate = (PACE_N - 1) * 1e9 / (double)(unpaced[t][PACE_N - 1] - unpaced[t][0] + 1);
        double expect = own_rate < rate ? own_rate : rate;
        CHECKF(paced_rate <= rate * 1.01 && paced_rate >= expect / 2,
               "thread %d: paced %.0f cycles/s with rate_limit %u, this machine's unpaced rate %.0f cycles/s", t,
               paced_rate, rate, own_rate);
        if (own_rate >= 2.0 * rate) /* a machine that can catch up */
            CHECKF(least_late < period,
                   "thread %d: every cycle of the second half started %.2f ms or more after it was due: the "
                   "thread does not catch up",
                   t, (double)least_late / 1e6);
    }
}

const qpb_test_case qpb_tcp_tests[] = {
    {"tcp bidirectional sides each send and receive everything", bidirectional_sides_each_send_and_receive_everything},
    {"tcp loopback accounts every byte and record", loopback_accounts_every_byte_and_record},
    {"tcp loopback with verify has no errors", loopback_with_verify_has_no_errors},
    {"tcp loopback counts drops of a tiny ring", loopback_counts_drops_of_a_tiny_ring},
    {"tcp loopback without a trace counts every cycle in intervals", loopback_without_trace_counts_every_cycle_in_intervals},
    {"tcp loopback summary only leaves nothing to drain", loopback_summary_only_leaves_nothing_to_drain},
    {"tcp undrained intervals grow and lose nothing", undrained_intervals_grow_and_lose_nothing},
    {"tcp loopback skips warmup and handles odd sizes", loopback_skips_warmup_and_records_odd_sizes},
    {"tcp client and server sessions agree", client_and_server_sessions_agree},
    {"tcp verify charges each bad message to its cycle", verify_charges_each_bad_message_to_its_cycle},
    {"tcp spec mismatch is a clear error", spec_mismatch_is_a_clear_error},
    {"tcp refused connect names call, peer and errno", refused_connect_names_call_peer_and_errno},
    {"tcp stop ends a duration run early", stop_ends_a_duration_run_early},
    {"tcp duration run ends on time", duration_run_ends_on_time},
    {"tcp calls out of order are refused", calls_out_of_order_are_refused},
    {"tcp rate_limit paces each thread", rate_limit_paces_each_thread},
    {NULL, NULL},
};
