/*
 * schema/yaml_load.c - loads payload schemas and enums from YAML
 * (docs/schemas.md) with libyaml's event API: the document is streamed, never
 * built as a tree, and each item is registered as soon as it is complete, so
 * memory stays bounded by the one item being built.
 *
 * Grammar accepted (over libyaml events; `{}` mapping, `[]` sequence,
 * keys in any order, each at most once, `?` optional):
 *
 *   stream    ::= STREAM-START document* STREAM-END
 *   document  ::= { version?: 1, items: [ item* ] }
 *   item      ::= { schema: schema } | { enum: enum }
 *   schema    ::= { name?: STR, id?: INT, kind: KIND, flags?: [ SFLAG* ],
 *                   role?: SROLE, size?: INT, align?: INT, entries: [ entry+ ] }
 *   entry     ::= { name?: STR, description?: STR, type: TYPE, offset?: INT,
 *                   flags?: [ EFLAG* ], array?: array, length?: INT,
 *                   selector?: REF, semantic?: SEMANTIC, role?: EROLE,
 *                   time_domain?: INT, scope?: INT, counter?: counter }
 *   array     ::= INT | zero_terminated | { length_index: REF }
 *               | { length_payload_index: INT }
 *   enum      ::= { name?: STR, id?: INT, size: INT, values: [ value+ ] }
 *   value     ::= { name: STR, value: INT | -INT, flag?: BOOL }
 *   counter   ::= a counter semantic, grammar in yaml_counter.c
 *   TYPE      ::= predefined type name | name of an earlier schema or enum | INT
 *   REF       ::= entry name | entry index (INT)
 *   KIND, SFLAG, SROLE, EFLAG, SEMANTIC, EROLE ::= table name | INT
 *
 * INT is decimal or 0x-hex without sign. A plain scalar starting with a digit
 * is a number wherever a name or number may stand; quote names that start
 * with a digit. Aliases, anchors and tags are rejected.
 *
 * This file holds the stream and item levels and the scalar readers; the
 * schema and enum bodies are parsed in yaml_items.c, counter semantics in
 * yaml_counter.c.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/schema_yaml.h"
#include "schema/yaml_internal.h"

/* Longest piece of user text quoted in an error message. */
#define QUOTE_MAX 64

/* State of the file read handler: bounded input, I/O errors kept. */
typedef struct file_input {
    FILE* file;
    size_t total;
    int too_large;
    int io_error;
} file_input_t;

static int file_read(void* data, unsigned char* buffer, size_t size, size_t* size_read) {
    file_input_t* input = data;
    size_t got = fread(buffer, 1, size, input->file);
    *size_read = got;
    if (got == 0 && ferror(input->file)) {
        input->io_error = errno != 0 ? errno : EIO;
        return 0;
    }
    input->total += got;
    if (input->total > YAML_MAX_INPUT) {
        input->too_large = 1;
        return 0;
    }
    return 1;
}

/* ---- errors ------------------------------------------------------------- */

