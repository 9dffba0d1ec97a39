/*
 * sink/sqlite/sqlite_regs.c - the sqlite sink's registrations and stream
 * lifecycle: one row per call (schemas and enums also one row per entry),
 * inserted at once. These calls are serialized by the caller but may run
 * while other streams flush batches, so each takes the connection lock.
 * IDs are stored as SQLite INTEGERs holding the uint64 bit pattern.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/format.h"
#include "nvtxw/schema_yaml.h"
#include "sink/sqlite/sqlite_internal.h"

#define SS(s) ((sqlite_sink*)(s))
#define STMT(ss, which) ((ss)->stmts[which])

/* Steps a statement bound by the caller, under the lock. */
static nvtxwResultCode_t locked_step(sqlite_sink* ss, int which, const char* what) {
    nvtxwResultCode_t status;
    pthread_mutex_lock(&ss->lock);
    status = sqlite_db_step(ss, which, what);
    pthread_mutex_unlock(&ss->lock);
    return status;
}

static int bind_cstr(sqlite3_stmt* stmt, int column, const char* text) {
    return sqlite_bind_text(stmt, column, text, text ? strlen(text) : 0);
}

/* Binds (domain_id, id) to columns 1 and 2. */
static sqlite3_stmt* bind_key(sqlite_sink* ss, int which, const core_domain* domain, uint64_t id) {
    sqlite3_stmt* stmt = STMT(ss, which);
    sqlite3_bind_int64(stmt, 1, domain->index);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)id);
    return stmt;
}

nvtxwResultCode_t sqlite_domain_register(sink* s, const core_domain* domain) {
    sqlite_sink* ss = SS(s);
    if (ss->domain_count == ss->domain_capacity) {
        size_t capacity = ss->domain_capacity ? ss->domain_capacity * 2 : 8;
        const core_domain** domains = nvtxw_reallocarray(ss->domains, capacity, sizeof *domains);
        if (domains == NULL)
            return error_oom("the sqlite sink's domains");
        ss->domains = domains;
        ss->domain_capacity = capacity;
    }
    ss->domains[ss->domain_count++] = domain;
    sqlite3_bind_int64(STMT(ss, SQ_DOMAIN), 1, domain->index);
    bind_cstr(STMT(ss, SQ_DOMAIN), 2, domain->name);
    return locked_step(ss, SQ_DOMAIN, "insert a domain");
}

nvtxwResultCode_t sqlite_category_register(sink* s, const core_domain* domain, uint32_t category,
                                           const char* name) {
    bind_cstr(bind_key(SS(s), SQ_CATEGORY, domain, category), 3, name);
    return locked_step(SS(s), SQ_CATEGORY, "insert a category");
}

nvtxwResultCode_t sqlite_string_register(sink* s, const core_domain* domain, uint64_t handle,
                                         const char* text) {
    sqlite3_stmt* stmt = STMT(SS(s), SQ_STRING);
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)handle);
    sqlite3_bind_int64(stmt, 2, domain->index);
    bind_cstr(stmt, 3, text);
    return locked_step(SS(s), SQ_STRING, "insert a string");
}

nvtxwResultCode_t sqlite_resource_register(sink* s, const core_domain* domain,
                                           const core_resource* resource) {
    sqlite3_stmt* stmt = STMT(SS(s), SQ_RESOURCE);
    sqlite3_bind_int64(stmt, 1, domain->index);
    sqlite3_bind_int(stmt, 2, resource->identifier_type);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)resource->identifier);
    bind_cstr(stmt, 4, resource->message);
    sqlite_bind_u64(stmt, 5, resource->message_handle, resource->message_handle != 0);
    return locked_step(SS(s), SQ_RESOURCE, "insert a resource");
}

nvtxwResultCode_t sqlite_scope_register(sink* s, const core_domain* domain, uint64_t scope_id,
                                        uint64_t parent, const char* path) {
    sqlite3_stmt* stmt = bind_key(SS(s), SQ_SCOPE, domain, scope_id);
    sqlite_bind_u64(stmt, 3, parent, parent != NVTX_SCOPE_NONE);
    bind_cstr(stmt, 4, path);
    return locked_step(SS(s), SQ_SCOPE, "insert a scope");
}

