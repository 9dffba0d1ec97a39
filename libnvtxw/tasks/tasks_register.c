/*
 * tasks/tasks_register.c - registration side of the task model
 * (nvtxw/tasks.h): the enum and schemas of schemas/tasks.yaml as C tables
 * (tests/unit/tasks_test.c checks them against the YAML), the mark names,
 * and task scopes with the path `task[KEY]` (ABI spec 2.10 grammar: '\'
 * escapes '/', '[' and ']', and itself).
 *
 * Every function here is a registration call: the caller serializes it and
 * keeps it apart from writes (NVTXW spec section 6).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "tasks/tasks_internal.h"

#define ENTRY_(flags, type, name, payload, field)                                                  \
    { (flags), (type), (name), NULL, 0, offsetof(payload, field), NULL, NULL }
#define TS_(role, payload, field)                                                                  \
    ENTRY_(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | (role), NVTX_PAYLOAD_ENTRY_TYPE_INT64, #field,      \
           payload, field)
#define SCOPE_(payload) ENTRY_(0, NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID, "task", payload, task)
#define STRING_(flags, payload, field)                                                             \
    ENTRY_((flags), NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, #field, payload, field)
#define MESSAGE_(payload, field) STRING_(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, payload, field)
#define PLAIN_(type, payload, field) ENTRY_(0, (type), #field, payload, field)

static const nvtxPayloadSchemaEntry_t slice_entries[] = {
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxw_task_slice_payload_t, begin),
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, nvtxw_task_slice_payload_t, end),
    SCOPE_(nvtxw_task_slice_payload_t), MESSAGE_(nvtxw_task_slice_payload_t, name),
    PLAIN_(NVTX_PAYLOAD_ENTRY_TYPE_UINT64, nvtxw_task_slice_payload_t, flow_in)};

static const nvtxPayloadSchemaEntry_t state_entries[] = {
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_MARK, nvtxw_task_state_payload_t, time),
    SCOPE_(nvtxw_task_state_payload_t),
    MESSAGE_(nvtxw_task_state_payload_t, label),
    STRING_(0, nvtxw_task_state_payload_t, reason),
    PLAIN_(NVTX_PAYLOAD_ENTRY_TYPE_INT64, nvtxw_task_state_payload_t, suspended_at),
    PLAIN_(NVTXW_TASK_STATE_ENUM_ID, nvtxw_task_state_payload_t, state)};

static const nvtxPayloadSchemaEntry_t wake_entries[] = {
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_MARK, nvtxw_task_wake_payload_t, time),
    SCOPE_(nvtxw_task_wake_payload_t), MESSAGE_(nvtxw_task_wake_payload_t, cause),
    PLAIN_(NVTX_PAYLOAD_ENTRY_TYPE_UINT64, nvtxw_task_wake_payload_t, flow_out)};

static const nvtxPayloadSchemaEntry_t steal_entries[] = {
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_MARK, nvtxw_task_steal_payload_t, time),
    SCOPE_(nvtxw_task_steal_payload_t),
    MESSAGE_(nvtxw_task_steal_payload_t, label),
    PLAIN_(NVTX_PAYLOAD_ENTRY_TYPE_UINT32, nvtxw_task_steal_payload_t, thief),
    PLAIN_(NVTX_PAYLOAD_ENTRY_TYPE_UINT32, nvtxw_task_steal_payload_t, victim),
    PLAIN_(NVTX_PAYLOAD_ENTRY_TYPE_UINT64, nvtxw_task_steal_payload_t, victim_queue_depth)};

static const nvtxPayloadSchemaEntry_t sleep_entries[] = {
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxw_worker_sleep_payload_t, begin),
    TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, nvtxw_worker_sleep_payload_t, end),
    MESSAGE_(nvtxw_worker_sleep_payload_t, label),
    STRING_(0, nvtxw_worker_sleep_payload_t, reason)};

/* One schema of schemas/tasks.yaml and where its ID goes. */
typedef struct task_schema_desc {
    const char* name;
    uint64_t id;
    uint64_t role;
    const nvtxPayloadSchemaEntry_t* entries;
    size_t count;
    size_t size;
    size_t id_offset;
} task_schema_desc;

