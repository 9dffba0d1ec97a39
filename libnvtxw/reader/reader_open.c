/*
 * reader/reader_open.c - nvtxw_reader_open/close/next and the accessors.
 *
 * Opening reads the registration log twice in spirit: a first pass over
 * every registration chunk (kind 1, file order) applies each record to the
 * reader's state (domains, strings, schema registries, streams) and notes
 * how many records of each chunk were accepted; nvtxw_reader_next then
 * decodes the chunks again, one at a time, to hand the same records out
 * without keeping them all in memory.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "reader/reader_internal.h"

static int offset_after(const container_reader_t* container, size_t a, size_t b) {
    return container_reader_chunk_info(container, a)->offset >
           container_reader_chunk_info(container, b)->offset;
}

/* Insertion sort by file offset: the list is almost always sorted already. */
static void sort_by_offset(container_reader_t* container, size_t* items, size_t count) {
    size_t i, j;
    for (i = 1; i < count; i++) {
        size_t item = items[i];
        for (j = i; j > 0 && offset_after(container, items[j - 1], item); j--)
            items[j] = items[j - 1];
        items[j] = item;
    }
}

static nvtxwResultCode_t collect_registration_chunks(nvtxw_reader_t* reader) {
    size_t n = container_reader_chunk_count(reader->container);
    size_t i;
    reader->reg_chunks = nvtxw_calloc(n ? n : 1, sizeof *reader->reg_chunks);
    reader->reg_ok = nvtxw_calloc(n ? n : 1, sizeof *reader->reg_ok);
    reader->reg_lossy = nvtxw_calloc(n ? n : 1, sizeof *reader->reg_lossy);
    if (reader->reg_chunks == NULL || reader->reg_ok == NULL || reader->reg_lossy == NULL)
        return error_oom("the registration log");
    for (i = 0; i < n; i++)
        if (container_reader_chunk_info(reader->container, i)->meta.kind ==
            READER_KIND_REGISTRATIONS)
            reader->reg_chunks[reader->reg_chunk_count++] = i;
    sort_by_offset(reader->container, reader->reg_chunks, reader->reg_chunk_count);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t registration_damage(nvtxw_reader_t* reader, size_t chunk, uint64_t number,
                                             const reader_cursor* c, const char* detail) {
    const container_chunk_info* info = container_reader_chunk_info(reader->container, chunk);
    if (reader_add_damage(reader, info->offset, 0,
                          "malformed record %llu in registration chunk: %s%s%s; rest of the chunk "
                          "skipped",
                          (unsigned long long)number, c->problem ? c->problem : "invalid",
                          detail[0] ? ": " : "", detail) != 0)
        return error_oom("the damage list");
    return NVTXW_RESULT_SUCCESS;
}

/* Remembers where the registration log was first damaged (for the
 * messages that report the loss); later damage keeps the first offset. */
static void note_first_damage(nvtxw_reader_t* reader, uint64_t offset) {
    if (!reader->reg_damaged && !reader->reg_lost_unknown)
        reader->reg_loss_offset = offset;
}

/* Chunk k lost `lost` records at its end: later numbered records
 * need an index marker to keep their numbers (reg_losses). */
static void note_registration_loss(nvtxw_reader_t* reader, size_t k, uint64_t lost,
                                   uint64_t offset) {
    note_first_damage(reader, offset);
    reader->reg_damaged = 1;
    reader->reg_lost_records += lost;
    reader->reg_lossy[k] = 1;
    reader->reg_losses[0]++;
}

/* Damage the container found between registration chunks k - 1 and k (a
 * scan of a file without a usable index lists damaged chunks as damage, not
 * as chunks): a registration chunk whose payload is damaged (its header
 * says so) is a loss at the end of chunk k - 1; a range of unknown content
 * may have held registrations too, so index markers may then skip any
 * number of records (still bounded by the placeholders a reader fills in).
 * Such a range is not counted as a loss for reports without markers: it is
 * far more often a piece of the event chunks. */
static void note_damage_before(nvtxw_reader_t* reader, size_t k) {
    uint64_t from =
        container_reader_chunk_info(reader->container, reader->reg_chunks[k - 1])->offset;
    uint64_t to = container_reader_chunk_info(reader->container, reader->reg_chunks[k])->offset;
    size_t n = container_reader_damage_count(reader->container);
    /* both lists are in file order: one pass over the damage for the log */
    for (; reader->reg_damage_seen < n; reader->reg_damage_seen++) {
        const container_damage* d =
            container_reader_damage(reader->container, reader->reg_damage_seen);
        if (d->offset >= to)
            break;
        if (d->offset <= from)
            continue;
        if (d->has_meta && d->meta.kind == READER_KIND_REGISTRATIONS)
            note_registration_loss(reader, k - 1, d->meta.record_count, d->offset);
        else if (!d->has_meta) {
            note_first_damage(reader, d->offset);
            reader->reg_lost_unknown = 1;
        }
    }
}

/* First pass over one registration chunk. */
static nvtxwResultCode_t apply_chunk(nvtxw_reader_t* reader, size_t k) {
    size_t chunk = reader->reg_chunks[k];
    char detail[NVTXW_ERROR_MAX];
    reader_cursor c;
    size_t size;
    uint64_t records = 0; /* decoded whole, extension records left out */
    nvtxwResultCode_t status =
        reader_load_chunk(reader, chunk, &reader->reg_buffer, &reader->reg_capacity, &size);
    if (status != NVTXW_RESULT_SUCCESS) {
        const container_chunk_info* info = container_reader_chunk_info(reader->container, chunk);
        note_registration_loss(reader, k, info->meta.record_count, info->offset);
        return reader_add_damage(reader, info->offset, 0, "registration chunk: %s",
                                 nvtxw_last_error()) == 0
                   ? NVTXW_RESULT_SUCCESS
                   : error_oom("the damage list");
    }
    c.p = reader->reg_buffer;
    c.end = reader->reg_buffer + size;
    c.problem = NULL;
    while (c.p < c.end) {
        /* the chunk's record count leaves out extension records (markers) */
        int extension = *c.p == 0x7F;
        int r = reader_decode_registration(reader, &c, &reader->record, &reader->reg_arena, 1,
                                           detail, sizeof detail);
        reader_arena_reset(&reader->reg_arena);
        if (r == -2)
            return error_oom("a registration record");
        if (r == -1) {
            const container_chunk_info* info =
                container_reader_chunk_info(reader->container, chunk);
            note_registration_loss(
                reader, k,
                info->meta.record_count > records ? info->meta.record_count - records : 0,
                info->offset);
            return registration_damage(reader, chunk, records, &c, detail);
        }
        reader->reg_ok[k]++; /* what the emitting pass decodes again */
        records += !extension;
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t check_abi(const nvtxw_reader_t* reader) {
    const uint16_t one = 1;
    uint8_t little = *(const uint8_t*)&one;
    const uint8_t* a = reader->abi;
    if (!reader->has_session && reader->damage_count > 0) /* say where and why */
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open report \"%s\": no readable session record: damage at "
                         "offset %llu: %s",
                         reader->path, (unsigned long long)reader->damage[0].offset,
                         reader->damage[0].reason);
    if (!reader->has_session)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open report \"%s\": no readable session record (the report "
                         "holds none)",
                         reader->path);
    if (a[0] == sizeof(void*) && a[1] == sizeof(long) && a[2] == sizeof(wchar_t) &&
        a[3] == sizeof(long double) && a[4] == little)
        return NVTXW_RESULT_SUCCESS;
    return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                     "cannot open report \"%s\": written on another ABI (pointer %u, long %u, "
                     "wchar_t %u, long double %u bytes, %s-endian); this reader has pointer %zu, "
                     "long %zu, wchar_t %zu, long double %zu bytes, %s-endian",
                     reader->path, a[0], a[1], a[2], a[3], a[4] == 1 ? "little" : "big",
                     sizeof(void*), sizeof(long), sizeof(wchar_t), sizeof(long double),
                     little ? "little" : "big");
}

