/*
 * qpb_buffers.h — the verbs provider's message buffers: on the heap, or on
 * 2 MiB hugepages (buffers hugepages, perftest --use_hugepages), and the
 * check that enough hugepages are reserved, made before any verbs object
 * exists. No verbs call: tests point the check at fake /proc files.
 */
#ifndef QPB_BUFFERS_H
#define QPB_BUFFERS_H

#include <stdbool.h>
#include <stdint.h>

#include "qpb_internal.h"

/* QPB_OK when pages 2 MiB hugepages are free (nr_path: /proc/sys/vm/nr_hugepages, meminfo_path: /proc/meminfo,
 * whose HugePages_Free and Hugepagesize are read); else QPB_EUNSUPPORTED and err names the file and the sysctl
 * to set ("buffers hugepages: none reserved (/proc/sys/vm/nr_hugepages is 0; reserve 2 with sysctl
 * vm.nr_hugepages=2)"). */
qpb_status qpb_hugepages_check(const char *nr_path, const char *meminfo_path, uint64_t pages, char *err,
                               uint32_t err_len);

/* bytes of zeroed memory, 4 KiB aligned, or on hugepages (mmap MAP_HUGETLB, bytes rounded up to 2 MiB):
 * *mapped is then the mapping's length, else 0. NULL with errno on failure. */
uint8_t *qpb_buffer_alloc(uint64_t bytes, bool hugepages, uint64_t *mapped);
void qpb_buffer_free(uint8_t *buf, uint64_t mapped);

#endif /* QPB_BUFFERS_H */
