/*
 * tools/record/rec_clock.c - the recorder's timestamps: CLOCK_MONOTONIC
 * nanoseconds, read from the TSC where that is exact enough.
 *
 * clock_gettime costs about 26 ns on these VMs, rdtsc about 11, and every
 * NVTX call takes one. So where the TSC is invariant (CPUID 0x80000007
 * EDX bit 8) and the kernel itself keeps CLOCK_MONOTONIC on it (its
 * clocksource is "tsc", or a hypervisor's clock that is the TSC scaled:
 * "kvm-clock", "hyperv_clocksource_tsc_page", "xen"; a kernel that found
 * the TSC unstable falls back to "hpet" or "acpi_pm"), a call reads the
 * TSC and converts the ticks with
 * a line through two (TSC, CLOCK_MONOTONIC) points: the first taken when
 * the session begins, the other 2 ms later at first and then, per thread,
 * again every REC_CLOCK_RESYNC_NS, so the line's slope comes from an ever
 * longer baseline (each point is read between two rdtsc, taking the
 * tightest of a few tries: within about 30 ns, so the slope is off by
 * 30 ns over the time since the session began). A thread's timestamps
 * never go back (a new slope may move them by a few nanoseconds).
 * Elsewhere, or with NVTXW_RECORD_CLOCK=monotonic, every call reads
 * CLOCK_MONOTONIC. Either way the report holds CLOCK_MONOTONIC
 * nanoseconds (docs/record.md).
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec_internal.h"

#ifdef REC_HAVE_TSC
#include <cpuid.h>
#endif

/* A thread takes a new point this often. */
#define REC_CLOCK_RESYNC_NS 50000000
/* The first line's baseline. */
#define REC_CLOCK_CALIBRATE_NS 2000000

int rec_clock_tsc;

static struct {
    uint64_t tsc0;
    int64_t mono0;
    double ns_per_tick0;   /* from the calibration */
    uint64_t resync_ticks; /* REC_CLOCK_RESYNC_NS in ticks */
} clock_state;

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#ifdef REC_HAVE_TSC
static int tsc_invariant(void) {
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000000, &a, &b, &c, &d) == 0 || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

/* The kernel keeps CLOCK_MONOTONIC on the TSC, directly or through a
 * hypervisor's clock read from it: it trusts the TSC too. */
static int kernel_uses_tsc(void) {
    static const char* const tsc_based[] = {"tsc", "kvm-clock", "hyperv_clocksource_tsc_page",
                                            "xen"};
    char source[64] = "";
    size_t i;
    FILE* f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == NULL)
        return 0;
    if (fgets(source, sizeof source, f) == NULL)
        source[0] = '\0';
    fclose(f);
    source[strcspn(source, "\n")] = '\0';
    for (i = 0; i < sizeof tsc_based / sizeof tsc_based[0]; i++)
        if (strcmp(source, tsc_based[i]) == 0)
            return 1;
    return 0;
}

/* A (TSC, CLOCK_MONOTONIC) point: the tightest of a few reads between two
 * rdtsc, the TSC taken as their middle. */
static void read_point(uint64_t* tsc, int64_t* mono) {
    uint64_t best = UINT64_MAX;
    int i;
    for (i = 0; i < 5; i++) {
        uint64_t before = __rdtsc();
        int64_t now = monotonic_ns();
        uint64_t after = __rdtsc();
        if (after - before < best) {
            best = after - before;
            *tsc = before + (after - before) / 2;
            *mono = now;
        }
    }
}
#endif

const char* rec_clock_init(void) {
    const char* wanted = getenv("NVTXW_RECORD_CLOCK");
    rec_clock_tsc = 0;
    if (wanted != NULL && strcmp(wanted, "monotonic") == 0)
        return "monotonic";
#ifdef REC_HAVE_TSC
    if (tsc_invariant() && (kernel_uses_tsc() || (wanted != NULL && strcmp(wanted, "tsc") == 0))) {
        uint64_t tsc1;
        int64_t mono1;
        read_point(&clock_state.tsc0, &clock_state.mono0);
        do
            read_point(&tsc1, &mono1);
        while (mono1 - clock_state.mono0 < REC_CLOCK_CALIBRATE_NS);
        if (tsc1 > clock_state.tsc0) {
            clock_state.ns_per_tick0 =
                (double)(mono1 - clock_state.mono0) / (double)(tsc1 - clock_state.tsc0);
            clock_state.resync_ticks = (uint64_t)(REC_CLOCK_RESYNC_NS / clock_state.ns_per_tick0);
            rec_clock_tsc = 1;
            return "tsc";
        }
    }
#endif
    return "monotonic";
}

/* The thread's line again: a new point, and the line through it and the
 * session's first (the calibration's slope until the baseline is long). */
void rec_clock_resync(rec_thread* t) {
#ifdef REC_HAVE_TSC
    uint64_t tsc;
    int64_t mono;
    double ns_per_tick;
    read_point(&tsc, &mono);
    ns_per_tick = tsc > clock_state.tsc0 + clock_state.resync_ticks
                      ? (double)(mono - clock_state.mono0) / (double)(tsc - clock_state.tsc0)
                      : clock_state.ns_per_tick0;
    /* the line, evaluated at this point once, and its slope in fixed
     * point, so a call costs an integer multiply of the few ticks since
     * (exact to 2^-32 ns a tick) */
    t->base_tsc = tsc;
    t->base_ns =
        clock_state.mono0 + (int64_t)((double)(int64_t)(tsc - clock_state.tsc0) * ns_per_tick);
    t->tick_mult = (uint64_t)(ns_per_tick * 4294967296.0);
    t->next_sync = tsc + clock_state.resync_ticks;
#else
    (void)t;
#endif
}
