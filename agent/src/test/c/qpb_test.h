/*
 * qpb_test.h — the smallest test harness that reports what failed and where.
 * A test is a void function; CHECK marks the running test failed and keeps
 * going so one run shows every broken expectation.
 */
#ifndef QPB_TEST_H
#define QPB_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int qpb_test_failed; /* the running test has failed */

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "    FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
            qpb_test_failed = 1;                                                     \
        }                                                                            \
    } while (0)

#define CHECKF(cond, ...)                                                            \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "    FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            qpb_test_failed = 1;                                                     \
        }                                                                            \
    } while (0)

typedef struct qpb_test_case {
    const char *name;
    void (*fn)(void);
} qpb_test_case;

/* Each test file exports its table, ended by {NULL, NULL}. */
extern const qpb_test_case qpb_ring_tests[];
extern const qpb_test_case qpb_stats_tests[];
extern const qpb_test_case qpb_spec_tests[];
extern const qpb_test_case qpb_tcp_tests[];
extern const qpb_test_case qpb_check_tests[];
extern const qpb_test_case qpb_verbs_run_tests[];
extern const qpb_test_case qpb_qpbench_tests[];
extern const qpb_test_case qpb_counters_tests[];
extern const qpb_test_case qpb_latency_tests[];

/* First "key": number after offset 0 of a JSON text (top-level keys are
 * written before per_thread, so the first hit is the run's value). */
static inline double qpb_test_json_num(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : -1.0;
}

#endif /* QPB_TEST_H */
