/*
 * test_spec.c — spec parsing reports every violation by name and limit; the
 * JSON reader is strict; the builder escapes and measures; the info and
 * layout strings the Java binding relies on.
 */
#include "qpb_internal.h"
#include "qpb_json.h"
#include "qpb_test.h"

static void applies_documented_defaults(void)
{
    qpb_spec s;
    char err[512];
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":4096}", &s, err, sizeof err) == QPB_OK);
    CHECK(s.role == QPB_ROLE_LOOPBACK && !strcmp(s.op, "send") && s.threads == 1 && s.qps_per_thread == 1);
    CHECK(s.iterations == 1000 && s.duration_ms == 0 && s.warmup_cycles == 0 && s.tx_depth == 128);
    CHECK(s.ring_capacity == 65536 && !s.verify && s.tcp_nodelay && !strcmp(s.bind, "127.0.0.1") && s.port == 0);
    /* intervals every 100 ms into a 1 MiB ring per thread, and no trace */
    CHECK(s.interval_ms == 100 && s.interval_ring == 1u << 20 && s.trace_first == 0 && s.trace_every == 1);
}

static void bounds_intervals_and_the_trace(void)
{
    qpb_spec s;
    char err[1024];
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"interval_ms\":5,\"threads\":4,"
                         "\"trace_first\":300000,\"interval_ring\":20000}",
                         &s, err, sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "interval_ms must be 0 (the summary only) or in 10..60000 (got 5)") &&
               strstr(err, "trace_first 300000 x threads 4 = 1200000 trace records > 1000000 per run") &&
               strstr(err, "interval_ring must be a power of two (got 20000)"),
           "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"interval_ms\":60001}", &s, err, sizeof err) ==
          QPB_EINVAL);
    CHECKF(strstr(err, "interval_ms must be in 0..60000 (got 60001)") != NULL, "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"trace_first\":1000001}", &s, err, sizeof err) ==
          QPB_EINVAL);
    CHECKF(strstr(err, "trace_first must be in 0..1000000 (got 1000001)") != NULL, "%s", err);
    /* every K-th cycle alone: up to the run's bound, shared by the threads */
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"threads\":4,\"trace_every\":1000}", &s, err,
                         sizeof err) == QPB_OK);
    CHECK(s.trace_every == 1000 && s.trace_first == 250000);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"interval_ms\":0}", &s, err, sizeof err) == QPB_OK);
    CHECK(s.interval_ms == 0);
}

static void parses_every_key(void)
{
    qpb_spec s;
    char err[512];
    const char *j = "{ \"provider\" : \"tcp\", \"role\":\"server\", \"op\":\"send\", \"threads\":4,"
                    "\"qps_per_thread\":1000, \"msg_size\":1073741824, \"iterations\":5, \"duration_ms\":2000,"
                    "\"warmup_cycles\":3, \"tx_depth\":4096, \"ring_capacity\":1024, \"verify\":true,"
                    "\"tcp_nodelay\":false, \"bind\":\"0.0.0.0\", \"port\":65535 }";
    CHECKF(qpb_spec_parse(j, &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.role == QPB_ROLE_SERVER && s.threads == 4 && s.qps_per_thread == 1000 && s.msg_size == (1u << 30));
    CHECK(s.iterations == 5 && s.duration_ms == 2000 && s.warmup_cycles == 3 && s.tx_depth == 4096);
    CHECK(s.ring_capacity == 1024 && s.verify && !s.tcp_nodelay && !strcmp(s.bind, "0.0.0.0") && s.port == 65535);
}

static void lists_every_violation_with_name_and_limit(void)
{
    char err[1024];
    const char *j = "{\"provider\":\"tcp\",\"msg_size\":0,\"threads\":0,\"qps_per_thread\":70000,"
                    "\"role\":\"boss\",\"bogus\":1,\"tx_depth\":-1,\"ring_capacity\":1000,\"verify\":1}";
    qpb_session *s = qpb_session_create(j, err, sizeof err);
    CHECK(s == NULL);
    const char *want[] = {
        "unknown key \"bogus\"",
        "msg_size must be in 1..1073741824 (got 0)",
        "threads must be in 1..1024 (got 0)",
        "qps_per_thread must be in 1..65536 (got 70000)",
        "role must be \"loopback\", \"client\" or \"server\" (got \"boss\")",
        "tx_depth must be in 1..4096 (got -1)",
        "ring_capacity must be a power of two (got 1000)",
        "verify must be true or false",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECKF(strstr(err, want[i]) != NULL, "missing \"%s\" in: %s", want[i], err);
}

static void rejects_negative_size_and_non_integers(void)
{
    qpb_spec s;
    char err[512];
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":-5}", &s, err, sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "msg_size must be in 1..1073741824 (got -5)") != NULL, "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":1.5,\"threads\":\"2\"}", &s, err, sizeof err) ==
          QPB_EINVAL);
    CHECKF(strstr(err, "msg_size must be an integer") && strstr(err, "threads must be an integer"), "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":1,\"threads\":1025}", &s, err, sizeof err) ==
          QPB_EINVAL);
    CHECKF(strstr(err, "threads must be in 1..1024 (got 1025)") != NULL, "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":1,\"iterations\":0}", &s, err, sizeof err) ==
          QPB_EINVAL);
    CHECKF(strstr(err, "iterations must be > 0 unless duration_ms is set") != NULL, "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":1,\"iterations\":0,\"duration_ms\":10}", &s, err,
                         sizeof err) == QPB_OK);
}