int schema_yaml_loader_fail(schema_yaml_loader_t* loader, yaml_mark_t mark, const char* format,
                            ...) {
    char problem[NVTXW_ERROR_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(problem, sizeof problem, format, args);
    va_end(args);
    loader->status = error_set(NVTXW_RESULT_INVALID_ARGUMENT, "%s:%zu:%zu: %s", loader->source,
                               mark.line + 1, mark.column + 1, problem);
    return -1;
}

int schema_yaml_loader_oom(schema_yaml_loader_t* loader, const char* what) {
    loader->status = error_oom(what);
    return -1;
}

int schema_yaml_loader_wrap(schema_yaml_loader_t* loader, yaml_mark_t mark,
                            nvtxwResultCode_t code) {
    error_prefix("%s:%zu:%zu", loader->source, mark.line + 1, mark.column + 1);
    loader->status = code;
    return -1;
}

/* Turns libyaml's parser error into a message with its marks. */
static int loader_parser_error(schema_yaml_loader_t* loader) {
    const yaml_parser_t* parser = &loader->parser;
    if (parser->error == YAML_MEMORY_ERROR)
        return schema_yaml_loader_oom(loader, "the YAML parser");
    if (parser->error == YAML_READER_ERROR)
        return schema_yaml_loader_fail(loader, parser->mark, "%s (byte offset %zu)",
                                       parser->problem ? parser->problem : "cannot read input",
                                       parser->problem_offset);
    if (parser->context != NULL)
        return schema_yaml_loader_fail(
            loader, parser->problem_mark, "%s (%s at %zu:%zu)", parser->problem, parser->context,
            parser->context_mark.line + 1, parser->context_mark.column + 1);
    return schema_yaml_loader_fail(loader, parser->problem_mark, "%s",
                                   parser->problem ? parser->problem : "invalid YAML");
}

/* Anchors and tags would let one node stand for many or change its meaning;
 * the format needs neither, so both are refused. */
static int loader_check_event(schema_yaml_loader_t* loader) {
    const yaml_event_t* event = &loader->event;
    const yaml_char_t* anchor = NULL;
    const yaml_char_t* tag = NULL;
    if (event->type == YAML_ALIAS_EVENT)
        return schema_yaml_loader_fail(loader, event->start_mark, "aliases are not supported");
    if (event->type == YAML_SCALAR_EVENT) {
        anchor = event->data.scalar.anchor;
        tag = event->data.scalar.tag;
    } else if (event->type == YAML_SEQUENCE_START_EVENT) {
        anchor = event->data.sequence_start.anchor;
        tag = event->data.sequence_start.tag;
    } else if (event->type == YAML_MAPPING_START_EVENT) {
        anchor = event->data.mapping_start.anchor;
        tag = event->data.mapping_start.tag;
    }
    if (anchor != NULL)
        return schema_yaml_loader_fail(loader, event->start_mark, "anchors are not supported");
    if (tag != NULL)
        return schema_yaml_loader_fail(loader, event->start_mark, "tags are not supported");
    return 0;
}

int schema_yaml_loader_next(schema_yaml_loader_t* loader) {
    if (loader->has_event) {
        yaml_event_delete(&loader->event);
        loader->has_event = 0;
    }
    if (!yaml_parser_parse(&loader->parser, &loader->event))
        return loader_parser_error(loader);
    loader->has_event = 1;
    return loader_check_event(loader);
}

/* ---- structure ---------------------------------------------------------- */

static const char* event_kind(yaml_event_type_t type) {
    switch (type) {
    case YAML_SCALAR_EVENT:
        return "a scalar";
    case YAML_SEQUENCE_START_EVENT:
        return "a sequence";
    case YAML_MAPPING_START_EVENT:
        return "a mapping";
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return "the end of a collection";
    default:
        return "the end of the document";
    }
}

int schema_yaml_expect(schema_yaml_loader_t* loader, yaml_event_type_t type, const char* what) {
    if (loader->event.type == type)
        return 0;
    return schema_yaml_loader_fail(loader, loader->event.start_mark, "expected %s for %s, found %s",
                                   event_kind(type), what, event_kind(loader->event.type));
}

static const char* scalar_text(const schema_yaml_loader_t* loader) {
    return (const char*)loader->event.data.scalar.value;
}

static int scalar_quote_length(const schema_yaml_loader_t* loader) {
    size_t length = loader->event.data.scalar.length;
    return (int)(length < QUOTE_MAX ? length : QUOTE_MAX);
}

int schema_yaml_read_key(schema_yaml_loader_t* loader, const char* const* keys, size_t count,
                         const char* what, uint32_t* seen) {
    const char* key;
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, "a key"))
        return -1;
    key = scalar_text(loader);
    for (size_t i = 0; i < count; i++) {
        if (strcmp(keys[i], key) != 0 || strlen(key) != loader->event.data.scalar.length)
            continue;
        if (*seen & (UINT32_C(1) << i))
            return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                           "duplicate key \"%s\" in %s", keys[i], what);
        *seen |= UINT32_C(1) << i;
        return (int)i;
    }
    return schema_yaml_loader_fail(loader, loader->event.start_mark, "unknown key \"%.*s\" in %s",
                                   scalar_quote_length(loader), key, what);
}

int schema_yaml_require_keys(schema_yaml_loader_t* loader, const char* const* keys, uint32_t seen,
                             uint32_t required, yaml_mark_t mark, const char* what) {
    for (size_t i = 0; i < 32; i++) {
        if ((required & ~seen) & (UINT32_C(1) << i))
            return schema_yaml_loader_fail(loader, mark, "missing required key \"%s\" in %s",
                                           keys[i], what);
    }
    return 0;
}

/* ---- scalars ------------------------------------------------------------ */

int schema_yaml_read_string(schema_yaml_loader_t* loader, const char* what, char** out) {
    size_t length;
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, what))
        return -1;
    length = loader->event.data.scalar.length;
    if (length > YAML_MAX_STRING)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "%s is too long (%zu bytes, limit %u)", what, length,
                                       YAML_MAX_STRING);
    if (memchr(scalar_text(loader), '\0', length) != NULL)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "%s contains a NUL character", what);
    if (length + 1 > loader->string_budget)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "item too large: its strings exceed %u bytes",
                                       YAML_MAX_SCHEMA_STRINGS);
    loader->string_budget -= length + 1;
    *out = nvtxw_strndup(scalar_text(loader), length);
    if (*out == NULL)
        return schema_yaml_loader_oom(loader, "a YAML string");
    return 0;
}

