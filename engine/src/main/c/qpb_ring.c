/*
 * qpb_ring.c — the SPSC record ring (see qpb_ring.h).
 *
 * Memory order: the producer writes the slot, then publishes tail with
 * release; the consumer reads tail with acquire before reading slots, and
 * publishes head with release so the producer (acquire) never overwrites a
 * slot still being copied out.
 */
#include "qpb_ring.h"

#include <stdlib.h>
#include <string.h>

bool qpb_ring_init(qpb_ring *r, uint32_t capacity)
{
    if (capacity == 0 || (capacity & (capacity - 1)) != 0)
        return false;
    r->slots = calloc(capacity, sizeof(qpb_trace_record));
    if (r->slots == NULL)
        return false;
    r->mask = capacity - 1;
    atomic_init(&r->tail, 0);
    atomic_init(&r->head, 0);
    atomic_init(&r->dropped, 0);
    return true;
}

void qpb_ring_free(qpb_ring *r)
{
    free(r->slots);
    r->slots = NULL;
}

bool qpb_ring_push(qpb_ring *r, const qpb_trace_record *record)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (tail - head > r->mask) {
        uint64_t d = atomic_load_explicit(&r->dropped, memory_order_relaxed);
        atomic_store_explicit(&r->dropped, d + 1, memory_order_relaxed);
        return false;
    }
    r->slots[tail & r->mask] = *record;
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
    return true;
}

uint32_t qpb_ring_pop(qpb_ring *r, qpb_trace_record *out, uint32_t max)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint64_t avail = tail - head;
    uint32_t n = avail < max ? (uint32_t)avail : max;
    for (uint32_t i = 0; i < n;) {
        /* Copy in at most two runs: up to the end of the array, then from 0. */
        uint64_t at = (head + i) & r->mask;
        uint64_t run = r->mask + 1 - at;
        if (run > n - i)
            run = n - i;
        memcpy(out + i, r->slots + at, run * sizeof(qpb_trace_record));
        i += (uint32_t)run;
    }
    atomic_store_explicit(&r->head, head + n, memory_order_release);
    return n;
}

uint64_t qpb_ring_dropped(const qpb_ring *r)
{
    return atomic_load_explicit(&r->dropped, memory_order_relaxed);
}

bool qpb_bytes_ring_init(qpb_bytes_ring *r, uint32_t capacity)
{
    if (capacity < 8 || (capacity & (capacity - 1)) != 0)
        return false;
    r->buf = malloc(capacity); /* pages are touched only as records reach them */
    if (r->buf == NULL)
        return false;
    r->mask = capacity - 1;
    atomic_init(&r->tail, 0);
    atomic_init(&r->head, 0);
    return true;
}

void qpb_bytes_ring_free(qpb_bytes_ring *r)
{
    free(r->buf);
    r->buf = NULL;
}

uint64_t qpb_bytes_ring_room(const qpb_bytes_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    return r->mask + 1 - (tail - head);
}

/* Copies len bytes between the ring at position pos and flat memory, in at most two runs. */
static void ring_copy(const qpb_bytes_ring *r, uint64_t pos, void *flat, uint32_t len, bool into_ring)
{
    uint64_t at = pos & r->mask, first = r->mask + 1 - at;
    if (first > len)
        first = len;
    if (into_ring) {
        memcpy(r->buf + at, flat, first);
        memcpy(r->buf, (char *)flat + first, len - first);
    } else {
        memcpy(flat, r->buf + at, first);
        memcpy((char *)flat + first, r->buf, len - first);
    }
}

bool qpb_bytes_ring_put(qpb_bytes_ring *r, const void *record, uint32_t len)
{
    if (len < 4 || qpb_bytes_ring_room(r) < len)
        return false;
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    ring_copy(r, tail, (void *)record, len, true);
    atomic_store_explicit(&r->tail, tail + len, memory_order_release);
    return true;
}

uint32_t qpb_bytes_ring_take(qpb_bytes_ring *r, void *out, uint32_t len)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint32_t moved = 0;
    while (tail - head >= 4) {
        uint32_t size;
        ring_copy(r, head, &size, 4, false);
        if (size > len - moved)
            break;
        ring_copy(r, head, (char *)out + moved, size, false);
        head += size;
        moved += size;
    }
    atomic_store_explicit(&r->head, head, memory_order_release);
    return moved;
}