static void rejects_bad_provider_role_and_required_keys(void)
{
    qpb_spec s;
    char err[512];
    CHECK(qpb_spec_parse("{\"provider\":\"udp\",\"msg_size\":8}", &s, err, sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "provider must be \"tcp\" or \"verbs\" (got \"udp\")") != NULL, "%s", err);
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":8}", &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.provider_kind == QPB_PROVIDER_VERBS && s.transport == QPB_TR_RC && s.gid_index == -1);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":8,\"op\":\"write\"}", &s, err, sizeof err) ==
          QPB_EUNSUPPORTED);
    CHECK(qpb_spec_parse("{\"role\":\"client\",\"bind\":\"localhost\"}", &s, err, sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "provider is required") && strstr(err, "msg_size is required") &&
               strstr(err, "bind must be an IPv4 address"),
           "%s", err);
}

static void parses_verbs_knobs(void)
{
    qpb_spec s;
    char err[1024];
    const char *j = "{\"provider\":\"verbs\",\"msg_size\":4096,\"op\":\"write\",\"device\":\"mlx5_0\","
                    "\"ib_port\":2,\"gid_index\":3,\"transport\":\"uc\",\"inline_size\":64,\"signal_every\":16,"
                    "\"post_list\":4,\"rx_depth\":256,\"cq_mode\":\"shared\",\"mr_mode\":\"per_qp\","
                    "\"polling\":\"event\",\"lock_model\":\"thread_domain\",\"mtu\":2048}";
    CHECKF(qpb_spec_parse(j, &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.op_kind == QPB_OP_WRITE && !strcmp(s.op, "write") && !strcmp(s.device, "mlx5_0") && s.ib_port == 2);
    CHECK(s.gid_index == 3 && s.transport == QPB_TR_UC && s.inline_size == 64 && s.signal_every == 16);
    CHECK(s.post_list == 4 && s.rx_depth == 256 && s.cq_mode == QPB_CQ_SHARED && s.mr_mode == QPB_MR_PER_QP);
    CHECK(s.polling == QPB_POLL_EVENT && s.lock_model == QPB_LOCK_THREAD_DOMAIN && s.mtu == 2048);
    CHECK(s.target_wait == QPB_TARGET_SLEEP); /* the default */
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\",\"target_wait\":\"spin\"}", &s,
                          err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.target_wait == QPB_TARGET_SPIN);
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"target_wait\":\"nap\"}", &s, err, sizeof err) ==
          QPB_EINVAL);
    CHECKF(strstr(err, "target_wait") != NULL, "%s", err);
}

