/*
 * payload/visit_string.c - C-string entries (spec 3.2 "String entry forms")
 * and their transcoding to UTF-8.
 *
 * Forms, by array kind and detail of a CSTRING* entry (data found inline, at
 * a pointer target or at an offset, see visit_entry.c):
 *   no array kind, detail > 0   fixed string of detail code units
 *   FIXED_SIZE                  the same (the flag is redundant)
 *   LENGTH_INDEX                length in code units from an earlier entry
 *   LENGTH_PAYLOAD_INDEX        length from payload #detail (one value)
 *   ZERO_TERMINATED, detail 0   NUL-terminated, bounded by the region end
 *                               (no NUL: the rest of the region)
 *   ZERO_TERMINATED, detail > 0 array of fixed strings of detail units,
 *                               ended by an all-zero element
 *   no array kind, detail 0     NUL-terminated (the pointer forms)
 * Every string value is cut at its first NUL code unit. CSTRING (locale) is
 * taken as UTF-8. Invalid UTF-8, unpaired surrogates and code points beyond
 * U+10FFFF become U+FFFD. A string is one on_string, never an array of
 * characters (the sample's wrapping, spec 7.3 step 3, is not followed).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "payload/visit_internal.h"

#define REPLACEMENT 0xFFFDu

/* Decodes one UTF-8 sequence of at most n bytes; invalid input yields
 * U+FFFD and consumes one byte. Returns the bytes consumed. */
