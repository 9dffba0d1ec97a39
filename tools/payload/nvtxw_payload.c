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
#include "tool_alloc.h"
#include "tool_output.h"

#define TOOL "nvtxw-payload"
#define MAX_PAYLOADS 64
/* Largest payload file, hex text included. */
#define MAX_PAYLOAD_BYTES ((size_t)64 << 20)

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
    "         --                      end of options\n"
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
    case NVTX_PAYLOAD_SCHEMA_TYPE_STATIC:
        return "static";
    case NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC:
        return "dynamic";
    case NVTX_PAYLOAD_SCHEMA_TYPE_UNION:
        return "union";
    case NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR:
        return "union (internal selector)";
    default:
        return "invalid";
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

static int is_help(const char* arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

/* check and dump: load every file into one registry (later files may use
 * types of earlier ones), then summarise or dump. A leading "--" ends the
 * options, so that a file may be called "-h". */
static int run_check_or_dump(int argc, char** argv, int dump) {
    nvtxw_schema_registry_t* registry;
    int i, status = 0;
    if (argc > 0 && is_help(argv[0])) {
        tool_put_stdout(usage_text);
        return 0;
    }
    if (argc > 0 && strcmp(argv[0], "--") == 0) {
        argc--;
        argv++;
    }
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
        printf("%s: %zu registrations, all valid\n", TOOL, nvtxw_schema_registry_count(registry));
    }
    nvtxw_schema_registry_destroy(registry);
    return status;
}

/* Grows *bytes so that it holds more than `size` bytes, up to one byte
 * beyond MAX_PAYLOAD_BYTES (the byte that tells a file is too large). */
static int grow_buffer(unsigned char** bytes, size_t* capacity) {
    size_t wanted = *capacity ? *capacity * 2 : 4096;
    unsigned char* grown;
    if (wanted > MAX_PAYLOAD_BYTES + 1)
        wanted = MAX_PAYLOAD_BYTES + 1;
    grown = nvtxw_realloc(*bytes, wanted);
    if (grown == NULL)
        return -1;
    *bytes = grown;
    *capacity = wanted;
    return 0;
}

