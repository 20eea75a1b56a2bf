/*
 * test_main.c — runs every C test table and prints the one line CI greps:
 * "C tests: N passed, M failed". Exit status is non-zero if any failed.
 */
#include <time.h>

#include "qpb_test.h"

int qpb_test_failed;

/* A tcp-only engine (built without rdma-core's headers, see the Makefile) has no verbs internals to test:
 * it is tested for how it refuses the verbs provider instead. */
#ifdef QPB_NO_VERBS
static const qpb_test_case qpb_no_tests[] = {{NULL, NULL}};
#define QPB_VERBS_TESTS qpb_noverbs_tests
#define QPB_VERBS_POST_TESTS qpb_no_tests
#define QPB_VERBS_BIDI_TESTS qpb_no_tests
#else
#define QPB_VERBS_TESTS qpb_verbs_run_tests
#define QPB_VERBS_POST_TESTS qpb_verbs_post_tests
#define QPB_VERBS_BIDI_TESTS qpb_verbs_bidi_tests
#endif

int main(int argc, char **argv)
{
    const qpb_test_case *tables[] = {qpb_ring_tests, qpb_stats_tests, qpb_spec_tests, qpb_tcp_tests, qpb_check_tests,
                                     QPB_VERBS_TESTS, QPB_VERBS_POST_TESTS, QPB_VERBS_BIDI_TESTS, qpb_qpbench_tests, qpb_counters_tests,
                                     qpb_latency_tests, qpb_cost_tests};
    const char *only = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (const qpb_test_case *c = tables[t]; c->name != NULL; c++) {
            if (only != NULL && strstr(c->name, only) == NULL)
                continue;
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            qpb_test_failed = 0;
            c->fn();
            clock_gettime(CLOCK_MONOTONIC, &b);
            double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
            printf("  %s %s (%.0f ms)\n", qpb_test_failed ? "FAIL" : "ok  ", c->name, ms);
            fflush(stdout);
            if (qpb_test_failed)
                failed++;
            else
                passed++;
        }
    }
    printf("C tests: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
