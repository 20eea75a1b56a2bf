/*
 * qpb_buffers.c — message buffers on the heap or on hugepages (see qpb_buffers.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "qpb_buffers.h"
#include "qpb_caps.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

/* The first unsigned number of path after key (NULL: the file's first), or -1 with errno. */
static int64_t read_number(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[256];
    int64_t v = -1;
    size_t klen = key ? strlen(key) : 0;
    while (v < 0 && fgets(line, sizeof line, f) != NULL) {
        if (key != NULL && strncmp(line, key, klen) != 0)
            continue;
        char *end;
        unsigned long long n = strtoull(line + klen, &end, 10);
        if (end != line + klen)
            v = (int64_t)n;
        else if (key == NULL)
            break;
    }
    fclose(f);
    if (v < 0)
        errno = EINVAL;
    return v;
}

qpb_status qpb_hugepages_check(const char *nr_path, const char *meminfo_path, uint64_t pages, char *err,
                               uint32_t err_len)
{
    int64_t nr = read_number(nr_path, NULL);
    if (nr < 0) {
        snprintf(err, err_len, "buffers hugepages: cannot read %s: %s (a kernel without hugetlbfs?)", nr_path,
                 strerror(errno));
        return QPB_EUNSUPPORTED;
    }
    if (nr == 0) {
        snprintf(err, err_len, "buffers hugepages: none reserved (%s is 0; reserve %" PRIu64 " with sysctl "
                 "vm.nr_hugepages=%" PRIu64 ")", nr_path, pages, pages);
        return QPB_EUNSUPPORTED;
    }
    int64_t size_kb = read_number(meminfo_path, "Hugepagesize:");
    if (size_kb > 0 && (uint64_t)size_kb != QPB_HUGE_PAGE / 1024) {
        snprintf(err, err_len, "buffers hugepages: the default hugepage is %" PRId64 " kB (%s Hugepagesize), the "
                 "engine maps 2048 kB pages: reserve them with sysctl vm.nr_hugepages after booting with "
                 "default_hugepagesz=2M", size_kb, meminfo_path);
        return QPB_EUNSUPPORTED;
    }
    int64_t free_pages = read_number(meminfo_path, "HugePages_Free:");
    if (free_pages >= 0 && (uint64_t)free_pages < pages) {
        snprintf(err, err_len, "buffers hugepages: %" PRId64 " of %" PRId64 " reserved 2 MiB pages free (%s "
                 "HugePages_Free), the run's buffers take %" PRIu64 " (reserve more with sysctl vm.nr_hugepages=%"
                 PRIu64 ")", free_pages, nr, meminfo_path, pages, (uint64_t)nr + pages - (uint64_t)free_pages);
        return QPB_EUNSUPPORTED;
    }
    return QPB_OK;
}

uint8_t *qpb_buffer_alloc(uint64_t bytes, bool hugepages, uint64_t *mapped)
{
    *mapped = 0;
    if (hugepages) {
        uint64_t len = (bytes + QPB_HUGE_PAGE - 1) / QPB_HUGE_PAGE * QPB_HUGE_PAGE;
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB,
                       -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        *mapped = len; /* zeroed by the kernel */
        return p;
    }
    void *p = NULL;
    int rc = posix_memalign(&p, 4096, bytes);
    if (rc != 0) {
        errno = rc;
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

void qpb_buffer_free(uint8_t *buf, uint64_t mapped)
{
    if (buf != NULL && mapped > 0)
        munmap(buf, mapped);
    else
        free(buf);
}
