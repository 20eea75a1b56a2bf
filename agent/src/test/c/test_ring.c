/*
 * test_ring.c — the SPSC record ring: order across wraparound, drops counted
 * when full, and a real producer/consumer pair losing nothing it accepted.
 */
#include <pthread.h>

#include "qpb_ring.h"
#include "qpb_test.h"

static qpb_sample rec(uint64_t i)
{
    qpb_sample s = {.thread = 1, .cycle = i, .start_ns = i * 10, .end_ns = i * 10 + 5, .bytes = 64, .messages = 1};
    return s;
}

static void keeps_order_across_wraparound(void)
{
    qpb_ring r;
    CHECK(qpb_ring_init(&r, 8));
    qpb_sample out[8];
    uint64_t next_in = 0, next_out = 0;
    for (int round = 0; round < 40; round++) {
        for (int k = 0; k < 5; k++) {
            qpb_sample s = rec(next_in++);
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
        qpb_sample s = rec(i);
        accepted += qpb_ring_push(&r, &s);
    }
    CHECK(accepted == 4);
    CHECK(qpb_ring_dropped(&r) == 6);
    qpb_sample out[16];
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
        qpb_sample s = rec(i);
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
    qpb_sample out[64];
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

const qpb_test_case qpb_ring_tests[] = {
    {"ring keeps order across wraparound", keeps_order_across_wraparound},
    {"ring counts every drop when full", counts_every_drop_when_full},
    {"ring rejects capacity not a power of two", rejects_capacity_not_power_of_two},
    {"ring concurrent consumer sees every accepted record once", concurrent_consumer_sees_every_accepted_record_once},
    {NULL, NULL},
};
