/*
 * test_ring.c — the SPSC record ring: order across wraparound, drops counted
 * when full, and a real producer/consumer pair losing nothing it accepted.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "qpb_ring.h"
#include "qpb_test.h"

static qpb_trace_record rec(uint64_t i)
{
    qpb_trace_record s = {.thread = 1, .cycle = i, .start_ns = i * 10, .end_ns = i * 10 + 5, .bytes = 64, .messages = 1};
    return s;
}

static void keeps_order_across_wraparound(void)
{
    qpb_ring r;
    CHECK(qpb_ring_init(&r, 8));
    qpb_trace_record out[8];
    uint64_t next_in = 0, next_out = 0;
    for (int round = 0; round < 40; round++) {
        for (int k = 0; k < 5; k++) {
            qpb_trace_record s = rec(next_in++);
            CHECK(qpb_ring_push(&r, &s));
        }
        uint32_t n = qpb_ring_pop(&r, out, 8);
        CHECK(n == 5);
        for (uint32_t k = 0; k < n; k++)
            CHECK(out[k].cycle == next_out++ && out[k].end_ns == out[k].cycle * 10 + 5);
    }
    CHECK(qpb_ring_dropped(&r) == 0);
    qpb_ring_free(&r);
}

static void counts_every_drop_when_full(void)
{
    qpb_ring r;
    CHECK(qpb_ring_init(&r, 4));
    int accepted = 0;
    for (uint64_t i = 0; i < 10; i++) {
        qpb_trace_record s = rec(i);
        accepted += qpb_ring_push(&r, &s);
    }
    CHECK(accepted == 4);
    CHECK(qpb_ring_dropped(&r) == 6);
    qpb_trace_record out[16];
    CHECK(qpb_ring_pop(&r, out, 16) == 4);
    CHECK(out[0].cycle == 0 && out[3].cycle == 3);
    CHECK(qpb_ring_pop(&r, out, 16) == 0);
    qpb_ring_free(&r);
}

static void rejects_capacity_not_power_of_two(void)
{
    qpb_ring r;
    CHECK(!qpb_ring_init(&r, 6));
    CHECK(!qpb_ring_init(&r, 0));
}

#define CONCURRENT_N 400000

static void *produce(void *p)
{
    qpb_ring *r = p;
    for (uint64_t i = 0; i < CONCURRENT_N; i++) {
        qpb_trace_record s = rec(i);
        qpb_ring_push(r, &s);
    }
    return NULL;
}

static void concurrent_consumer_sees_every_accepted_record_once(void)
{
    qpb_ring r;
    CHECK(qpb_ring_init(&r, 256));
    pthread_t th;
    pthread_create(&th, NULL, produce, &r);
    qpb_trace_record out[64];
    uint64_t got = 0, last = 0, bad = 0;
    bool first = true;
    for (int spins = 0; spins < 50000000; spins++) {
        uint32_t n = qpb_ring_pop(&r, out, 64);
        for (uint32_t k = 0; k < n; k++) {
            if ((!first && out[k].cycle <= last) || out[k].end_ns != out[k].cycle * 10 + 5)
                bad++;
            last = out[k].cycle;
            first = false;
        }
        got += n;
        if (n == 0 && got + qpb_ring_dropped(&r) == CONCURRENT_N)
            break;
    }
    pthread_join(th, NULL);
    got += qpb_ring_pop(&r, out, 64);
    CHECKF(got + qpb_ring_dropped(&r) == CONCURRENT_N, "got %llu dropped %llu", (unsigned long long)got,
           (unsigned long long)qpb_ring_dropped(&r));
    CHECK(bad == 0);
    CHECK(got > 0);
    qpb_ring_free(&r);
}

/* Variable-length records of 8..200 bytes: each starts with its size and carries its sequence number. */
static uint32_t make_record(uint8_t *buf, uint32_t seq)
{
    uint32_t len = 8 + (seq * 37) % 193;
    memcpy(buf, &len, 4);
    memcpy(buf + 4, &seq, 4);
    for (uint32_t k = 8; k < len; k++)
        buf[k] = (uint8_t)(seq + k);
    return len;
}