/* One schema_entries row (caller holds the lock). */
static nvtxwResultCode_t insert_entry(sqlite_sink* ss, const core_domain* domain, uint64_t id,
                                      size_t index, const nvtxPayloadSchemaEntry_t* entry) {
    sqlite3_stmt* stmt = bind_key(ss, SQ_SCHEMA_ENTRY, domain, id);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)index);
    bind_cstr(stmt, 4, entry->name);
    bind_cstr(stmt, 5, entry->description);
    sqlite3_bind_int64(stmt, 6, (sqlite3_int64)entry->type);
    bind_cstr(stmt, 7, nvtxw_entry_type_name(entry->type));
    sqlite3_bind_int64(stmt, 8, (sqlite3_int64)entry->flags);
    sqlite3_bind_int64(stmt, 9, (sqlite3_int64)entry->offset);
    sqlite3_bind_int64(stmt, 10, (sqlite3_int64)entry->arrayOrUnionDetail);
    return sqlite_db_step(ss, SQ_SCHEMA_ENTRY, "insert a schema entry");
}

nvtxwResultCode_t sqlite_schema_register(sink* s, const core_domain* domain,
                                         const nvtxw_schema_t* schema) {
    sqlite_sink* ss = SS(s);
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = nvtxw_schema_id(schema);
    sqlite3_stmt* stmt = bind_key(ss, SQ_SCHEMA, domain, id);
    nvtxwResultCode_t status;
    size_t i;
    nvtxw_schema_get_attr(schema, &attr);
    bind_cstr(stmt, 3, attr.name);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)attr.type);
    sqlite3_bind_int64(stmt, 5, (sqlite3_int64)attr.flags);
    sqlite3_bind_int64(stmt, 6, (sqlite3_int64)NVTXW_PAYLOAD_SCHEMA_ROLE(attr.flags));
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)nvtxw_schema_static_size(schema));
    sqlite3_bind_int64(stmt, 8, (sqlite3_int64)attr.numEntries);
    pthread_mutex_lock(&ss->lock);
    status = sqlite_db_step(ss, SQ_SCHEMA, "insert a schema");
    for (i = 0; i < attr.numEntries && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_entry(ss, domain, id, i, &attr.entries[i]);
    pthread_mutex_unlock(&ss->lock);
    return status;
}

nvtxwResultCode_t sqlite_enum_register(sink* s, const core_domain* domain,
                                       const nvtxw_enum_t* enumeration) {
    sqlite_sink* ss = SS(s);
    nvtxPayloadEnumAttr_t attr;
    uint64_t id = nvtxw_enum_id(enumeration);
    nvtxwResultCode_t status;
    size_t i;
    nvtxw_enum_get_attr(enumeration, &attr);
    bind_cstr(bind_key(ss, SQ_ENUM, domain, id), 3, attr.name);
    sqlite3_bind_int64(STMT(ss, SQ_ENUM), 4, (sqlite3_int64)attr.sizeOfEnum);
    pthread_mutex_lock(&ss->lock);
    status = sqlite_db_step(ss, SQ_ENUM, "insert an enum");
    for (i = 0; i < attr.numEntries && status == NVTXW_RESULT_SUCCESS; i++) {
        sqlite3_stmt* stmt = bind_key(ss, SQ_ENUM_VALUE, domain, id);
        bind_cstr(stmt, 3, attr.entries[i].name);
        sqlite3_bind_int64(stmt, 4, (sqlite3_int64)attr.entries[i].value);
        sqlite3_bind_int(stmt, 5, attr.entries[i].isFlag != 0);
        status = sqlite_db_step(ss, SQ_ENUM_VALUE, "insert an enum value");
    }
    pthread_mutex_unlock(&ss->lock);
    return status;
}

/* Whether another counter of the domain has the name `name` (lock held).
 * 1 taken, 0 free, -1 a database error. */
static int counter_name_used(sqlite_sink* ss, const core_domain* domain, uint64_t id,
                             const char* name) {
    sqlite3_stmt* stmt = bind_key(ss, SQ_COUNTER_NAME_USED, domain, 0);
    int rc;
    bind_cstr(stmt, 2, name);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)id);
    rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Counter names are distinct within a domain: a name another counter has
 * (two inputs of a merge, a producer registering it twice) becomes
 * "NAME #2", "NAME #3"..., the first free one, as stream names do in a
 * merge. The core's counter keeps its name; only the table's row differs. */
