/*
 * test_latency.c — mode latency through the tcp provider on 127.0.0.1: every
 * iteration is one cycle whose time is half its round trip, the summary's
 * latency_us agrees with cycle_ns, client and server as two sessions, and a
 * mode mismatch between them is a clear error.
 */
#include <math.h>

#include "qpb.h"
#include "qpb_test.h"

#define SUMMARY_LEN (64 * 1024)

/* A number inside the object that follows "key": in json. */
static double num_in(const char *json, const char *object, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":{", object);
    const char *at = strstr(json, pat);
    return at ? qpb_test_json_num(at, key) : -1.0;
}

static int count(const char *json, const char *what)
{
    int n = 0;
    for (const char *p = strstr(json, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* latency_us: ordered figures, the cycle times in µs, and each one half a round trip. */
static void check_latency_summary(const char *sum, double cycles)
{
    CHECKF(strstr(sum, "\"mode\":\"latency\"") != NULL, "%s", sum);
    CHECKF(qpb_test_json_num(sum, "cycles") == cycles, "%s", sum);
    double min = num_in(sum, "latency_us", "min"), typ = num_in(sum, "latency_us", "typical");
    double p99 = num_in(sum, "latency_us", "p99"), p999 = num_in(sum, "latency_us", "p999");
    double max = num_in(sum, "latency_us", "max"), avg = num_in(sum, "latency_us", "avg");
    CHECKF(min > 0 && min <= typ && typ <= p99 && p99 <= p999 && p999 <= max && min <= avg && avg <= max,
           "min %g typical %g p99 %g p99.9 %g max %g avg %g", min, typ, p99, p999, max, avg);
    CHECK(fabs(min * 1e3 - num_in(sum, "cycle_ns", "min")) < 0.01 && fabs(max * 1e3 - num_in(sum, "cycle_ns", "max")) < 0.01);
    CHECK(num_in(sum, "latency_us", "stdev") >= 0);
}

/* One thread's round trips follow one another: its span is about the sum of its round trips, i.e.
 * twice the sum of what it recorded (a full round trip recorded would make it about four times). */
static void check_half_round_trips(const char *sum)
{
    double n = qpb_test_json_num(sum, "cycles"), avg_ns = num_in(sum, "cycle_ns", "avg");
    double span = qpb_test_json_num(sum, "duration_ns"), max_ns = num_in(sum, "cycle_ns", "max");
    double trips = 2 * avg_ns * n;
    CHECKF(trips <= span + 2 * max_ns && trips >= 0.3 * span, "2 x %g cycles x %g ns = %g ns of round trips in a span "
           "of %g ns", n, avg_ns, trips, span);
}

static void loopback_records_half_round_trips(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"mode\":\"latency\",\"threads\":2,\"msg_size\":64,"
                                        "\"iterations\":300,\"warmup_cycles\":20,\"trace_first\":300}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    CHECK(qpb_start(s) == QPB_OK);
    CHECK(qpb_wait(s, 20000) == QPB_OK);
    CHECKF(qpb_last_error(s)[0] == '\0', "%s", qpb_last_error(s));
    qpb_trace_record r[700];
    int n = qpb_drain(s, r, 700);
    CHECK(n == 600);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += r[i].end_ns <= r[i].start_ns || r[i].bytes != 64 || r[i].messages != 1;
    CHECK(bad == 0);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    check_latency_summary(sum, 600);
    CHECKF(qpb_test_json_num(sum, "iterations") == 300 && qpb_test_json_num(sum, "tx_depth") == 1, "%s", sum);
    CHECKF(count(sum, "\"latency_us\":{") == 3, "top level and both threads: %s", sum);
    free(sum);
    qpb_session_destroy(s);

    s = qpb_session_create("{\"provider\":\"tcp\",\"mode\":\"latency\",\"msg_size\":4096,\"iterations\":300}", err,
                           sizeof err);
    CHECK(s != NULL && qpb_start(s) == QPB_OK && qpb_wait(s, 20000) == QPB_OK);
    sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    check_latency_summary(sum, 300);
    check_half_round_trips(sum);
    free(sum);
    qpb_session_destroy(s);
}

/* Summaries of bandwidth runs say their mode and have no latency_us. */
static void bandwidth_summary_says_its_mode(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":64,\"iterations\":10}", err, sizeof err);
    CHECK(s != NULL && qpb_start(s) == QPB_OK && qpb_wait(s, 10000) == QPB_OK);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    CHECKF(strstr(sum, "\"mode\":\"bw\"") != NULL && strstr(sum, "latency_us") == NULL, "%s", sum);
    free(sum);
    qpb_session_destroy(s);
}

static void client_and_server_ping_pong(void)
{
    char blob[512];
    const char *shape = "\"mode\":\"latency\",\"threads\":2,\"msg_size\":1000,\"iterations\":200,\"warmup_cycles\":5";
    qpb_session *srv, *cli;
    if (qpb_test_tcp_pair(shape, "", &srv, &cli, blob, sizeof blob) != 0)
        return;
    CHECKF(strstr(blob, "\"mode\":\"latency\"") != NULL, "%s", blob);
    CHECK(qpb_start(srv) == QPB_OK && qpb_start(cli) == QPB_OK);
    CHECK(qpb_wait(cli, 20000) == QPB_OK && qpb_wait(srv, 20000) == QPB_OK);
    CHECKF(qpb_last_error(cli)[0] == '\0' && qpb_last_error(srv)[0] == '\0', "%s / %s", qpb_last_error(cli),
           qpb_last_error(srv));
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(cli, sum, SUMMARY_LEN) == QPB_OK);
    check_latency_summary(sum, 400);
    CHECK(qpb_summary(srv, sum, SUMMARY_LEN) == QPB_OK);
    /* the server answered every message, warm-up included, and measured nothing */
    CHECKF(strstr(sum, "\"side\":\"receiver\"") && qpb_test_json_num(sum, "messages") == 410 &&
               qpb_test_json_num(sum, "bytes") == 410000 && num_in(sum, "latency_us", "max") == 0,
           "%s", sum);
    free(sum);
    qpb_session_destroy(cli);
    qpb_session_destroy(srv);
}

static void mode_mismatch_is_a_clear_error(void)
{
    char err[512], blob[512];
    qpb_session *srv = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"server\",\"mode\":\"latency\","
                                          "\"msg_size\":64}", err, sizeof err);
    qpb_session *cli = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"client\",\"msg_size\":64}", err,
                                          sizeof err);
    CHECK(srv && cli);
    CHECK(qpb_local_endpoint(srv, blob, sizeof blob) == QPB_OK);
    CHECK(qpb_connect(cli, blob) == QPB_EINVAL);
    CHECKF(strstr(qpb_last_error(cli), "mode: peer latency, ours bw") != NULL, "%s", qpb_last_error(cli));
    qpb_session_destroy(cli);
    qpb_session_destroy(srv);
}

