/*
 * tools/otf2-import/register.c - everything registered before the events.
 *
 * Registrations depend only on the global definitions, never on which
 * locations this run converts, and use static IDs (otf2_import.h): every
 * part of a --part conversion registers the same things with the same IDs,
 * so nvtxw-replay merges the parts into one set of registrations.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"

#define CHECK(call, ...)                                                                           \
    do {                                                                                           \
        nvtxwResultCode_t rc_ = (call);                                                            \
        if (rc_ != NVTXW_RESULT_SUCCESS) {                                                         \
            char what_[512];                                                                       \
            snprintf(what_, sizeof what_, __VA_ARGS__);                                            \
            import_error("%s: %s", what_, nvtxw_last_error());                                     \
            return rc_;                                                                            \
        }                                                                                          \
    } while (0)

/* Region category: 1 + paradigm * 64 + role (roles above 62 share 62);
 * the paradigm's own category (other events) is role slot 63. */
uint32_t import_category(unsigned paradigm, int role) {
    unsigned slot = role < 0 ? 63u : role > 62 ? 62u : (unsigned)role;
    return 1u + (paradigm & 0xFFu) * 64u + slot;
}

static const char* paradigm_name(const otf2_defs* defs, unsigned paradigm, char* buf, size_t n) {
    named_def* p = def_table_find(&defs->paradigms, paradigm, NULL);
    const char* builtin = defs_paradigm_name(paradigm);
    if (p != NULL && defs_string(defs, p->name)[0] != '\0')
        return defs_string(defs, p->name);
    if (builtin != NULL)
        return builtin;
    snprintf(buf, n, "paradigm %u", paradigm);
    return buf;
}

/* Is `paradigm` worth a category of its own: one OTF2 3.0 knows, or one the
 * archive defines? Others share the "unknown" category. */
static int known_paradigm(const otf2_defs* defs, unsigned paradigm) {
    return defs_paradigm_name(paradigm) != NULL ||
           def_table_find(&defs->paradigms, paradigm, NULL) != NULL;
}

static nvtxwResultCode_t register_paradigm_categories(importer* im) {
    char pbuf[32];
    for (unsigned p = 0; p < 256; p++) {
        uint32_t id = import_category(p, -1);
        const char* name = paradigm_name(&im->defs, p, pbuf, sizeof pbuf);
        im->paradigm_category[p] = import_category(OTF2_PARADIGM_UNKNOWN, -1);
        if (!known_paradigm(&im->defs, p))
            continue;
        CHECK(im->t->CategoryRegister(im->domain, id, name), "cannot register category %s", name);
        im->paradigm_category[p] = id;
    }
    return NVTXW_RESULT_SUCCESS;
}

/* One category per (paradigm, role) of the regions: "MPI/point2point". */
static nvtxwResultCode_t register_categories(importer* im) {
    static unsigned char done[256 * 64];
    char pbuf[32], name[300];
    nvtxwResultCode_t rc = register_paradigm_categories(im);
    memset(done, 0, sizeof done);
    for (size_t i = 0; i < im->defs.regions.count && rc == NVTXW_RESULT_SUCCESS; i++) {
        region_def* r = def_table_at(&im->defs.regions, i);
        const char* role = defs_role_name(r->role);
        const char* paradigm = paradigm_name(&im->defs, r->paradigm, pbuf, sizeof pbuf);
        r->category = import_category(r->paradigm, r->role);
        if (done[r->category - 1])
            continue;
        done[r->category - 1] = 1;
        if (role != NULL)
            snprintf(name, sizeof name, "%s/%s", paradigm, role);
        else
            snprintf(name, sizeof name, "%s/role %u", paradigm, r->role);
        CHECK(im->t->CategoryRegister(im->domain, r->category, name), "cannot register category %s",
              name);
    }
    return rc;
}

static nvtxwResultCode_t register_strings(importer* im) {
    char name[64];
    for (size_t i = 0; i < im->defs.strings.count; i++) {
        string_def* s = def_table_at(&im->defs.strings, i);
        CHECK(im->t->StringRegister(im->domain, s->text, &s->handle),
              "cannot register string %" PRIu64, im->defs.strings.ids[i]);
    }
    for (size_t i = 0; i < im->defs.regions.count; i++) {
        region_def* r = def_table_at(&im->defs.regions, i);
        string_def* s = def_table_find(&im->defs.strings, r->name, NULL);
        if (s == NULL) /* unnamed region */
            CHECK(im->t->StringRegister(im->domain, "", &r->handle), "cannot register a string");
        else
            r->handle = s->handle;
    }
    for (int k = 0; k < NAME_COUNT; k++) {
        snprintf(name, sizeof name, "otf2:%s", event_name(k));
        CHECK(im->t->StringRegister(im->domain, name, &im->names[k]), "cannot register string %s",
              name);
    }
    CHECK(im->t->StringRegister(im->domain, "", &im->empty), "cannot register a string");
    return NVTXW_RESULT_SUCCESS;
}

