/*
 * tools/replay/capture/capture_regs.c - the registration lines of a capture
 * (docs/capture-format.md, "Lines"): categories, strings, resources,
 * scopes, time domains, schemas and enums (inline or from a file, kept in
 * the domain's mirror registry and registered in the session with their
 * references translated) and counters; and the ID maps every line uses.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_line.h"
#include "capture_reader.h"
#include "nvtxw/error.h"
#include "nvtxw/resource.h"
#include "nvtxw/schema_yaml.h"
#include "tool_alloc.h"

int capture_call_failed(capture_reader* r, yaml_mark_t mark, const char* call,
                        nvtxwResultCode_t status) {
    const char* message = nvtxw_last_error();
    return capture_error(r, mark, "%s failed (result %d)%s%s", call, (int)status,
                         message && *message ? ": " : "", message ? message : "");
}

/* ---- ID translation ---- */

/* Capture ID -> session ID: IDs below the dynamic range are the same in
 * both; dynamic ones must have been registered in this capture. */
int capture_map_id(capture_reader* r, const capture_idmap* map, const line_value* v,
                   const char* what, uint64_t* out) {
    if (v->u < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START) {
        *out = v->u;
        return 0;
    }
    if (capture_idmap_get(map, v->u, out) == 0)
        return 0;
    return capture_error(r, v->mark, "unknown %s %" PRIu64 " (not registered in this domain)", what,
                         v->u);
}

int capture_remember(capture_reader* r, capture_idmap* map, const line_value* id, uint64_t value) {
    if (id->present && id->u >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START &&
        capture_idmap_put(map, id->u, value) != 0)
        return capture_error(r, id->mark, "out of memory");
    return 0;
}

/* ---- registrations ---- */

int capture_reg_category(capture_reader* r, line* l) {
    nvtxwResultCode_t status;
    if (l->value.u > UINT32_MAX)
        return capture_error(r, l->value.mark, "category %" PRIu64 " out of range (32 bits)",
                             l->value.u);
    status = r->ctx->iface->CategoryRegister(l->domain->handle, (uint32_t)l->value.u,
                                             ATTR(l, 0)->text ? ATTR(l, 0)->text : "");
    return status ? capture_call_failed(r, l->start, "CategoryRegister", status) : 0;
}

int capture_reg_string(capture_reader* r, line* l) {
    nvtxStringHandle_t handle = NULL;
    nvtxwResultCode_t status =
        r->ctx->iface->StringRegister(l->domain->handle, l->value.text, &handle);
    if (status != NVTXW_RESULT_SUCCESS)
        return capture_call_failed(r, l->start, "StringRegister", status);
    if ((ATTR(l, 0)->present &&
         capture_idmap_put(&l->domain->strings, ATTR(l, 0)->u, (uint64_t)(uintptr_t)handle) != 0) ||
        capture_names_put(&l->domain->string_texts, l->value.text, handle) != 0)
        return capture_error(r, l->start, "out of memory");
    return 0;
}

int capture_reg_resource(capture_reader* r, line* l) {
    nvtxw_resource_attributes_t attr;
    nvtxwResultCode_t status;
    memset(&attr, 0, sizeof attr);
    attr.version = 3;
    attr.size = NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE;
    if (ATTR(l, 0)->u > UINT32_MAX)
        return capture_error(r, ATTR(l, 0)->mark, "resource type out of range (32 bits)");
    attr.identifierType = (int32_t)(uint32_t)ATTR(l, 0)->u;
    attr.identifier.ullValue = ATTR(l, 1)->u;
    attr.messageType = NVTXW_MESSAGE_TYPE_ASCII;
    attr.message.ascii = l->value.text;
    if (ATTR(l, 2)->present) {
        uint64_t handle;
        if (capture_idmap_get(&l->domain->strings, ATTR(l, 2)->u, &handle) != 0)
            return capture_error(r, ATTR(l, 2)->mark, "unknown string handle %" PRIu64,
                                 ATTR(l, 2)->u);
        attr.messageType = NVTXW_MESSAGE_TYPE_REGISTERED;
        attr.message.registered = (nvtxStringHandle_t)(uintptr_t)handle;
    }
    status = r->ctx->iface->ResourceRegister(l->domain->handle,
                                             (const nvtxResourceAttributes_t*)(const void*)&attr);
    return status ? capture_call_failed(r, l->start, "ResourceRegister", status) : 0;
}

