/*
 * schema/yaml_names.c - the symbolic names of the YAML schema format
 * (docs/schemas.md) and the entry-name index used to resolve references.
 *
 * Each value has exactly one name, so dump(load(x)) spells it the same way.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "schema/yaml_internal.h"

#define TABLE(rows)                                                                                \
    { rows, sizeof rows / sizeof rows[0] }

static const schema_yaml_name_t entry_type_rows[] = {
    {"char", NVTX_PAYLOAD_ENTRY_TYPE_CHAR},
    {"uchar", NVTX_PAYLOAD_ENTRY_TYPE_UCHAR},
    {"short", NVTX_PAYLOAD_ENTRY_TYPE_SHORT},
    {"ushort", NVTX_PAYLOAD_ENTRY_TYPE_USHORT},
    {"int", NVTX_PAYLOAD_ENTRY_TYPE_INT},
    {"uint", NVTX_PAYLOAD_ENTRY_TYPE_UINT},
    {"long", NVTX_PAYLOAD_ENTRY_TYPE_LONG},
    {"ulong", NVTX_PAYLOAD_ENTRY_TYPE_ULONG},
    {"longlong", NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG},
    {"ulonglong", NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG},
    {"int8", NVTX_PAYLOAD_ENTRY_TYPE_INT8},
    {"uint8", NVTX_PAYLOAD_ENTRY_TYPE_UINT8},
    {"int16", NVTX_PAYLOAD_ENTRY_TYPE_INT16},
    {"uint16", NVTX_PAYLOAD_ENTRY_TYPE_UINT16},
    {"int32", NVTX_PAYLOAD_ENTRY_TYPE_INT32},
    {"uint32", NVTX_PAYLOAD_ENTRY_TYPE_UINT32},
    {"int64", NVTX_PAYLOAD_ENTRY_TYPE_INT64},
    {"uint64", NVTX_PAYLOAD_ENTRY_TYPE_UINT64},
    {"float", NVTX_PAYLOAD_ENTRY_TYPE_FLOAT},
    {"double", NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE},
    {"longdouble", NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE},
    {"size", NVTX_PAYLOAD_ENTRY_TYPE_SIZE},
    {"address", NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS},
    {"wchar", NVTX_PAYLOAD_ENTRY_TYPE_WCHAR},
    {"char8", NVTX_PAYLOAD_ENTRY_TYPE_CHAR8},
    {"char16", NVTX_PAYLOAD_ENTRY_TYPE_CHAR16},
    {"char32", NVTX_PAYLOAD_ENTRY_TYPE_CHAR32},
    {"byte", NVTX_PAYLOAD_ENTRY_TYPE_BYTE},
    {"int128", NVTX_PAYLOAD_ENTRY_TYPE_INT128},
    {"uint128", NVTX_PAYLOAD_ENTRY_TYPE_UINT128},
    {"float16", NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16},
    {"float32", NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32},
    {"float64", NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64},
    {"float128", NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128},
    {"bf16", NVTX_PAYLOAD_ENTRY_TYPE_BF16},
    {"tf32", NVTX_PAYLOAD_ENTRY_TYPE_TF32},
    {"range_id", NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID},
    {"category", NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY},
    {"color_argb", NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB},
    {"scope_id", NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID},
    {"pid_uint32", NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32},
    {"pid_uint64", NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64},
    {"tid_uint32", NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32},
    {"tid_uint64", NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64},
    {"cstring", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING},
    {"cstring_utf8", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8},
    {"cstring_utf16", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16},
    {"cstring_utf32", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32},
    {"registered_string", NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE},
    {"union_selector", NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR},
};
const schema_yaml_name_table_t schema_yaml_entry_types = TABLE(entry_type_rows);

static const schema_yaml_name_t schema_kind_rows[] = {
    {"static", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC},
    {"dynamic", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC},
    {"union", NVTX_PAYLOAD_SCHEMA_TYPE_UNION},
    {"union_with_internal_selector", NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR},
};
const schema_yaml_name_table_t schema_yaml_schema_kinds = TABLE(schema_kind_rows);

static const schema_yaml_name_t schema_flag_rows[] = {
    {"deep_copy", NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY},
    {"referenced", NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED},
};
const schema_yaml_name_table_t schema_yaml_schema_flags = TABLE(schema_flag_rows);

static const schema_yaml_name_t schema_role_rows[] = {
    {"counter_group", NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP >> YAML_SCHEMA_ROLE_SHIFT},
    {"range_pushpop", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP >> YAML_SCHEMA_ROLE_SHIFT},
    {"range_startend", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND >> YAML_SCHEMA_ROLE_SHIFT},
    {"mark", NVTX_PAYLOAD_SCHEMA_FLAG_MARK >> YAML_SCHEMA_ROLE_SHIFT},
    {"range_push", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH >> YAML_SCHEMA_ROLE_SHIFT},
    {"range_pop", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP >> YAML_SCHEMA_ROLE_SHIFT},
    {"range_start", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START >> YAML_SCHEMA_ROLE_SHIFT},
    {"range_end", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END >> YAML_SCHEMA_ROLE_SHIFT},
};
const schema_yaml_name_table_t schema_yaml_schema_roles = TABLE(schema_role_rows);

static const schema_yaml_name_t entry_flag_rows[] = {
    {"pointer", NVTX_PAYLOAD_ENTRY_FLAG_POINTER},
    {"offset_from_base", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE},
    {"offset_from_here", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE},
    {"deep_copy", NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY},
    {"hide", NVTX_PAYLOAD_ENTRY_FLAG_HIDE},
};
const schema_yaml_name_table_t schema_yaml_entry_flags = TABLE(entry_flag_rows);

static const schema_yaml_name_t entry_semantic_rows[] = {
    {"event_message", NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE >> YAML_ENTRY_SEMANTIC_SHIFT},
    {"timestamp", NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP >> YAML_ENTRY_SEMANTIC_SHIFT},
};
const schema_yaml_name_table_t schema_yaml_entry_semantics = TABLE(entry_semantic_rows);

static const schema_yaml_name_t entry_role_rows[] = {
    {"range_begin", NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN >> YAML_ENTRY_ROLE_SHIFT},
    {"range_end", NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END >> YAML_ENTRY_ROLE_SHIFT},
    {"mark", NVTX_PAYLOAD_ENTRY_FLAG_MARK >> YAML_ENTRY_ROLE_SHIFT},
    {"counter", NVTX_PAYLOAD_ENTRY_FLAG_COUNTER >> YAML_ENTRY_ROLE_SHIFT},
};
const schema_yaml_name_table_t schema_yaml_entry_roles = TABLE(entry_role_rows);

static const schema_yaml_name_t counter_flag_rows[] = {
    {"normalize", NVTX_COUNTER_FLAG_NORMALIZE},
    {"limit_min", NVTX_COUNTER_FLAG_LIMIT_MIN},
    {"limit_max", NVTX_COUNTER_FLAG_LIMIT_MAX},
};
const schema_yaml_name_table_t schema_yaml_counter_flags = TABLE(counter_flag_rows);

static const schema_yaml_name_t counter_value_type_rows[] = {
    {"absolute", NVTX_COUNTER_FLAG_VALUETYPE_ABSOLUTE >> YAML_COUNTER_VALUE_TYPE_SHIFT},
    {"delta", NVTX_COUNTER_FLAG_VALUETYPE_DELTA >> YAML_COUNTER_VALUE_TYPE_SHIFT},
    {"delta_since_start",
     NVTX_COUNTER_FLAG_VALUETYPE_DELTA_SINCE_START >> YAML_COUNTER_VALUE_TYPE_SHIFT},
};
const schema_yaml_name_table_t schema_yaml_counter_value_types = TABLE(counter_value_type_rows);

static const schema_yaml_name_t counter_interpolation_rows[] = {
    {"point", NVTX_COUNTER_FLAG_INTERPOLATION_POINT >> YAML_COUNTER_INTERPOLATION_SHIFT},
    {"since_last", NVTX_COUNTER_FLAG_INTERPOLATION_SINCE_LAST >> YAML_COUNTER_INTERPOLATION_SHIFT},
    {"until_next", NVTX_COUNTER_FLAG_INTERPOLATION_UNTIL_NEXT >> YAML_COUNTER_INTERPOLATION_SHIFT},
    {"linear", NVTX_COUNTER_FLAG_INTERPOLATION_LINEAR >> YAML_COUNTER_INTERPOLATION_SHIFT},
};
const schema_yaml_name_table_t schema_yaml_counter_interpolations =
    TABLE(counter_interpolation_rows);

static const schema_yaml_name_t counter_limit_type_rows[] = {
    {"undefined", NVTX_COUNTER_LIMIT_UNDEFINED},
    {"i64", NVTX_COUNTER_LIMIT_I64},
    {"u64", NVTX_COUNTER_LIMIT_U64},
    {"f64", NVTX_COUNTER_LIMIT_F64},
};
const schema_yaml_name_table_t schema_yaml_counter_limit_types = TABLE(counter_limit_type_rows);

const char* schema_yaml_name_of(const schema_yaml_name_table_t* table, uint64_t value) {
    for (size_t i = 0; i < table->count; i++) {
        if (table->rows[i].value == value)
            return table->rows[i].name;
    }
    return NULL;
}

int schema_yaml_value_of(const schema_yaml_name_table_t* table, const char* name, size_t length,
                         uint64_t* value) {
    for (size_t i = 0; i < table->count; i++) {
        const char* row = table->rows[i].name;
        if (strlen(row) == length && memcmp(row, name, length) == 0) {
            *value = table->rows[i].value;
            return 0;
        }
    }
    return -1;
}

/* Orders by name, then by index, so equal names are adjacent. */
static int entry_name_compare(const void* a, const void* b) {
    const schema_yaml_entry_name_t* x = a;
    const schema_yaml_entry_name_t* y = b;
    int order = strcmp(x->name, y->name);
    if (order != 0)
        return order;
    return (x->index > y->index) - (x->index < y->index);
}