/* Every enum and schema of the embedded file, in its order. */
static nvtxwResultCode_t register_event_schemas(importer* im) {
    nvtxw_schema_registry_t* reg = im->layouts.registry;
    for (size_t i = 0; i < nvtxw_schema_registry_count(reg); i++) {
        const nvtxw_schema_t* s;
        const nvtxw_enum_t* e;
        uint64_t id;
        nvtxw_schema_registry_at(reg, i, &s, &e);
        if (e != NULL) {
            nvtxPayloadEnumAttr_t attr;
            nvtxw_enum_get_attr(e, &attr);
            CHECK(im->t->EnumRegister(im->domain, &attr, &id), "cannot register enum %s",
                  attr.name);
        } else {
            nvtxPayloadSchemaAttr_t attr;
            nvtxw_schema_get_attr(s, &attr);
            CHECK(im->t->SchemaRegister(im->domain, &attr, &id), "cannot register schema %s",
                  attr.name);
        }
    }
    return NVTXW_RESULT_SUCCESS;
}

/* The payload entry type of an OTF2 attribute value: numbers as they are,
 * strings and regions as registered strings, other references as IDs. */
uint64_t import_attribute_entry_type(uint8_t otf2_type) {
    switch (otf2_type) {
    case OTF2_TYPE_UINT8:
        return NVTX_PAYLOAD_ENTRY_TYPE_UINT8;
    case OTF2_TYPE_UINT16:
        return NVTX_PAYLOAD_ENTRY_TYPE_UINT16;
    case OTF2_TYPE_UINT32:
        return NVTX_PAYLOAD_ENTRY_TYPE_UINT32;
    case OTF2_TYPE_INT8:
        return NVTX_PAYLOAD_ENTRY_TYPE_INT8;
    case OTF2_TYPE_INT16:
        return NVTX_PAYLOAD_ENTRY_TYPE_INT16;
    case OTF2_TYPE_INT32:
        return NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    case OTF2_TYPE_INT64:
        return NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    case OTF2_TYPE_FLOAT:
        return NVTX_PAYLOAD_ENTRY_TYPE_FLOAT;
    case OTF2_TYPE_DOUBLE:
        return NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE;
    case OTF2_TYPE_STRING:
    case OTF2_TYPE_REGION:
        return NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE;
    default:
        return NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
    }
}

/* One single-field schema per attribute definition, named after it. */
static nvtxwResultCode_t register_attribute_schemas(importer* im) {
    def_table* attrs = &im->defs.attributes;
    if (attrs->count > IMPORT_ATTRIBUTE_LIMIT) {
        import_error("the archive defines %zu attributes; at most %u are supported", attrs->count,
                     IMPORT_ATTRIBUTE_LIMIT);
        return NVTXW_RESULT_NOT_SUPPORTED;
    }
    for (size_t i = 0; i < attrs->count; i++) {
        attribute_def* a = def_table_at(attrs, i);
        nvtxPayloadSchemaEntry_t entry = {0};
        nvtxPayloadSchemaAttr_t attr = {0};
        uint64_t id;
        char name[300];
        entry.type = import_attribute_entry_type(a->type);
        entry.name = defs_string(&im->defs, a->name);
        snprintf(name, sizeof name, "otf2_attribute:%s", entry.name);
        attr.fieldMask =
            NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
            NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
            NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
        attr.name = name;
        attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
        attr.entries = &entry;
        attr.numEntries = 1;
        attr.payloadStaticSize = 8;
        attr.schemaId = IMPORT_ATTRIBUTE_SCHEMA_BASE + i;
        a->schema = attr.schemaId;
        CHECK(im->t->SchemaRegister(im->domain, &attr, &id), "cannot register schema %s", name);
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t register_time_domains(importer* im) {
    nvtxTimeDomainAttr_t ns = {0}, ticks = {0};
    uint64_t id;
    ns.timestampTypeId = NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED;
    ns.timeDomainId = IMPORT_TIME_DOMAIN_NS;
    ns.timerFlags = NVTX_TIMER_FLAG_CLOCK_MONOTONIC;
    ns.timerResolution = 1000000000;
    ticks = ns;
    ticks.timeDomainId = IMPORT_TIME_DOMAIN_TICKS;
    ticks.timerResolution = im->defs.timer_resolution > INT64_MAX
                                ? 0 /* unknown: does not fit the attribute */
                                : (int64_t)im->defs.timer_resolution;
    CHECK(im->t->TimeDomainRegister(im->domain, &ns, &id), "cannot register the time domain");
    CHECK(im->t->TimeDomainRegister(im->domain, &ticks, &id),
          "cannot register the OTF2 clock's time domain");
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t register_all(importer* im) {
    nvtxwDomainAttributes_t dattr = {sizeof dattr, IMPORT_DOMAIN_NAME};
    nvtxwResultCode_t rc;
    CHECK(im->t->DomainRegister(im->session, &dattr, &im->domain), "cannot register domain otf2");
    if ((rc = register_time_domains(im)) != NVTXW_RESULT_SUCCESS ||
        (rc = register_categories(im)) != NVTXW_RESULT_SUCCESS ||
        (rc = register_strings(im)) != NVTXW_RESULT_SUCCESS ||
        (rc = register_event_schemas(im)) != NVTXW_RESULT_SUCCESS ||
        (rc = register_attribute_schemas(im)) != NVTXW_RESULT_SUCCESS ||
        (rc = register_scopes(im)) != NVTXW_RESULT_SUCCESS ||
        (rc = register_counters(im)) != NVTXW_RESULT_SUCCESS)
        return rc;
    return NVTXW_RESULT_SUCCESS;
}
