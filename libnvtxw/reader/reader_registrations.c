/*
 * reader/reader_registrations.c - the records of registration chunks
 * (docs/report-records.md, "Registration chunks"):
 *
 *   record      := kind:u8 body
 *   0x01 session     str name, str config, u8 pointerSize, u8 longSize,
 *                    u8 wcharSize, u8 longDoubleSize, u8 byteOrder
 *   0x02 domain      str name
 *   0x03 category    uvar domain, uvar category, str name
 *   0x04 string      uvar domain, str text
 *   0x05 resource    uvar domain, svar identifierType, uvar identifier,
 *                    svar messageType, str message, uvar stringIndex+1
 *   0x06 scope       uvar domain, uvar id, uvar parent, str path
 *   0x07 schema      uvar domain, uvar fieldMask, str name, uvar type,
 *                    uvar flags, uvar staticSize, uvar packAlign,
 *                    uvar schemaId, uvar n, n x entry
 *        entry       uvar flags, uvar type, str name, str description,
 *                    uvar detail, uvar offset, semantics
 *   0x08 enum        uvar domain, uvar fieldMask, str name, uvar size,
 *                    uvar schemaId, uvar n, n x (str name, uvar value, u8 isFlag)
 *   0x09 counter     uvar domain, uvar id, uvar schemaId, str name,
 *                    str description, uvar scopeId, semantics
 *   0x0A time domain uvar domain, uvar id, uvar scopeId, uvar typeId,
 *                    uvar timerFlags, svar resolution, uvar timerStart
 *   0x0B stream open uvar domain, str name, uvar scopeId, uvar timeDomainId,
 *                    svar interleaving, svar type, svar skid, svar skidAmount
 *   0x0C stream close uvar stream
 *   0x7F extension   uvar subkind, bytes body: subkind 1 = index marker
 *                    (uvar kind, uvar domain, uvar index); others skipped
 *   semantics   := uvar n, n x (uvar id, uvar version, body by id:
 *                  1 scope: uvar; 2 time: uvar; 5 counters: uvar flags,
 *                  str unit, uvar num, uvar den, svar limitType, uvar min,
 *                  uvar max)
 *
 * Every count is bounded by the bytes left (an item takes at least one byte
 * per field), so hostile counts cannot allocate more than the chunk holds.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "nvtxw/nvtx_types.h"
#include "payload/registry_restore.h"
#include "reader/reader_internal.h"

/* Drops the record being decoded (reader_decode_registration returns 0 for
 * it and, in the opening pass, counts it in `*count` once it has decoded
 * whole: a record that turns out malformed is counted as that alone). */
static int drop_record(nvtxw_reader_t* reader, uint64_t* count) {
    reader->reg_drop = count;
    return 0;
}

/* Whether records may name what damage took: a registration chunk was lost
 * before, or a range of unknown content that may have held one. */
static int after_loss(const nvtxw_reader_t* reader, int apply) {
    return reader->reg_losses[apply ? 0 : 1] > 0 || reader->reg_lost_unknown;
}

/* A record naming a domain, string or stream beyond those this pass has
 * counted so far, or a placeholder: after damage it names what the damage
 * took (or what was dropped after it), and is dropped and counted; before
 * any damage it is malformed (`problem`). */
static int orphan(nvtxw_reader_t* reader, reader_cursor* c, int apply, const char* problem) {
    if (!after_loss(reader, apply))
        return reader_fail(c, problem);
    return drop_record(reader, &reader->reg_orphans);
}

/* Whether domain `domain` is one this pass has counted and not a
 * placeholder of a lost one. Both passes bound it by the domains counted so
 * far (the opening pass's count is the emitting pass's numbers handed out),
 * so both drop the same records. */
static int domain_known(const nvtxw_reader_t* reader, uint64_t domain, int apply) {
    uint64_t count = apply ? reader->domain_count : reader->emit_domains;
    return domain < count && !reader->domains[domain].lost;
}

