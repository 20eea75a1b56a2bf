/*
 * test_pair.c — a tcp server and client session connected on 127.0.0.1 as two
 * agents would connect them (qpb_test_tcp_pair in qpb_test.h).
 */
#include <pthread.h>

#include "qpb.h"
#include "qpb_test.h"

typedef struct server_arg {
    qpb_session *s;
    char peer[512];
    int rc;
} server_arg;

static void *server_connect(void *p)
{
    server_arg *a = p;
    a->rc = qpb_connect(a->s, a->peer);
    return NULL;
}

int qpb_test_tcp_pair(const char *shape, const char *server_extra, qpb_session **srv, qpb_session **cli, char *srv_blob,
                      size_t blob_len)
{
    char err[512], spec[1024], blob[512];
    *srv = *cli = NULL;
    snprintf(spec, sizeof spec, "{\"provider\":\"tcp\",\"role\":\"server\",%s%s}", server_extra, shape);
    qpb_session *s = qpb_session_create(spec, err, sizeof err);
    CHECKF(s != NULL, "server: %s", err);
    snprintf(spec, sizeof spec, "{\"provider\":\"tcp\",\"role\":\"client\",%s}", shape);
    qpb_session *c = qpb_session_create(spec, err, sizeof err);
    CHECKF(c != NULL, "client: %s", err);
    server_arg a = {.s = s};
    int ok = s != NULL && c != NULL;
    if (ok) {
        CHECK(qpb_local_endpoint(s, blob, sizeof blob) == QPB_OK);
        CHECK(qpb_local_endpoint(c, a.peer, sizeof a.peer) == QPB_OK);
        pthread_t th;
        pthread_create(&th, NULL, server_connect, &a);
        int rc = qpb_connect(c, blob);
        CHECKF(rc == QPB_OK, "client connect: %s", qpb_last_error(c));
        pthread_join(th, NULL);
        CHECKF(a.rc == QPB_OK, "server connect: %s", qpb_last_error(s));
        ok = rc == QPB_OK && a.rc == QPB_OK;
    }
    if (!ok) {
        if (c != NULL)
            qpb_session_destroy(c);
        if (s != NULL)
            qpb_session_destroy(s);
        return -1;
    }
    if (srv_blob != NULL)
        snprintf(srv_blob, blob_len, "%s", blob);
    *srv = s;
    *cli = c;
    return 0;
}
