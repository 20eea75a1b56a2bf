/*
 * test_qpbench.c — the CLI's JSON (qpbench_json.c) under the sanitizers: the
 * spec it builds from its options, however long or odd their strings, and
 * the summary it reads back through the engine's parser (qpb_json_find).
 */
#include "qpb.h"
#include "qpb_json.h"
#include "qpb_test.h"
#include "qpbench.h"

/* qpbench's defaults (parse_args) for one run. */
static options defaults(const char *provider)
{
    return (options){.iterations = 20, .qps = 1, .threads = 1, .depth = 16, .port = 18515, .provider = provider,
                     .device = "", .op = "send", .transport = "rc", .srq = "none", .mr_mode = "per_thread",
                     .lock_model = "shared", .qp_sharing = "per_thread", .ib_port = 1, .gid_index = -1,
                     .rx_depth = 512, .signal_every = 1, .post_list = 1, .rate_unit = 'g'};
}

static void long_device_is_escaped_and_refused(void)
{
    enum { LEN = 5000 };
    static const char piece[] = "ab\"c\\"; /* a quote and a backslash in every 5 characters */
    char *device = malloc(LEN + 1);
    for (int i = 0; i < LEN; i++)
        device[i] = piece[i % 5];
    device[LEN] = '\0';
    options o = defaults("verbs");
    o.device = device;
    char why[256] = "";
    char *spec = qpbench_spec(&o, 65536, "loopback", why, sizeof why);
    CHECKF(spec != NULL, "%s", why);
    if (spec != NULL) {
        qpb_json_object *obj = malloc(sizeof(*obj));
        char err[256] = "";
        CHECKF(qpb_json_parse_flat(spec, obj, err, sizeof err), "the spec is not JSON: %s", err);
        const qpb_json_field *f = qpb_json_get(obj, "device");
        CHECK(f != NULL && f->type == QPB_JSON_STRING && f->long_str);
        CHECKF(f != NULL && f->raw_len == (size_t)(LEN + 2 * (LEN / 5)), "raw_len %zu", f ? f->raw_len : 0); /* \" and \\ */
        CHECK(qpb_json_get(obj, "transport") != NULL); /* the keys after it are intact */
        free(obj);
        qpb_session *s = qpb_session_create(spec, err, sizeof err);
        CHECK(s == NULL);
        CHECKF(strstr(err, "device must be a device name") != NULL, "err: %s", err);
        qpb_session_destroy(s);
    }
    free(spec);
    free(device);
}

static void odd_strings_round_trip(void)
{
    options o = defaults("verbs");
    o.device = "x\"y\\z\n";
    o.bind = "127.0.0.1\"";
    char why[256] = "", err[256] = "";
    char *spec = qpbench_spec(&o, 4096, "client", why, sizeof why);
    CHECKF(spec != NULL, "%s", why);
    qpb_json_field f;
    CHECK(qpb_json_find(spec, "device", &f, err, sizeof err) == 1 && strcmp(f.str, o.device) == 0);
    CHECK(qpb_json_find(spec, "bind", &f, err, sizeof err) == 1 && strcmp(f.str, o.bind) == 0);
    CHECK(qpb_json_find(spec, "msg_size", &f, err, sizeof err) == 1 && f.is_int && f.i64 == 4096);
    CHECK(qpb_json_find(spec, "gid_index", &f, err, sizeof err) == 1 && f.is_int && f.i64 == -1);
    free(spec);
}

static void too_fast_a_rate_is_refused_with_the_reason(void)
{
    options o = defaults("tcp");
    o.rate = 1e6; /* Gb/s at 1 byte per cycle */
    char why[256] = "";
    char *spec = qpbench_spec(&o, 1, "loopback", why, sizeof why);
    CHECK(spec == NULL);
    CHECKF(strstr(why, "more than the engine paces") != NULL, "why: %s", why);
    free(spec);
}