/* The domain a record names. Callers check reg_drop before using it. */
static int get_domain(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec, int apply) {
    if (reader_get_uvar(c, &rec->domain) != 0)
        return -1;
    return domain_known(reader, rec->domain, apply)
               ? 0
               : orphan(reader, c, apply, "domain index out of range");
}

/* Whether a numbered record whose numbering was last known at loss count
 * `anchor` has a known number in this pass; if not, the record is dropped
 * (see reg_losses in reader_internal.h) and 0 returned. */
static int numbered(nvtxw_reader_t* reader, int apply, uint32_t anchor) {
    if (anchor == reader->reg_losses[apply ? 0 : 1])
        return 1;
    drop_record(reader, &reader->reg_dropped);
    return 0;
}

static int get_int(reader_cursor* c, int64_t min, int64_t max, int64_t* out) {
    if (reader_get_svar(c, out) != 0)
        return -1;
    return (*out >= min && *out <= max) ? 0 : reader_fail(c, "value out of range");
}

/* One known semantic extension, built in the arena. */
static int get_semantic(reader_cursor* c, reader_arena* a, nvtxSemanticsHeader_t** out) {
    uint64_t id, version, v[5];
    int64_t limit_type;
    if (reader_get_bounded(c, UINT16_MAX, "semantic ID out of range", &id) != 0 ||
        reader_get_bounded(c, UINT16_MAX, "semantic version out of range", &version) != 0)
        return -1;
    if (id == NVTX_SEMANTIC_ID_SCOPE_V1 || id == NVTX_SEMANTIC_ID_TIME_V1) {
        nvtxSemanticsScope_t* s = reader_arena_alloc(a, sizeof *s); /* same layout as time */
        if (s == NULL)
            return reader_fail(c, "out of memory");
        memset(s, 0, sizeof *s);
        s->header.structSize = sizeof *s;
        *out = &s->header;
        if (reader_get_uvar(c, &s->scopeId) != 0)
            return -1;
    } else if (id == NVTX_SEMANTIC_ID_COUNTERS_V1) {
        nvtxSemanticsCounter_t* s = reader_arena_alloc(a, sizeof *s);
        if (s == NULL)
            return reader_fail(c, "out of memory");
        memset(s, 0, sizeof *s);
        s->header.structSize = sizeof *s;
        *out = &s->header;
        if (reader_get_uvar(c, &v[0]) || reader_get_str(c, a, &s->unit) ||
            reader_get_uvar(c, &v[1]) || reader_get_uvar(c, &v[2]) ||
            reader_get_svar(c, &limit_type) || reader_get_uvar(c, &v[3]) ||
            reader_get_uvar(c, &v[4]))
            return -1;
        s->flags = v[0];
        s->unitScaleNumerator = v[1];
        s->unitScaleDenominator = v[2];
        s->limitType = limit_type;
        s->min.u64 = v[3];
        s->max.u64 = v[4];
    } else if (id == NVTXW_SEMANTIC_ID_JSON_TEXT) {
        *out = reader_arena_alloc(a, sizeof **out);
        if (*out == NULL)
            return reader_fail(c, "out of memory");
        memset(*out, 0, sizeof **out);
        (*out)->structSize = sizeof **out;
    } else {
        return reader_fail(c, "unknown semantic extension");
    }
    (*out)->semanticId = (uint16_t)id;
    (*out)->version = (uint16_t)version;
    return 0;
}

static int get_semantics(reader_cursor* c, reader_arena* a, const nvtxSemanticsHeader_t** out) {
    uint64_t n, k;
    const nvtxSemanticsHeader_t** tail = out;
    *out = NULL;
    if (reader_get_bounded(c, reader_left(c) / 3, "semantics count exceeds the chunk", &n) != 0)
        return -1;
    for (k = 0; k < n; k++) {
        nvtxSemanticsHeader_t* item = NULL;
        if (get_semantic(c, a, &item) != 0)
            return -1;
        item->next = NULL;
        *tail = item;
        tail = &item->next;
    }
    return 0;
}

