/*
 * tools/common/tool_progress.c - the progress line (see tool_progress.h).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, fstatat */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tool_progress.h"

#define BAR_WIDTH 20
#define REDRAW_NS (200 * 1000 * 1000)

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t tool_progress_written(const char* prefix) {
    char dir[PATH_MAX];
    const char* slash = strrchr(prefix, '/');
    const char* base = slash != NULL ? slash + 1 : prefix;
    size_t base_length = strlen(base);
    uint64_t bytes = 0;
    struct dirent* entry;
    DIR* d;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (snprintf(dir, sizeof dir, "%.*s", (int)(slash - prefix + 1), prefix) >=
             (int)sizeof dir)
        return 0;
    if ((d = opendir(dir)) == NULL)
        return 0;
    while ((entry = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(entry->d_name, base, base_length) == 0 &&
            fstatat(dirfd(d), entry->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
            bytes += (uint64_t)st.st_size;
    }
    closedir(d);
    return bytes;
}

/* "12.3 M" style: the value with a k/M/G/T suffix, "123" below 1000. */
static void human(char* out, size_t size, double value) {
    static const char* const units[] = {"", "k", "M", "G", "T"};
    int u = 0;
    while (value >= 1000 && u < 4) {
        value /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(out, size, "%.0f", value);
    else
        snprintf(out, size, "%.1f %s", value, units[u]);
}

static void draw(const tool_progress* p) {
    uint64_t done = atomic_load_explicit(p->done, memory_order_relaxed);
    double elapsed = now_seconds() - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    char count[32], speed[32], written[48] = "", eta[32] = "", bar[BAR_WIDTH + 16] = "";
    human(count, sizeof count, (double)done);
    human(speed, sizeof speed, rate);
    if (p->output != NULL) {
        char bytes[32];
        human(bytes, sizeof bytes, (double)tool_progress_written(p->output));
        snprintf(written, sizeof written, "  %s%sB written", bytes,
                 strchr(bytes, ' ') != NULL ? "" : " ");
    }
    if (p->total > 0) {
        double fraction = done < p->total ? (double)done / (double)p->total : 1.0;
        int filled = (int)(fraction * BAR_WIDTH);
        bar[0] = '[';
        for (int i = 0; i < BAR_WIDTH; i++)
            bar[1 + i] = i < filled ? '#' : '.';
        snprintf(bar + 1 + BAR_WIDTH, sizeof bar - 1 - BAR_WIDTH, "] %5.1f%%  ", 100 * fraction);
        if (rate > 0 && done < p->total) {
            unsigned left = (unsigned)((double)(p->total - done) / rate);
            snprintf(eta, sizeof eta, "  ETA %u:%02u", left / 60, left % 60);
        }
    }
    fprintf(stderr, "\r%s: %s %s%s  %s/s%s%s\033[K", p->tool, p->unit, bar, count, speed, written,
            eta);
}

/* Draws at least once, even when the work ends before this thread first
 * runs: a run shown on a terminal always shows its line (a short import on a
 * loaded machine otherwise showed none). */
static void* progress_thread(void* arg) {
    tool_progress* p = arg;
    struct timespec tick = {0, REDRAW_NS};
    for (;;) {
        draw(p);
        if (atomic_load(&p->stop))
            break;
        nanosleep(&tick, NULL);
    }
    fputs("\r\033[K", stderr);
    return NULL;
}

void tool_progress_begin(tool_progress* p, int enabled, const char* tool, const char* unit,
                         const atomic_uint_fast64_t* done, uint64_t total, const char* output) {
    memset(p, 0, sizeof *p);
    p->tool = tool;
    p->unit = unit;
    p->done = done;
    p->total = total;
    p->output = output;
    p->start = now_seconds();
    atomic_init(&p->stop, 0);
    p->running = enabled && pthread_create(&p->thread, NULL, progress_thread, p) == 0;
}

void tool_progress_end(tool_progress* p) {
    if (!p->running)
        return;
    atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
    p->running = 0;
}
