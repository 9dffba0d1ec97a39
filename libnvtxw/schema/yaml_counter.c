/*
 * schema/yaml_counter.c - the `counter:` key of an entry: a counter semantic
 * (nvtxSemanticsCounter_t, spec 2.5) in YAML (docs/schemas.md, "Counter
 * semantics"), and the spelling of doubles shared with the dumper.
 *
 *   counter ::= { flags?: [ CFLAG* ], value_type?: VTYPE,
 *                 interpolation?: INTERP, unit?: STR,
 *                 unit_scale_numerator?: INT, unit_scale_denominator?: INT,
 *                 limit_type?: LTYPE, min?: LIMIT, max?: LIMIT }
 *   CFLAG   ::= normalize | limit_min | limit_max | INT
 *   VTYPE   ::= absolute | delta | delta_since_start | 0-3
 *   INTERP  ::= point | since_last | until_next | linear | 0-7
 *   LTYPE   ::= undefined | i64 | u64 | f64 | INT (two's complement)
 *   LIMIT   ::= by limit_type: i64 [-]INT within int64; u64 INT;
 *               f64 a decimal number, .inf, -.inf or .nan;
 *               any other type [-]INT, the raw 64 bits
 *
 * min and max are kept as text until the mapping ends, because limit_type,
 * which decides how they read, may come after them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "schema/yaml_internal.h"

enum {
    COUNTER_FLAGS,
    COUNTER_VALUE_TYPE,
    COUNTER_INTERPOLATION,
    COUNTER_UNIT,
    COUNTER_SCALE_NUMERATOR,
    COUNTER_SCALE_DENOMINATOR,
    COUNTER_LIMIT_TYPE,
    COUNTER_MIN,
    COUNTER_MAX
};
static const char* const counter_keys[] = {"flags",
                                           "value_type",
                                           "interpolation",
                                           "unit",
                                           "unit_scale_numerator",
                                           "unit_scale_denominator",
                                           "limit_type",
                                           "min",
                                           "max"};

/* Longest min/max scalar kept; longer ones are no number of any type. */
#define LIMIT_TEXT_MAX 64

typedef struct limit_text {
    char text[LIMIT_TEXT_MAX + 1];
    size_t length;
    yaml_mark_t mark;
    int given;
} limit_text_t;

/* The decimal point of the current locale, which printf and strtod use. */
static char locale_point(void) {
    char probe[8];
    snprintf(probe, sizeof probe, "%.1f", 0.5);
    return probe[1];
}

void schema_yaml_format_double(double value, char text[YAML_DOUBLE_CHARS]) {
    char point = locale_point();
    if (isnan(value)) {
        strcpy(text, ".nan");
        return;
    }
    if (isinf(value)) {
        strcpy(text, value > 0 ? ".inf" : "-.inf");
        return;
    }
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, YAML_DOUBLE_CHARS, "%.*g", precision, value);
        if (strtod(text, NULL) == value && signbit(strtod(text, NULL)) == signbit(value))
            break;
    }
    for (char* c = text; *c != '\0'; c++)
        if (*c == point)
            *c = '.';
}

/* YAML's spellings of the non-finite values (core schema). */
static int parse_special(const char* text, double* out) {
    const char* rest = text + (text[0] == '-' || text[0] == '+');
    if (strcmp(rest, ".inf") == 0 || strcmp(rest, ".Inf") == 0 || strcmp(rest, ".INF") == 0) {
        *out = text[0] == '-' ? -INFINITY : INFINITY;
        return 1;
    }
    if (strcmp(text, ".nan") == 0 || strcmp(text, ".NaN") == 0 || strcmp(text, ".NAN") == 0) {
        *out = NAN;
        return 1;
    }
    return 0;
}

/* 0, -1 (not a decimal number) or -2 (beyond the double range). */
static int parse_double(const char* text, size_t length, double* out) {
    char copy[LIMIT_TEXT_MAX + 1];
    char point = locale_point();
    char* end;
    if (parse_special(text, out))
        return 0;
    if (length == 0 || length > LIMIT_TEXT_MAX || strspn(text, "0123456789+-.eE") != length)
        return -1;
    memcpy(copy, text, length + 1);
    for (char* c = copy; *c != '\0'; c++)
        if (*c == '.')
            *c = point;
    errno = 0;
    *out = strtod(copy, &end);
    if (end != copy + length)
        return -1;
    return errno == ERANGE && isinf(*out) ? -2 : 0;
}

/* Reads min or max as an int64 (-2: out of range). */
static int parse_i64(const char* text, size_t length, uint64_t* out) {
    int status = schema_yaml_parse_number(text, length, 1, (uint64_t)INT64_MAX + 1, out);
    if (status == 0 && text[0] != '-' && *out > (uint64_t)INT64_MAX)
        return -2;
    return status;
}