/* "" stored for NULL: entry names and descriptions come back as NULL. */
static const char* null_if_empty(const char* s) { return s[0] == '\0' ? NULL : s; }

static int get_entry(reader_cursor* c, reader_arena* a, nvtxPayloadSchemaEntry_t* e) {
    const char *name, *description;
    memset(e, 0, sizeof *e);
    if (reader_get_uvar(c, &e->flags) || reader_get_uvar(c, &e->type) ||
        reader_get_str(c, a, &name) || reader_get_str(c, a, &description) ||
        reader_get_uvar(c, &e->arrayOrUnionDetail) || reader_get_uvar(c, &e->offset) ||
        get_semantics(c, a, &e->semantics))
        return -1;
    e->name = null_if_empty(name);
    e->description = null_if_empty(description);
    return 0;
}

static int get_sizes(reader_cursor* c, size_t* a, size_t* b) {
    uint64_t x, y;
    if (reader_get_bounded(c, SIZE_MAX, "size out of range", &x) ||
        reader_get_bounded(c, SIZE_MAX, "size out of range", &y))
        return -1;
    *a = (size_t)x;
    *b = (size_t)y;
    return 0;
}

/* Schema attributes; entries are in the arena. */
static int get_schema(reader_cursor* c, reader_arena* a, nvtxPayloadSchemaAttr_t* attr) {
    nvtxPayloadSchemaEntry_t* entries;
    const char* name;
    uint64_t n, k;
    memset(attr, 0, sizeof *attr);
    if (reader_get_uvar(c, &attr->fieldMask) || reader_get_str(c, a, &name) ||
        reader_get_uvar(c, &attr->type) || reader_get_uvar(c, &attr->flags) ||
        get_sizes(c, &attr->payloadStaticSize, &attr->packAlign) ||
        reader_get_uvar(c, &attr->schemaId) ||
        reader_get_bounded(c, reader_left(c) / 7, "entry count exceeds the chunk", &n))
        return -1;
    entries = reader_arena_alloc(a, (size_t)n * sizeof *entries);
    if (entries == NULL)
        return reader_fail(c, "out of memory");
    for (k = 0; k < n; k++)
        if (get_entry(c, a, &entries[k]) != 0)
            return -1;
    attr->name = (attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) ? name : NULL;
    attr->entries = entries;
    attr->numEntries = (size_t)n;
    return 0;
}

static int get_enum(reader_cursor* c, reader_arena* a, nvtxPayloadEnumAttr_t* attr) {
    nvtxPayloadEnum_t* entries;
    const char* name;
    uint64_t n, k;
    memset(attr, 0, sizeof *attr);
    if (reader_get_uvar(c, &attr->fieldMask) || reader_get_str(c, a, &name) ||
        reader_get_bounded(c, SIZE_MAX, "size out of range", &k) ||
        reader_get_uvar(c, &attr->schemaId) ||
        reader_get_bounded(c, reader_left(c) / 3, "entry count exceeds the chunk", &n))
        return -1;
    attr->sizeOfEnum = (size_t)k;
    entries = reader_arena_alloc(a, (size_t)n * sizeof *entries);
    if (entries == NULL)
        return reader_fail(c, "out of memory");
    for (k = 0; k < n; k++) {
        uint8_t flag;
        if (reader_get_str(c, a, &entries[k].name) || reader_get_uvar(c, &entries[k].value) ||
            reader_get_u8(c, &flag))
            return -1;
        entries[k].isFlag = (int8_t)flag;
    }
    attr->name = (attr->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) ? name : NULL;
    attr->entries = entries;
    attr->numEntries = (size_t)n;
    return 0;
}

/* Applies a schema or enum to the domain's registry (first pass) or looks
 * the registered one up (emitting pass). */