/* A duration run ends on time, and a stop ends it early with the cycle in flight finished. */
static void duration_and_stop(void)
{
    char err[512];
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"mode\":\"latency\",\"msg_size\":64,"
                                        "\"duration_ms\":300}", err, sizeof err);
    CHECK(s != NULL && qpb_start(s) == QPB_OK);
    CHECK(qpb_wait(s, 5000) == QPB_OK);
    char *sum = malloc(SUMMARY_LEN);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    double span = qpb_test_json_num(sum, "duration_ns");
    CHECKF(span >= 250e6 && span < 1500e6 && qpb_test_json_num(sum, "cycles") > 10, "%s", sum);
    qpb_session_destroy(s);
    s = qpb_session_create("{\"provider\":\"tcp\",\"mode\":\"latency\",\"msg_size\":64,\"duration_ms\":60000}", err,
                           sizeof err);
    CHECK(s != NULL && qpb_start(s) == QPB_OK);
    CHECK(qpb_wait(s, 100) == QPB_ETIMEOUT);
    CHECK(qpb_stop(s) == QPB_OK);
    CHECK(qpb_wait(s, 5000) == QPB_OK);
    CHECK(qpb_summary(s, sum, SUMMARY_LEN) == QPB_OK);
    CHECKF(strstr(sum, "\"stopped\":true") && strstr(sum, "\"status\":\"ok\""), "%s", sum);
    free(sum);
    qpb_session_destroy(s);
}

const qpb_test_case qpb_latency_tests[] = {
    {"latency: tcp loopback records half round trips", loopback_records_half_round_trips},
    {"latency: a bandwidth summary says its mode", bandwidth_summary_says_its_mode},
    {"latency: tcp client and server ping-pong", client_and_server_ping_pong},
    {"latency: a mode mismatch is a clear error", mode_mismatch_is_a_clear_error},
    {"latency: duration and stop", duration_and_stop},
    {NULL, NULL},
};
