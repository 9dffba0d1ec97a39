/*
 * sink/json/json_encode.c - JSON text for the Chrome/Perfetto sink: strings
 * (RFC 8259 escaping, invalid UTF-8 as U+FFFD), exact integers, shortest
 * round-trip doubles, microseconds printed from integer nanoseconds with no
 * floating point, the reserved "cname" table, and the per-stream map of open
 * start/end ranges. Everything appends to a strbuf; nothing here is shared
 * between streams.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/utf8.h"
#include "payload/format_common.h"
#include "sink/json/json_internal.h"

static const char hex_digits[] = "0123456789abcdef";

/* "00" .. "99": two digits per division. */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* A string byte copied as it is: printable ASCII but '"' and '\\' (the
 * unsigned subtraction puts control characters and bytes from 0x80, which
 * need a UTF-8 check, out of range). */
static int plain_byte(unsigned char c) {
    return (unsigned char)(c - 0x20) < 0x60 && c != '"' && c != '\\';
}

/* The escape of byte c below 0x20, '"' or '\\'. */
static const char* ascii_escape(unsigned char c, char scratch[8]) {
    static const char* const named[] = {
        ['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f",
        ['\n'] = "\\n", ['\r'] = "\\r",  ['\t'] = "\\t"};
    if (c < sizeof named / sizeof named[0] && named[c] != NULL)
        return named[c];
    memcpy(scratch, "\\u00", 4);
    scratch[4] = hex_digits[c >> 4];
    scratch[5] = hex_digits[c & 15];
    scratch[6] = '\0';
    return scratch;
}

/* Appends what plain_byte refused at s[at]: its escape, \ufffd for a byte
 * that starts no well-formed UTF-8 sequence, or the well-formed sequence
 * itself. Returns the bytes consumed, or 0 when out of memory. */
static size_t put_special(strbuf* out, const unsigned char* s, size_t at, size_t length) {
    char scratch[8];
    const char* escape;
    size_t consumed = 1;
    if (s[at] < 0x80)
        escape = ascii_escape(s[at], scratch);
    else if ((consumed = utf8_sequence_length(s + at, length - at)) == 0) {
        escape = "\\ufffd";
        consumed = 1;
    } else
        return strbuf_append(out, (const char*)s + at, consumed) != 0 ? 0 : consumed;
    return strbuf_append(out, escape, strlen(escape)) != 0 ? 0 : consumed;
}

/* Runs of bytes that need nothing are copied whole, into room reserved
 * once for the common case (no escapes). */
int json_put_string(strbuf* out, const char* text, size_t length) {
    const unsigned char* s = (const unsigned char*)text;
    size_t start = 0, i = 0;
    if (strbuf_reserve(out, length + 2) != 0)
        return -1;
    out->data[out->length++] = '"';
    for (;;) {
        size_t consumed;
        while (i < length && plain_byte(s[i]))
            i++;
        if (strbuf_append(out, text + start, i - start) != 0)
            return -1;
        if (i == length)
            break;
        if ((consumed = put_special(out, s, i, length)) == 0)
            return -1;
        start = i += consumed;
    }
    return strbuf_append(out, "\"", 1);
}

int json_put_cstring(strbuf* out, const char* text) {
    return json_put_string(out, text, strlen(text));
}

char* json_format_u64(char* at, uint64_t value) {
    char digits[20];
    char* d = digits + sizeof digits;
    size_t count;
    while (value >= 100) {
        unsigned pair = (unsigned)(value % 100);
        value /= 100;
        d -= 2;
        memcpy(d, digit_pairs + 2 * pair, 2);
    }
    if (value >= 10) {
        d -= 2;
        memcpy(d, digit_pairs + 2 * value, 2);
    } else {
        *--d = (char)('0' + value);
    }
    count = (size_t)(digits + sizeof digits - d);
    memcpy(at, d, count);
    return at + count;
}

char* json_format_i64(char* at, int64_t value) {
    if (value >= 0)
        return json_format_u64(at, (uint64_t)value);
    *at++ = '-';
    return json_format_u64(at, 0 - (uint64_t)value);
}

char* json_format_micros(char* at, int64_t ns) {
    uint64_t magnitude = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    unsigned fraction = (unsigned)(magnitude % 1000);
    if (ns < 0)
        *at++ = '-';
    at = json_format_u64(at, magnitude / 1000);
    at[0] = '.';
    at[1] = (char)('0' + fraction / 100);
    memcpy(at + 2, digit_pairs + 2 * (fraction % 100), 2);
    return at + 4;
}

/* Room for one formatted number at the buffer's end, or NULL when out of
 * memory; number_done then takes the bytes up to `end`. */
static char* number_room(strbuf* out) {
    return strbuf_reserve(out, JSON_NUMBER_MAX) != 0 ? NULL : out->data + out->length;
}

static int number_done(strbuf* out, char* end) {
    out->length = (size_t)(end - out->data);
    *end = '\0';
    return 0;
}

int json_put_u64(strbuf* out, uint64_t value) {
    char* at = number_room(out);
    return at == NULL ? -1 : number_done(out, json_format_u64(at, value));
}

int json_put_i64(strbuf* out, int64_t value) {
    char* at = number_room(out);
    return at == NULL ? -1 : number_done(out, json_format_i64(at, value));
}

/* 10^0 .. 10^17, each exact in a double. */
static const double exact_tens[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                    1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};

/*
 * Most doubles in traces are short decimals (0.5, 2.0, 9.362). When the
 * value is the double nearest to D = m / 10^k (m an integer below 10^15,
 * k <= 17; m / 10^k rounded exactly, m and 10^k being exact doubles),
 * rounding it to 15 significant digits gives D (half an ulp is far below
 * half a 15-digit step), so "%.15g" prints D, and D reads back as the
 * value: json_put_double's loop stops there. For 1e-4 <= |D| < 1e15, %g
 * writes D without an exponent, as its digits with no trailing zeros,
 * which is what this writes at `at` (room for JSON_NUMBER_MAX bytes).
 * NULL for any other value: printf decides.
 */
static char* short_decimal(char* at, double value) {
    double magnitude = fabs(value);
    size_t k;
    if (!(magnitude >= 1e-4 && magnitude < 1e15))
        return NULL;
    for (k = 0; k < sizeof exact_tens / sizeof exact_tens[0]; k++) {
        double scaled = magnitude * exact_tens[k];
        uint64_t m, unit;
        if (scaled >= 1e15)
            return NULL;
        if (scaled != floor(scaled) || scaled / exact_tens[k] != magnitude)
            continue;
        /* A rounded product may be integral one power too late (4.35 *
         * 100 is not, 4.35 * 1000 is 4350): the same D, its zeros dropped. */
        for (m = (uint64_t)scaled; k > 0 && m % 10 == 0; k--)
            m /= 10;
        unit = (uint64_t)exact_tens[k];
        if (value < 0)
            *at++ = '-';
        at = json_format_u64(at, m / unit);
        if (k > 0) { /* m % unit + unit: "1", then the k digits with their leading zeros */
            char digits[20];
            json_format_u64(digits, m % unit + unit);
            *at++ = '.';
            memcpy(at, digits + 1, k);
            at += k;
        }
        return at;
    }
    return NULL;
}

/* 15 significant digits suffice for most doubles; go up to 17 until the text
 * reads back equal (subnormals may need fewer, so they start at 1). An
 * integral value keeps a ".0" ("1.0", not "1"): readers that type numbers by
 * their text (our Chrome input: INT64 without '.', 'e' or 'E') read a double
 * back as a double. */
int json_put_double(strbuf* out, double value) {
    char text[FORMAT_DOUBLE_CHARS];
    int length = 0, precision;
    char *comma, *at, *end;
    if (isnan(value))
        return strbuf_append(out, "\"nan\"", 5);
    if (isinf(value))
        return value > 0 ? strbuf_append(out, "\"inf\"", 5) : strbuf_append(out, "\"-inf\"", 6);
    if ((at = number_room(out)) == NULL)
        return -1;
    if ((end = short_decimal(at, value)) != NULL) {
        if (memchr(at, '.', (size_t)(end - at)) == NULL) {
            memcpy(end, ".0", 2);
            end += 2;
        }
        return number_done(out, end);
    }
    precision = value != 0 && fabs(value) < DBL_MIN ? 1 : 15;
    for (; precision <= 17; precision++) {
        length = snprintf(text, sizeof text, "%.*g", precision, value);
        if (strtod(text, NULL) == value)
            break;
    }
    /* A locale with a decimal comma: JSON wants '.'. */
    if ((comma = strchr(text, ',')) != NULL)
        *comma = '.';
    if (strpbrk(text, ".e") == NULL && length + 2 < (int)sizeof text) {
        text[length++] = '.';
        text[length++] = '0';
        text[length] = '\0';
    }
    return strbuf_append(out, text, (size_t)length);
}

int json_put_micros(strbuf* out, int64_t ns) {
    char* at = number_room(out);
    return at == NULL ? -1 : number_done(out, json_format_micros(at, ns));
}

char* json_format_hex_id(char* at, uint64_t value) {
    char digits[20];
    size_t n = sizeof digits;
    digits[--n] = '"';
    do {
        digits[--n] = hex_digits[value & 15];
        value >>= 4;
    } while (value != 0);
    digits[--n] = 'x';
    digits[--n] = '0';
    digits[--n] = '"';
    memcpy(at, digits + n, sizeof digits - n);
    return at + (sizeof digits - n);
}

int json_put_hex_id(strbuf* out, uint64_t value) {
    char* at = number_room(out);
    return at == NULL ? -1 : number_done(out, json_format_hex_id(at, value));
}

int64_t json_rebase_counted(int64_t ts, int64_t base, uint64_t* saturated) {
    if (base > 0 && ts < INT64_MIN + base) {
        ++*saturated;
        return INT64_MIN;
    }
    if (base < 0 && ts > INT64_MAX + base) {
        ++*saturated;
        return INT64_MAX;
    }
    return ts - base;
}

int64_t json_rebase(int64_t ts, int64_t base) {
    uint64_t ignored = 0;
    return json_rebase_counted(ts, base, &ignored);
}

/* trace-viewer's reserved color names (tracing/base/color_scheme.js) that
 * Chrome, Perfetto's legacy UI and the DevTools engine accept, with their
 * RGB values; docs/chrome-json.md repeats the table. */
static const struct {
    const char* name;
    unsigned char r, g, b;
} cnames[] = {
    {"thread_state_uninterruptible", 182, 125, 143},
    {"thread_state_iowait", 255, 140, 0},
    {"thread_state_running", 126, 200, 148},
    {"thread_state_runnable", 133, 160, 210},
    {"thread_state_unknown", 199, 155, 125},
    {"background_memory_dump", 0, 180, 180},
    {"light_memory_dump", 0, 0, 180},
    {"detailed_memory_dump", 180, 0, 180},
    {"vsync_highlight_color", 0, 0, 255},
    {"generic_work", 125, 125, 125},
    {"good", 0, 125, 0},
    {"bad", 180, 125, 0},
    {"terrible", 180, 0, 0},
    {"black", 0, 0, 0},
    {"grey", 221, 221, 221},
    {"white", 255, 255, 255},
    {"yellow", 255, 255, 0},
    {"olive", 100, 100, 0},
    {"rail_response", 67, 135, 253},
    {"rail_animation", 244, 74, 63},
    {"rail_idle", 238, 142, 0},
    {"rail_load", 13, 168, 97},
    {"cq_build_passed", 153, 238, 102},
    {"cq_build_failed", 238, 136, 136},
};

const char* json_cname(uint32_t argb) {
    int r = (int)(argb >> 16 & 0xFF), g = (int)(argb >> 8 & 0xFF), b = (int)(argb & 0xFF);
    size_t i, best = 0;
    long best_distance = -1;
    for (i = 0; i < sizeof cnames / sizeof cnames[0]; i++) {
        long dr = r - cnames[i].r, dg = g - cnames[i].g, db = b - cnames[i].b;
        long distance = dr * dr + dg * dg + db * db;
        if (best_distance < 0 || distance < best_distance) {
            best_distance = distance;
            best = i;
        }
    }
    return cnames[best].name;
}

/* ---- Open start/end ranges: open addressing, backward-shift removal ---- */

static size_t range_slot(const json_range_map* map, uint64_t id) {
    uint64_t h = id * 0x9E3779B97F4A7C15u;
    size_t mask = map->capacity - 1, i = (size_t)(h >> 32) & mask;
    while (map->slots[i].label != NULL && map->slots[i].id != id)
        i = (i + 1) & mask;
    return i;
}

static int range_grow(json_range_map* map) {
    size_t capacity = map->capacity ? map->capacity * 2 : 16, i;
    json_range_map grown = {nvtxw_calloc(capacity, sizeof(json_range)), capacity, map->count};
    if (grown.slots == NULL)
        return -1;
    for (i = 0; i < map->capacity; i++)
        if (map->slots[i].label != NULL)
            grown.slots[range_slot(&grown, map->slots[i].id)] = map->slots[i];
    nvtxw_free(map->slots);
    *map = grown;
    return 0;
}

int json_ranges_put(json_range_map* map, uint64_t id, const char* name, const char* cat) {
    size_t name_length = strlen(name), cat_length = strlen(cat), i;
    char* label;
    if ((map->count + 1) * 2 > map->capacity && range_grow(map) != 0)
        return -1;
    if ((label = nvtxw_malloc(name_length + cat_length + 2)) == NULL)
        return -1;
    memcpy(label, name, name_length + 1);
    memcpy(label + name_length + 1, cat, cat_length + 1);
    i = range_slot(map, id);
    if (map->slots[i].label != NULL)
        nvtxw_free(map->slots[i].label); /* a reused ID replaces the older range */
    else
        map->count++;
    map->slots[i].id = id;
    map->slots[i].label = label;
    return 0;
}

char* json_ranges_take(json_range_map* map, uint64_t id) {
    size_t i, j, mask = map->capacity - 1;
    char* label;
    if (map->capacity == 0 || map->slots[i = range_slot(map, id)].label == NULL)
        return NULL;
    label = map->slots[i].label;
    map->slots[i].label = NULL;
    map->count--;
    /* Move later members of the probe run back into the hole. */
    for (j = (i + 1) & mask; map->slots[j].label != NULL; j = (j + 1) & mask) {
        size_t home = (size_t)((map->slots[j].id * 0x9E3779B97F4A7C15u) >> 32) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            map->slots[i] = map->slots[j];
            map->slots[j].label = NULL;
            i = j;
        }
    }
    return label;
}

void json_ranges_free(json_range_map* map) {
    size_t i;
    for (i = 0; i < map->capacity; i++)
        nvtxw_free(map->slots[i].label);
    nvtxw_free(map->slots);
    memset(map, 0, sizeof *map);
}