static void summary_values_are_found_by_path(void)
{
    const char *sum = "{\"provider\":\"tcp\",\"side\":\"sender\",\"msg_size\":4096,\"error\":null,"
                      "\"per_thread\":[{\"cycle_ns\":{\"p99\":999}},[1,2,{\"a\":true}]],"
                      "\"cycle_ns\":{\"min\":12,\"p99\":250.5,\"max\":-3},\"clock\":{\"source\":\"CLOCK_MONOTONIC_RAW\"}}";
    char v[64], why[160];
    CHECK(qpbench_summary_ok(sum, why, sizeof why));
    CHECK(qpbench_num(sum, "msg_size") == 4096);
    CHECK(qpbench_num(sum, "cycle_ns.p99") == 250.5); /* the run's, not the thread's (arrays are not entered) */
    CHECK(qpbench_num(sum, "cycle_ns.max") == -3);
    CHECK(qpbench_num(sum, "per_thread.cycle_ns.p99") == 0);
    CHECK(qpbench_num(sum, "missing") == 0 && qpbench_num(sum, "cycle_ns.missing") == 0);
    CHECK(strcmp(qpbench_str(sum, "side", v, sizeof v), "sender") == 0);
    CHECK(strcmp(qpbench_str(sum, "clock.source", v, sizeof v), "CLOCK_MONOTONIC_RAW") == 0);
    CHECK(strcmp(qpbench_str(sum, "error", v, sizeof v), "") == 0); /* null */
    qpb_json_field f;
    CHECK(qpb_json_find(sum, "cycle_ns", &f, why, sizeof why) == 0); /* an object is not a value */
    CHECK(qpb_json_find("[1,2]", "", &f, why, sizeof why) == 0);
    CHECK(qpb_json_find("\"x\"", "", &f, why, sizeof why) == 1 && strcmp(f.str, "x") == 0);
}

static void broken_summaries_are_reported(void)
{
    const char *bad[] = {"{\"a\":1", "{\"a\":1}x", "{\"a\":[1,]}", "{\"a\":nul}", "{a:1}", "", NULL};
    char why[160];
    for (int i = 0; bad[i] != NULL; i++) {
        why[0] = '\0';
        CHECKF(!qpbench_summary_ok(bad[i], why, sizeof why), "accepted %s", bad[i]);
        CHECKF(strstr(why, "invalid JSON") != NULL, "%s: %s", bad[i], why);
    }
    char deep[200] = "";
    for (int i = 0; i < 40; i++)
        strcat(deep, "[");
    for (int i = 0; i < 40; i++)
        strcat(deep, "]");
    CHECK(!qpbench_summary_ok(deep, why, sizeof why) && strstr(why, "deeper") != NULL);
}

/* The CLI's whole path on the tcp provider: its spec, the engine's run, its reading of the summary. */
static void a_loopback_run_from_the_cli_spec_reads_back(void)
{
    options o = defaults("tcp");
    char why[2048] = "";
    char *spec = qpbench_spec(&o, 1024, "loopback", why, sizeof why);
    CHECKF(spec != NULL, "%s", why);
    qpb_session *s = spec != NULL ? qpb_session_create(spec, why, sizeof why) : NULL;
    CHECKF(s != NULL, "%s", why);
    free(spec);
    if (s == NULL)
        return;
    CHECK(qpb_start(s) == QPB_OK);
    CHECK(qpb_wait(s, -1) == QPB_OK);
    char *sum = malloc(64 * 1024);
    CHECK(qpb_summary(s, sum, 64 * 1024) == QPB_OK);
    CHECK(qpbench_summary_ok(sum, why, sizeof why));
    CHECK(qpbench_num(sum, "msg_size") == 1024);
    CHECK(qpbench_num(sum, "cycles") == 20);
    CHECK(qpbench_num(sum, "bytes") == 20 * 1024);
    CHECK(qpbench_num(sum, "cycle_ns.min") > 0 && qpbench_num(sum, "cycle_ns.max") >= qpbench_num(sum, "cycle_ns.min"));
    char v[16];
    CHECK(strcmp(qpbench_str(sum, "provider", v, sizeof v), "tcp") == 0);
    free(sum);
    qpb_session_destroy(s);
}

typedef struct seen {
    char text[512];
    int n;
} seen;

static void see_delta(const char *name, long long delta, void *arg)
{
    seen *x = arg;
    size_t len = strlen(x->text);
    snprintf(x->text + len, sizeof x->text - len, "%s=%lld;", name, delta);
    x->n++;
}