static int schema_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                         reader_arena* a, int apply, char* detail, size_t detail_size) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxw_schema_registry_t* registry;
    if (get_domain(reader, c, rec, apply) || get_schema(c, a, &attr))
        return -1;
    if (reader->reg_drop)
        return 0;
    registry = reader->domains[rec->domain].registry;
    if (apply && registry_restore_schema(registry, &attr, attr.schemaId) != NVTXW_RESULT_SUCCESS) {
        snprintf(detail, detail_size, "%s", nvtxw_last_error());
        return reader_fail(c, "schema not accepted");
    }
    rec->u.schema.schema = nvtxw_schema_registry_find_schema(registry, attr.schemaId);
    return rec->u.schema.schema ? 0 : reader_fail(c, "schema not registered");
}

static int enum_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                       reader_arena* a, int apply, char* detail, size_t detail_size) {
    nvtxPayloadEnumAttr_t attr;
    nvtxw_schema_registry_t* registry;
    if (get_domain(reader, c, rec, apply) || get_enum(c, a, &attr))
        return -1;
    if (reader->reg_drop)
        return 0;
    registry = reader->domains[rec->domain].registry;
    if (apply && registry_restore_enum(registry, &attr, attr.schemaId) != NVTXW_RESULT_SUCCESS) {
        snprintf(detail, detail_size, "%s", nvtxw_last_error());
        return reader_fail(c, "enum not accepted");
    }
    rec->u.enumeration.enumeration = nvtxw_schema_registry_find_enum(registry, attr.schemaId);
    return rec->u.enumeration.enumeration ? 0 : reader_fail(c, "enum not registered");
}

static int session_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                          reader_arena* a, int apply) {
    const char *name, *config;
    unsigned k;
    if (reader_get_str(c, a, &name) || reader_get_str(c, a, &config))
        return -1;
    for (k = 0; k < 5; k++)
        if (reader_get_u8(c, &reader->abi[k]) != 0)
            return -1;
    if (apply) {
        if (reader->has_session)
            return reader_fail(c, "second session record");
        reader->session_name = nvtxw_strdup(name);
        reader->session_config = nvtxw_strdup(config);
        if (reader->session_name == NULL || reader->session_config == NULL)
            return reader_fail(c, "out of memory");
        reader->has_session = 1;
    }
    rec->u.session.name = reader->session_name;
    rec->u.session.config = reader->session_config;
    rec->u.session.pointer_size = reader->abi[0];
    rec->u.session.long_size = reader->abi[1];
    rec->u.session.wchar_size = reader->abi[2];
    rec->u.session.long_double_size = reader->abi[3];
    rec->u.session.byte_order = reader->abi[4];
    return 0;
}

static int add_domain(nvtxw_reader_t* reader, reader_cursor* c, const char* name, uint32_t serial) {
    reader_domain* d;
    if (reader->domain_count == reader->domain_capacity) {
        size_t capacity = reader->domain_capacity ? reader->domain_capacity * 2 : 4;
        reader_domain* grown = nvtxw_reallocarray(reader->domains, capacity, sizeof *grown);
        if (grown == NULL)
            return reader_fail(c, "out of memory");
        reader->domains = grown;
        reader->domain_capacity = capacity;
    }
    d = &reader->domains[reader->domain_count];
    memset(d, 0, sizeof *d);
    d->serial = serial;
    /* numbered from 0 from here on; the emitting pass sets its own anchor
     * when it reaches the domain's record */
    d->string_anchor[0] = reader->reg_losses[0];
    d->string_anchor[1] = UINT32_MAX;
    d->name = nvtxw_strdup(name);
    d->registry = nvtxw_schema_registry_create();
    if (d->name == NULL || d->registry == NULL) {
        nvtxw_free(d->name);
        nvtxw_schema_registry_destroy(d->registry);
        return reader_fail(c, "out of memory");
    }
    reader->domain_count++;
    return 0;
}

