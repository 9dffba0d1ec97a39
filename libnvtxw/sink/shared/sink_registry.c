/*
 * sink/shared/sink_registry.c - the table of sinks a session can choose with Sink=.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

#include "core/sink.h"
#include "sink/shared/sink_registry.h"

static const sink_ops* const all_sinks[] = {
    &sink_report_ops,  &sink_text_ops,   &sink_null_ops,    &sink_stats_ops,    &sink_json_ops,
    &sink_backend_ops, &sink_sqlite_ops, &sink_capture_ops, &sink_perfetto_ops,
};

const sink_ops* sink_find(const char* name) {
    size_t i;
    for (i = 0; i < sizeof all_sinks / sizeof all_sinks[0]; i++) {
        if (strcmp(all_sinks[i]->name, name) == 0)
            return all_sinks[i];
    }
    return NULL;
}

void sink_names(char* buf, size_t size) {
    size_t count = sizeof all_sinks / sizeof all_sinks[0], used = 0, i;
    buf[0] = '\0';
    for (i = 0; i < count && used < size; i++) {
        const char* separator = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        int n = snprintf(buf + used, size - used, "%s%s", separator, all_sinks[i]->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

char* sink_default_output(const char* session_name, const char* extension) {
    const char* base = session_name[0] != '\0' ? session_name : "nvtxw-session";
    size_t length = strlen(base), i;
    char* path = nvtxw_malloc(length + strlen(extension) + 1);
    if (path == NULL)
        return NULL;
    /* The name is a display name: keep it from naming another directory. */
    for (i = 0; i < length; i++)
        path[i] = base[i] == '/' ? '_' : base[i];
    strcpy(path + length, extension);
    return path;
}
