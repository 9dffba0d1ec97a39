/*
 * reader/reader_access.c - nvtxw_reader_next (registrations, then stream
 * records via reader_merge.c) and the read-only accessors: streams,
 * domains, registries, strings, damage, and the event visitor.
 */
#include "config.h"

#include <string.h>

#include "common/compiler.h"
#include "common/error_internal.h"
#include "reader/reader_internal.h"

static void note_emitted(nvtxw_reader_t* reader, const nvtxw_record_t* rec) {
    if (rec->kind == NVTXW_RECORD_DOMAIN)
        reader->emit_domains++;
    else if (rec->kind == NVTXW_RECORD_STRING)
        reader->emit_strings[rec->domain]++;
    else if (rec->kind == NVTXW_RECORD_STREAM_OPEN)
        reader->emit_streams++;
}

/* Loads registration chunk reg_pos for the emitting pass. */
static nvtxwResultCode_t load_registrations(nvtxw_reader_t* reader) {
    size_t size;
    nvtxwResultCode_t status = reader_load_chunk(reader, reader->reg_chunks[reader->reg_pos],
                                                 &reader->reg_buffer, &reader->reg_capacity, &size);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    reader->reg_cur.p = reader->reg_buffer;
    reader->reg_cur.end = reader->reg_buffer + size;
    reader->reg_cur.problem = NULL;
    reader->reg_loaded = 1;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t next_registration(nvtxw_reader_t* reader, const nvtxw_record_t** out) {
    char detail[NVTXW_ERROR_MAX];
    while (reader->reg_pos < reader->reg_chunk_count) {
        int r;
        if (reader->reg_record >= reader->reg_ok[reader->reg_pos]) {
            if (reader->reg_lossy[reader->reg_pos]) /* as the opening pass counted */
                reader->reg_losses[1]++;
            reader->reg_pos++;
            reader->reg_record = 0;
            reader->reg_loaded = 0;
            continue;
        }
        if (!reader->reg_loaded) {
            nvtxwResultCode_t status = load_registrations(reader);
            if (status != NVTXW_RESULT_SUCCESS)
                return status;
        }
        reader_arena_reset(&reader->reg_arena);
        r = reader_decode_registration(reader, &reader->reg_cur, &reader->record,
                                       &reader->reg_arena, 0, detail, sizeof detail);
        if (r == -2)
            return error_oom("a registration record");
        if (r < 0)
            return error_set(NVTXW_RESULT_FAILED,
                             "cannot read report \"%s\": registration chunk changed while open",
                             reader->path);
        reader->reg_record++;
        if (r == 1) {
            note_emitted(reader, &reader->record);
            *out = &reader->record;
            return NVTXW_RESULT_SUCCESS;
        }
    }
    return NVTXW_RESULT_SUCCESS;
}

/* nvtxw_reader_next but for the next record of a run: out of line, so that
 * the run's hand-out saves no registers. */
static NVTXW_NOINLINE nvtxwResultCode_t reader_next_record(nvtxw_reader_t* reader,
                                                           const nvtxw_record_t** out) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (out != NULL)
        *out = NULL;
    if (reader == NULL || out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot read report record: reader=%p, "
                         "out=%p",
                         (void*)reader, (void*)out);
    if (reader->phase == READER_PHASE_REGISTRATIONS) {
        status = next_registration(reader, out);
        if (status != NVTXW_RESULT_SUCCESS || *out != NULL)
            goto end;
        reader_arena_reset(&reader->reg_arena);
        status = reader_streams_start(reader);
        if (status != NVTXW_RESULT_SUCCESS)
            goto end;
    }
    if (reader->phase == READER_PHASE_STREAMS)
        status = reader_streams_next(reader, out);
end:
    if (*out != NULL)
        reader->returned++;
    return status;
}

nvtxwResultCode_t nvtxw_reader_next(nvtxw_reader_t* reader, const nvtxw_record_t** out) {
    reader_stream_cursor* cur;
    if (reader != NULL && out != NULL &&
        (reader->order != NVTXW_READER_ORDER_TIME || reader->single) &&
        (cur = reader->pending) != NULL && reader_run_continues(cur)) {
        /* in stream order, the next record of a run decoded ahead */
        reader_run_advance(cur);
        *out = &cur->head;
        reader->returned++;
        return NVTXW_RESULT_SUCCESS;
    }
    return reader_next_record(reader, out);
}

size_t nvtxw_reader_stream_count(const nvtxw_reader_t* reader) {
    return reader ? reader->stream_count : 0;
}

