/*
 * qpbench_control.c — the control channel between a qpbench client and
 * server: length-prefixed strings over one TCP socket, which carry the
 * endpoint blobs and keep the two sides in lockstep.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "qpbench.h"

void qpbench_ctl_send(int fd, const char *msg)
{
    size_t n = strlen(msg), done = 0;
    uint32_t len = htonl((uint32_t)n);
    if (send(fd, &len, 4, MSG_NOSIGNAL) != 4)
        qpbench_die("control connection: send: %s", strerror(errno));
    while (done < n) {
        ssize_t k = send(fd, msg + done, n - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            qpbench_die("control connection: send: %s", strerror(errno));
        done += (size_t)k;
    }
}

char *qpbench_ctl_recv(int fd)
{
    uint32_t len;
    if (recv(fd, &len, 4, MSG_WAITALL) != 4)
        qpbench_die("control connection: the peer closed it (are both sides given the same sizes?)");
    len = ntohl(len);
    if (len > (1u << 28))
        qpbench_die("control connection: message of %u bytes: not a qpbench peer", len);
    char *m = malloc(len + 1);
    if (m == NULL || (len > 0 && recv(fd, m, len, MSG_WAITALL) != (ssize_t)len))
        qpbench_die("control connection: short read");
    m[len] = '\0';
    return m;
}

int qpbench_ctl_open(const options *o)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
    const char *addr = o->server ? (o->bind ? o->bind : "0.0.0.0") : o->host;
    if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
        qpbench_die("\"%s\" is not an IPv4 address", addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        qpbench_die("socket: %s", strerror(errno));
    if (o->server) {
        int one = 1, c;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1) < 0)
            qpbench_die("listen on %s:%u: %s", addr, o->port, strerror(errno));
        if ((c = accept(fd, NULL, NULL)) < 0)
            qpbench_die("accept on %s:%u: %s", addr, o->port, strerror(errno));
        close(fd);
        return c;
    }
    /* The server may still be starting: retry for up to 5 s. */
    for (int tries = 0; connect(fd, (struct sockaddr *)&a, sizeof a) < 0; tries++) {
        if (errno != ECONNREFUSED || tries >= 50)
            qpbench_die("connect %s:%u: %s", addr, o->port, strerror(errno));
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    return fd;
}
