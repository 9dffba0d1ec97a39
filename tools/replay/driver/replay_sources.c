/*
 * tools/replay/driver/replay_sources.c - what an input file is, and turning the
 * inputs that are not reports into temporary reports when they take part
 * in a merge or a filtered replay (replay_input.h).
 */
#define _XOPEN_SOURCE 700 /* mkstemp */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_input.h"
#include "replay_sources.h"

/* Enough to hold the report magic and a capture header line. */
#define SNIFF_BYTES 4096

static const unsigned char report_magic[8] = {0x89, 'N', 'V', 'T', 'X', 'W', '\r', '\n'};

/* Whether `path` ends in `suffix`. */
static int ends_with(const char* path, const char* suffix) {
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && strcmp(path + n - m, suffix) == 0;
}

/* What the first bytes say. A report starts with its magic, so text that is
 * only whitespace (or a UTF-8 byte order mark and whitespace) is taken for
 * JSON, whose reader names the problem; an empty file is JSON when its name
 * says so. UTF-16 text is refused here with the way out, not reported as a
 * damaged report. */
replay_input_kind replay_input_sniff(const char* tool, const char* path) {
    unsigned char head[SNIFF_BYTES];
    size_t length, i = 0;
    FILE* file = fopen(path, "rb");
    if (file == NULL) {
        fprintf(stderr, "%s: error: cannot open '%s': %s\n", tool, path, strerror(errno));
        return REPLAY_INPUT_ERROR;
    }
    length = fread(head, 1, sizeof head, file);
    fclose(file);
    if (length >= sizeof report_magic && memcmp(head, report_magic, sizeof report_magic) == 0)
        return REPLAY_INPUT_REPORT;
    if (capture_sniff((const char*)head, length))
        return REPLAY_INPUT_CAPTURE;
    if (length >= 2 &&
        ((head[0] == 0xff && head[1] == 0xfe) || (head[0] == 0xfe && head[1] == 0xff) ||
         (head[1] == 0 && (head[0] == '[' || head[0] == '{')))) {
        fprintf(stderr,
                "%s: error: '%s' is UTF-16 text; a Chrome trace must be UTF-8 "
                "(convert it with iconv -f UTF-16 -t UTF-8)\n",
                tool, path);
        return REPLAY_INPUT_ERROR;
    }
    if (length >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
        i = 3; /* UTF-8 byte order mark */
    while (i < length && head[i] != '\0' && strchr(" \t\r\n", head[i]) != NULL)
        i++; /* (strchr finds the NUL terminator too) */
    if (i < length ? head[i] == '[' || head[i] == '{' : length > 0 || ends_with(path, ".json"))
        return REPLAY_INPUT_CHROME;
    return REPLAY_INPUT_REPORT;
}

int replay_input_run(const replay_input_ctx* ctx, const replay_source* source) {
    switch (source->kind) {
    case REPLAY_INPUT_CAPTURE:
        return capture_replay(ctx, source->name);
    case REPLAY_INPUT_CHROME:
        return chrome_trace_replay(ctx, source->name);
    case REPLAY_INPUT_SYNTHETIC:
        return synthetic_replay(ctx, source->name);
    case REPLAY_INPUT_REPORT:
    case REPLAY_INPUT_ERROR:
        break;
    }
    fprintf(stderr, "%s: error: '%s' is a report, not a producer input\n", ctx->tool, source->name);
    return 1;
}

int replay_input_to_report(const replay_input_ctx* ctx, const replay_source* source, char* path_out,
                           size_t path_size) {
    replay_input_ctx to_report = *ctx;
    char config[4200];
    const char* dir = getenv("TMPDIR");
    int fd, status;
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    if (snprintf(path_out, path_size, "%s/nvtxw-replay-XXXXXX", dir) >= (int)path_size ||
        strpbrk(path_out, "|\r\n") != NULL) {
        fprintf(stderr, "%s: error: TMPDIR '%s' is not usable\n", ctx->tool, dir);
        return 1;
    }
    if ((fd = mkstemp(path_out)) < 0) {
        fprintf(stderr, "%s: error: cannot create a temporary report in %s: %s\n", ctx->tool, dir,
                strerror(errno));
        return 1;
    }
    close(fd);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=in-place", path_out);
    to_report.config = config;
    status = replay_input_run(&to_report, source);
    if (status != 0)
        unlink(path_out);
    return status;
}