static void rejects_combinations_no_device_can_run(void)
{
    qpb_spec s;
    char err[2048];
    const char *j = "{\"provider\":\"verbs\",\"msg_size\":8192,\"op\":\"read\",\"transport\":\"ud\","
                    "\"srq\":\"shared\",\"inline_size\":16,\"signal_every\":200,\"post_list\":300,\"mtu\":1000,"
                    "\"tcp_nodelay\":false,\"gid_index\":-2,\"cq_mode\":\"global\"}";
    CHECK(qpb_spec_parse(j, &s, err, sizeof err) == QPB_EINVAL);
    const char *want[] = {
        "op read: transport ud has no RDMA read (use rc or xrc)",
        "transport ud: message 8192 B > 4096 B, the largest path MTU",
        "srq shared: only op send consumes receive requests (got op read)",
        "op read: inline_size applies to send and write only",
        "signal_every 200 > tx_depth 128",
        "post_list 300 > tx_depth 128",
        "mtu must be 0 (the port's active MTU), 256, 512, 1024, 2048 or 4096 (got 1000)",
        "tcp_nodelay applies to provider tcp only",
        "gid_index must be in -1..255 (got -2)",
        "cq_mode must be \"per_qp\", \"per_thread\" or \"shared\" (got \"global\")",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECKF(strstr(err, want[i]) != NULL, "missing \"%s\" in: %s", want[i], err);
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\",\"transport\":\"ud\"}", &s,
                         err, sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "op write: transport ud has no RDMA write") != NULL, "%s", err);
    /* XRC receives only through an XRC SRQ */
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"transport\":\"xrc\"}", &s, err, sizeof err) ==
          QPB_OK);
    CHECK(s.srq == QPB_SRQ_PER_THREAD);
}

static void tcp_refuses_verbs_knobs_but_accepts_their_defaults(void)
{
    qpb_spec s;
    char err[1024];
    CHECKF(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"transport\":\"rc\",\"cq_mode\":\"per_thread\","
                          "\"gid_index\":-1,\"device\":\"\"}",
                          &s, err, sizeof err) == QPB_OK,
           "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"transport\":\"ud\",\"inline_size\":8,"
                         "\"device\":\"rxe0\",\"op\":\"read\"}",
                         &s, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(strstr(err, "transport applies to provider verbs only") && strstr(err, "inline_size applies to provider "
                                                                            "verbs only") &&
               strstr(err, "device applies to provider verbs only") &&
               strstr(err, "op \"read\" is not supported by provider tcp"),
           "%s", err);
}

/* relaxed_ordering (default on, as perftest), buffers and odp: verbs knobs; tcp takes them at their default only. */
static void parses_memory_registration_keys(void)
{
    qpb_spec s;
    char err[1024];
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64}", &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.relaxed_ordering && s.buffers == QPB_BUF_HEAP && !s.odp);
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"relaxed_ordering\":false,"
                          "\"buffers\":\"hugepages\",\"odp\":true}", &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(!s.relaxed_ordering && s.buffers == QPB_BUF_HUGEPAGES && s.odp);
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"buffers\":\"huge\",\"odp\":1}", &s, err,
                         sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "buffers must be \"heap\" or \"hugepages\" (got \"huge\")") && strstr(err, "odp must be true "
                                                                                        "or false"), "%s", err);
    CHECKF(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"relaxed_ordering\":true,\"buffers\":\"heap\","
                          "\"odp\":false}", &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"relaxed_ordering\":false,"
                         "\"buffers\":\"hugepages\",\"odp\":true}", &s, err, sizeof err) == QPB_EUNSUPPORTED);
    CHECKF(!strcmp(err, "relaxed_ordering applies to provider verbs only; buffers applies to provider verbs only; "
                        "odp applies to provider verbs only"), "%s", err);
    /* write latency polls the buffer's last byte: without relaxed ordering, as perftest's ib_write_lat */
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"mode\":\"latency\",\"op\":\"write\",\"msg_size\":64}", &s,
                          err, sizeof err) == QPB_OK, "%s", err);
    CHECK(!s.relaxed_ordering);
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"mode\":\"latency\",\"op\":\"send\",\"msg_size\":64}", &s,
                          err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.relaxed_ordering);
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"mode\":\"latency\",\"op\":\"write\",\"msg_size\":64,"
                         "\"relaxed_ordering\":true}", &s, err, sizeof err) == QPB_EINVAL);
    CHECKF(strstr(err, "mode latency: op write polls the last byte of its buffer, which relaxed ordering may place "
                       "before the rest") == err, "%s", err);
}