int capture_reg_scope(capture_reader* r, line* l) {
    nvtxScopeAttr_t attr = {sizeof attr, l->value.text, NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE};
    uint64_t id = 0;
    nvtxwResultCode_t status;
    if (ATTR(l, 0)->present &&
        capture_map_id(r, &l->domain->scopes, ATTR(l, 0), "parent scope", &attr.parentScope) != 0)
        return -1;
    if (ATTR(l, 1)->present && ATTR(l, 1)->u < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        attr.scopeId = ATTR(l, 1)->u;
    status = r->ctx->iface->ScopeRegister(l->domain->handle, &attr, &id);
    if (status != NVTXW_RESULT_SUCCESS)
        return capture_call_failed(r, l->start, "ScopeRegister", status);
    return capture_remember(r, &l->domain->scopes, ATTR(l, 1), id);
}

int capture_reg_time_domain(capture_reader* r, line* l) {
    nvtxTimeDomainAttr_t attr;
    uint64_t id = 0;
    nvtxwResultCode_t status;
    memset(&attr, 0, sizeof attr);
    if (ATTR(l, 1)->present &&
        capture_map_id(r, &l->domain->scopes, ATTR(l, 1), "scope", &attr.scopeId) != 0)
        return -1;
    attr.timestampTypeId = ATTR(l, 0)->u;
    attr.timeDomainId = l->value.u < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START ? l->value.u : 0;
    attr.timerResolution = ATTR(l, 2)->i;
    attr.timerStart = ATTR(l, 3)->u;
    attr.timerFlags = ATTR(l, 4)->u;
    status = r->ctx->iface->TimeDomainRegister(l->domain->handle, &attr, &id);
    if (status != NVTXW_RESULT_SUCCESS)
        return capture_call_failed(r, l->start, "TimeDomainRegister", status);
    return capture_remember(r, &l->domain->time_domains, &l->value, id);
}

/* ---- schemas ---- */

/* A copy of a semantics chain with scope and time domain IDs translated
 * (the YAML loader only builds these two and counter semantics). */
static int translate_semantics(capture_reader* r, capture_domain* d, yaml_mark_t mark,
                               const nvtxSemanticsHeader_t* h, nvtxSemanticsHeader_t** out) {
    nvtxSemanticsHeader_t* head = NULL;
    nvtxSemanticsHeader_t** tail = &head;
    for (; h != NULL; h = h->next) {
        nvtxSemanticsHeader_t* copy = nvtxw_malloc(h->structSize);
        uint64_t* id = NULL;
        if (copy == NULL)
            return capture_error(r, mark, "out of memory");
        memcpy(copy, h, h->structSize);
        copy->next = NULL;
        *tail = copy;
        tail = (nvtxSemanticsHeader_t**)&copy->next;
        if (h->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 && h->structSize >= 24)
            id = &((nvtxSemanticsScope_t*)copy)->scopeId;
        if (h->semanticId == NVTX_SEMANTIC_ID_TIME_V1 && h->structSize >= 24)
            id = &((nvtxSemanticsTime_t*)copy)->timeDomainId;
        if (id != NULL && *id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START &&
            capture_idmap_get(h->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 ? &d->scopes
                                                                         : &d->time_domains,
                              *id, id) != 0) {
            *out = head;
            return capture_error(
                r, mark, "unknown %s %" PRIu64 " in a schema entry",
                h->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 ? "scope" : "time domain", *id);
        }
    }
    *out = head;
    return 0;
}

static void semantics_free(const nvtxSemanticsHeader_t* h) {
    while (h != NULL) {
        const nvtxSemanticsHeader_t* next = h->next;
        nvtxw_free((void*)h);
        h = next;
    }
}

static uint64_t mirror_target(const capture_domain* d, uint64_t id) {
    uint64_t target = id;
    if (id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        capture_idmap_get(&d->mirror_to_target, id, &target);
    return target;
}

/* Registers mirror schema `schema` in the session. */
static int register_schema(capture_reader* r, capture_domain* d, yaml_mark_t mark,
                           const nvtxw_schema_t* schema, uint64_t* target) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxPayloadSchemaEntry_t* entries;
    nvtxwResultCode_t status;
    size_t i;
    int failed = 0;
    nvtxw_schema_get_attr(schema, &attr);
    entries = nvtxw_calloc(attr.numEntries ? attr.numEntries : 1, sizeof *entries);
    if (entries == NULL)
        return capture_error(r, mark, "out of memory");
    for (i = 0; i < attr.numEntries; i++) {
        entries[i] = attr.entries[i];
        entries[i].type = mirror_target(d, entries[i].type);
        entries[i].semantics = NULL;
        if (!failed && translate_semantics(r, d, mark, attr.entries[i].semantics,
                                           (nvtxSemanticsHeader_t**)&entries[i].semantics) != 0)
            failed = 1;
    }
    attr.entries = entries;
    if (attr.schemaId >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        attr.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    else
        *target = attr.schemaId;
    status =
        failed ? NVTXW_RESULT_SUCCESS : r->ctx->iface->SchemaRegister(d->handle, &attr, target);
    for (i = 0; i < attr.numEntries; i++)
        semantics_free(entries[i].semantics);
    nvtxw_free(entries);
    if (failed)
        return -1;
    return status ? capture_call_failed(r, mark, "SchemaRegister", status) : 0;
}

static int register_enum(capture_reader* r, capture_domain* d, yaml_mark_t mark,
                         const nvtxw_enum_t* enumeration, uint64_t* target) {
    nvtxPayloadEnumAttr_t attr;
    nvtxwResultCode_t status;
    nvtxw_enum_get_attr(enumeration, &attr);
    if (attr.schemaId >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        attr.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    else
        *target = attr.schemaId;
    status = r->ctx->iface->EnumRegister(d->handle, &attr, target);
    return status ? capture_call_failed(r, mark, "EnumRegister", status) : 0;
}

/* Registers the mirror's items from `first` on in the session. */
static int register_new_items(capture_reader* r, capture_domain* d, yaml_mark_t mark,
                              size_t first) {
    size_t i, count = nvtxw_schema_registry_count(d->mirror);
    for (i = first; i < count; i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        uint64_t mirror_id, target = 0;
        const char* name;
        nvtxw_schema_registry_at(d->mirror, i, &schema, &enumeration);
        if (schema != NULL) {
            mirror_id = nvtxw_schema_id(schema);
            name = nvtxw_schema_name(schema);
            if (register_schema(r, d, mark, schema, &target) != 0)
                return -1;
        } else {
            nvtxPayloadEnumAttr_t attr;
            nvtxw_enum_get_attr(enumeration, &attr);
            mirror_id = nvtxw_enum_id(enumeration);
            name = attr.name ? attr.name : "";
            if (register_enum(r, d, mark, enumeration, &target) != 0)
                return -1;
        }
        if (capture_idmap_put(&d->mirror_to_target, mirror_id, target) != 0 ||
            (name[0] != '\0' &&
             capture_names_put(&d->schema_names, name, (void*)(uintptr_t)mirror_id) != 0))
            return capture_error(r, mark, "out of memory");
    }
    return 0;
}

/* The loader's message; for inline items its position is in the text made
 * from the line, so only the line's position is given. */
static int load_failed(capture_reader* r, yaml_mark_t mark) {
    const char* message = nvtxw_last_error();
    unsigned row, column;
    int skip = 0;
    if (sscanf(message, "inline:%u:%u: %n", &row, &column, &skip) == 2 && skip > 0)
        message += skip;
    else if (sscanf(message, "semantics:%u:%u: %n", &row, &column, &skip) == 2 && skip > 0)
        message += skip;
    return capture_error(r, mark, "%s", message);
}

int capture_reg_inline(capture_reader* r, line* l, const char* kind) {
    size_t first = nvtxw_schema_registry_count(l->domain->mirror);
    size_t length = strlen(l->json) + 32;
    char* doc = nvtxw_malloc(length);
    nvtxwResultCode_t status;
    if (doc == NULL)
        return capture_error(r, l->value.mark, "out of memory");
    snprintf(doc, length, "{items: [{%s: %s}]}", kind, l->json);
    status = nvtxw_schema_yaml_load_string(l->domain->mirror, doc, strlen(doc), "inline");
    nvtxw_free(doc);
    if (status != NVTXW_RESULT_SUCCESS)
        return load_failed(r, l->value.mark);
    if (ATTR(l, 0)->present) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxw_schema_registry_at(l->domain->mirror, first, &schema, &enumeration);
        if (capture_remember(r, &l->domain->schema_ids, ATTR(l, 0),
                             schema ? nvtxw_schema_id(schema) : nvtxw_enum_id(enumeration)) != 0)
            return -1;
    }
    return register_new_items(r, l->domain, l->value.mark, first);
}

/* A "schemas" file: absolute, else next to the capture, else the installed
 * schemas directory, else the source tree's. */
int capture_reg_schemas_file(capture_reader* r, line* l) {
    const char* dirs[] = {r->dir, CAPTURE_SCHEMAS_DIR, CAPTURE_SOURCE_SCHEMAS_DIR};
    char path[4096];
    size_t i, first = nvtxw_schema_registry_count(l->domain->mirror);
    snprintf(path, sizeof path, "%s", l->value.text);
    for (i = 0; l->value.text[0] != '/' && i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dirs[i], l->value.text);
        if (access(path, R_OK) == 0)
            break;
    }
    if (access(path, R_OK) != 0)
        return capture_error(r, l->value.mark,
                             "schema file \"%s\" not found (next to the capture, in %s or %s)",
                             l->value.text, CAPTURE_SCHEMAS_DIR, CAPTURE_SOURCE_SCHEMAS_DIR);
    if (nvtxw_schema_yaml_load_file(l->domain->mirror, path) != NVTXW_RESULT_SUCCESS)
        return load_failed(r, l->value.mark);
    return register_new_items(r, l->domain, l->value.mark, first);
}

/* A schema reference (capture_resolve_schema) held in a line value. */
static int schema_ref(capture_reader* r, capture_domain* d, const line_value* v, uint64_t* out) {
    return capture_resolve_schema(r, d, v->text, v->u, v->mark, out);
}

/* Counter semantics given like the schema YAML's `counter:` entry key: the
 * loader builds them on a scratch entry, from which they are copied. */
static int counter_semantics(capture_reader* r, line* l, nvtxw_schema_registry_t** scratch,
                             const nvtxSemanticsHeader_t** out) {
    const char* json = l->semantics_json;
    size_t length = strlen(json) + 80;
    char* doc = nvtxw_malloc(length);
    const nvtxw_schema_t* schema;
    const nvtxw_enum_t* enumeration;
    nvtxPayloadSchemaAttr_t attr;
    *out = NULL;
    if (doc == NULL || (*scratch = nvtxw_schema_registry_create()) == NULL) {
        nvtxw_free(doc);
        return capture_error(r, ATTR(l, 4)->mark, "out of memory");
    }
    snprintf(doc, length,
             "{items: [{schema: {kind: static, entries: [{type: int8, counter: %s}]}}]}", json);
    if (nvtxw_schema_yaml_load_string(*scratch, doc, strlen(doc), "semantics") != 0) {
        nvtxw_free(doc);
        return load_failed(r, ATTR(l, 4)->mark);
    }
    nvtxw_free(doc);
    nvtxw_schema_registry_at(*scratch, 0, &schema, &enumeration);
    nvtxw_schema_get_attr(schema, &attr);
    *out = attr.entries[0].semantics;
    return 0;
}

/* Bytes of one sample of a predefined type or mirror schema; 0 = unknown. */
static size_t sample_size(const capture_domain* d, uint64_t type) {
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(d->mirror, type);
    if (type < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return nvtxw_entry_type_size(type);
    return schema != NULL ? nvtxw_schema_static_size(schema) : 0;
}

int capture_reg_counter(capture_reader* r, line* l) {
    nvtxCounterAttr_t attr;
    nvtxw_schema_registry_t* scratch = NULL;
    capture_counter* c = nvtxw_calloc(1, sizeof *c);
    capture_domain* d = l->domain;
    nvtxwResultCode_t status;
    int failed = c == NULL && capture_error(r, l->start, "out of memory");
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = l->value.text;
    attr.description = ATTR(l, 3)->text;
    failed = failed || (ATTR(l, 1)->present && schema_ref(r, d, ATTR(l, 1), &c->type) != 0) ||
             (ATTR(l, 2)->present &&
              capture_map_id(r, &d->scopes, ATTR(l, 2), "scope", &attr.scopeId)) ||
             (l->semantics_json && counter_semantics(r, l, &scratch, &attr.semantics) != 0);
    if (!failed) {
        attr.schemaId = mirror_target(d, c->type);
        attr.counterId = ATTR(l, 0)->u < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START ? ATTR(l, 0)->u : 0;
        c->sample_size = sample_size(d, c->type);
        status = r->ctx->iface->CounterRegister(d->handle, &attr, &c->target_id);
        failed = status != NVTXW_RESULT_SUCCESS &&
                 capture_call_failed(r, l->start, "CounterRegister", status);
    }
    nvtxw_schema_registry_destroy(scratch);
    if (!failed && d->counter_count == d->counter_capacity) {
        size_t want = d->counter_capacity ? d->counter_capacity * 2 : 16;
        capture_counter** grown = nvtxw_realloc(d->counters, want * sizeof *grown);
        failed = grown == NULL && capture_error(r, l->start, "out of memory");
        if (grown != NULL)
            d->counters = grown, d->counter_capacity = want;
    }
    if (failed) {
        nvtxw_free(c);
        return -1;
    }
    d->counters[d->counter_count++] = c;
    if ((ATTR(l, 0)->present &&
         capture_idmap_put(&d->counter_ids, ATTR(l, 0)->u, (uint64_t)(uintptr_t)c) != 0) ||
        capture_names_put(&d->counter_names, l->value.text, c) != 0)
        return capture_error(r, l->start, "out of memory");
    return 0;
}
