/*
 * nvtxw-payload - check payload schema files and decode binary payloads.
 *
 *   nvtxw-payload check FILE.yaml...
 *   nvtxw-payload dump FILE.yaml...
 *   nvtxw-payload decode [-f json|text] [-S FILE.yaml]... SCHEMA=PAYLOAD...
 *
 * A thin client of the public API: schemas are loaded with
 * nvtxw_schema_yaml_load_file, payloads decoded with nvtxw_payload_format_*.
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nvtxw/nvtxw.h"

#define TOOL "nvtxw-payload"
#define MAX_PAYLOADS 64
#define MAX_PAYLOAD_BYTES (64u << 20)

static const char usage_text[] =
    "Usage: " TOOL " check FILE.yaml...\n"
    "       " TOOL " dump FILE.yaml...\n"
    "       " TOOL " decode [-f json|text] [-S FILE.yaml]... SCHEMA=PAYLOAD...\n"
    "\n"
    "check   load payload schema files, report errors, summarise each schema\n"
    "dump    load schema files and print them back as YAML\n"
    "decode  decode the payloads of one event and print them\n"
    "\n"
    "SCHEMA  a schema name or numeric ID from the -S files, a predefined entry\n"
    "        type (int32, double, cstring_utf8, ...), or 'raw'\n"
    "PAYLOAD a file of raw bytes, or hex:FILE for hex text ('#' starts a comment)\n"
    "\n"
    "Options: -f, --format json|text  output format of decode (default json)\n"
    "         -S, --schemas FILE      load schemas from a YAML file (repeatable)\n"
    "         -h, --help              show this help\n"
    "         -V, --version           show the version\n";

typedef struct payload_arg {
    uint64_t schema_id;
    unsigned char* bytes;
    size_t size;
} payload_arg;

static int fail(const char* format, const char* detail) {
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, format, detail);
    fputc('\n', stderr);
    return 1;
}

static int usage_error(const char* message, const char* detail) {
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, message, detail);
    fprintf(stderr, "\nTry '" TOOL " --help'.\n");
    return 2;
}

static int load_schemas(nvtxw_schema_registry_t* registry, const char* path) {
    if (nvtxw_schema_yaml_load_file(registry, path) != NVTXW_RESULT_SUCCESS)
        return fail("%s", nvtxw_last_error());
    return 0;
}

static const char* schema_kind_name(uint64_t type) {
    switch (type) {
    case NVTX_PAYLOAD_SCHEMA_TYPE_STATIC: return "static";
    case NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC: return "dynamic";
    case NVTX_PAYLOAD_SCHEMA_TYPE_UNION: return "union";
    case NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR: return "union (internal selector)";
    default: return "invalid";
    }
}

static void print_schema_summary(const nvtxw_schema_t* schema) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxw_schema_get_attr(schema, &attr);
    printf("schema %" PRIu64 " \"%s\": %s, %s%zu bytes, align %zu, %zu entries\n",
           nvtxw_schema_id(schema), nvtxw_schema_name(schema), schema_kind_name(attr.type),
           nvtxw_schema_is_variable_size(schema) ? "variable size, at least " : "",
           nvtxw_schema_static_size(schema), nvtxw_schema_alignment(schema), attr.numEntries);
}

static void print_enum_summary(const nvtxw_enum_t* enumeration) {
    nvtxPayloadEnumAttr_t attr;
    nvtxw_enum_get_attr(enumeration, &attr);
    printf("enum %" PRIu64 " \"%s\": %zu bytes, %zu values\n", nvtxw_enum_id(enumeration),
           attr.name ? attr.name : "", attr.sizeOfEnum, attr.numEntries);
}

static void print_registry_summary(const nvtxw_schema_registry_t* registry) {
    size_t i, count = nvtxw_schema_registry_count(registry);
    for (i = 0; i < count; i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxw_schema_registry_at(registry, i, &schema, &enumeration);
        if (schema != NULL)
            print_schema_summary(schema);
        else
            print_enum_summary(enumeration);
    }
}

/* check and dump: load every file into one registry (later files may use
 * types of earlier ones), then summarise or dump. */