static int check_records(const uint8_t *buf, uint32_t n, uint32_t *next)
{
    int bad = 0;
    for (uint32_t at = 0; at < n;) {
        uint8_t want[256];
        uint32_t len, seq;
        memcpy(&len, buf + at, 4);
        memcpy(&seq, buf + at + 4, 4);
        bad += seq != *next || len != make_record(want, seq) || memcmp(buf + at, want, len) != 0;
        (*next)++;
        at += len;
    }
    return bad;
}

static void bytes_ring_keeps_records_whole_across_the_end(void)
{
    qpb_bytes_ring r, odd;
    CHECK(!qpb_bytes_ring_init(&odd, 1000)); /* not a power of two */
    CHECK(qpb_bytes_ring_init(&r, 1024));
    uint8_t rec[256], out[2048];
    uint32_t seq = 0, next = 0;
    int bad = 0;
    for (int round = 0; round < 200; round++) {
        uint32_t len;
        while ((len = make_record(rec, seq)) <= qpb_bytes_ring_room(&r)) {
            CHECK(qpb_bytes_ring_put(&r, rec, len));
            seq++;
        }
        CHECK(!qpb_bytes_ring_put(&r, rec, len)); /* full: refused, nothing half-written */
        uint32_t n = qpb_bytes_ring_take(&r, out, 300 + (uint32_t)round * 7 % 500); /* whole records only */
        bad += check_records(out, n, &next);
    }
    uint32_t n = qpb_bytes_ring_take(&r, out, sizeof out);
    bad += check_records(out, n, &next);
    CHECK(bad == 0 && next == seq && qpb_bytes_ring_room(&r) == 1024);
    CHECK(qpb_bytes_ring_take(&r, out, sizeof out) == 0);
    qpb_bytes_ring_free(&r);
}

typedef struct bytes_pair {
    qpb_bytes_ring ring;
    atomic_int give_up; /* the consumer ran out of time: the producer stops too */
    uint32_t produced;
} bytes_pair;

static void *bytes_producer(void *p)
{
    bytes_pair *pair = p;
    uint8_t rec[256];
    while (pair->produced < 200000 && !atomic_load(&pair->give_up)) {
        uint32_t len = make_record(rec, pair->produced);
        if (qpb_bytes_ring_put(&pair->ring, rec, len))
            pair->produced++;
        else
            sched_yield(); /* full: let the consumer run (a loaded machine may have one core for both) */
    }
    return NULL;
}

static void bytes_ring_concurrent_consumer_gets_everything_in_order(void)
{
    static bytes_pair pair;
    pair.produced = 0;
    atomic_init(&pair.give_up, 0);
    CHECK(qpb_bytes_ring_init(&pair.ring, 4096));
    pthread_t th;
    pthread_create(&th, NULL, bytes_producer, &pair);
    static uint8_t out[8192];
    uint32_t next = 0;
    int bad = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (now = start; next < 200000 && now.tv_sec - start.tv_sec < 60; clock_gettime(CLOCK_MONOTONIC, &now)) {
        uint32_t n = qpb_bytes_ring_take(&pair.ring, out, sizeof out);
        bad += check_records(out, n, &next);
        if (n == 0)
            sched_yield();
    }
    atomic_store(&pair.give_up, 1); /* bounded in time either way: the join always returns */
    pthread_join(th, NULL);
    bad += check_records(out, qpb_bytes_ring_take(&pair.ring, out, sizeof out), &next);
    CHECKF(bad == 0 && next == 200000 && next == pair.produced, "%d bad, %u of 200000 taken, %u produced", bad, next,
           pair.produced);
    qpb_bytes_ring_free(&pair.ring);
}

const qpb_test_case qpb_ring_tests[] = {
    {"bytes ring keeps records whole across the end", bytes_ring_keeps_records_whole_across_the_end},
    {"bytes ring concurrent consumer gets everything in order", bytes_ring_concurrent_consumer_gets_everything_in_order},
    {"ring keeps order across wraparound", keeps_order_across_wraparound},
    {"ring counts every drop when full", counts_every_drop_when_full},
    {"ring rejects capacity not a power of two", rejects_capacity_not_power_of_two},
    {"ring concurrent consumer sees every accepted record once", concurrent_consumer_sees_every_accepted_record_once},
    {NULL, NULL},
};