/* Reads a whole file of at most MAX_PAYLOAD_BYTES (an empty file is a
 * payload of size 0). */
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
        if (size == MAX_PAYLOAD_BYTES + 1) {
            status = fail("%s: payload file too large (limit 64 MiB)", path);
            break;
        }
        if (size == capacity && grow_buffer(&bytes, &capacity) != 0) {
            status = fail("%s: out of memory", path);
            break;
        }
        errno = 0;
        got = fread(bytes + size, 1, capacity - size, file);
        size += got;
        if (got == 0) {
            if (ferror(file))
                fprintf(stderr, TOOL ": error: cannot read %s: %s\n", path,
                        strerror(errno != 0 ? errno : EIO));
            status = ferror(file) ? 1 : 0;
            break;
        }
    }
    fclose(file);
    if (status != 0) {
        nvtxw_free(bytes);
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
            if (c > 0x20 && c < 0x7F)
                fprintf(stderr, TOOL ": error: %s:%zu: '%c' is not a hex digit\n", path, line, c);
            else
                fprintf(stderr, TOOL ": error: %s:%zu: byte 0x%02x is not a hex digit\n", path,
                        line, (unsigned)c);
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

/* The NVTX names ("INT32", any case) and the YAML type names of
 * docs/schemas.md, which are the same but for registered_string. */
static int find_entry_type_by_name(const char* name, uint64_t* id) {
    uint64_t type;
    if (strcmp(name, "registered_string") == 0) {
        *id = NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE;
        return 1;
    }
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
static int resolve_schema(const nvtxw_schema_registry_t* registry, const char* text, uint64_t* id) {
    char* end;
    if (strcmp(text, "raw") == 0) {
        *id = NVTX_TYPE_PAYLOAD_SCHEMA_RAW;
        return 0;
    }
    if (find_schema_by_name(registry, text, id) || find_entry_type_by_name(text, id))
        return 0;
    errno = 0;
    if (text[0] >= '0' && text[0] <= '9') {
        *id = strtoull(text, &end, 0);
        if (errno == 0 && *end == '\0')
            return 0;
    }
    return usage_error("unknown schema or entry type \"%s\"", text);
}

static int parse_payload_arg(const nvtxw_schema_registry_t* registry, char* arg, payload_arg* out) {
    char* equals = strchr(arg, '=');
    const char* path;
    int hex, status;
    if (equals == NULL)
        return usage_error("\"%s\" is not SCHEMA=PAYLOAD", arg);
    if (equals == arg)
        return usage_error("\"%s\": SCHEMA is empty", arg);
    if (equals[1] == '\0' || strcmp(equals + 1, "hex:") == 0)
        return usage_error("\"%s\": PAYLOAD file name is empty", arg);
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

/* Applies one option value (format or schema file); 0, or an exit status. */
static int apply_decode_option(decode_options* options, int is_format, const char* value) {
    if (!is_format)
        return load_schemas(options->registry, value);
    if (strcmp(value, "json") != 0 && strcmp(value, "text") != 0)
        return usage_error("unknown format \"%s\" (json or text)", value);
    options->json = strcmp(value, "json") == 0;
    return 0;
}

/* Recognises -f/--format and -S/--schemas (also --format=X, --schemas=X);
 * returns 1 (format), 2 (schemas) or 0, and sets *inline_value after '='. */
static int decode_option_kind(const char* arg, const char** inline_value) {
    *inline_value = NULL;
    if (strcmp(arg, "-f") == 0 || strcmp(arg, "--format") == 0)
        return 1;
    if (strcmp(arg, "-S") == 0 || strcmp(arg, "--schemas") == 0)
        return 2;
    if (strncmp(arg, "--format=", 9) == 0)
        *inline_value = arg + 9;
    else if (strncmp(arg, "--schemas=", 10) == 0)
        *inline_value = arg + 10;
    else
        return 0;
    return arg[2] == 'f' ? 1 : 2;
}

/* Parses decode's options; returns the index of the first SCHEMA=PAYLOAD
 * argument, or a negative exit status (-1 failure, -2 usage, -3 help shown).
 * An argument starting with '-' without '=' is an option; "--" ends them. */
static int parse_decode_options(int argc, char** argv, decode_options* options) {
    int i;
    for (i = 0; i < argc; i++) {
        const char* arg = argv[i];
        const char* value;
        int kind = decode_option_kind(arg, &value), status;
        if (strcmp(arg, "--") == 0)
            return i + 1;
        if (is_help(arg)) {
            tool_put_stdout(usage_text);
            return -3;
        }
        if (kind == 0 && arg[0] == '-' && strchr(arg, '=') == NULL)
            return -usage_error("unknown option \"%s\"", arg);
        if (kind == 0)
            break;
        if (value == NULL && i + 1 >= argc)
            return -usage_error("%s needs a value", arg);
        status = apply_decode_option(options, kind == 1, value != NULL ? value : argv[++i]);
        if (status != 0)
            return -status;
    }
    return i;
}

static int discard_output(void* ctx, const char* data, size_t size) {
    (void)ctx;
    (void)data;
    (void)size;
    return 0;
}

static nvtxwResultCode_t format_payloads(const decode_options* options,
                                         const nvtxPayloadData_t* payloads, size_t count,
                                         nvtxw_write_fn write, void* write_ctx) {
    if (options->json)
        return nvtxw_payload_format_json(options->registry, payloads, count, NULL, write,
                                         write_ctx);
    return nvtxw_payload_format_text(options->registry, payloads, count, NULL, write, write_ctx);
}

/* Formats twice: once into nothing, so that a bad payload fails before any
 * output (stdout stays empty on error, whatever the output size), then to
 * stdout. Memory stays constant either way. */
static int decode_payloads(const decode_options* options, const payload_arg* args, size_t count) {
    nvtxPayloadData_t payloads[MAX_PAYLOADS];
    size_t i;
    for (i = 0; i < count; i++) {
        payloads[i].schemaId = args[i].schema_id;
        payloads[i].size = args[i].size;
        payloads[i].payload = args[i].bytes;
    }
    if (format_payloads(options, payloads, count, discard_output, NULL) != NVTXW_RESULT_SUCCESS ||
        format_payloads(options, payloads, count, nvtxw_write_to_file, stdout) !=
            NVTXW_RESULT_SUCCESS)
        return fail("%s", nvtxw_last_error());
    if (options->json)
        putchar('\n');
    return 0;
}

/* Reads the SCHEMA=PAYLOAD arguments into args and decodes them. */
static int decode_arguments(const decode_options* options, int argc, char** argv,
                            payload_arg* args) {
    int i, status = 0;
    if (argc == 0)
        return usage_error("%s", "decode: no SCHEMA=PAYLOAD given");
    if (argc > MAX_PAYLOADS)
        return usage_error("%s", "decode: more than 64 payloads");
    for (i = 0; status == 0 && i < argc; i++)
        status = parse_payload_arg(options->registry, argv[i], &args[i]);
    return status != 0 ? status : decode_payloads(options, args, (size_t)argc);
}

static int run_decode(int argc, char** argv) {
    decode_options options = {1, NULL};
    payload_arg args[MAX_PAYLOADS];
    size_t i;
    int first, status;
    memset(args, 0, sizeof args);
    options.registry = nvtxw_schema_registry_create();
    if (options.registry == NULL)
        return fail("%s", "out of memory");
    first = parse_decode_options(argc, argv, &options);
    if (first == -3)
        status = 0; /* help shown */
    else if (first < 0)
        status = -first;
    else
        status = decode_arguments(&options, argc - first, argv + first, args);
    for (i = 0; i < MAX_PAYLOADS; i++)
        nvtxw_free(args[i].bytes); /* unused slots are zeroed */
    nvtxw_schema_registry_destroy(options.registry);
    return status;
}

static int run_command(int argc, char** argv) {
    const char* command = argv[1];
    if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0) {
        tool_put_stdout(usage_text);
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

int main(int argc, char** argv) {
    tool_ignore_file_size_signal();
    if (argc < 2)
        return usage_error("%s", "no command given");
    return tool_finish_stdout(TOOL, run_command(argc, argv));
}