static int domain_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                         reader_arena* a, int apply) {
    const char* name;
    uint64_t serial = 0;
    if (reader_get_str(c, a, &name) != 0 ||
        (reader->major >= 2 &&
         reader_get_bounded(c, UINT32_MAX, "domain handle serial exceeds 32 bits", &serial) != 0))
        return -1;
    if (!numbered(reader, apply, reader->domain_anchor[apply ? 0 : 1]))
        return 0;
    if (apply && add_domain(reader, c, name, (uint32_t)serial) != 0)
        return -1;
    if (!apply && reader->emit_domains < reader->domain_count)
        reader->domains[reader->emit_domains].string_anchor[1] = reader->reg_losses[1];
    rec->domain = reader->emit_domains;
    rec->u.domain.name = name;
    return 0;
}

/* Appends `text` (owned; NULL for a string of a lost chunk). */
static int add_string(reader_cursor* c, reader_domain* d, char* text) {
    if (d->string_count == d->string_capacity) {
        size_t capacity = d->string_capacity ? d->string_capacity * 2 : 16;
        char** grown = nvtxw_reallocarray(d->strings, capacity, sizeof *grown);
        if (grown == NULL)
            return reader_fail(c, "out of memory");
        d->strings = grown;
        d->string_capacity = capacity;
    }
    if (d->string_count >= UINT32_MAX - 1)
        return reader_fail(c, "too many strings");
    d->strings[d->string_count++] = text;
    return 0;
}

static int string_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                         reader_arena* a, int apply) {
    reader_domain* d;
    const char* text;
    if (get_domain(reader, c, rec, apply) || reader_get_str(c, a, &text))
        return -1;
    if (reader->reg_drop)
        return 0;
    d = &reader->domains[rec->domain];
    if (!numbered(reader, apply, d->string_anchor[apply ? 0 : 1]))
        return 0;
    if (apply) {
        char* copy = nvtxw_strdup(text);
        if (copy == NULL)
            return reader_fail(c, "out of memory");
        if (add_string(c, d, copy) != 0) {
            nvtxw_free(copy);
            return -1;
        }
        return 0;
    }
    rec->u.string.index = reader->emit_strings[rec->domain];
    rec->u.string.text = text;
    return 0;
}

/* A resource naming a string (index + 1; 0 for none) beyond those of its
 * domain counted so far, or a placeholder of a lost one, names what a loss
 * took. */
static int resource_string(nvtxw_reader_t* reader, reader_cursor* c, const nvtxw_record_t* rec,
                           int apply) {
    const reader_domain* d = &reader->domains[rec->domain];
    uint64_t index = rec->u.resource.message_string;
    uint64_t count = apply ? d->string_count : reader->emit_strings[rec->domain];
    if (index == 0 || (index <= count && d->strings[index - 1] != NULL))
        return 0;
    return orphan(reader, c, apply, "resource names an unknown string");
}

static int resource_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                           reader_arena* a, int apply) {
    int64_t id_type, msg_type;
    if (get_domain(reader, c, rec, apply) || get_int(c, INT32_MIN, INT32_MAX, &id_type) ||
        reader_get_uvar(c, &rec->u.resource.identifier) ||
        get_int(c, INT32_MIN, INT32_MAX, &msg_type) ||
        reader_get_str(c, a, &rec->u.resource.message) ||
        reader_get_uvar(c, &rec->u.resource.message_string))
        return -1;
    rec->u.resource.identifier_type = (int32_t)id_type;
    rec->u.resource.message_type = (int32_t)msg_type;
    return reader->reg_drop ? 0 : resource_string(reader, c, rec, apply);
}

static int counter_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                          reader_arena* a, int apply) {
    nvtxCounterAttr_t* attr = &rec->u.counter.attr;
    memset(attr, 0, sizeof *attr);
    attr->structSize = sizeof *attr;
    return (get_domain(reader, c, rec, apply) || reader_get_uvar(c, &attr->counterId) ||
            reader_get_uvar(c, &attr->schemaId) || reader_get_str(c, a, &attr->name) ||
            reader_get_str(c, a, &attr->description) || reader_get_uvar(c, &attr->scopeId) ||
            get_semantics(c, a, &attr->semantics))
               ? -1
               : 0;
}