static int resolve_limit(schema_yaml_loader_t* loader, const limit_text_t* limit, int64_t type,
                         const char* what, nvtxCounterLimit_t* out) {
    int status;
    if (!limit->given)
        return 0;
    if (type == NVTX_COUNTER_LIMIT_F64)
        status = parse_double(limit->text, limit->length, &out->f64);
    else if (type == NVTX_COUNTER_LIMIT_I64)
        status = parse_i64(limit->text, limit->length, &out->u64);
    else
        status = schema_yaml_parse_number(limit->text, limit->length,
                                          type != NVTX_COUNTER_LIMIT_U64, UINT64_MAX, &out->u64);
    if (status == -1)
        return schema_yaml_loader_fail(loader, limit->mark,
                                       "bad number \"%s\" for %s (limit_type %lld)", limit->text,
                                       what, (long long)type);
    if (status == -2)
        return schema_yaml_loader_fail(loader, limit->mark,
                                       "value %s out of range for %s (limit_type %lld)",
                                       limit->text, what, (long long)type);
    return 0;
}

static int read_limit_text(schema_yaml_loader_t* loader, const char* what, limit_text_t* limit) {
    const yaml_event_t* event = &loader->event;
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, what))
        return -1;
    if (event->data.scalar.length > LIMIT_TEXT_MAX ||
        memchr(event->data.scalar.value, '\0', event->data.scalar.length) != NULL)
        return schema_yaml_loader_fail(loader, event->start_mark, "bad number \"%.*s\" for %s",
                                       LIMIT_TEXT_MAX, (const char*)event->data.scalar.value, what);
    limit->length = event->data.scalar.length;
    memcpy(limit->text, event->data.scalar.value, limit->length);
    limit->text[limit->length] = '\0';
    limit->mark = event->start_mark;
    limit->given = 1;
    return 0;
}

/* limitType is an int64; integers beyond INT64_MAX are its negative values. */
static int read_limit_type(schema_yaml_loader_t* loader, int64_t* out) {
    uint64_t value;
    if (schema_yaml_read_symbol(loader, &schema_yaml_counter_limit_types, "limit_type", UINT64_MAX,
                                &value))
        return -1;
    *out = (int64_t)value;
    return 0;
}

static int read_field(schema_yaml_loader_t* loader, const schema_yaml_name_table_t* table,
                      const char* what, uint64_t max, unsigned shift, uint64_t* flags) {
    uint64_t value;
    if (schema_yaml_read_symbol(loader, table, what, max, &value))
        return -1;
    *flags |= value << shift;
    return 0;
}

static int read_counter_value(schema_yaml_loader_t* loader, int key,
                              nvtxSemanticsCounter_t* counter, limit_text_t* min,
                              limit_text_t* max) {
    switch (key) {
    case COUNTER_FLAGS:
        return schema_yaml_read_flag_list(loader, &schema_yaml_counter_flags, "counter flag",
                                          &counter->flags);
    case COUNTER_VALUE_TYPE:
        return read_field(loader, &schema_yaml_counter_value_types, "value_type", 3,
                          YAML_COUNTER_VALUE_TYPE_SHIFT, &counter->flags);
    case COUNTER_INTERPOLATION:
        return read_field(loader, &schema_yaml_counter_interpolations, "interpolation", 7,
                          YAML_COUNTER_INTERPOLATION_SHIFT, &counter->flags);
    case COUNTER_UNIT:
        return schema_yaml_read_string(loader, "counter unit", (char**)&counter->unit);
    case COUNTER_SCALE_NUMERATOR:
        return schema_yaml_read_u64(loader, "unit_scale_numerator", UINT64_MAX,
                                    &counter->unitScaleNumerator);
    case COUNTER_SCALE_DENOMINATOR:
        return schema_yaml_read_u64(loader, "unit_scale_denominator", UINT64_MAX,
                                    &counter->unitScaleDenominator);
    case COUNTER_LIMIT_TYPE:
        return read_limit_type(loader, &counter->limitType);
    case COUNTER_MIN:
        return read_limit_text(loader, "min", min);
    default:
        return read_limit_text(loader, "max", max);
    }
}

int schema_yaml_read_counter(schema_yaml_loader_t* loader, schema_yaml_counter_t* counter) {
    nvtxSemanticsCounter_t* semantic = &counter->semantic;
    limit_text_t min, max;
    uint32_t seen = 0;
    memset(&min, 0, sizeof min);
    memset(&max, 0, sizeof max);
    if (schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "counter"))
        return -1;
    counter->given = 1;
    semantic->header.structSize = sizeof *semantic;
    semantic->header.semanticId = NVTX_SEMANTIC_ID_COUNTERS_V1;
    semantic->header.version = NVTX_COUNTER_SEMANTIC_VERSION;
    for (;;) {
        int key;
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_MAPPING_END_EVENT)
            break;
        key = schema_yaml_read_key(loader, counter_keys,
                                   sizeof counter_keys / sizeof counter_keys[0], "counter", &seen);
        if (key < 0 || schema_yaml_loader_next(loader) ||
            read_counter_value(loader, key, semantic, &min, &max))
            return -1;
    }
    if (resolve_limit(loader, &min, semantic->limitType, "min", &semantic->min))
        return -1;
    return resolve_limit(loader, &max, semantic->limitType, "max", &semantic->max);
}

void schema_yaml_counter_free(schema_yaml_counter_t* counter) {
    nvtxw_free((char*)counter->semantic.unit);
    counter->semantic.unit = NULL;
}
