/*
 * bench/line_handoff.c - what it costs to hand 64-byte records from one
 * thread to another on this machine: the floor under any recorder design
 * that queues calls for a thread of its own to encode (bench/README.md,
 * "Handing the calls to another thread, tried").
 *
 * One thread stores a record of eight words into a
 * ring of 64-byte slots and publishes its head; another reads two words of
 * each record and publishes its tail. Nothing else happens on either side,
 * so the time per record is the cache lines' trip between the two CPUs.
 * Prints the writer's ns per record, best of three runs.
 *
 *   line_handoff [RECORDS] [RING_BYTES]   (defaults 10,000,000 and 65536)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOT 64

typedef struct ring {
    uint64_t* slots;
    uint64_t mask; /* slots - 1 */
    long records;
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) _Atomic uint64_t tail;
    _Alignas(64) uint64_t sum; /* what the reader read, so it is not optimized away */
} ring;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void* reader(void* arg) {
    ring* r = arg;
    uint64_t tail = 0, sum = 0;
    while (tail < (uint64_t)r->records) {
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        for (; tail < head; tail++) {
            const uint64_t* slot = r->slots + (tail & r->mask) * (SLOT / 8);
            sum += slot[0] + slot[1];
            atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
        }
    }
    r->sum = sum;
    return NULL;
}

/* One run: the writer's ns per record. */
static double run(long records, size_t ring_bytes) {
    ring r;
    pthread_t thread;
    uint64_t head = 0, tail_seen = 0, start, end;
    uint64_t capacity = ring_bytes / SLOT;
    memset(&r, 0, sizeof r);
    r.slots = aligned_alloc(SLOT, ring_bytes);
    if (r.slots == NULL) {
        fprintf(stderr, "line_handoff: error: no memory for a ring of %zu bytes\n", ring_bytes);
        exit(1);
    }
    memset(r.slots, 0, ring_bytes);
    r.mask = capacity - 1;
    r.records = records;
    if (pthread_create(&thread, NULL, reader, &r) != 0) {
        fprintf(stderr, "line_handoff: error: cannot start the reader thread\n");
        exit(1);
    }
    start = now_ns();
    for (; head < (uint64_t)records; head++) {
        uint64_t* slot = r.slots + (head & r.mask) * (SLOT / 8);
        int w;
        while (head - tail_seen >= capacity)
            tail_seen = atomic_load_explicit(&r.tail, memory_order_acquire);
        for (w = 0; w < SLOT / 8; w++)
            slot[w] = head + (uint64_t)w;
        atomic_store_explicit(&r.head, head + 1, memory_order_release);
    }
    end = now_ns();
    pthread_join(thread, NULL);
    free(r.slots);
    return (double)(end - start) / (double)records;
}

int main(int argc, char** argv) {
    long records = argc > 1 ? atol(argv[1]) : 10000000;
    size_t ring_bytes = argc > 2 ? (size_t)atol(argv[2]) : 65536;
    double best = 0;
    int i;
    if (records <= 0 || ring_bytes < 2 * SLOT || (ring_bytes & (ring_bytes - 1)) != 0) {
        fprintf(stderr, "usage: line_handoff [RECORDS > 0] [RING_BYTES: a power of two >= 128]\n");
        return 2;
    }
    for (i = 0; i < 3; i++) {
        double ns = run(records, ring_bytes);
        if (i == 0 || ns < best)
            best = ns;
    }
    printf("handoff  %.1f ns per 64-byte record handed to another thread (ring %zu bytes, best of "
           "3)\n",
           best, ring_bytes);
    return 0;
}