static int time_domain_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                              int apply) {
    nvtxTimeDomainAttr_t* attr = &rec->u.time_domain.attr;
    return (get_domain(reader, c, rec, apply) || reader_get_uvar(c, &attr->timeDomainId) ||
            reader_get_uvar(c, &attr->scopeId) || reader_get_uvar(c, &attr->timestampTypeId) ||
            reader_get_uvar(c, &attr->timerFlags) || reader_get_svar(c, &attr->timerResolution) ||
            reader_get_uvar(c, &attr->timerStart))
               ? -1
               : 0;
}

static int add_stream(nvtxw_reader_t* reader, reader_cursor* c, uint64_t domain, const char* name) {
    reader_stream_info* s;
    if (reader->stream_count == reader->stream_capacity) {
        size_t capacity = reader->stream_capacity ? reader->stream_capacity * 2 : 8;
        reader_stream_info* grown = nvtxw_reallocarray(reader->streams, capacity, sizeof *grown);
        if (grown == NULL)
            return reader_fail(c, "out of memory");
        reader->streams = grown;
        reader->stream_capacity = capacity;
    }
    s = &reader->streams[reader->stream_count];
    memset(s, 0, sizeof *s);
    s->domain = domain;
    s->name = nvtxw_strdup(name);
    if (s->name == NULL)
        return reader_fail(c, "out of memory");
    reader->stream_count++;
    return 0;
}

/* A stream open whose domain was lost still takes its number when the
 * numbering is known (index markers): a placeholder like those of lost
 * chunks, so later streams keep theirs. */
static int orphan_stream(nvtxw_reader_t* reader, reader_cursor* c, int apply) {
    if (reader->stream_anchor[apply ? 0 : 1] != reader->reg_losses[apply ? 0 : 1])
        return 0; /* no known number either: nothing to keep */
    if (!apply) {
        reader->emit_streams++;
        return 0;
    }
    if (add_stream(reader, c, NVTXW_READER_NONE, "") != 0)
        return -1;
    reader->streams[reader->stream_count - 1].lost = 1;
    return 0;
}

static int stream_open_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                              reader_arena* a, int apply) {
    int64_t v[4];
    if (get_domain(reader, c, rec, apply) || reader_get_str(c, a, &rec->u.stream_open.name) ||
        reader_get_uvar(c, &rec->u.stream_open.scope_id) ||
        reader_get_uvar(c, &rec->u.stream_open.time_domain_id) ||
        get_int(c, INT16_MIN, INT16_MAX, &v[0]) || get_int(c, INT16_MIN, INT16_MAX, &v[1]) ||
        get_int(c, INT32_MIN, INT32_MAX, &v[2]) || reader_get_svar(c, &v[3]))
        return -1;
    rec->u.stream_open.order_interleaving = (int16_t)v[0];
    rec->u.stream_open.ordering_type = (int16_t)v[1];
    rec->u.stream_open.ordering_skid = (int32_t)v[2];
    rec->u.stream_open.ordering_skid_amount = v[3];
    if (reader->reg_drop) /* its domain was lost: its number is kept by a placeholder */
        return orphan_stream(reader, c, apply);
    if (!numbered(reader, apply, reader->stream_anchor[apply ? 0 : 1]))
        return 0;
    rec->stream = reader->emit_streams;
    return apply ? add_stream(reader, c, rec->domain, rec->u.stream_open.name) : 0;
}

/* The close of a stream this pass has not counted yet, or of a placeholder,
 * is that of a stream whose open was lost or dropped. */
static int stream_close_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                               int apply) {
    uint64_t count = apply ? reader->stream_count : reader->emit_streams;
    if (reader_get_uvar(c, &rec->stream) != 0)
        return -1;
    if (rec->stream >= count || reader->streams[rec->stream].lost)
        return orphan(reader, c, apply, "stream index out of range");
    rec->domain = reader->streams[rec->stream].domain;
    return 0;
}