static void see_warning(const char *warning, void *arg)
{
    see_delta(warning, 0, arg);
}

/* --counters and the warnings read the engine's counters object and warnings array as written. */
static void counter_deltas_and_warnings_are_read(void)
{
    const char *sum = "{\"errors\":0,\"counters\":{\"source\":\"sysfs\",\"device\":\"rxe0\",\"port\":1,"
                      "\"deltas\":{\"counters/port_rcv_errors\":0,\"hw_counters/rcvd_seq_err\":12,"
                      "\"hw_counters/x\\\"y\":-3},\"unreadable\":[],\"error\":null},"
                      "\"warnings\":[\"hw_counters/rcvd_seq_err moved by 12\",\"a \\\"quoted\\\" one\"]}";
    char why[256];
    CHECKF(qpbench_summary_ok(sum, why, sizeof why), "%s", why);
    seen d = {.n = 0}, w = {.n = 0};
    CHECK(qpbench_counter_deltas(sum, see_delta, &d) == 3);
    CHECKF(strcmp(d.text, "counters/port_rcv_errors=0;hw_counters/rcvd_seq_err=12;hw_counters/x\"y=-3;") == 0, "%s",
           d.text);
    CHECK(qpbench_warnings(sum, see_warning, &w) == 2);
    CHECKF(strcmp(w.text, "hw_counters/rcvd_seq_err moved by 12=0;a \"quoted\" one=0;") == 0, "%s", w.text);
    seen none = {.n = 0};
    CHECK(qpbench_counter_deltas("{\"counters\":null,\"warnings\":[]}", see_delta, &none) == 0);
    CHECK(qpbench_warnings("{\"counters\":null,\"warnings\":[]}", see_warning, &none) == 0 && none.n == 0);
}

/* --lat: the spec asks for mode latency, and leaves inline_size to the engine (the device's most) unless -I. */
static void latency_spec_leaves_inline_to_the_engine_unless_given(void)
{
    options o = defaults("verbs");
    o.latency = 1;
    o.depth = 128; /* qpbench's default tx depth is the engine's: no refusal in latency mode */
    char why[256] = "", err[256] = "";
    char *spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    qpb_json_field f;
    CHECKF(spec != NULL, "%s", why);
    CHECK(qpb_json_find(spec, "mode", &f, err, sizeof err) == 1 && strcmp(f.str, "latency") == 0);
    CHECK(qpb_json_find(spec, "inline_size", &f, err, sizeof err) == 0);
    char check[2048];
    CHECKF(qpb_spec_check(spec, check, sizeof check) == QPB_OK, "%s", check);
    free(spec);
    o.inline_size = 16, o.inline_given = 1;
    spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    CHECK(qpb_json_find(spec, "inline_size", &f, err, sizeof err) == 1 && f.num == 16);
    free(spec);
}

/* --disable_pcie_relaxed, --use_hugepages and --odp: perftest's flags as the engine's keys, which a tcp run refuses
 * by name; a summary's booleans read back for the header (PCIe relax order). */
static void perftest_memory_flags_reach_the_spec(void)
{
    options o = defaults("verbs");
    char why[256] = "", err[256] = "", check[2048];
    char *spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    qpb_json_field f;
    CHECKF(spec != NULL, "%s", why);
    CHECK(qpb_json_find(spec, "relaxed_ordering", &f, err, sizeof err) == 0); /* the engine's default: on */
    CHECK(qpb_json_find(spec, "buffers", &f, err, sizeof err) == 0 && qpb_json_find(spec, "odp", &f, err, sizeof err) == 0);
    free(spec);
    o.no_relaxed = o.hugepages = o.odp = 1;
    spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    CHECK(qpb_json_find(spec, "relaxed_ordering", &f, err, sizeof err) == 1 && f.type == QPB_JSON_BOOL && !f.b);
    CHECK(qpb_json_find(spec, "buffers", &f, err, sizeof err) == 1 && strcmp(f.str, "hugepages") == 0);
    CHECK(qpb_json_find(spec, "odp", &f, err, sizeof err) == 1 && f.b);
    CHECKF(qpb_spec_check(spec, check, sizeof check) == QPB_OK, "%s", check);
    free(spec);
    o.provider = "tcp";
    spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    CHECK(qpb_spec_check(spec, check, sizeof check) == QPB_EUNSUPPORTED);
    CHECKF(strstr(check, "relaxed_ordering applies to provider verbs only") && strstr(check, "buffers applies to "
           "provider verbs only") && strstr(check, "odp applies to provider verbs only"), "%s", check);
    free(spec);
    CHECK(qpbench_bool("{\"relaxed_ordering\":true,\"odp\":false}", "relaxed_ordering"));
    CHECK(!qpbench_bool("{\"relaxed_ordering\":true,\"odp\":false}", "odp"));
    CHECK(!qpbench_bool("{\"relaxed_ordering\":1}", "relaxed_ordering") && !qpbench_bool("{}", "odp"));
}

