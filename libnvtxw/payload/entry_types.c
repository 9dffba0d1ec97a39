/*
 * payload/entry_types.c - the predefined payload entry types of spec 3.2 with
 * their size, alignment, name and decoding category on this platform.
 *
 * Platform-dependent C types (LONG, WCHAR, LONGDOUBLE, SIZE, ADDRESS) take
 * this compiler's sizeof/_Alignof, since NVTXW has no channel for the
 * producer's nvtxPayloadEntryTypeInfo_t table (spec 2.18). C-string types
 * report the pointer size (their POINTER form) and carry their code unit
 * separately. UNION_SELECTOR has no fixed size: the entry detail gives it.
 */
#include "config.h"

#include <limits.h>
#include <stdalign.h>
#include <stddef.h>
#include <wchar.h>

#include "payload/registry_internal.h"

#define ROW(type, ctype, cat)                                                                      \
    { NVTX_PAYLOAD_ENTRY_TYPE_##type, #type, sizeof(ctype), alignof(ctype), 0, cat }
#define FIX(type, size, cat)                                                                       \
    { NVTX_PAYLOAD_ENTRY_TYPE_##type, #type, size, size, 0, cat }
#define STR(type, unit)                                                                            \
    { NVTX_PAYLOAD_ENTRY_TYPE_##type, #type, sizeof(void*), alignof(void*), unit, ENTRY_CAT_STRING }

#if CHAR_MIN < 0
#define CHAR_CATEGORY ENTRY_CAT_SIGNED
#else
#define CHAR_CATEGORY ENTRY_CAT_UNSIGNED
#endif

#if defined(__SIZEOF_INT128__)
#define INT128_ALIGN alignof(__int128)
#else
#define INT128_ALIGN 16
#endif

/* Sorted by type value (binary search). */
static const entry_type_info_t entry_types[] = {
    ROW(CHAR, char, CHAR_CATEGORY),
    ROW(UCHAR, unsigned char, ENTRY_CAT_UNSIGNED),
    ROW(SHORT, short, ENTRY_CAT_SIGNED),
    ROW(USHORT, unsigned short, ENTRY_CAT_UNSIGNED),
    ROW(INT, int, ENTRY_CAT_SIGNED),
    ROW(UINT, unsigned int, ENTRY_CAT_UNSIGNED),
    ROW(LONG, long, ENTRY_CAT_SIGNED),
    ROW(ULONG, unsigned long, ENTRY_CAT_UNSIGNED),
    ROW(LONGLONG, long long, ENTRY_CAT_SIGNED),
    ROW(ULONGLONG, unsigned long long, ENTRY_CAT_UNSIGNED),
    ROW(INT8, int8_t, ENTRY_CAT_SIGNED),
    ROW(UINT8, uint8_t, ENTRY_CAT_UNSIGNED),
    ROW(INT16, int16_t, ENTRY_CAT_SIGNED),
    ROW(UINT16, uint16_t, ENTRY_CAT_UNSIGNED),
    ROW(INT32, int32_t, ENTRY_CAT_SIGNED),
    ROW(UINT32, uint32_t, ENTRY_CAT_UNSIGNED),
    ROW(INT64, int64_t, ENTRY_CAT_SIGNED),
    ROW(UINT64, uint64_t, ENTRY_CAT_UNSIGNED),
    ROW(FLOAT, float, ENTRY_CAT_FLOAT),
    ROW(DOUBLE, double, ENTRY_CAT_FLOAT),
    ROW(LONGDOUBLE, long double, ENTRY_CAT_FLOAT),
    ROW(SIZE, size_t, ENTRY_CAT_UNSIGNED),
    ROW(ADDRESS, void*, ENTRY_CAT_UNSIGNED),
    ROW(WCHAR, wchar_t, ENTRY_CAT_UNSIGNED),
    FIX(CHAR8, 1, ENTRY_CAT_UNSIGNED),
    FIX(CHAR16, 2, ENTRY_CAT_UNSIGNED),
    FIX(CHAR32, 4, ENTRY_CAT_UNSIGNED),
    FIX(BYTE, 1, ENTRY_CAT_BYTES),
    {NVTX_PAYLOAD_ENTRY_TYPE_INT128, "INT128", 16, INT128_ALIGN, 0, ENTRY_CAT_BYTES},
    {NVTX_PAYLOAD_ENTRY_TYPE_UINT128, "UINT128", 16, INT128_ALIGN, 0, ENTRY_CAT_BYTES},
    FIX(FLOAT16, 2, ENTRY_CAT_FLOAT),
    FIX(FLOAT32, 4, ENTRY_CAT_FLOAT),
    FIX(FLOAT64, 8, ENTRY_CAT_FLOAT),
    FIX(FLOAT128, 16, ENTRY_CAT_FLOAT),
    FIX(BF16, 2, ENTRY_CAT_FLOAT),
    FIX(TF32, 4, ENTRY_CAT_FLOAT),
    ROW(RANGE_ID, uint64_t, ENTRY_CAT_UNSIGNED),
    ROW(CATEGORY, uint32_t, ENTRY_CAT_UNSIGNED),
    ROW(COLOR_ARGB, uint32_t, ENTRY_CAT_UNSIGNED),
    ROW(SCOPE_ID, uint64_t, ENTRY_CAT_UNSIGNED),
    ROW(PID_UINT32, uint32_t, ENTRY_CAT_UNSIGNED),
    ROW(PID_UINT64, uint64_t, ENTRY_CAT_UNSIGNED),
    ROW(TID_UINT32, uint32_t, ENTRY_CAT_UNSIGNED),
    ROW(TID_UINT64, uint64_t, ENTRY_CAT_UNSIGNED),
    STR(CSTRING, 1),
    STR(CSTRING_UTF8, 1),
    STR(CSTRING_UTF16, 2),
    STR(CSTRING_UTF32, 4),
    {NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "NVTX_REGISTERED_STRING_HANDLE",
     sizeof(void*), alignof(void*), 0, ENTRY_CAT_HANDLE},
    {NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR, "UNION_SELECTOR", 0, 1, 0, ENTRY_CAT_SELECTOR},
};

const entry_type_info_t* registry_entry_type(uint64_t type) {
    size_t low = 0;
    size_t high = sizeof entry_types / sizeof entry_types[0];
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (entry_types[mid].type == type)
            return &entry_types[mid];
        if (entry_types[mid].type < type)
            low = mid + 1;
        else
            high = mid;
    }
    return NULL;
}

size_t nvtxw_entry_type_size(uint64_t type) {
    const entry_type_info_t* info = registry_entry_type(type);
    return info ? info->size : 0;
}

size_t nvtxw_entry_type_align(uint64_t type) {
    const entry_type_info_t* info = registry_entry_type(type);
    return info ? info->align : 0;
}

const char* nvtxw_entry_type_name(uint64_t type) {
    const entry_type_info_t* info = registry_entry_type(type);
    return info ? info->name : NULL;
}