static int category_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                           reader_arena* a, int apply) {
    uint64_t id;
    if (get_domain(reader, c, rec, apply) ||
        reader_get_bounded(c, UINT32_MAX, "category out of range", &id) ||
        reader_get_str(c, a, &rec->u.category.name))
        return -1;
    rec->u.category.id = (uint32_t)id;
    return 0;
}

static int scope_record(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                        reader_arena* a, int apply) {
    return (get_domain(reader, c, rec, apply) || reader_get_uvar(c, &rec->u.scope.id) ||
            reader_get_uvar(c, &rec->u.scope.parent) || reader_get_str(c, a, &rec->u.scope.path))
               ? -1
               : 0;
}

/* Skips a 0x7F extension record: uvar subkind, bytes body. */
#define READER_MAX_LOST_STRINGS (UINT64_C(1) << 22)
#define READER_MAX_LOST_OTHERS (UINT64_C(1) << 16)

/* Placeholders for the records of kind `kind` that a lost chunk held,
 * until the count reaches `index` (first pass). */
static int fill_gap(nvtxw_reader_t* reader, reader_cursor* c, uint64_t kind, uint64_t domain,
                    uint64_t index) {
    uint64_t count = kind == NVTXW_RECORD_DOMAIN        ? reader->domain_count
                     : kind == NVTXW_RECORD_STREAM_OPEN ? reader->stream_count
                                                        : reader->domains[domain].string_count;
    if (index < count)
        return reader_fail(c, "index marker goes back");
    if (index - count > reader->reg_lost_records && !reader->reg_lost_unknown)
        return reader_fail(c, "index marker skips more records than damaged chunks held");
    /* A hostile chunk count must not cost unbounded memory: a 16 KiB chunk
     * holds a few thousand records, far below these. */
    {
        uint64_t* filled =
            kind == NVTXW_RECORD_STRING ? &reader->lost_strings : &reader->lost_others;
        uint64_t cap =
            kind == NVTXW_RECORD_STRING ? READER_MAX_LOST_STRINGS : READER_MAX_LOST_OTHERS;
        if (index - count > cap - *filled)
            return reader_fail(c, "index marker skips more records than a reader fills in");
        *filled += index - count;
    }
    if (kind == NVTXW_RECORD_DOMAIN)
        reader->domain_anchor[0] = reader->reg_losses[0];
    else if (kind == NVTXW_RECORD_STREAM_OPEN)
        reader->stream_anchor[0] = reader->reg_losses[0];
    else
        reader->domains[domain].string_anchor[0] = reader->reg_losses[0];
    for (; count < index; count++) {
        int status;
        if (kind == NVTXW_RECORD_DOMAIN) {
            status = add_domain(reader, c, "", 0);
            if (status == 0) /* a lost domain: records naming it are orphans */
                reader->domains[reader->domain_count - 1].lost = 1;
        } else if (kind == NVTXW_RECORD_STREAM_OPEN) {
            status = add_stream(reader, c, NVTXW_READER_NONE, "");
            if (status == 0)
                reader->streams[reader->stream_count - 1].lost = 1;
        } else {
            status = add_string(c, &reader->domains[domain], NULL);
        }
        if (status != 0)
            return -1;
    }
    return 0;
}

/* Second pass: the numbers handed out jump over the placeholders. */
static int skip_gap(nvtxw_reader_t* reader, reader_cursor* c, uint64_t kind, uint64_t domain,
                    uint64_t index) {
    uint64_t* count = kind == NVTXW_RECORD_DOMAIN        ? &reader->emit_domains
                      : kind == NVTXW_RECORD_STREAM_OPEN ? &reader->emit_streams
                                                         : &reader->emit_strings[domain];
    if (index < *count)
        return reader_fail(c, "index marker goes back");
    *count = index;
    if (kind == NVTXW_RECORD_DOMAIN)
        reader->domain_anchor[1] = reader->reg_losses[1];
    else if (kind == NVTXW_RECORD_STREAM_OPEN)
        reader->stream_anchor[1] = reader->reg_losses[1];
    else
        reader->domains[domain].string_anchor[1] = reader->reg_losses[1];
    return 0;
}