/* --use_old_post_send asks for post_api legacy; without it the spec leaves post_api to the engine (wr where
 * perftest posts through ibv_wr_*). */
static void use_old_post_send_asks_for_legacy(void)
{
    options o = defaults("verbs");
    char why[256] = "", err[256] = "", check[2048];
    qpb_json_field f;
    char *spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    CHECKF(spec != NULL, "%s", why);
    CHECK(qpb_json_find(spec, "post_api", &f, err, sizeof err) == 0);
    free(spec);
    o.post_api = "legacy"; /* --use_old_post_send */
    spec = qpbench_spec(&o, 64, "loopback", why, sizeof why);
    CHECK(qpb_json_find(spec, "post_api", &f, err, sizeof err) == 1 && strcmp(f.str, "legacy") == 0);
    CHECKF(qpb_spec_check(spec, check, sizeof check) == QPB_OK, "%s", check);
    free(spec);
}

/* A client of a server on 0.0.0.0 connects to the HOST it was given, whatever its characters: the endpoint is
 * written again by the JSON writer, the host escaped and every other field as the server wrote it. */
static void a_host_with_quotes_and_backslashes_round_trips_in_the_peer_endpoint(void)
{
    char hex[601];
    for (int i = 0; i < 600; i++)
        hex[i] = "0123456789abcdef"[i % 16];
    hex[600] = '\0';
    char blob[1024];
    snprintf(blob, sizeof blob,
             "{\"provider\":\"tcp\",\"role\":\"server\",\"host\":\"0.0.0.0\",\"port\":4242,\"ratio\":-1.50e3,"
             "\"bidirectional\":false,\"mr\":\"%s\",\"note\":\"a\\\"b\\\\c\\u0041\"}", hex);
    const char *host = "10.0.0.1\" \"evil\\\"\\\n\t\x01";
    char why[256] = "", err[256] = "";
    char *peer = qpbench_peer_endpoint(blob, host, why, sizeof why);
    CHECKF(peer != NULL, "%s", why);
    qpb_json_object *sent = malloc(sizeof(*sent)), *got = malloc(sizeof(*got));
    CHECK(qpb_json_parse_flat(blob, sent, err, sizeof err));
    CHECKF(peer != NULL && qpb_json_parse_flat(peer, got, err, sizeof err), "not JSON (%s): %s", err, peer);
    const qpb_json_field *h = qpb_json_get(got, "host");
    CHECKF(h != NULL && h->type == QPB_JSON_STRING && strcmp(h->str, host) == 0, "host: %s", h ? h->str : "missing");
    CHECK(got->n == sent->n);
    for (uint32_t i = 0; i < sent->n && i < got->n; i++) { /* the same fields in the same order, the same text */
        const qpb_json_field *a = &sent->fields[i], *b = &got->fields[i];
        CHECKF(strcmp(a->key, b->key) == 0 && a->type == b->type, "field %u: %s, then %s", i, a->key, b->key);
        if (strcmp(a->key, "host") != 0 && a->type != QPB_JSON_BOOL)
            CHECKF(a->raw_len == b->raw_len && memcmp(a->raw, b->raw, a->raw_len) == 0, "%s: %.*s", a->key,
                   (int)b->raw_len, b->raw);
    }
    const qpb_json_field *mr = qpb_json_get(got, "mr"), *bidi = qpb_json_get(got, "bidirectional");
    CHECK(mr != NULL && mr->long_str && mr->raw_len == 600);
    CHECK(bidi != NULL && bidi->type == QPB_JSON_BOOL && !bidi->b);
    free(sent);
    free(got);
    free(peer);
}