static void check_names_the_field_of_every_violation(void)
{
    char out[8192];
    /* the four refusals the controller once let through, and a bad value, in one spec */
    const char *j = "{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\",\"srq\":\"per_thread\",\"post_list\":300,"
                    "\"qp_sharing\":\"shared\",\"transport\":\"ud\",\"polling\":\"event\",\"threads\":0}";
    CHECK(qpb_spec_check(j, out, sizeof out) == QPB_EINVAL);
    const char *want[] = {
        "{\"field\":\"threads\",\"message\":\"threads must be in 1..1024 (got 0)\"}",
        "{\"field\":\"post_list\",\"message\":\"post_list 300 > tx_depth 128 (one post would not fit in the send "
        "queue)\"}",
        "{\"field\":\"srq\",\"message\":\"srq per_thread: only op send consumes receive requests (got op write)\"}",
        "{\"field\":\"qp_sharing\",\"message\":\"qp_sharing shared: transport ud (rc or uc only)\"}",
        "{\"field\":\"qp_sharing\",\"message\":\"qp_sharing shared: polling event is not supported (use busy)\"}",
        "{\"field\":\"op\",\"message\":\"op write: transport ud has no RDMA write (use rc, uc or xrc)\"}",
    };
    CHECKF(out[0] == '[' && out[strlen(out) - 1] == ']', "%s", out);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECKF(strstr(out, want[i]) != NULL, "missing %s in: %s", want[i], out);
    /* unknown keys are named by themselves; tcp's refusals are "unsupported" */
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"bogus\":1}", out, sizeof out) == QPB_EINVAL);
    CHECKF(!strcmp(out, "[{\"field\":\"bogus\",\"message\":\"unknown key \\\"bogus\\\"\"}]"), "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"transport\":\"uc\"}", out, sizeof out) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(out, "{\"field\":\"transport\",\"message\":\"transport applies to provider verbs only\"}"), "%s",
           out);
    CHECK(qpb_spec_check("{\"provider\":", out, sizeof out) == QPB_EINVAL);
    CHECKF(!strncmp(out, "[{\"field\":\"spec\",\"message\":\"spec: ", 34), "%s", out);
}

static void check_accepts_what_a_session_accepts(void)
{
    char out[64];
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":4096,\"op\":\"write\",\"qp_sharing\":\"shared\"}", out,
                         sizeof out) == QPB_OK);
    CHECKF(!strcmp(out, "[]"), "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"threads\":2}", out, sizeof out) == QPB_OK);
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"msg_size\":64,\"threads\":2}", NULL, 0);
    CHECK(s != NULL);
    qpb_session_destroy(s);
    /* too small for the list: the caller learns to grow it */
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":0}", out, 8) == QPB_ENOSPC);
    CHECK(qpb_spec_check("{}", NULL, 0) == QPB_EINVAL);
}

/* Atomics: 8-byte words over RC only; each refusal names its field. */
static void check_refuses_atomics_off_eight_bytes_or_rc(void)
{
    char out[4096];
    CHECKF(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_fadd\"}", out, sizeof out) == QPB_OK,
           "%s", out);
    CHECKF(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_cswap\",\"threads\":2,"
                          "\"qps_per_thread\":2,\"post_list\":4}",
                          out, sizeof out) == QPB_OK,
           "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"atomic_fadd\",\"transport\":\"uc\","
                         "\"inline_size\":8}",
                         out, sizeof out) == QPB_EINVAL);
    const char *want[] = {
        "{\"field\":\"msg_size\",\"message\":\"op atomic_fadd: msg_size must be 8 (an RDMA atomic works on one 8-byte "
        "word; got 64)\"}",
        "{\"field\":\"transport\",\"message\":\"op atomic_fadd: transport uc has no RDMA atomics (rc only)\"}",
        "{\"field\":\"inline_size\",\"message\":\"op atomic_fadd: inline_size applies to send and write only\"}",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECKF(strstr(out, want[i]) != NULL, "missing %s in: %s", want[i], out);
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_cswap\",\"transport\":\"xrc\"}",
                         out, sizeof out) == QPB_EINVAL);
    CHECKF(strstr(out, "{\"field\":\"transport\",\"message\":\"op atomic_cswap: transport xrc has no RDMA atomics") !=
               NULL,
           "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":8,\"op\":\"atomic_fadd\"}", out, sizeof out) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(out, "{\"field\":\"op\",\"message\":\"op \\\"atomic_fadd\\\" is not supported by provider tcp") !=
               NULL,
           "%s", out);
}

