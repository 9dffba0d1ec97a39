/*
 * tools/replay/chrome/chrome_in_main.c - chrome_trace_replay (replay_input.h):
 * a Trace Event Format file into one NVTXW session, in two streamed passes
 * (chrome_in.h): metadata first, then the events.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "chrome_in.h"

static int on_event(void* user, const cj_doc* doc, uint64_t index, uint64_t offset) {
    chrome_import* im = user;
    im->event_index = index;
    im->event_offset = offset;
    return chrome_map_event(im, doc);
}

static int on_member(void* user, const char* key, const cj_doc* doc) {
    (void)user;
    (void)key;
    (void)doc;
    return 0; /* otherData was read by the first pass; displayTimeUnit is a
                 display preference and never changes the units of ts */
}

/* One line on stderr: what was read, and what was left out or warned. */
static void summary(const chrome_import* im, const chrome_read_result* r) {
    fprintf(stderr,
            "%s: %s: %llu trace events -> %llu events, %llu counter samples, %llu flows bound, "
            "%zu threads in %zu processes",
            im->ctx->tool, im->path, (unsigned long long)r->events, (unsigned long long)im->written,
            (unsigned long long)im->counter_samples, (unsigned long long)im->bound_flows,
            im->thread_count, im->process_count);
    if (im->task_rows != 0)
        fprintf(stderr, "; %llu task rows back into task scopes (%llu copied events left out)",
                (unsigned long long)im->task_rows, (unsigned long long)im->task_copies);
    if (im->unmatched_end != 0)
        fprintf(stderr, "; %llu unmatched E skipped", (unsigned long long)im->unmatched_end);
    if (im->unmatched_async != 0)
        fprintf(stderr, "; %llu unmatched async ends skipped",
                (unsigned long long)im->unmatched_async);
    if (im->unknown_phase != 0)
        fprintf(stderr, "; %llu events of unknown phases (%s) ignored",
                (unsigned long long)im->unknown_phase, im->unknown_phases);
    if (im->category_lost != 0)
        fprintf(stderr, "; %llu events kept no category (more than 65535 distinct \"cat\" values)",
                (unsigned long long)im->category_lost);
    if (r->ignored_keys != 0)
        fprintf(stderr, "; %llu top-level keys ignored (%s)", (unsigned long long)r->ignored_keys,
                r->ignored_names);
    fputc('\n', stderr);
    if (r->truncated)
        fprintf(stderr,
                "%s: warning: %s: the event array is not closed (a truncated trace); the %llu "
                "complete events were read\n",
                im->ctx->tool, im->path, (unsigned long long)r->events);
}

int chrome_trace_replay(const replay_input_ctx* ctx, const char* path) {
    static const char* const wanted[] = {"otherData", "displayTimeUnit", NULL};
    chrome_reader_cb cb = {on_event, on_member, wanted, NULL, NULL, 0};
    chrome_read_result result;
    chrome_import im;
    int status;
    memset(&im, 0, sizeof im);
    im.ctx = ctx;
    im.path = path;
    status = chrome_meta_pass(&im);
    if (status == 0)
        status = chrome_register(&im);
    if (im.scanned_bounded)
        cb.bounded = &im.scanned;
    if (status == 0)
        status = chrome_read_pipelined(ctx->tool, path, &cb, &im, &result);
    if (status == 0)
        status = chrome_map_finish(&im);
    if (im.session != NULL) {
        nvtxwResultCode_t rc = ctx->iface->SessionEnd(im.session);
        if (rc != NVTXW_RESULT_SUCCESS && status == 0)
            status = chrome_api_error(&im, "SessionEnd", rc);
    }
    if (status == 0)
        summary(&im, &result);
    chrome_import_free(&im);
    return status;
}
