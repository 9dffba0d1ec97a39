/*
 * tools/otf2-import/slices.c - how a process read in turns is cut into
 * slices, one worker each (worker.c): pure functions of the event counts,
 * so tests/unit/otf2_slices_test.c checks them without an archive.
 */
#include "config.h"

#include "otf2_import.h"

size_t turns_slices(uint64_t events, uint64_t events_total, size_t length, size_t threads,
                    size_t max_open) {
    size_t slices = 1, fewest;
    if (length == 0 || threads == 0 || max_open == 0)
        return 0;
    fewest = (length + max_open - 1) / max_open;
    if (events_total > 0 && events > events_total / threads)
        slices = (size_t)((events * threads + events_total - 1) / events_total);
    slices = slices > threads ? threads : slices > length ? length : slices;
    slices = slices < fewest ? fewest : slices;
    return slices <= threads ? slices : 0;
}

size_t turns_slice_length(uint64_t (*events_at)(const void* ctx, size_t i), const void* ctx,
                          size_t left, size_t slices, size_t max_open) {
    size_t at_least, n = 0;
    uint64_t total = 0, taken = 0;
    if (slices <= 1)
        return left;
    at_least = left > (slices - 1) * max_open ? left - (slices - 1) * max_open : 1;
    for (size_t i = 0; i < left; i++)
        total += events_at(ctx, i);
    while (n < left - (slices - 1) && n < max_open && (n < at_least || taken < total / slices))
        taken += events_at(ctx, n++);
    return n;
}