static void check_refuses_bidirectional_read_and_atomics(void)
{
    char out[4096];
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"read\",\"bidirectional\":true}", out,
                         sizeof out) == QPB_EINVAL);
    CHECKF(strstr(out, "{\"field\":\"bidirectional\",\"message\":\"bidirectional: op read (both sides send at once for "
                       "op send and write only, as perftest -b)\"}") != NULL,
           "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":8,\"op\":\"atomic_fadd\",\"bidirectional\":true}",
                         out, sizeof out) == QPB_EINVAL);
    CHECKF(strstr(out, "\"field\":\"bidirectional\"") != NULL, "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"bidirectional\":true,\"mode\":\"latency\"}", out,
                         sizeof out) == QPB_EINVAL);
    CHECKF(strstr(out, "{\"field\":\"bidirectional\",\"message\":\"bidirectional: mode latency is a ping-pong already") !=
               NULL,
           "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"bidirectional\":true,\"role\":\"loopback\"}", out,
                         sizeof out) == QPB_EUNSUPPORTED);
    CHECKF(strstr(out, "\"field\":\"bidirectional\",\"message\":\"bidirectional: role loopback") != NULL, "%s", out);
    /* the controller checks points without a role (it picks it): accepted */
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"write\",\"bidirectional\":true}", out,
                         sizeof out) == QPB_OK);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"bidirectional\":true}", out, sizeof out) == QPB_OK);
}

/* The session refuses with the very messages the check lists: one code path. */
static void check_and_session_create_say_the_same(void)
{
    const char *specs[] = {
        "{\"provider\":\"verbs\",\"msg_size\":64,\"op\":\"read\",\"srq\":\"shared\",\"post_list\":200}",
        "{\"provider\":\"tcp\",\"msg_size\":64,\"cq_mode\":\"shared\",\"interval_ms\":5,\"ring_capacity\":1000}",
        "{\"provider\":\"verbs\",\"msg_size\":64,\"qp_sharing\":\"shared\",\"op\":\"write\",\"transport\":\"xrc\"}",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char out[8192], err[4096], joined[4096] = "";
        CHECK(qpb_spec_check(specs[i], out, sizeof out) != QPB_OK);
        CHECK(qpb_session_create(specs[i], err, sizeof err) == NULL);
        /* join the check's messages as the session does */
        size_t n = 0;
        for (const char *p = strstr(out, "\"message\":\""); p != NULL; p = strstr(p, "\"message\":\"")) {
            p += strlen("\"message\":\"");
            const char *end = strstr(p, "\"}");
            n += (size_t)snprintf(joined + n, sizeof joined - n, "%s%.*s", n ? "; " : "", (int)(end - p), p);
        }
        CHECKF(!strcmp(joined, err), "check: %s\n    create: %s", joined, err);
    }
}

static void json_keeps_long_strings_raw(void)
{
    static char text[4096];
    char hex[2001];
    for (int i = 0; i < 2000; i++)
        hex[i] = "0123456789abcdef"[i % 16];
    hex[2000] = '\0';
    snprintf(text, sizeof text, "{\"qpn\":\"%s\",\"n\":1}", hex);
    qpb_json_object o;
    char err[160];
    CHECK(qpb_json_parse_flat(text, &o, err, sizeof err));
    const qpb_json_field *f = qpb_json_get(&o, "qpn");
    CHECK(f != NULL && f->long_str && f->raw_len == 2000 && !memcmp(f->raw, hex, 2000));
    CHECK(strlen(f->str) == QPB_JSON_MAX_STR - 1 && qpb_json_get(&o, "n")->i64 == 1);
    qpb_spec s;
    snprintf(text, sizeof text, "{\"provider\":\"verbs\",\"msg_size\":1,\"device\":\"%s\"}", hex);
    CHECK(qpb_spec_parse(text, &s, err, sizeof err) == QPB_EINVAL);
}