static int run_check_or_dump(int argc, char** argv, int dump) {
    nvtxw_schema_registry_t* registry;
    int i, status = 0;
    if (argc < 1)
        return usage_error("%s: no schema file given", dump ? "dump" : "check");
    registry = nvtxw_schema_registry_create();
    if (registry == NULL)
        return fail("%s", "out of memory");
    for (i = 0; i < argc && status == 0; i++)
        status = load_schemas(registry, argv[i]);
    if (status == 0 && dump) {
        if (nvtxw_schema_yaml_dump(registry, nvtxw_write_to_file, stdout) != NVTXW_RESULT_SUCCESS)
            status = fail("%s", nvtxw_last_error());
    } else if (status == 0) {
        print_registry_summary(registry);
        printf("%s: %zu registrations, all valid\n", TOOL,
               nvtxw_schema_registry_count(registry));
    }
    nvtxw_schema_registry_destroy(registry);
    return status;
}

/* Reads a whole file of at most MAX_PAYLOAD_BYTES. */
static int read_file(const char* path, unsigned char** bytes_out, size_t* size_out) {
    FILE* file = fopen(path, "rb");
    unsigned char* bytes = NULL;
    size_t size = 0, capacity = 0;
    int status = 0;
    if (file == NULL) {
        fprintf(stderr, TOOL ": error: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (;;) {
        size_t got;
        if (size == capacity) {
            unsigned char* grown;
            capacity = capacity ? capacity * 2 : 4096;
            if (capacity > MAX_PAYLOAD_BYTES + 1 || (grown = realloc(bytes, capacity)) == NULL) {
                status = fail("%s: payload file too large (limit 64 MiB)", path);
                break;
            }
            bytes = grown;
        }
        got = fread(bytes + size, 1, capacity - size, file);
        size += got;
        if (got == 0) {
            if (ferror(file))
                status = fail("cannot read %s", path);
            break;
        }
    }
    fclose(file);
    if (status != 0) {
        free(bytes);
        return status;
    }
    *bytes_out = bytes;
    *size_out = size;
    return 0;
}

static int hex_digit(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Converts hex text in place: pairs of hex digits, whitespace ignored, '#'
 * comments to the end of the line. Reports the line of a bad character. */
static int parse_hex(const char* path, unsigned char* text, size_t* size) {
    size_t in, out = 0, line = 1;
    int high = -1;
    for (in = 0; in < *size; in++) {
        int c = text[in], value;
        if (c == '#') {
            while (in < *size && text[in] != '\n')
                in++;
        }
        if (in < *size && text[in] == '\n')
            line++;
        if (in >= *size || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if ((value = hex_digit(c)) < 0) {
            fprintf(stderr, TOOL ": error: %s:%zu: '%c' is not a hex digit\n", path, line, c);
            return 1;
        }
        if (high < 0) {
            high = value;
        } else {
            text[out++] = (unsigned char)(high << 4 | value);
            high = -1;
        }
    }
    if (high >= 0)
        return fail("%s: odd number of hex digits", path);
    *size = out;
    return 0;
}

static int find_schema_by_name(const nvtxw_schema_registry_t* registry, const char* name,
                               uint64_t* id) {
    size_t i, count = nvtxw_schema_registry_count(registry);
    for (i = 0; i < count; i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxw_schema_registry_at(registry, i, &schema, &enumeration);
        if (schema != NULL && strcmp(nvtxw_schema_name(schema), name) == 0) {
            *id = nvtxw_schema_id(schema);
            return 1;
        }
    }
    return 0;
}

static int find_entry_type_by_name(const char* name, uint64_t* id) {
    uint64_t type;
    for (type = 1; type < NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED; type++) {
        const char* type_name = nvtxw_entry_type_name(type);
        if (type_name != NULL && strcasecmp(type_name, name) == 0) {
            *id = type;
            return 1;
        }
    }
    return 0;
}

/* SCHEMA: schema name, entry type name, "raw", or a number. */
static int resolve_schema(const nvtxw_schema_registry_t* registry, const char* text,
                          uint64_t* id) {
    char* end;
    if (strcmp(text, "raw") == 0) {
        *id = NVTX_TYPE_PAYLOAD_SCHEMA_RAW;
        return 0;
    }
    if (find_schema_by_name(registry, text, id) || find_entry_type_by_name(text, id))
        return 0;
    errno = 0;
    *id = strtoull(text, &end, 0);
    if (errno == 0 && end != text && *end == '\0')
        return 0;
    return usage_error("unknown schema or entry type \"%s\"", text);
}

static int parse_payload_arg(const nvtxw_schema_registry_t* registry, char* arg,
                             payload_arg* out) {
    char* equals = strchr(arg, '=');
    const char* path;
    int hex, status;
    if (equals == NULL)
        return usage_error("\"%s\" is not SCHEMA=PAYLOAD", arg);
    *equals = '\0';
    status = resolve_schema(registry, arg, &out->schema_id);
    if (status != 0)
        return status;
    path = equals + 1;
    hex = strncmp(path, "hex:", 4) == 0;
    if (hex)
        path += 4;
    status = read_file(path, &out->bytes, &out->size);
    if (status == 0 && hex)
        status = parse_hex(path, out->bytes, &out->size);
    return status;
}

typedef struct decode_options {
    int json;
    nvtxw_schema_registry_t* registry;
} decode_options;

/* Parses decode's options; returns the index of the first SCHEMA=PAYLOAD
 * argument, or a negative exit status (-1 failure, -2 usage). */
static int parse_decode_options(int argc, char** argv, decode_options* options) {
    int i;
    for (i = 0; i < argc; i++) {
        const char* arg = argv[i];
        int is_format = strcmp(arg, "-f") == 0 || strcmp(arg, "--format") == 0;
        int is_schemas = strcmp(arg, "-S") == 0 || strcmp(arg, "--schemas") == 0;
        if (!is_format && !is_schemas)
            break;
        if (i + 1 >= argc)
            return -usage_error("%s needs a value", arg);
        arg = argv[++i];
        if (is_schemas && load_schemas(options->registry, arg) != 0)
            return -1;
        if (is_format && strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0)
            return -usage_error("unknown format \"%s\" (json or text)", arg);
        if (is_format)
            options->json = strcmp(arg, "json") == 0;
    }
    return i;
}

static int decode_payloads(const decode_options* options, const payload_arg* args,
                           size_t count) {
    nvtxPayloadData_t payloads[MAX_PAYLOADS];
    nvtxwResultCode_t result;
    size_t i;
    for (i = 0; i < count; i++) {
        payloads[i].schemaId = args[i].schema_id;
        payloads[i].size = args[i].size;
        payloads[i].payload = args[i].bytes;
    }
    if (options->json)
        result = nvtxw_payload_format_json(options->registry, payloads, count, NULL,
                                           nvtxw_write_to_file, stdout);
    else
        result = nvtxw_payload_format_text(options->registry, payloads, count, NULL,
                                           nvtxw_write_to_file, stdout);
    if (result != NVTXW_RESULT_SUCCESS)
        return fail("%s", nvtxw_last_error());
    if (options->json)
        putchar('\n');
    return 0;
}

static int run_decode(int argc, char** argv) {
    decode_options options = {1, NULL};
    payload_arg args[MAX_PAYLOADS];
    size_t count = 0, i;
    int first, status = 0;
    memset(args, 0, sizeof args);
    options.registry = nvtxw_schema_registry_create();
    if (options.registry == NULL)
        return fail("%s", "out of memory");
    first = parse_decode_options(argc, argv, &options);
    if (first < 0)
        status = -first;
    else if (first == argc)
        status = usage_error("%s", "decode: no SCHEMA=PAYLOAD given");
    else if (argc - first > MAX_PAYLOADS)
        status = usage_error("%s", "decode: more than 64 payloads");
    for (i = 0; status == 0 && (int)i < argc - first; i++, count++)
        status = parse_payload_arg(options.registry, argv[first + i], &args[i]);
    if (status == 0)
        status = decode_payloads(&options, args, count);
    for (i = 0; i < MAX_PAYLOADS; i++)
        free(args[i].bytes); /* unused slots are zeroed */
    nvtxw_schema_registry_destroy(options.registry);
    return status;
}

int main(int argc, char** argv) {
    const char* command = argc > 1 ? argv[1] : NULL;
    if (command == NULL)
        return usage_error("%s", "no command given");
    if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(command, "-V") == 0 || strcmp(command, "--version") == 0) {
        printf(TOOL " %s (libnvtxw %s)\n", PACKAGE_VERSION, nvtxw_version());
        return 0;
    }
    if (strcmp(command, "check") == 0)
        return run_check_or_dump(argc - 2, argv + 2, 0);
    if (strcmp(command, "dump") == 0)
        return run_check_or_dump(argc - 2, argv + 2, 1);
    if (strcmp(command, "decode") == 0)
        return run_decode(argc - 2, argv + 2);
    return usage_error("unknown command \"%s\"", command);
}
