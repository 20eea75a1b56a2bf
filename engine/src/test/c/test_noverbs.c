/*
 * test_noverbs.c — an engine built without rdma-core's headers (only then is
 * this file built; the Makefile swaps it for test_verbs_run.c): the verbs
 * provider is refused with the packages to install, everywhere a user or the
 * agent asks for it, and tcp is whole.
 */
#include "qpb.h"
#include "qpb_test.h"

#define PACKAGES "libibverbs-dev and librdmacm-dev (dnf: rdma-core-devel)"

static void engine_info_offers_tcp_only_and_says_why(void)
{
    char info[1024];
    CHECK(qpb_engine_info(info, sizeof info) == QPB_OK);
    CHECKF(strstr(info, "\"providers\":[\"tcp\"]") != NULL, "%s", info);
    CHECKF(strstr(info, "\"verbs_unavailable\":\"this engine was built without rdma-core's headers") != NULL &&
               strstr(info, PACKAGES) != NULL,
           "%s", info);
}

static void devices_are_unavailable_with_the_reason(void)
{
    char devs[1024];
    CHECK(qpb_devices(devs, sizeof devs) == QPB_OK);
    CHECKF(strstr(devs, "\"devices\":[]") != NULL && strstr(devs, PACKAGES) != NULL, "%s", devs);
}

static void a_verbs_session_is_refused_with_the_packages(void)
{
    char err[512] = "";
    qpb_session *s = qpb_session_create("{\"provider\":\"verbs\",\"role\":\"loopback\",\"msg_size\":64}", err, sizeof err);
    CHECK(s == NULL);
    qpb_session_destroy(s);
    CHECKF(strstr(err, "provider verbs: this engine was built without rdma-core's headers") != NULL &&
               strstr(err, PACKAGES) != NULL && strstr(err, "install them and rebuild") != NULL,
           "%s", err);
}

static void a_tcp_loopback_still_runs(void)
{
    char err[512] = "";
    qpb_session *s = qpb_session_create("{\"provider\":\"tcp\",\"role\":\"loopback\",\"msg_size\":64,\"iterations\":100}",
                                        err, sizeof err);
    CHECKF(s != NULL, "%s", err);
    if (s == NULL)
        return;
    CHECKF(qpb_start(s) == QPB_OK, "%s", qpb_last_error(s));
    CHECKF(qpb_wait(s, 10000) == QPB_OK, "%s", qpb_last_error(s));
    char sum[16384];
    CHECKF(qpb_summary(s, sum, sizeof sum) == QPB_OK, "%s", qpb_last_error(s));
    CHECKF(strstr(sum, "\"cycles\":100") != NULL, "%.400s", sum);
    qpb_session_destroy(s);
}

const qpb_test_case qpb_noverbs_tests[] = {
    {"noverbs_engine_info_offers_tcp_only_and_says_why", engine_info_offers_tcp_only_and_says_why},
    {"noverbs_devices_are_unavailable_with_the_reason", devices_are_unavailable_with_the_reason},
    {"noverbs_a_verbs_session_is_refused_with_the_packages", a_verbs_session_is_refused_with_the_packages},
    {"noverbs_a_tcp_loopback_still_runs", a_tcp_loopback_still_runs},
    {NULL, NULL},
};