static size_t utf8_decode(const uint8_t* s, size_t n, uint32_t* cp) {
    uint32_t c = s[0];
    size_t length;
    size_t k;
    uint32_t min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        length = 2, min = 0x80, c &= 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        length = 3, min = 0x800, c &= 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4, min = 0x10000, c &= 0x07;
    } else {
        *cp = REPLACEMENT;
        return 1;
    }
    for (k = 1; k < length; k++) {
        if (k >= n || (s[k] & 0xC0) != 0x80) {
            *cp = REPLACEMENT;
            return 1;
        }
        c = (c << 6) | (s[k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *cp = REPLACEMENT;
        return 1;
    }
    *cp = c;
    return length;
}

static size_t utf8_encode(uint32_t c, char* out) {
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static int utf8_valid(const uint8_t* s, size_t n) {
    size_t k = 0;
    while (k < n) {
        uint32_t cp;
        size_t used;
        uint64_t word;
        if (n - k >= 8) { /* ASCII runs, eight bytes at a time */
            memcpy(&word, s + k, 8);
            if ((word & 0x8080808080808080ull) == 0) {
                k += 8;
                continue;
            }
        }
        if (s[k] < 0x80) {
            k++;
            continue;
        }
        used = utf8_decode(s + k, n - k, &cp);
        if (cp == REPLACEMENT && used == 1)
            return 0;
        k += used;
    }
    return 1;
}

static int scratch_reserve(visit_state_t* vs, size_t size) {
    char* grown;
    if (size <= vs->scratch_capacity)
        return 0;
    grown = nvtxw_malloc(size);
    if (grown == NULL)
        return error_oom("a decoded string");
    if (vs->scratch != vs->inline_scratch)
        nvtxw_free(vs->scratch);
    vs->scratch = grown;
    vs->scratch_capacity = size;
    return 0;
}

static uint32_t read_unit(const uint8_t* p, size_t unit) {
    return (uint32_t)visit_read_unsigned(p, unit);
}

/* Code units before the first NUL unit among the `units` at p. */
static size_t unit_length(const uint8_t* p, size_t units, size_t unit) {
    size_t n = 0;
    if (unit == 1) {
        const uint8_t* nul = units ? memchr(p, 0, units) : NULL;
        return nul ? (size_t)(nul - p) : units;
    }
    while (n < units && read_unit(p + n * unit, unit) != 0)
        n++;
    return n;
}

/* Code points of `units` units at p into the scratch buffer. */
static size_t transcode(visit_state_t* vs, const uint8_t* p, size_t units, size_t unit) {
    size_t k = 0;
    size_t out = 0;
    while (k < units) {
        uint32_t c;
        if (unit == 1) {
            k += utf8_decode(p + k, units - k, &c);
        } else {
            c = read_unit(p + k * unit, unit);
            k++;
            if (unit == 2 && c >= 0xD800 && c <= 0xDBFF && k < units) {
                uint32_t low = read_unit(p + k * unit, unit);
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                    k++;
                }
            }
            if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
                c = REPLACEMENT;
        }
        out += utf8_encode(c, vs->scratch + out);
    }
    vs->scratch[out] = '\0';
    return out;
}

int visit_emit_string(visit_state_t* vs, const uint8_t* p, size_t units, size_t unit) {
    size_t length = unit_length(p, units, unit);
    size_t out;
    int status;
    if (unit == 1 && utf8_valid(p, length)) {
        /* In place when its NUL lies inside the bounds, else copied. */
        if (length < units)
            return VISIT_CALL(vs, on_string, (const char*)p, length);
        status = scratch_reserve(vs, length + 1);
        if (status != 0)
            return status;
        memcpy(vs->scratch, p, length);
        vs->scratch[length] = '\0';
        return VISIT_CALL(vs, on_string, vs->scratch, length);
    }
    if (length > (SIZE_MAX - 1) / 4)
        return visit_fail(vs, "string of %zu code units too long", length);
    status = scratch_reserve(vs, length * (unit == 4 ? 4 : 3) + 1);
    if (status != 0)
        return status;
    out = transcode(vs, p, length, unit);
    return VISIT_CALL(vs, on_string, vs->scratch, out);
}

/* NUL-terminated string at pos: code units before the NUL; *terminated. */
static size_t scan_units(const visit_region_t* r, size_t pos, size_t unit, int* terminated) {
    size_t avail = (r->size - pos) / unit;
    size_t n = unit_length(r->data + pos, avail, unit);
    *terminated = n < avail;
    return n;
}

/* detail > 0 with ZERO_TERMINATED: fixed strings until an all-zero one. */
static int string_array(visit_state_t* vs, const visit_region_t* r, size_t pos, size_t width,
                        size_t unit, size_t* consumed) {
    size_t n = 0;
    size_t avail = (r->size - pos) / width;
    size_t k;
    int status;
    while (n < avail) {
        const uint8_t* e = r->data + pos + n * width;
        if (e[0] == 0 && memcmp(e, e + 1, width - 1) == 0)
            break;
        n++;
    }
    *consumed = (n + (n < avail)) * width;
    status = VISIT_CALL(vs, array_begin, (uint64_t)n);
    for (k = 0; k < n && status == 0; k++) {
        status = visit_path_push(vs, NULL, 0, k);
        if (status == 0)
            status = visit_emit_string(vs, r->data + pos + k * width, width / unit, unit);
        if (status == 0)
            visit_path_pop(vs);
    }
    return status ? status : VISIT_CALL0(vs, array_end);
}

/* Length in code units of LENGTH_INDEX / LENGTH_PAYLOAD_INDEX strings. */
static int string_length(visit_state_t* vs, visit_frame_t* f, size_t i, uint64_t* units) {
    uint64_t dims[REGISTRY_MAX_DIMS];
    size_t ndims = 0;
    int status = visit_lengths(vs, f, i, dims, &ndims);
    if (status != 0)
        return status;
    if (ndims != 1)
        return visit_fail(vs, "string length source gives %zu values, expected one", ndims);
    *units = dims[0];
    return 0;
}

int visit_string_entry(visit_state_t* vs, visit_frame_t* f, size_t i, const visit_region_t* r,
                       size_t pos, size_t* consumed) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    uint64_t detail = f->schema->entries[i].arrayOrUnionDetail;
    size_t unit = fe->element_size;
    uint64_t units = detail;
    int status;
    int terminated;
    if (pos > r->size)
        return visit_need(vs, r, pos, 0);
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED && detail > 0) {
        if (detail > SIZE_MAX / unit)
            return visit_fail(vs, "string width %llu overflows", (unsigned long long)detail);
        return string_array(vs, r, pos, (size_t)detail * unit, unit, consumed);
    }
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED ||
        (fe->array == 0 && detail == 0)) {
        size_t n = scan_units(r, pos, unit, &terminated);
        *consumed = (n + (size_t)terminated) * unit;
        return visit_emit_string(vs, r->data + pos, n + (size_t)terminated, unit);
    }
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX ||
        fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX) {
        status = string_length(vs, f, i, &units);
        if (status != 0)
            return status;
    }
    if (units > SIZE_MAX / unit)
        return visit_fail(vs, "string length %llu does not fit", (unsigned long long)units);
    status = visit_need(vs, r, pos, (size_t)units * unit);
    if (status != 0)
        return status;
    *consumed = (size_t)units * unit;
    return visit_emit_string(vs, r->data + pos, (size_t)units, unit);
}
