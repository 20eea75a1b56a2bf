/*
 * qpb_ring.h — lock-free single-producer/single-consumer rings: one of
 * qpb_trace_record (trace records) and one of variable-length byte records
 * (interval records).
 *
 * One ring of each per worker thread: the worker is the only producer,
 * qpb_drain / qpb_drain_intervals the only consumer. head and tail are free-running 64-bit counters (no wrap in
 * practice), capacity is a power of two so the slot is counter & mask.
 * A push into a full ring drops the record and counts it: never silent.
 */
#ifndef QPB_RING_H
#define QPB_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "qpb.h"

typedef struct qpb_ring {
    /* Producer and consumer counters on their own cache lines so the two
     * threads do not bounce one line on every record. */
    _Alignas(64) atomic_uint_fast64_t tail; /* next slot to write (producer) */
    atomic_uint_fast64_t dropped;           /* written by the producer only */
    _Alignas(64) atomic_uint_fast64_t head; /* next slot to read (consumer) */
    _Alignas(64) qpb_trace_record *slots;
    uint64_t mask;
} qpb_ring;

/* capacity must be a power of two >= 1; returns false when out of memory. */
bool qpb_ring_init(qpb_ring *r, uint32_t capacity);
void qpb_ring_free(qpb_ring *r);

/* Producer side. Returns false (and counts a drop) when the ring is full. */
bool qpb_ring_push(qpb_ring *r, const qpb_trace_record *record);

/* Consumer side: moves up to max records into out, returns how many. */
uint32_t qpb_ring_pop(qpb_ring *r, qpb_trace_record *out, uint32_t max);

uint64_t qpb_ring_dropped(const qpb_ring *r);

/* Records of any length, each starting with its uint32 size (>= 4); one that
 * reaches the end of the buffer continues at its start. */
typedef struct qpb_bytes_ring {
    _Alignas(64) atomic_uint_fast64_t tail; /* bytes written (producer) */
    _Alignas(64) atomic_uint_fast64_t head; /* bytes read (consumer) */
    _Alignas(64) uint8_t *buf;
    uint64_t mask;
} qpb_bytes_ring;

/* capacity: bytes, a power of two; returns false when out of memory. */
bool qpb_bytes_ring_init(qpb_bytes_ring *r, uint32_t capacity);
void qpb_bytes_ring_free(qpb_bytes_ring *r);

/* Producer side: the bytes free now (at least this much stays free until it writes). */
uint64_t qpb_bytes_ring_room(const qpb_bytes_ring *r);
/* Producer side: appends one record of len bytes; false when it does not fit. */
bool qpb_bytes_ring_put(qpb_bytes_ring *r, const void *record, uint32_t len);

/* Consumer side: moves whole records into out while they fit in len bytes;
 * returns the bytes moved. */
uint32_t qpb_bytes_ring_take(qpb_bytes_ring *r, void *out, uint32_t len);

#endif /* QPB_RING_H */