#define DESC_(name, id, role, entries, payload, field)                                             \
    {                                                                                              \
        (name), (id), (role), (entries), sizeof(entries) / sizeof((entries)[0]), sizeof(payload),  \
            offsetof(nvtxw_task_ids_t, field)                                                      \
    }

/* In file order: every schema after the enum its state entry uses. */
static const task_schema_desc schema_descs[] = {
    DESC_("nvtxw_task_slice", NVTXW_TASK_SLICE_SCHEMA_ID, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND,
          slice_entries, nvtxw_task_slice_payload_t, slice),
    DESC_("nvtxw_task_state", NVTXW_TASK_STATE_SCHEMA_ID, NVTX_PAYLOAD_SCHEMA_FLAG_MARK,
          state_entries, nvtxw_task_state_payload_t, state),
    DESC_("nvtxw_task_wake", NVTXW_TASK_WAKE_SCHEMA_ID, NVTX_PAYLOAD_SCHEMA_FLAG_MARK, wake_entries,
          nvtxw_task_wake_payload_t, wake),
    DESC_("nvtxw_task_steal", NVTXW_TASK_STEAL_SCHEMA_ID, NVTX_PAYLOAD_SCHEMA_FLAG_MARK,
          steal_entries, nvtxw_task_steal_payload_t, steal),
    DESC_("nvtxw_worker_sleep", NVTXW_WORKER_SLEEP_SCHEMA_ID,
          NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, sleep_entries, nvtxw_worker_sleep_payload_t,
          sleep)};

static const nvtxPayloadEnum_t state_values[NVTXW_TASK_STATE_COUNT] = {
    {"staged", NVTXW_TASK_STAGED, 0},       {"created", NVTXW_TASK_CREATED, 0},
    {"executing", NVTXW_TASK_EXECUTING, 0}, {"yielded", NVTXW_TASK_YIELDED, 0},
    {"suspended", NVTXW_TASK_SUSPENDED, 0}, {"resumed", NVTXW_TASK_RESUMED, 0},
    {"completed", NVTXW_TASK_COMPLETED, 0}, {"deleted", NVTXW_TASK_DELETED, 0}};

static nvtxwResultCode_t register_enum(const nvtxwInterface_t* iface, nvtxDomainHandle_t domain,
                                       nvtxw_task_ids_t* ids) {
    nvtxPayloadEnumAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE |
                     NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    attr.name = "nvtxw_task_state_value";
    attr.entries = state_values;
    attr.numEntries = NVTXW_TASK_STATE_COUNT;
    attr.sizeOfEnum = sizeof(uint32_t);
    attr.schemaId = NVTXW_TASK_STATE_ENUM_ID;
    ids->state_enum = NVTXW_TASK_STATE_ENUM_ID;
    return iface->EnumRegister(domain, &attr, &ids->state_enum);
}

static nvtxwResultCode_t register_schema(const nvtxwInterface_t* iface, nvtxDomainHandle_t domain,
                                         const task_schema_desc* desc, nvtxw_task_ids_t* ids) {
    uint64_t* id_out = (uint64_t*)(void*)((char*)ids + desc->id_offset);
    nvtxPayloadSchemaAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    attr.name = desc->name;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.flags = desc->role;
    attr.entries = desc->entries;
    attr.numEntries = desc->count;
    attr.payloadStaticSize = desc->size;
    attr.schemaId = desc->id;
    *id_out = desc->id;
    return iface->SchemaRegister(domain, &attr, id_out);
}

/* The mark names, in the order of their handles in nvtxw_task_ids_t. */
static nvtxwResultCode_t register_names(const nvtxwInterface_t* iface, nvtxDomainHandle_t domain,
                                        nvtxw_task_ids_t* ids) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    for (i = 0; i < NVTXW_TASK_STATE_COUNT && status == NVTXW_RESULT_SUCCESS; i++)
        status = iface->StringRegister(domain, state_values[i].name, &ids->state_names[i]);
    if (status == NVTXW_RESULT_SUCCESS)
        status = iface->StringRegister(domain, "steal", &ids->steal_name);
    if (status == NVTXW_RESULT_SUCCESS)
        status = iface->StringRegister(domain, "sleep", &ids->sleep_name);
    return status;
}