/* Parses decimal or 0x-hex digits; 0 on success, -1 on syntax, -2 on overflow. */
static int parse_u64(const char* text, size_t length, uint64_t* out) {
    uint64_t value = 0;
    unsigned base = 10;
    size_t i = 0;
    if (length > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        i = 2;
    }
    if (i == length)
        return -1;
    for (; i < length; i++) {
        char c = text[i];
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            digit = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            digit = (unsigned)(c - 'A' + 10);
        else
            return -1;
        if (value > (UINT64_MAX - digit) / base)
            return -2;
        value = value * base + digit;
    }
    *out = value;
    return 0;
}

int schema_yaml_parse_number(const char* text, size_t length, int allow_negative, uint64_t max,
                             uint64_t* out) {
    int negative = allow_negative && length > 0 && text[0] == '-';
    int status = parse_u64(text + negative, length - (size_t)negative, out);
    if (status != 0)
        return status;
    if (*out > max || (negative && *out > (uint64_t)INT64_MAX + 1))
        return -2;
    if (negative)
        *out = (uint64_t)0 - *out;
    return 0;
}

/* Reads the current scalar as a number after an optional '-' (when allowed). */
static int read_number(schema_yaml_loader_t* loader, const char* what, uint64_t max,
                       int allow_negative, uint64_t* out) {
    const char* text;
    int status;
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, what))
        return -1;
    text = scalar_text(loader);
    status =
        schema_yaml_parse_number(text, loader->event.data.scalar.length, allow_negative, max, out);
    if (status == -1)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "bad number \"%.*s\" for %s", scalar_quote_length(loader),
                                       text, what);
    if (status == -2)
        return schema_yaml_loader_fail(
            loader, loader->event.start_mark, "value %.*s out of range for %s (maximum %llu)",
            scalar_quote_length(loader), text, what, (unsigned long long)max);
    return 0;
}

int schema_yaml_read_u64(schema_yaml_loader_t* loader, const char* what, uint64_t max,
                         uint64_t* out) {
    return read_number(loader, what, max, 0, out);
}

int schema_yaml_read_i64_or_u64(schema_yaml_loader_t* loader, const char* what, uint64_t* out) {
    return read_number(loader, what, UINT64_MAX, 1, out);
}

int schema_yaml_read_bool(schema_yaml_loader_t* loader, const char* what, int* out) {
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, what))
        return -1;
    if (strcmp(scalar_text(loader), "true") == 0)
        *out = 1;
    else if (strcmp(scalar_text(loader), "false") == 0)
        *out = 0;
    else
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "bad boolean \"%.*s\" for %s (expected true or false)",
                                       scalar_quote_length(loader), scalar_text(loader), what);
    return 0;
}

int schema_yaml_scalar_is_number(const schema_yaml_loader_t* loader) {
    const yaml_event_t* event = &loader->event;
    return event->type == YAML_SCALAR_EVENT &&
           event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && event->data.scalar.length > 0 &&
           event->data.scalar.value[0] >= '0' && event->data.scalar.value[0] <= '9';
}

int schema_yaml_read_symbol(schema_yaml_loader_t* loader, const schema_yaml_name_table_t* table,
                            const char* what, uint64_t max, uint64_t* out) {
    char expected[512] = "";
    size_t used = 0;
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, what))
        return -1;
    if (schema_yaml_scalar_is_number(loader))
        return schema_yaml_read_u64(loader, what, max, out);
    if (schema_yaml_value_of(table, scalar_text(loader), loader->event.data.scalar.length, out) ==
        0)
        return 0;
    for (size_t i = 0; i < table->count && used < sizeof expected; i++) {
        int n = snprintf(expected + used, sizeof expected - used, "%s%s", i ? ", " : "",
                         table->rows[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
    return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                   "unknown %s \"%.*s\" (expected %s)", what,
                                   scalar_quote_length(loader), scalar_text(loader), expected);
}

/* ---- stream, document, item --------------------------------------------- */

static int load_item(schema_yaml_loader_t* loader) {
    static const char* const keys[] = {"schema", "enum"};
    uint32_t seen = 0;
    int key;
    if (schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "an item (schema: or enum:)") ||
        schema_yaml_loader_next(loader))
        return -1;
    if (loader->event.type == YAML_MAPPING_END_EVENT)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "empty item: expected schema: or enum:");
    key = schema_yaml_read_key(loader, keys, 2, "item", &seen);
    if (key < 0 || schema_yaml_loader_next(loader))
        return -1;
    loader->string_budget = YAML_MAX_SCHEMA_STRINGS;
    if ((key == 0 ? schema_yaml_load_schema(loader) : schema_yaml_load_enum(loader)) ||
        schema_yaml_loader_next(loader))
        return -1;
    if (loader->event.type != YAML_MAPPING_END_EVENT)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "an item holds exactly one schema: or enum:");
    return 0;
}