static void json_reader_is_strict(void)
{
    qpb_json_object o;
    char err[160];
    const char *bad[] = {"", "[]", "{\"a\":1,}", "{\"a\":{}}", "{\"a\":null}", "{\"a\":01}", "{\"a\":1} x",
                         "{\"a\":1,\"a\":2}", "{'a':1}", "{\"a\":\"\\q\"}", "{\"a\":tru}", "{\"a\":1.}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECKF(!qpb_json_parse_flat(bad[i], &o, err, sizeof err), "accepted %s", bad[i]);
    CHECK(qpb_json_parse_flat(" {\"s\":\"a\\\"b\\u00e9\\n\", \"n\":-1.5e3, \"i\":9007199254740993, \"t\":true} ", &o,
                              err, sizeof err));
    CHECK(o.n == 4 && !strcmp(qpb_json_get(&o, "s")->str, "a\"b\xc3\xa9\n"));
    CHECK(qpb_json_get(&o, "n")->num == -1500.0 && !qpb_json_get(&o, "n")->is_int);
    CHECK(qpb_json_get(&o, "i")->is_int && qpb_json_get(&o, "i")->i64 == 9007199254740993LL);
    CHECK(qpb_json_get(&o, "t")->b && qpb_json_get(&o, "x") == NULL);
}

static void json_builder_escapes_and_measures(void)
{
    char buf[128];
    qpb_jw w;
    qpb_jw_init(&w, buf, sizeof buf);
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "s");
    qpb_jw_str(&w, "q\"\\\n");
    qpb_jw_key(&w, "a");
    qpb_jw_arr_begin(&w);
    qpb_jw_u64(&w, 1);
    qpb_jw_dbl(&w, 0.5);
    qpb_jw_obj_begin(&w);
    qpb_jw_obj_end(&w);
    qpb_jw_arr_end(&w);
    qpb_jw_key(&w, "b");
    qpb_jw_bool(&w, false);
    qpb_jw_obj_end(&w);
    CHECK(qpb_jw_ok(&w));
    CHECKF(!strcmp(buf, "{\"s\":\"q\\\"\\\\\\u000a\",\"a\":[1,0.5,{}],\"b\":false}"), "%s", buf);
    char small[8];
    size_t need = w.len;
    qpb_jw_init(&w, small, sizeof small);
    qpb_jw_obj_begin(&w);
    qpb_jw_key(&w, "s");
    qpb_jw_str(&w, "q\"\\\n");
    qpb_jw_key(&w, "a");
    qpb_jw_arr_begin(&w);
    qpb_jw_u64(&w, 1);
    qpb_jw_dbl(&w, 0.5);
    qpb_jw_obj_begin(&w);
    qpb_jw_obj_end(&w);
    qpb_jw_arr_end(&w);
    qpb_jw_key(&w, "b");
    qpb_jw_bool(&w, false);
    qpb_jw_obj_end(&w);
    CHECK(!qpb_jw_ok(&w) && w.len == need);
}

static void engine_info_and_trace_record_layout(void)
{
    char buf[1024];
    CHECK(qpb_engine_info(buf, sizeof buf) == QPB_OK);
    /* verbs is listed where libibverbs loads, else the reason is (a tcp-only build: test_noverbs.c) */
    const char *head = "{\"abi\":2,\"version\":\"0.1.0\",\"providers\":[\"tcp\"";
    CHECKF(!strncmp(buf, head, strlen(head)), "%s", buf);
    CHECKF(strstr(buf, "\"verbs\"") != NULL || strstr(buf, "\"verbs_unavailable\":\"provider verbs needs") != NULL ||
               strstr(buf, "\"verbs_unavailable\":\"this engine was built without rdma-core's headers") != NULL,
           "%s", buf);
    CHECK(qpb_trace_record_layout(buf, sizeof buf) == QPB_OK);
    CHECKF(!strcmp(buf, "{\"size\":48,\"thread\":0,\"errors\":4,\"cycle\":8,\"start_ns\":16,\"end_ns\":24,"
                        "\"bytes\":32,\"messages\":40}"),
           "%s", buf);
    CHECK(qpb_interval_layout(buf, sizeof buf) == QPB_OK);
    CHECKF(!strcmp(buf, "{\"size\":88,\"bucket_size\":16,\"max_bytes\":118872,\"size_field\":0,\"thread\":4,"
                        "\"index\":8,\"span\":16,\"buckets\":20,\"cycles\":24,\"messages\":32,\"bytes\":40,"
                        "\"errors\":48,\"min_ns\":56,\"max_ns\":64,\"first_start_ns\":72,\"last_end_ns\":80,"
                        "\"bucket\":0,\"count\":8}"),
           "%s", buf);
    CHECK(qpb_engine_info(buf, 10) == QPB_ENOSPC);
}