NVTXW_API nvtxwResultCode_t nvtxw_task_schemas_register(const nvtxwInterface_t* iface,
                                                        nvtxDomainHandle_t domain,
                                                        nvtxw_task_ids_t* ids_out) {
    nvtxwResultCode_t status;
    size_t struct_size, i;
    if (!NVTXW_INTERFACE_HAS(iface, SchemaRegister) || iface->EnumRegister == NULL ||
        iface->StringRegister == NULL || domain == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register the task schemas: %s",
                         domain == NULL ? "domain is NULL"
                                        : "the function table lacks a registration function");
    if (!TASKS_IDS_COVER(ids_out, sleep_name))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register the task schemas: ids_out is NULL or its struct_size "
                         "(%zu) is below %zu",
                         ids_out ? ids_out->struct_size : 0, sizeof(nvtxw_task_ids_t));
    struct_size = ids_out->struct_size;
    memset(ids_out, 0, sizeof *ids_out);
    ids_out->struct_size = struct_size;
    status = register_enum(iface, domain, ids_out);
    for (i = 0; i < sizeof schema_descs / sizeof schema_descs[0] && status == NVTXW_RESULT_SUCCESS;
         i++)
        status = register_schema(iface, domain, &schema_descs[i], ids_out);
    if (status == NVTXW_RESULT_SUCCESS)
        status = register_names(iface, domain, ids_out);
    return status;
}

/* "task[" KEY "]" with '/', '[', ']' and '\' escaped; NULL out of memory. */
static char* task_path(const char* key) {
    size_t length = strlen(key), i, n = 0;
    char* path = nvtxw_malloc(2 * length + 7);
    if (path == NULL)
        return NULL;
    memcpy(path, "task[", 5);
    n = 5;
    for (i = 0; i < length; i++) {
        if (strchr("/[]\\", key[i]) != NULL)
            path[n++] = '\\';
        path[n++] = key[i];
    }
    path[n++] = ']';
    path[n] = '\0';
    return path;
}

const char* tasks_last_node(const char* path) {
    const char* node = path;
    for (const char* p = path; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (*p == '/')
            node = p + 1;
    }
    return node;
}

int tasks_path_key(const char* path, strbuf* key) {
    const char* node = tasks_last_node(path);
    if (strncmp(node, "task[", 5) != 0)
        return 0;
    for (const char* p = node + 5; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (*p == ']')
            return p[1] == '\0' && p > node + 5 ? 1 : 0;
        if (strbuf_append(key, p, 1) != 0)
            return -1;
    }
    return 0;
}

NVTXW_API nvtxwResultCode_t nvtxw_task_scope_register(const nvtxwInterface_t* iface,
                                                      nvtxDomainHandle_t domain,
                                                      uint64_t parent_scope, const char* key,
                                                      uint64_t* task_scope_out) {
    nvtxScopeAttr_t attr;
    nvtxwResultCode_t status;
    char* path;
    if (!NVTXW_INTERFACE_HAS(iface, ScopeRegister) || domain == NULL || key == NULL ||
        key[0] == '\0' || task_scope_out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register a task scope: %s",
                         !NVTXW_INTERFACE_HAS(iface, ScopeRegister) ? "no ScopeRegister function"
                         : domain == NULL                           ? "domain is NULL"
                         : key == NULL || key[0] == '\0'            ? "the key is NULL or empty"
                                                                    : "task_scope_out is NULL");
    if ((path = task_path(key)) == NULL)
        return error_oom("a task scope path");
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.path = path;
    attr.parentScope = parent_scope;
    attr.scopeId = NVTX_SCOPE_NONE;
    status = iface->ScopeRegister(domain, &attr, task_scope_out);
    nvtxw_free(path);
    return status;
}

NVTXW_API nvtxwResultCode_t nvtxw_task_scope_register_id(const nvtxwInterface_t* iface,
                                                         nvtxDomainHandle_t domain,
                                                         uint64_t parent_scope, uint64_t id,
                                                         uint64_t generation,
                                                         uint64_t* task_scope_out) {
    char key[48];
    if (generation == 0)
        snprintf(key, sizeof key, "%" PRIu64, id);
    else
        snprintf(key, sizeof key, "%" PRIu64 ".%" PRIu64, id, generation);
    return nvtxw_task_scope_register(iface, domain, parent_scope, key, task_scope_out);
}