static int load_items(schema_yaml_loader_t* loader) {
    if (schema_yaml_expect(loader, YAML_SEQUENCE_START_EVENT, "items"))
        return -1;
    for (;;) {
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_SEQUENCE_END_EVENT)
            return 0;
        if (load_item(loader))
            return -1;
    }
}

static int load_document(schema_yaml_loader_t* loader) {
    static const char* const keys[] = {"version", "items"};
    yaml_mark_t start;
    uint32_t seen = 0;
    uint64_t version;
    if (schema_yaml_loader_next(loader) ||
        schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "the document"))
        return -1;
    start = loader->event.start_mark;
    for (;;) {
        int key;
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_MAPPING_END_EVENT)
            break;
        key = schema_yaml_read_key(loader, keys, 2, "the document", &seen);
        if (key < 0 || schema_yaml_loader_next(loader))
            return -1;
        if (key == 0 && schema_yaml_read_u64(loader, "version", UINT64_MAX, &version))
            return -1;
        if (key == 0 && version != 1)
            return schema_yaml_loader_fail(
                loader, loader->event.start_mark,
                "unsupported version %llu (this library reads version 1)",
                (unsigned long long)version);
        if (key == 1 && load_items(loader))
            return -1;
    }
    if (schema_yaml_require_keys(loader, keys, seen, 1u << 1, start, "the document") ||
        schema_yaml_loader_next(loader))
        return -1;
    return schema_yaml_expect(loader, YAML_DOCUMENT_END_EVENT, "the end of the document");
}

/* Loads every document of the stream set up in loader->parser. */
static nvtxwResultCode_t load_stream(schema_yaml_loader_t* loader) {
    if (schema_yaml_loader_next(loader))
        return loader->status;
    for (;;) {
        if (schema_yaml_loader_next(loader))
            return loader->status;
        if (loader->event.type == YAML_STREAM_END_EVENT)
            return NVTXW_RESULT_SUCCESS;
        if (load_document(loader))
            return loader->status;
    }
}

static void loader_destroy(schema_yaml_loader_t* loader) {
    if (loader->has_event)
        yaml_event_delete(&loader->event);
    yaml_parser_delete(&loader->parser);
}

static nvtxwResultCode_t loader_init(schema_yaml_loader_t* loader,
                                     nvtxw_schema_registry_t* registry, const char* source) {
    memset(loader, 0, sizeof *loader);
    loader->registry = registry;
    loader->source = source != NULL ? source : "<string>";
    loader->status = NVTXW_RESULT_SUCCESS;
    if (!yaml_parser_initialize(&loader->parser))
        return error_oom("the YAML parser");
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t nvtxw_schema_yaml_load_string(nvtxw_schema_registry_t* registry, const char* yaml,
                                                size_t length, const char* source_name) {
    schema_yaml_loader_t loader;
    nvtxwResultCode_t status;
    if (registry == NULL || (yaml == NULL && length > 0))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot load schemas: registry or text is NULL");
    status = loader_init(&loader, registry, source_name);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    yaml_parser_set_input_string(&loader.parser, (const unsigned char*)(yaml ? yaml : ""), length);
    status = load_stream(&loader);
    loader_destroy(&loader);
    return status;
}

nvtxwResultCode_t nvtxw_schema_yaml_load_file(nvtxw_schema_registry_t* registry, const char* path) {
    schema_yaml_loader_t loader;
    file_input_t input = {NULL, 0, 0, 0};
    nvtxwResultCode_t status;
    if (registry == NULL || path == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot load schemas: registry or path is NULL");
    input.file = fopen(path, "rb");
    if (input.file == NULL)
        return error_set(NVTXW_RESULT_FAILED, "cannot open schema file: path=\"%s\", %s", path,
                         strerror(errno));
    status = loader_init(&loader, registry, path);
    if (status != NVTXW_RESULT_SUCCESS)
        goto end;
    yaml_parser_set_input(&loader.parser, file_read, &input);
    status = load_stream(&loader);
    loader_destroy(&loader);
    if (input.io_error != 0)
        status = error_set(NVTXW_RESULT_FAILED, "cannot read schema file: path=\"%s\", %s", path,
                           strerror(input.io_error));
    else if (input.too_large)
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot load schema file: path=\"%s\", larger than %zu bytes", path,
                           YAML_MAX_INPUT);
end:
    fclose(input.file);
    return status;
}