/* Maps container streams to stream indices; event chunks of streams that no
 * stream-open record declares are damage (their domain is unknown). */
static nvtxwResultCode_t map_streams(nvtxw_reader_t* reader) {
    size_t n = container_reader_stream_count(reader->container);
    size_t j, k;
    for (j = 0; j < n; j++) {
        uint64_t id;
        size_t first, count;
        container_reader_stream(reader->container, j, &id, &first, &count);
        if (id < reader->stream_count && !reader->streams[id].lost) {
            reader->streams[id].first = first;
            reader->streams[id].count = count;
            continue;
        }
        for (k = first; k < first + count; k++) {
            const container_chunk_info* info = container_reader_chunk_info(reader->container, k);
            if (info->meta.kind == READER_KIND_EVENTS &&
                reader_add_damage(
                    reader, info->offset, 0,
                    "%llu records of stream %llu, which no readable stream-open "
                    "record declares%s; chunk skipped",
                    (unsigned long long)info->meta.record_count, (unsigned long long)id,
                    reader->reg_damaged ? " (a registration chunk is damaged)" : "") != 0)
                return error_oom("the damage list");
        }
    }
    reader->cursors = nvtxw_calloc(reader->stream_count + 1, sizeof *reader->cursors);
    reader->tree_size = 1;
    while (reader->tree_size < reader->stream_count && reader->tree_size <= SIZE_MAX / 4)
        reader->tree_size *= 2;
    reader->heap = reader->tree_size >= reader->stream_count
                       ? nvtxw_reallocarray(NULL, 2 * reader->tree_size, sizeof *reader->heap)
                       : NULL;
    reader->emit_strings = nvtxw_calloc(reader->domain_count + 1, sizeof *reader->emit_strings);
    if (reader->cursors == NULL || reader->heap == NULL || reader->emit_strings == NULL)
        return error_oom("the stream table");
    for (j = 0; j < reader->stream_count; j++) {
        uint64_t domain = reader->streams[j].domain;
        reader->cursors[j].stream = j;
        reader->cursors[j].serial =
            domain < reader->domain_count ? reader->domains[domain].serial : 0;
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t copy_container_damage(nvtxw_reader_t* reader) {
    size_t n = container_reader_damage_count(reader->container);
    size_t i;
    for (i = 0; i < n; i++) {
        const container_damage* d = container_reader_damage(reader->container, i);
        if (reader_add_damage(reader, d->offset, d->length, "%s",
                              container_damage_reason_name(d->reason)) != 0)
            return error_oom("the damage list");
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t reader_load(nvtxw_reader_t* reader, unsigned container_flags) {
    nvtxwResultCode_t status;
    size_t k;
    reader->container = container_reader_open(reader->path, container_flags);
    if (reader->container == NULL)
        return NVTXW_RESULT_FAILED;
    reader->major = container_reader_file_info(reader->container)->major;
    status = copy_container_damage(reader);
    if (status == NVTXW_RESULT_SUCCESS)
        status = collect_registration_chunks(reader);
    for (k = 0; k < reader->reg_chunk_count && status == NVTXW_RESULT_SUCCESS; k++) {
        if (k > 0)
            note_damage_before(reader, k);
        status = apply_chunk(reader, k);
    }
    if (status == NVTXW_RESULT_SUCCESS && reader->reg_dropped > 0 &&
        reader_add_damage(reader, reader->reg_loss_offset, 0,
                          "%llu domain, string and stream-open records after this damaged "
                          "registration chunk carry no index marker: their numbers are "
                          "unknown, so they were dropped",
                          (unsigned long long)reader->reg_dropped) != 0)
        status = error_oom("the damage list");
    if (status == NVTXW_RESULT_SUCCESS && reader->reg_orphans > 0 &&
        reader_add_damage(reader, reader->reg_loss_offset, 0,
                          "%llu records after this damage to the registration log name a domain, "
                          "string or stream whose record was lost or dropped: they were dropped",
                          (unsigned long long)reader->reg_orphans) != 0)
        status = error_oom("the damage list");
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_abi(reader);
    if (status == NVTXW_RESULT_SUCCESS)
        status = map_streams(reader);
    return status;
}

nvtxwResultCode_t nvtxw_reader_open(const char* path, const nvtxw_reader_options_t* opts,
                                    nvtxw_reader_t** out) {
    nvtxw_reader_t* reader = NULL;
    nvtxwResultCode_t status;
    uint32_t flags = 0;
    if (out != NULL)
        *out = NULL;
    if (path == NULL || out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot open report: path=%p, out=%p",
                         (const void*)path, (void*)out);
    reader = nvtxw_calloc(1, sizeof *reader);
    if (reader == NULL || (reader->path = nvtxw_strdup(path)) == NULL) {
        status = error_oom("a report reader");
        goto error;
    }
    if (opts != NULL && opts->struct_size >= offsetof(nvtxw_reader_options_t, order) + sizeof(int))
        reader->order = opts->order;
    if (opts != NULL &&
        opts->struct_size >= offsetof(nvtxw_reader_options_t, flags) + sizeof(uint32_t))
        flags = opts->flags;
    reader->flags = flags;
    if (reader->order != NVTXW_READER_ORDER_STREAM && reader->order != NVTXW_READER_ORDER_TIME) {
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot open report \"%s\": order=%d",
                           path, reader->order);
        goto error;
    }
    status = reader_load(reader, (flags & NVTXW_READER_SCAN) ? CONTAINER_OPEN_SCAN : 0);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    *out = reader;
    return NVTXW_RESULT_SUCCESS;
error:
    nvtxw_reader_close(reader);
    return status;
}

void nvtxw_reader_close(nvtxw_reader_t* reader) {
    size_t i, k;
    if (reader == NULL)
        return;
    for (i = 0; i < reader->domain_count; i++) {
        for (k = 0; k < reader->domains[i].string_count; k++)
            nvtxw_free(reader->domains[i].strings[k]);
        nvtxw_free(reader->domains[i].strings);
        nvtxw_free(reader->domains[i].name);
        reader_plans_free(&reader->domains[i]);
        nvtxw_schema_registry_destroy(reader->domains[i].registry);
    }
    for (i = 0; i < reader->stream_count; i++) {
        nvtxw_free(reader->streams[i].name);
        if (reader->cursors != NULL)
            reader_cursor_free(&reader->cursors[i]);
    }
    for (i = 0; i < reader->damage_count; i++)
        nvtxw_free(reader->damage[i].reason);
    reader_arena_reset(&reader->reg_arena);
    container_reader_close(reader->container);
    nvtxw_free(reader->damage);
    nvtxw_free(reader->cursors);
    nvtxw_free(reader->heap);
    nvtxw_free(reader->emit_strings);
    nvtxw_free(reader->reg_buffer);
    nvtxw_free(reader->reg_chunks);
    nvtxw_free(reader->reg_ok);
    nvtxw_free(reader->reg_lossy);
    nvtxw_free(reader->domains);
    nvtxw_free(reader->streams);
    nvtxw_free(reader->session_name);
    nvtxw_free(reader->session_config);
    nvtxw_free(reader->path);
    nvtxw_free(reader);
}