/* 0x7F: uvar subkind, bytes body. Subkind 1 is an index marker, body
 * `uvar kind, uvar domain, uvar index`: the next record of `kind` (domain,
 * stream open, or string of `domain`) has number `index`. Markers let one
 * damaged chunk cost only its records: later ones keep their numbers.
 * Other subkinds are skipped. */
static int extension_record(nvtxw_reader_t* reader, reader_cursor* c, int apply) {
    uint64_t subkind, kind, domain, index;
    const uint8_t* body;
    size_t size;
    reader_cursor b;
    if (reader_get_uvar(c, &subkind) || reader_get_bytes(c, &body, &size))
        return -1;
    if (subkind != 1)
        return 0;
    b.p = body;
    b.end = body + size;
    b.problem = NULL;
    if (reader_get_uvar(&b, &kind) || reader_get_uvar(&b, &domain) || reader_get_uvar(&b, &index))
        return reader_fail(c, b.problem);
    if (kind != NVTXW_RECORD_DOMAIN && kind != NVTXW_RECORD_STREAM_OPEN &&
        kind != NVTXW_RECORD_STRING)
        return reader_fail(c, "index marker of an unnumbered record kind");
    if (kind == NVTXW_RECORD_STRING && !domain_known(reader, domain, apply))
        return after_loss(reader, apply) ? 0 /* the strings of a lost domain */
                                         : reader_fail(c, "domain index out of range");
    return apply ? fill_gap(reader, c, kind, domain, index)
                 : skip_gap(reader, c, kind, domain, index);
}

static int decode_body(nvtxw_reader_t* reader, reader_cursor* c, uint8_t kind, nvtxw_record_t* rec,
                       reader_arena* a, int apply, char* detail, size_t detail_size) {
    switch (kind) {
    case NVTXW_RECORD_SESSION:
        return session_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_DOMAIN:
        return domain_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_CATEGORY:
        return category_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_STRING:
        return string_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_RESOURCE:
        return resource_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_SCOPE:
        return scope_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_SCHEMA:
        return schema_record(reader, c, rec, a, apply, detail, detail_size);
    case NVTXW_RECORD_ENUM:
        return enum_record(reader, c, rec, a, apply, detail, detail_size);
    case NVTXW_RECORD_COUNTER:
        return counter_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_TIME_DOMAIN:
        return time_domain_record(reader, c, rec, apply);
    case NVTXW_RECORD_STREAM_OPEN:
        return stream_open_record(reader, c, rec, a, apply);
    case NVTXW_RECORD_STREAM_CLOSE:
        return stream_close_record(reader, c, rec, apply);
    default:
        return reader_fail(c, "unknown record kind");
    }
}

int reader_decode_registration(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                               reader_arena* a, int apply, char* detail, size_t detail_size) {
    uint8_t kind;
    detail[0] = '\0';
    if (reader_get_u8(c, &kind) != 0)
        return -1;
    if (kind == 0x7F)
        return extension_record(reader, c, apply) == 0 ? 0 : -1;
    memset(rec, 0, sizeof *rec);
    rec->struct_size = sizeof *rec;
    rec->kind = (nvtxw_record_kind_t)kind;
    rec->stream = NVTXW_READER_NONE;
    rec->domain = NVTXW_READER_NONE;
    reader->reg_drop = NULL;
    if (decode_body(reader, c, kind, rec, a, apply, detail, detail_size) != 0)
        return (c->problem != NULL && strcmp(c->problem, "out of memory") == 0) ? -2 : -1;
    if (reader->reg_drop == NULL)
        return 1;
    if (apply) {
        (*reader->reg_drop)++;
        reader->reg_lost_records++; /* a later index marker may skip over it */
    }
    return 0;
}