/* A server that advertises an address of its own, or a blob that is no endpoint, is passed on as it came. */
static void a_peer_endpoint_on_its_own_address_is_passed_on_unchanged(void)
{
    const char *blobs[] = {"{\"provider\":\"tcp\",\"host\":\"192.168.7.2\",\"port\":4242}",
                           "{\"provider\":\"tcp\",\"host\":\"0.0.0.0\",", "not JSON", "{\"host\":0}", NULL};
    char why[256] = "";
    for (int i = 0; blobs[i] != NULL; i++) {
        char *peer = qpbench_peer_endpoint(blobs[i], "10.0.0.1", why, sizeof why);
        CHECKF(peer != NULL && strcmp(peer, blobs[i]) == 0, "%s became %s", blobs[i], peer ? peer : why);
        free(peer);
    }
}

/* A real tcp server's endpoint on 0.0.0.0 names the client's HOST instead, and the rest is as the server wrote it. */
static void a_tcp_server_endpoint_names_the_host_the_client_was_given(void)
{
    char err[512] = "", blob[1024] = "";
    qpb_session *srv = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"server\",\"bind\":\"0.0.0.0\","
                                          "\"msg_size\":64,\"iterations\":10}", err, sizeof err);
    CHECKF(srv != NULL, "%s", err);
    if (srv == NULL)
        return;
    CHECKF(qpb_local_endpoint(srv, blob, sizeof blob) == QPB_OK, "%s", qpb_last_error(srv));
    qpb_json_field f;
    CHECKF(qpb_json_find(blob, "host", &f, err, sizeof err) == 1 && strcmp(f.str, "0.0.0.0") == 0, "%s", blob);
    char *peer = qpbench_peer_endpoint(blob, "127.0.0.1", err, sizeof err);
    CHECKF(peer != NULL && qpb_json_find(peer, "host", &f, err, sizeof err) == 1 && strcmp(f.str, "127.0.0.1") == 0,
           "%s", peer ? peer : err);
    CHECK(peer != NULL && qpb_json_find(peer, "port", &f, err, sizeof err) == 1 &&
          f.num == qpb_test_json_num(blob, "port"));
    CHECKF(peer != NULL && strlen(peer) == strlen(blob) + strlen("127.0.0.1") - strlen("0.0.0.0"), "%s", peer);
    free(peer);
    qpb_session_destroy(srv);
}

const qpb_test_case qpb_qpbench_tests[] = {
    {"qpbench passes --disable_pcie_relaxed, --use_hugepages and --odp to the engine", perftest_memory_flags_reach_the_spec},
    {"qpbench escapes a host with quotes and backslashes in the server's endpoint",
     a_host_with_quotes_and_backslashes_round_trips_in_the_peer_endpoint},
    {"qpbench passes on a server's endpoint on its own address unchanged",
     a_peer_endpoint_on_its_own_address_is_passed_on_unchanged},
    {"qpbench names the client's HOST in a tcp server's endpoint on 0.0.0.0",
     a_tcp_server_endpoint_names_the_host_the_client_was_given},
    {"qpbench reads the counters that moved and the warnings", counter_deltas_and_warnings_are_read},
    {"qpbench --use_old_post_send asks for post_api legacy", use_old_post_send_asks_for_legacy},
    {"qpbench --lat leaves inline to the engine unless -I", latency_spec_leaves_inline_to_the_engine_unless_given},
    {"qpbench escapes a 5000-character --ib-dev and the engine refuses it", long_device_is_escaped_and_refused},
    {"qpbench spec strings round-trip through the engine's parser", odd_strings_round_trip},
    {"qpbench refuses a rate the engine cannot pace, with the reason", too_fast_a_rate_is_refused_with_the_reason},
    {"qpbench finds summary values by path", summary_values_are_found_by_path},
    {"qpbench reports a broken summary", broken_summaries_are_reported},
    {"qpbench loopback run from its spec reads its summary back", a_loopback_run_from_the_cli_spec_reads_back},
    {NULL, NULL},
};
