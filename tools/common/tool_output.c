/*
 * tools/common/tool_output.c - output files of the command-line tools.
 *
 * A conversion that fails must leave nothing under the output's final name,
 * whatever the sink. So a tool writing a file hands the sink a temporary
 * name next to it (OUT.tmp-XXXXXX, same directory: rename(2) stays atomic)
 * with Overwrite=in-place, so that the sink writes that file itself and no
 * second temporary name of its own: after a crash (kill -9) there is one
 * file, OUT.tmp-XXXXXX, and a report there reads up to its last complete
 * chunk. The tool renames it into place after success and removes it after
 * failure.
 * Standard output, and an OUT that exists and is not a regular file (a FIFO,
 * /dev/null), are written directly.
 */
#define _GNU_SOURCE /* mkstemp, fchmod, sched_getaffinity, CPU_COUNT */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool_output.h"

void tool_ignore_file_size_signal(void) { signal(SIGXFSZ, SIG_IGN); }

/* The errno of the first write to standard output that failed inside a
 * tool_put_stdout: stdio keeps only the error flag, and a text longer than
 * its buffer fails in the middle of the call, not at the final flush. */
static int stdout_errno;

void tool_put_stdout(const char* text) {
    if (fputs(text, stdout) == EOF && stdout_errno == 0)
        stdout_errno = errno;
}

int tool_finish_stdout(const char* tool, int status) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    if (status == 0) {
        int cause = stdout_errno != 0 ? stdout_errno : errno != 0 ? errno : EIO;
        fprintf(stderr, "%s: error: cannot write standard output: %s\n", tool, strerror(cause));
        status = 1;
    }
    return status;
}

/* Output extensions and the sinks they choose, matched case-insensitively. */
static const struct {
    const char* extension;
    const char* sink;
} output_kinds[] = {{".nvtxw", "report"},     {".json", "json"},
                    {".pftrace", "perfetto"}, {".perfetto-trace", "perfetto"},
                    {".txt", "text"},         {".sqlite", "sqlite"},
                    {".csv", "stats"},        {".jsonl", "capture"}};

const char* const tool_output_extensions =
    ".nvtxw, .json, .pftrace, .perfetto-trace, .txt, .sqlite, .csv or .jsonl";

/* The extension of the last path component ("" when it has none). */
static const char* extension_of(const char* output) {
    const char* base = strrchr(output, '/');
    const char* dot = strrchr(base != NULL ? base + 1 : output, '.');
    return dot != NULL && dot != (base != NULL ? base + 1 : output) ? dot : "";
}

int tool_output_has_extension(const char* output) { return *extension_of(output) != '\0'; }

const char* tool_sink_for_output(const char* output) {
    const char* extension = extension_of(output);
    for (size_t i = 0; i < sizeof output_kinds / sizeof output_kinds[0]; i++)
        if (strcasecmp(extension, output_kinds[i].extension) == 0)
            return output_kinds[i].sink;
    return NULL;
}

int tool_row_count_ok(const char* value) {
    size_t digits = strspn(value, "0123456789");
    return strcmp(value, "all") == 0 ||
           (digits > 0 && value[digits] == '\0' && strspn(value, "0") != digits);
}

int tool_parse_threads(const char* value, unsigned max, unsigned* out) {
    char* end;
    unsigned long v;
    if (strcmp(value, "auto") == 0) {
        cpu_set_t cpus;
        int n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
        *out = n < 1 ? 1 : (unsigned)n > max ? max : (unsigned)n;
        return 0;
    }
    errno = 0;
    v = strtoul(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v == 0 || v > max || value[0] == '-')
        return -1;
    *out = (unsigned)v;
    return 0;
}

int tool_compression_ok(const char* value) {
    char* end;
    long level;
    errno = 0;
    level = strtol(value, &end, 10);
    return errno == 0 && end != value && *end == '\0' && level >= -7 && level <= 22;
}

int tool_sink_needs_file(const char* sink) {
    return !strcmp(sink, "report") || !strcmp(sink, "json") || !strcmp(sink, "perfetto") ||
           !strcmp(sink, "sqlite");
}

int tool_same_file(const char* a, const char* b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

const char* tool_overwrite_setting(int to_file) { return to_file ? "in-place" : "yes"; }

int tool_config_value_ok(const char* value) { return strpbrk(value, "|\r\n") == NULL; }

int tool_output_begin(tool_output* out, const char* tool, const char* path) {
    struct stat st;
    mode_t mask;
    int fd;
    memset(out, 0, sizeof *out);
    out->path = path;
    out->tool = tool;
    if (!strcmp(path, "-") || (stat(path, &st) == 0 ? !S_ISREG(st.st_mode) : errno != ENOENT)) {
        snprintf(out->write_path, sizeof out->write_path, "%s", path);
        return 0;
    }
    if (snprintf(out->write_path, sizeof out->write_path, "%s.tmp-XXXXXX", path) >=
        (int)sizeof out->write_path) {
        fprintf(stderr, "%s: error: output path too long: %s\n", tool, path);
        return -1;
    }
    if ((fd = mkstemp(out->write_path)) < 0) {
        fprintf(stderr, "%s: error: cannot create output \"%s\": %s\n", tool, path,
                strerror(errno));
        return -1;
    }
    mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0644 & ~mask); /* what the sink would have created */
    close(fd);
    out->temporary = 1;
    return 0;
}

int tool_output_end(tool_output* out, int status) {
    if (!out->temporary)
        return status;
    if (status == 0 && rename(out->write_path, out->path) != 0) {
        fprintf(stderr, "%s: error: cannot rename \"%s\" to \"%s\": %s\n", out->tool,
                out->write_path, out->path, strerror(errno));
        status = 1;
    }
    if (status != 0)
        unlink(out->write_path);
    out->temporary = 0;
    return status;
}

void tool_log_warnings_by_default(void) { (void)setenv("NVTXW_LOG_LEVEL", "warning", 0); }