/* The table as qpb_spec_schema shows it: the bounds the check enforces, one past them refused. */
static void schema_shows_the_table_the_check_enforces(void)
{
    char out[16384];
    CHECK(qpb_spec_schema(out, sizeof out) == QPB_OK);
    CHECKF(strstr(out, "{\"name\":\"threads\",\"type\":\"integer\",\"minimum\":1,\"maximum\":1024,"
                       "\"default\":1,\"verbs_only\":false}") != NULL, "%s", out);
    CHECKF(strstr(out, "{\"name\":\"transport\",\"type\":\"string\",\"enum\":[\"rc\",\"uc\",\"ud\",\"xrc\"],"
                       "\"default\":\"rc\",\"verbs_only\":true}") != NULL, "%s", out);
    CHECKF(strstr(out, "{\"name\":\"verify\",\"type\":\"boolean\",\"default\":false,\"verbs_only\":false}") !=
           NULL, "%s", out);
    /* every default is DEFAULTS' own; a required key has none; a byte count says so */
    CHECKF(strstr(out, "{\"name\":\"msg_size\",\"type\":\"integer\",\"format\":\"bytes\",\"minimum\":1,"
                       "\"maximum\":1073741824,\"verbs_only\":false}") != NULL, "%s", out);
    CHECKF(strstr(out, "\"name\":\"gid_index\",\"type\":\"integer\",\"minimum\":-1,\"maximum\":255,"
                       "\"default\":-1,") != NULL, "%s", out);
    CHECKF(strstr(out, "\"name\":\"bind\",\"type\":\"string\",\"default\":\"127.0.0.1\",") != NULL, "%s", out);
    CHECKF(strstr(out, "\"name\":\"device\",\"type\":\"string\",\"default\":\"\",") != NULL, "%s", out);
    CHECKF(strstr(out, "\"name\":\"tx_depth\",\"type\":\"integer\",\"minimum\":1,\"maximum\":") != NULL &&
           strstr(out, "\"default\":128,") != NULL, "%s", out);
    char check[4096];
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"threads\":1025}", check, sizeof check) ==
          QPB_EINVAL);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"threads\":1024}", check, sizeof check) ==
          QPB_OK);
    CHECK(qpb_spec_schema(out, 16) == QPB_ENOSPC);
    CHECK(qpb_spec_schema(NULL, 0) == QPB_EINVAL);
}

/* mode latency: one ping-pong per thread; the bandwidth window's knobs refused at other than their default. */
static void latency_mode_refuses_what_a_ping_pong_cannot_use(void)
{
    qpb_spec s;
    char err[2048];
    CHECK(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64}", &s, err, sizeof err) == QPB_OK);
    CHECK(s.mode == QPB_MODE_BW && s.tx_depth == 128);
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"mode\":\"latency\",\"threads\":4,"
                          "\"tx_depth\":128,\"rx_depth\":512,\"transport\":\"ud\"}",
                          &s, err, sizeof err) == QPB_OK, "%s", err);
    /* defaults given are no violation; the run then has one message in flight and fixed receives */
    CHECK(s.mode == QPB_MODE_LATENCY && s.threads == 4 && s.tx_depth == 1 && s.rx_depth == QPB_LAT_RECV_WR);
    CHECK(!s.inline_given && s.inline_size == 0);
    CHECK(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"mode\":\"latency\",\"inline_size\":0}", &s,
                         err, sizeof err) == QPB_OK);
    CHECK(s.inline_given && s.inline_size == 0);

    char out[8192];
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"mode\":\"latency\",\"qps_per_thread\":2}", out,
                         sizeof out) == QPB_EINVAL);
    CHECKF(strstr(out, "{\"field\":\"qps_per_thread\",\"message\":\"mode latency: qps_per_thread 2 > 1 (one "
                       "ping-pong per thread") != NULL, "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":64,\"mode\":\"latency\",\"tx_depth\":64,"
                         "\"post_list\":4,\"signal_every\":2,\"rx_depth\":64,\"srq\":\"per_thread\","
                         "\"cq_mode\":\"per_qp\",\"polling\":\"event\",\"verify\":true,\"rate_limit\":1000}",
                         out, sizeof out) == QPB_EINVAL);
    const char *fields[] = {"tx_depth", "post_list", "signal_every", "rx_depth", "srq", "cq_mode", "polling",
                            "verify", "rate_limit"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "{\"field\":\"%s\",\"message\":\"mode latency: ", fields[i]);
        CHECKF(strstr(out, want) != NULL, "%s not in %s", want, out);
    }
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":64,\"mode\":\"latency\",\"transport\":\"xrc\"}",
                         out, sizeof out) == QPB_EINVAL);
    CHECKF(strstr(out, "{\"field\":\"transport\",\"message\":\"mode latency: transport xrc is not supported (rc, "
                       "uc or ud)\"}") != NULL, "%s", out);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"mode\":\"ping\"}", out, sizeof out) ==
          QPB_EINVAL);
    CHECKF(strstr(out, "mode must be \\\"bw\\\" or \\\"latency\\\" (got \\\"ping\\\")") != NULL, "%s", out);
    CHECK(qpb_spec_schema(out, sizeof out) == QPB_OK);
    CHECKF(strstr(out, "{\"name\":\"mode\",\"type\":\"string\",\"enum\":[\"bw\",\"latency\"],"
                       "\"default\":\"bw\",\"verbs_only\":false}") != NULL, "%s", out);
}

