/*
 * tests/unit/visit_recorder.h - a visitor that records the event sequence of
 * nvtxw_payload_visit as a compact string, shared by the payload tests:
 *   B<count> P<index>(<schema>,<size>,<name>) F(<field>) [<n> ] {<id> }
 *   S<signed> U<unsigned> D<double> T"<string>" X<hex> E<v>=<name> H<h>=<text>
 *   N (null) /F /P /B
 */
#ifndef NVTXW_TESTS_VISIT_RECORDER_H
#define NVTXW_TESTS_VISIT_RECORDER_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nvtxw/payload.h"

typedef struct recorder {
    char text[16384];
    size_t used;
    int stop_at; /* stop (return 1) at this event number; 0 = never */
    int events;
} recorder_t;

static int rec_add(void* ctx, const char* format, ...) {
    recorder_t* r = ctx;
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(r->text + r->used, sizeof r->text - r->used, format, args);
    va_end(args);
    if (n > 0)
        r->used += (size_t)n < sizeof r->text - r->used ? (size_t)n : sizeof r->text - r->used - 1;
    r->events++;
    return r->stop_at != 0 && r->events >= r->stop_at;
}

static int rec_begin(void* c, size_t n) { return rec_add(c, "B%zu", n); }
static int rec_pbegin(void* c, size_t i, uint64_t id, size_t size, const char* name) {
    return rec_add(c, " P%zu(%llu,%zu,%s)", i, (unsigned long long)id, size, name);
}
static int rec_pend(void* c, size_t i) {
    (void)i;
    return rec_add(c, " /P");
}
static int rec_fbegin(void* c, const nvtxw_field_info_t* f) {
    return rec_add(c, " F(%s)", f->name);
}
static int rec_fend(void* c, const nvtxw_field_info_t* f) {
    (void)f;
    return rec_add(c, " /F");
}
static int rec_abegin(void* c, uint64_t n) { return rec_add(c, " [%llu", (unsigned long long)n); }
static int rec_aend(void* c) { return rec_add(c, " ]"); }
static int rec_obegin(void* c, uint64_t id) { return rec_add(c, " {%llu", (unsigned long long)id); }
static int rec_oend(void* c) { return rec_add(c, " }"); }
static int rec_signed(void* c, int64_t v) { return rec_add(c, " S%lld", (long long)v); }
static int rec_unsigned(void* c, uint64_t v) { return rec_add(c, " U%llu", (unsigned long long)v); }
static int rec_float(void* c, double v) { return rec_add(c, " D%.17g", v); }
static int rec_string(void* c, const char* s, size_t n) {
    if (s[n] != '\0' || strlen(s) != n)
        return rec_add(c, " T<bad-length>");
    return rec_add(c, " T\"%s\"", s);
}
static int rec_bytes(void* c, const void* data, size_t size) {
    const unsigned char* p = data;
    size_t k;
    int stop = rec_add(c, " X");
    for (k = 0; k < size && k < 64; k++)
        stop |= rec_add(c, "%02x", p[k]);
    return stop;
}
static int rec_enum(void* c, uint64_t v, const char* name) {
    return rec_add(c, " E%llu=%s", (unsigned long long)v, name ? name : "-");
}
static int rec_handle(void* c, uint64_t h, const char* text) {
    return rec_add(c, " H%llu=%s", (unsigned long long)h, text ? text : "-");
}
static int rec_null(void* c) { return rec_add(c, " N"); }
static int rec_end(void* c) { return rec_add(c, " /B"); }

static const nvtxw_visitor_t recorder_visitor = {sizeof(nvtxw_visitor_t),
                                                 rec_begin,
                                                 rec_pbegin,
                                                 rec_pend,
                                                 rec_fbegin,
                                                 rec_fend,
                                                 rec_abegin,
                                                 rec_aend,
                                                 rec_obegin,
                                                 rec_oend,
                                                 rec_signed,
                                                 rec_unsigned,
                                                 rec_float,
                                                 rec_string,
                                                 rec_bytes,
                                                 rec_enum,
                                                 rec_handle,
                                                 rec_null,
                                                 rec_end};

/* Visits and returns the recording (static storage, overwritten per call). */
static const char* record(const nvtxw_schema_registry_t* reg, const nvtxPayloadData_t* p, size_t n,
                          nvtxwResultCode_t* status, const nvtxw_visit_options_t* options) {
    static recorder_t r;
    memset(&r, 0, sizeof r);
    *status = nvtxw_payload_visit(reg, p, n, &recorder_visitor, &r, options);
    return r.text;
}

#endif /* NVTXW_TESTS_VISIT_RECORDER_H */