nvtxwResultCode_t sqlite_counter_register(sink* s, const core_domain* domain,
                                          const core_counter* counter) {
    sqlite_sink* ss = SS(s);
    strbuf name = {NULL, 0, 0};
    unsigned long n = 1;
    int used = 0;
    nvtxwResultCode_t status;
    sqlite3_stmt* stmt;
    pthread_mutex_lock(&ss->lock);
    if (counter->name != NULL && counter->name[0] != '\0') {
        while ((used = counter_name_used(ss, domain, counter->id,
                                         n == 1 ? counter->name : name.data)) == 1) {
            strbuf_clear(&name);
            if (strbuf_printf(&name, "%s #%lu", counter->name, ++n) != 0) {
                used = -2;
                break;
            }
        }
    }
    if (used < 0) {
        pthread_mutex_unlock(&ss->lock);
        strbuf_free(&name);
        return used == -2 ? error_oom("a counter name")
                          : sqlite_db_error(ss, "look up a counter name");
    }
    stmt = bind_key(ss, SQ_COUNTER, domain, counter->id);
    bind_cstr(stmt, 3, n == 1 ? counter->name : name.data);
    bind_cstr(stmt, 4, counter->description);
    sqlite3_bind_int64(stmt, 5, (sqlite3_int64)counter->schema_id);
    sqlite_bind_u64(stmt, 6, counter->scope_id, counter->scope_id != NVTX_SCOPE_NONE);
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)counter->sample_size);
    status = sqlite_db_step(ss, SQ_COUNTER, "insert a counter");
    pthread_mutex_unlock(&ss->lock);
    strbuf_free(&name);
    return status;
}

nvtxwResultCode_t sqlite_time_domain_register(sink* s, const core_domain* domain,
                                              const nvtxTimeDomainAttr_t* attr) {
    sqlite3_stmt* stmt = bind_key(SS(s), SQ_TIME_DOMAIN, domain, attr->timeDomainId);
    sqlite_bind_u64(stmt, 3, attr->scopeId, attr->scopeId != NVTX_SCOPE_NONE);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)attr->timestampTypeId);
    sqlite3_bind_int64(stmt, 5, (sqlite3_int64)attr->timerFlags);
    sqlite3_bind_int64(stmt, 6, attr->timerResolution);
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)attr->timerStart);
    return locked_step(SS(s), SQ_TIME_DOMAIN, "insert a time domain");
}

nvtxwResultCode_t sqlite_stream_open(sink* s, const core_stream* stream, void** state) {
    sqlite_sink* ss = SS(s);
    sqlite3_stmt* stmt = STMT(ss, SQ_STREAM);
    nvtxwResultCode_t status;
    sqlite_stream* st = nvtxw_calloc(1, sizeof *st);
    if (st == NULL)
        return error_oom("a sqlite stream");
    st->sink = ss;
    st->stream = stream;
    st->rows = sqlite_batch_new();
    if (st->rows == NULL) {
        nvtxw_free(st);
        return error_oom("a sqlite stream");
    }
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)stream->index);
    bind_cstr(stmt, 2, stream->name);
    sqlite3_bind_int64(stmt, 3, stream->domain->index);
    sqlite_bind_u64(stmt, 4, stream->scope_id, stream->scope_id != NVTX_SCOPE_NONE);
    sqlite_bind_u64(stmt, 5, stream->time_domain_id,
                    stream->time_domain_id != NVTX_TIME_DOMAIN_ID_NONE);
    sqlite3_bind_int(stmt, 6, stream->order_interleaving);
    sqlite3_bind_int(stmt, 7, stream->ordering_type);
    sqlite3_bind_int(stmt, 8, stream->ordering_skid);
    sqlite3_bind_int64(stmt, 9, stream->ordering_skid_amount);
    status = locked_step(ss, SQ_STREAM, "insert a stream");
    if (status != NVTXW_RESULT_SUCCESS) {
        sqlite_stream_free(st);
        return status;
    }
    *state = st;
    return status;
}

nvtxwResultCode_t sqlite_stream_close(sink* s, const core_stream* stream, void* state) {
    sqlite_stream* st = state;
    nvtxwResultCode_t status = sqlite_stream_flush(st);
    (void)s, (void)stream;
    sqlite_stream_free(st);
    return status;
}

static int yaml_append(void* ctx, const char* data, size_t size) {
    return strbuf_append(ctx, data, size);
}

nvtxwResultCode_t sqlite_domains_yaml(sqlite_sink* ss) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    strbuf yaml = {NULL, 0, 0};
    size_t i;
    for (i = 0; i < ss->domain_count && status == NVTXW_RESULT_SUCCESS; i++) {
        const core_domain* domain = ss->domains[i];
        if (nvtxw_schema_registry_count(domain->schemas) == 0)
            continue;
        strbuf_clear(&yaml);
        status = nvtxw_schema_yaml_dump(domain->schemas, yaml_append, &yaml);
        if (status != NVTXW_RESULT_SUCCESS)
            break;
        sqlite3_bind_int64(STMT(ss, SQ_DOMAIN_YAML), 1, domain->index);
        sqlite_bind_text(STMT(ss, SQ_DOMAIN_YAML), 2, yaml.data, yaml.length);
        status = sqlite_db_step(ss, SQ_DOMAIN_YAML, "store the schemas as YAML");
    }
    strbuf_free(&yaml);
    return status;
}