/* post_api: wr (the default; given, it is what the run must use) or legacy; a verbs key, tcp takes only its default. */
static void post_api_is_a_verbs_choice(void)
{
    qpb_spec s;
    char err[1024], out[8192];
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64}", &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.post_api == QPB_POST_WR && !s.post_api_given);
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"post_api\":\"legacy\"}", &s, err,
                          sizeof err) == QPB_OK, "%s", err);
    CHECK(s.post_api == QPB_POST_LEGACY && s.post_api_given);
    CHECKF(qpb_spec_parse("{\"provider\":\"verbs\",\"msg_size\":64,\"mode\":\"latency\",\"post_api\":\"wr\"}",
                          &s, err, sizeof err) == QPB_OK, "%s", err);
    CHECK(s.post_api == QPB_POST_WR && s.post_api_given);
    CHECK(qpb_spec_check("{\"provider\":\"verbs\",\"msg_size\":64,\"post_api\":\"new\"}", out, sizeof out) ==
          QPB_EINVAL);
    CHECKF(strstr(out, "post_api must be \\\"wr\\\" or \\\"legacy\\\" (got \\\"new\\\")") != NULL, "%s", out);
    CHECKF(qpb_spec_parse("{\"provider\":\"tcp\",\"msg_size\":64,\"post_api\":\"wr\"}", &s, err, sizeof err) ==
           QPB_OK, "%s", err);
    CHECK(qpb_spec_check("{\"provider\":\"tcp\",\"msg_size\":64,\"post_api\":\"legacy\"}", out, sizeof out) ==
          QPB_EUNSUPPORTED);
    CHECKF(strstr(out, "{\"field\":\"post_api\",\"message\":\"post_api applies to provider verbs only\"}"), "%s",
           out);
    CHECK(qpb_spec_schema(out, sizeof out) == QPB_OK);
    CHECKF(strstr(out, "{\"name\":\"post_api\",\"type\":\"string\",\"enum\":[\"wr\",\"legacy\"],"
                       "\"default\":\"wr\",\"verbs_only\":true}") != NULL, "%s", out);
}

const qpb_test_case qpb_spec_tests[] = {
    {"spec parses relaxed_ordering, buffers and odp (verbs only)", parses_memory_registration_keys},
    {"spec: post_api is a verbs choice, wr by default", post_api_is_a_verbs_choice},
    {"spec: mode latency refuses what a ping-pong cannot use", latency_mode_refuses_what_a_ping_pong_cannot_use},
    {"spec bounds intervals and the trace", bounds_intervals_and_the_trace},
    {"spec applies documented defaults", applies_documented_defaults},
    {"spec parses every key", parses_every_key},
    {"spec lists every violation with name and limit", lists_every_violation_with_name_and_limit},
    {"spec rejects negative size and non-integers", rejects_negative_size_and_non_integers},
    {"spec rejects bad provider, role and missing keys", rejects_bad_provider_role_and_required_keys},
    {"spec parses the verbs knobs", parses_verbs_knobs},
    {"spec rejects combinations no device can run", rejects_combinations_no_device_can_run},
    {"spec: tcp refuses verbs knobs but accepts their defaults", tcp_refuses_verbs_knobs_but_accepts_their_defaults},
    {"spec check names the field of every violation", check_names_the_field_of_every_violation},
    {"spec check accepts what a session accepts", check_accepts_what_a_session_accepts},
    {"spec check refuses atomics off 8 bytes or rc", check_refuses_atomics_off_eight_bytes_or_rc},
    {"spec check refuses bidirectional read and atomics", check_refuses_bidirectional_read_and_atomics},
    {"spec check and session create say the same", check_and_session_create_say_the_same},
    {"spec schema shows the table the check enforces", schema_shows_the_table_the_check_enforces},
    {"json keeps long strings raw", json_keeps_long_strings_raw},
    {"json reader is strict", json_reader_is_strict},
    {"json builder escapes and measures", json_builder_escapes_and_measures},
    {"engine info and trace record layout", engine_info_and_trace_record_layout},
    {NULL, NULL},
};