size_t nvtxw_reader_domain_count(const nvtxw_reader_t* reader) {
    return reader ? reader->domain_count : 0;
}

const char* nvtxw_reader_stream_name(const nvtxw_reader_t* reader, uint64_t stream) {
    return reader != NULL && stream < reader->stream_count ? reader->streams[stream].name : NULL;
}

const char* nvtxw_reader_domain_name(const nvtxw_reader_t* reader, uint64_t domain) {
    return reader != NULL && domain < reader->domain_count ? reader->domains[domain].name : NULL;
}

uint64_t nvtxw_reader_record_total(const nvtxw_reader_t* reader) {
    uint64_t total = 0;
    size_t i, n = reader != NULL ? container_reader_chunk_count(reader->container) : 0;
    for (i = 0; i < n; i++)
        total += container_reader_chunk_info(reader->container, i)->meta.record_count;
    return total;
}

int nvtxw_reader_time_range(const nvtxw_reader_t* reader, int64_t* first, int64_t* last) {
    size_t i, n = reader != NULL ? container_reader_chunk_count(reader->container) : 0;
    int64_t lo = 0, hi = 0;
    int found = 0;
    for (i = 0; i < n; i++) {
        const container_chunk_meta* meta = &container_reader_chunk_info(reader->container, i)->meta;
        /* 0 and 0 is what a chunk of untimed records declares */
        if (meta->kind != READER_KIND_EVENTS || meta->record_count == 0 ||
            (meta->first_ts == 0 && meta->last_ts == 0))
            continue;
        if (!found || meta->first_ts < lo)
            lo = meta->first_ts;
        if (!found || meta->last_ts > hi)
            hi = meta->last_ts;
        found = 1;
    }
    if (found && first != NULL)
        *first = lo;
    if (found && last != NULL)
        *last = hi;
    return found;
}

uint64_t nvtxw_reader_record_count(const nvtxw_reader_t* reader) {
    return reader ? reader->returned : 0;
}

const nvtxw_schema_registry_t* nvtxw_reader_registry(const nvtxw_reader_t* reader,
                                                     uint64_t domain) {
    if (reader == NULL || domain >= reader->domain_count)
        return NULL;
    return reader->domains[domain].registry;
}

/* The text of string handle `handle` of domain `d`, or NULL. */
static inline const char* domain_string(const reader_domain* d, uint64_t handle) {
    uint64_t index = handle & UINT32_MAX;
    return index != 0 && index <= d->string_count ? d->strings[index - 1] : NULL;
}

const char* nvtxw_reader_string(const nvtxw_reader_t* reader, uint64_t domain, uint64_t handle) {
    if (reader == NULL || domain >= reader->domain_count)
        return NULL;
    return domain_string(&reader->domains[domain], handle);
}

size_t nvtxw_reader_damage_count(const nvtxw_reader_t* reader) {
    return reader ? reader->damage_count : 0;
}

nvtxwResultCode_t nvtxw_reader_damage(const nvtxw_reader_t* reader, size_t i, uint64_t* offset,
                                      uint64_t* length, const char** reason) {
    if (reader == NULL || i >= reader->damage_count)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot get report damage: index %zu of %zu", i,
                         reader ? reader->damage_count : (size_t)0);
    if (offset != NULL)
        *offset = reader->damage[i].offset;
    if (length != NULL)
        *length = reader->damage[i].length;
    if (reason != NULL)
        *reason = reader->damage[i].reason;
    return NVTXW_RESULT_SUCCESS;
}

/* The visitor's resolve_string: ctx is the event's reader_domain. */
static const char* resolve(void* ctx, uint64_t handle) { return domain_string(ctx, handle); }

nvtxwResultCode_t nvtxw_reader_visit_event(const nvtxw_reader_t* reader,
                                           const nvtxw_record_t* record,
                                           const nvtxw_visitor_t* visitor, void* ctx) {
    nvtxw_visit_options_t options;
    if (reader == NULL || record == NULL || record->kind != NVTXW_RECORD_EVENT ||
        record->domain >= reader->domain_count)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot visit report event: reader=%p, record=%p, kind=%d",
                         (const void*)reader, (const void*)record, record ? (int)record->kind : -1);
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.resolve_string = resolve;
    options.resolve_ctx = (void*)&reader->domains[record->domain];
    options.payload_origins = record->u.event.origins;
    return nvtxw_payload_visit(reader->domains[record->domain].registry, record->u.event.payloads,
                               record->u.event.count, visitor, ctx, &options);
}
