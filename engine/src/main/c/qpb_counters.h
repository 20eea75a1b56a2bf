/*
 * qpb_counters.h — the NIC's (or the host's TCP) counters before and after a
 * run, their deltas and the warnings for those that mean trouble: the
 * summary's "counters" and "warnings" keys (qpb.h).
 *
 * verbs: every file under <root>/<device>/ports/<port>/counters/ and
 * hw_counters/ (root is /sys/class/infiniband), named "counters/<file>" and
 * "hw_counters/<file>". tcp: the Tcp counters of /proc/net/snmp, named
 * "Tcp.<field>" (host-wide: every TCP connection of the host moves them).
 * A file that cannot be read or does not hold a number is listed as
 * unreadable, not guessed.
 */
#ifndef QPB_COUNTERS_H
#define QPB_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define QPB_COUNTERS_MAX 512
#define QPB_COUNTER_NAME 96

typedef struct qpb_jw qpb_jw;

typedef struct qpb_counter {
    char name[QPB_COUNTER_NAME]; /* "hw_counters/rcvd_seq_err", "Tcp.RetransSegs" */
    uint64_t value;
    bool ok; /* false: it could not be read (listed as unreadable) */
} qpb_counter;

typedef struct qpb_counters {
    bool sysfs;      /* else /proc/net/snmp */
    char device[64]; /* sysfs */
    uint32_t port;
    char error[256]; /* a directory or file that could not be opened at all ("" if none) */
    uint32_t n;      /* items, sorted by name */
    qpb_counter items[QPB_COUNTERS_MAX];
} qpb_counters;

/* A snapshot (malloc'd; free() it), or NULL when out of memory. */
qpb_counters *qpb_counters_read_sysfs(const char *root, const char *device, uint32_t port);
qpb_counters *qpb_counters_read_snmp(const char *path);

/* Whether a counter that moved means retransmission, an error, out-of-sequence packets or RNR
 * (the table in qpb_counters.c: rxe's and mlx5's hw_counters, the IB port error counters, TCP
 * retransmissions and errors). */
bool qpb_counter_warns(const char *name);

/* Writes "counters":{"source","device","port","deltas":{...},"unreadable":[...],"error"} (device and port
 * only when device is not "": a sysfs snapshot of no port, its error saying why) and
 * "warnings":[...] (keys too). before NULL: "counters":null and no warnings; after NULL: deltas
 * are unknown, every counter is unreadable. */
void qpb_counters_put(qpb_jw *w, const qpb_counters *before, const qpb_counters *after);

#endif /* QPB_COUNTERS_H */