nvtxwResultCode_t schema_yaml_entry_index_build(schema_yaml_entry_index_t* index,
                                                const nvtxPayloadSchemaEntry_t* entries,
                                                size_t count) {
    index->count = 0;
    index->sorted = nvtxw_reallocarray(NULL, count, sizeof *index->sorted);
    if (index->sorted == NULL)
        return error_oom("the entry name index");
    for (size_t i = 0; i < count; i++) {
        if (entries[i].name == NULL || entries[i].name[0] == '\0')
            continue;
        index->sorted[index->count].name = entries[i].name;
        index->sorted[index->count].index = i;
        index->count++;
    }
    qsort(index->sorted, index->count, sizeof *index->sorted, entry_name_compare);
    return NVTXW_RESULT_SUCCESS;
}

void schema_yaml_entry_index_free(schema_yaml_entry_index_t* index) {
    nvtxw_free(index->sorted);
    index->sorted = NULL;
    index->count = 0;
}

long schema_yaml_entry_index_find(const schema_yaml_entry_index_t* index, const char* name) {
    size_t low = 0;
    size_t high = index->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (strcmp(index->sorted[middle].name, name) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    if (low == index->count || strcmp(index->sorted[low].name, name) != 0)
        return -1;
    if (low + 1 < index->count && strcmp(index->sorted[low + 1].name, name) == 0)
        return -2;
    return (long)index->sorted[low].index;
}
