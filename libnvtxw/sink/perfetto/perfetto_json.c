/*
 * sink/perfetto/perfetto_json.c - a JSON-text field's value as nested debug
 * annotations (perfetto_put_json in perfetto_internal.h), walked by yajl
 * through common/json_value.h.
 *
 * Each value goes into an annotation that is already open: the field's own
 * (the root), a dict entry opened at its key (dict_entries 11, name 10), or
 * an array element opened here (array_values 12). Marks of the containers
 * and entries still open are kept on a stack as deep as the walk lets a
 * value nest (JSON_VALUE_MAX_DEPTH; deeper text is not JSON to it).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/json_value.h"
#include "sink/perfetto/perfetto_internal.h"
#include "sink/perfetto/perfetto_pb.h"

typedef struct json_frame {
    int is_array;
    size_t own;   /* mark of the annotation holding this container, SIZE_MAX: the root */
    size_t entry; /* a dict's entry opened at its key, not yet given its value */
} json_frame;

typedef struct json_walk {
    strbuf* out;
    size_t depth, values;
    int out_of_memory;
    json_frame frames[JSON_VALUE_MAX_DEPTH];
} json_walk;

/* The annotation a new value goes into: opened here for an array element,
 * the pending entry for a dict, none (SIZE_MAX) for the root. */
static int slot(json_walk* w, size_t* mark) {
    json_frame* f;
    w->values++;
    *mark = SIZE_MAX;
    if (w->depth == 0)
        return w->values == 1 ? 0 : -1;
    f = &w->frames[w->depth - 1];
    if (f->is_array) {
        *mark = pb_open(w->out, 12);
        return *mark == SIZE_MAX ? (w->out_of_memory = 1, -1) : 0;
    }
    *mark = f->entry;
    f->entry = SIZE_MAX;
    return *mark == SIZE_MAX ? -1 : 0;
}

static int done(json_walk* w, int status, size_t mark) {
    if (status == 0 && mark != SIZE_MAX)
        status = pb_close(w->out, mark);
    if (status != 0)
        w->out_of_memory = 1;
    return status;
}

static int on_null(void* ctx) {
    json_walk* w = ctx;
    size_t mark;
    return slot(w, &mark) != 0 ? -1 : done(w, pb_cstring(w->out, 9, "null"), mark);
}

static int on_bool(void* ctx, int value) {
    json_walk* w = ctx;
    size_t mark;
    return slot(w, &mark) != 0 ? -1 : done(w, pb_varint(w->out, 2, value != 0), mark);
}

/* Integers as int_value (uint_value above INT64_MAX), other numbers as
 * double_value, the JSON sink's numbers read back the same way. */
static int put_number(strbuf* out, const char* digits);

static int on_number(void* ctx, const char* text, size_t length) {
    json_walk* w = ctx;
    char small[64], *digits = small;
    size_t mark;
    int status;
    if (slot(w, &mark) != 0)
        return -1;
    if (length >= sizeof small && (digits = nvtxw_malloc(length + 1)) == NULL)
        return done(w, -1, mark);
    memcpy(digits, text, length);
    digits[length] = '\0';
    status = put_number(w->out, digits);
    if (digits != small)
        nvtxw_free(digits);
    return done(w, status, mark);
}

static int put_number(strbuf* out, const char* digits) {
    errno = 0;
    if (strpbrk(digits, ".eE") == NULL) {
        long long i = strtoll(digits, NULL, 10);
        if (errno == 0)
            return pb_varint(out, 4, (uint64_t)i);
        errno = 0;
        if (digits[0] != '-') {
            unsigned long long u = strtoull(digits, NULL, 10);
            if (errno == 0)
                return pb_varint(out, 3, u);
        }
    }
    return pb_double(out, 5, strtod(digits, NULL));
}

static int on_string(void* ctx, const char* text, size_t length) {
    json_walk* w = ctx;
    size_t mark;
    return slot(w, &mark) != 0 ? -1 : done(w, pb_string(w->out, 6, text, length), mark);
}

static int on_key(void* ctx, const char* text, size_t length) {
    json_walk* w = ctx;
    json_frame* f = &w->frames[w->depth - 1];
    f->entry = pb_open(w->out, 11);
    if (f->entry == SIZE_MAX || pb_string(w->out, 10, text, length) != 0) {
        w->out_of_memory = 1;
        return -1;
    }
    return 0;
}

static int on_open(void* ctx, int is_array) {
    json_walk* w = ctx;
    size_t mark;
    if (slot(w, &mark) != 0) /* the walk keeps depth <= JSON_VALUE_MAX_DEPTH */
        return -1;
    w->frames[w->depth].is_array = is_array;
    w->frames[w->depth].own = mark;
    w->frames[w->depth].entry = SIZE_MAX;
    w->depth++;
    return 0;
}

static int on_close(void* ctx, int is_array) {
    json_walk* w = ctx;
    (void)is_array;
    w->depth--;
    return done(w, 0, w->frames[w->depth].own);
}

static const json_value_ops ops = {on_null, on_bool, on_number, on_string,
                                   on_key,  on_open, on_close};

int perfetto_put_json(strbuf* args, const char* text, size_t length) {
    json_walk w; /* frames: 3 KiB of stack, no allocation per value */
    size_t start = args->length;
    int status;
    w.out = args;
    w.depth = w.values = 0;
    w.out_of_memory = 0;
    status = json_value_walk(text, length, &ops, &w) == 0 && w.values > 0 ? 0 : 1;
    if (w.out_of_memory)
        status = -1;
    if (status != 0)
        args->length = start; /* nothing of a refused text stays */
    return status;
}
