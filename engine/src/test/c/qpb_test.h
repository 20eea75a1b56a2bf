/*
 * qpb_test.h — the smallest test harness that reports what failed and where.
 * A test is a void function; CHECK marks the running test failed and keeps
 * going so one run shows every broken expectation.
 */
#ifndef QPB_TEST_H
#define QPB_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
extern const qpb_test_case qpb_verbs_post_tests[];
extern const qpb_test_case qpb_verbs_bidi_tests[];
extern const qpb_test_case qpb_noverbs_tests[];
extern const qpb_test_case qpb_qpbench_tests[];
extern const qpb_test_case qpb_counters_tests[];
extern const qpb_test_case qpb_latency_tests[];
extern const qpb_test_case qpb_cost_tests[];

typedef struct qpb_session qpb_session;

/*
 * A tcp server and client session of one shape (the JSON members after the
 * role; server_extra: members only the server gets, "" for none, each ending in
 * a comma), connected as two agents would connect them: the server's connect on
 * a thread of its own. 0 with both sessions (the server's endpoint in srv_blob
 * when not NULL), or -1 with the failure CHECKed and nothing left open.
 */
int qpb_test_tcp_pair(const char *shape, const char *server_extra, qpb_session **srv, qpb_session **cli, char *srv_blob,
                      size_t blob_len);

/* First "key": number after offset 0 of a JSON text (top-level keys are
 * written before per_thread, so the first hit is the run's value). */
static inline double qpb_test_json_num(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : -1.0;
}

/* Writes path from fmt, making its missing directories first (fake /proc and sysfs trees). */
static inline void qpb_test_vwrite(const char *path, const char *fmt, va_list ap)
{
    char dirs[512];
    snprintf(dirs, sizeof dirs, "%s", path);
    for (char *slash = strchr(dirs + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        CHECKF(mkdir(dirs, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", dirs, strerror(errno));
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    CHECKF(f != NULL, "cannot write %s: %s", path, strerror(errno));
    if (f == NULL)
        return;
    vfprintf(f, fmt, ap);
    fclose(f);
}

#endif /* QPB_TEST_H */
