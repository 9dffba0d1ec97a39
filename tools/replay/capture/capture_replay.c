/*
 * tools/replay/capture/capture_replay.c - nvtxw-replay's capture input
 * (replay_input.h, docs/capture-format.md): the header sniffer and the
 * document loop. A capture is a stream of YAML documents (JSON Lines: one
 * per line); each document is a line mapping, or a list of them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "capture_reader.h"

/* Skips blanks, comments, "---" and the openers "- " / "{" / a quote. */
static size_t skip_opening(const char* head, size_t length) {
    size_t i = 0;
    if (length >= 3 && (unsigned char)head[0] == 0xEF && (unsigned char)head[1] == 0xBB &&
        (unsigned char)head[2] == 0xBF)
        i = 3;
    for (;;) {
        while (i < length && strchr(" \t\r\n", head[i]) != NULL)
            i++;
        if (i < length && head[i] == '#') {
            while (i < length && head[i] != '\n')
                i++;
        } else if (i + 3 <= length && memcmp(head + i, "---", 3) == 0)
            i += 3;
        else if (i < length &&
                 (head[i] == '-' || head[i] == '{' || head[i] == '"' || head[i] == '\''))
            i++;
        else
            return i;
    }
}

int capture_sniff(const char* head, size_t length) {
    static const char key[] = "nvtxw_capture";
    size_t i = skip_opening(head, length), k = sizeof key - 1;
    if (i + k >= length || memcmp(head + i, key, k) != 0)
        return 0;
    i += k;
    if (head[i] == '"' || head[i] == '\'')
        i++;
    while (i < length && (head[i] == ' ' || head[i] == '\t'))
        i++;
    return i < length && head[i] == ':';
}

/* One document: a line mapping, a list of them, or nothing (blank). */
static int document(capture_reader* r) {
    if (capture_next(r) != 0)
        return -1;
    if (r->event.type == YAML_MAPPING_START_EVENT)
        return capture_line(r);
    if (r->event.type == YAML_SCALAR_EVENT && capture_is_plain(r) &&
        r->event.data.scalar.length == 0)
        return 0;
    if (r->event.type != YAML_SEQUENCE_START_EVENT)
        return CAPTURE_FAIL(r, "expected a mapping (one line) or a list of them");
    for (;;) {
        if (capture_next(r) != 0)
            return -1;
        if (r->event.type == YAML_SEQUENCE_END_EVENT)
            return 0;
        if (r->event.type != YAML_MAPPING_START_EVENT)
            return CAPTURE_FAIL(r, "expected a mapping (one line)");
        if (capture_line(r) != 0)
            return -1;
    }
}

static int documents(capture_reader* r) {
    if (capture_next(r) != 0) /* STREAM_START */
        return -1;
    for (;;) {
        if (capture_next(r) != 0)
            return -1;
        if (r->event.type == YAML_STREAM_END_EVENT)
            return capture_finish(r);
        if (document(r) != 0 || capture_next(r) != 0) /* ... DOCUMENT_END */
            return -1;
    }
}

int capture_replay(const replay_input_ctx* ctx, const char* path) {
    capture_reader r;
    int status;
    if (capture_reader_open(&r, ctx, path) != 0)
        return 1;
    status = documents(&r);
    if (status != 0 && r.session != NULL)
        ctx->iface->SessionEnd(r.session); /* the caller removes the output */
    capture_session_free(&r);
    capture_reader_close(&r);
    return status != 0 ? 1 : 0;
}
