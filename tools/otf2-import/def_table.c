/*
 * tools/otf2-import/def_table.c - OTF2 definition tables.
 *
 * OTF2 references definitions by IDs that writers usually number densely
 * from 0, but the format allows any 32- or 64-bit value; an open-addressing
 * index maps them to dense record indexes, so a hostile ID costs one slot,
 * not an array of its size.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"

static _Thread_local char last_error[1024];

void import_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char* import_last_error(void) { return last_error; }

void import_archive_file(const char* archive, const char* suffix, char* out, size_t size) {
    size_t n = strlen(archive);
    if (n > 5 && !strcmp(archive + n - 5, ".otf2"))
        n -= 5;
    snprintf(out, size, "%.*s%s", (int)n, archive, suffix);
}

static size_t slot_of(uint64_t key, size_t capacity) {
    key ^= key >> 33; /* murmur3 finalizer: IDs are often dense */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

static void insert(id_index* index, uint64_t key, uint32_t stored) {
    size_t slot = slot_of(key, index->capacity);
    while (index->values[slot] != 0)
        slot = (slot + 1) & (index->capacity - 1);
    index->keys[slot] = key;
    index->values[slot] = stored;
    index->count++;
}

static int grow(id_index* index) {
    id_index bigger = {0};
    bigger.capacity = index->capacity ? index->capacity * 2 : 64;
    bigger.keys = nvtxw_malloc(bigger.capacity * sizeof *bigger.keys);
    bigger.values = nvtxw_calloc(bigger.capacity, sizeof *bigger.values);
    if (bigger.keys == NULL || bigger.values == NULL) {
        nvtxw_free(bigger.keys);
        nvtxw_free(bigger.values);
        return -1;
    }
    for (size_t i = 0; i < index->capacity; i++) {
        if (index->values[i] != 0)
            insert(&bigger, index->keys[i], index->values[i]);
    }
    id_index_free(index);
    *index = bigger;
    return 0;
}

int id_index_put(id_index* index, uint64_t key, uint32_t value) {
    uint32_t existing;
    if (id_index_get(index, key, &existing))
        return 1;
    if ((index->count + 1) * 4 > index->capacity * 3 && grow(index) != 0)
        return -1;
    insert(index, key, value + 1);
    return 0;
}

int id_index_get(const id_index* index, uint64_t key, uint32_t* value) {
    if (index->capacity == 0)
        return 0;
    for (size_t slot = slot_of(key, index->capacity);; slot = (slot + 1) & (index->capacity - 1)) {
        if (index->values[slot] == 0)
            return 0;
        if (index->keys[slot] == key) {
            *value = index->values[slot] - 1;
            return 1;
        }
    }
}

void id_index_free(id_index* index) {
    nvtxw_free(index->keys);
    nvtxw_free(index->values);
    memset(index, 0, sizeof *index);
}

void def_table_init(def_table* table, size_t item_size, const char* what) {
    memset(table, 0, sizeof *table);
    table->item_size = item_size;
    table->what = what;
}

void* def_table_add(def_table* table, uint64_t id) {
    void* item;
    int put;
    if (table->count == table->capacity) {
        size_t capacity = table->capacity ? table->capacity * 2 : 16;
        char* items = NULL;
        uint64_t* ids = NULL;
        if (capacity > UINT32_MAX ||
            (items = nvtxw_realloc(table->items, capacity * table->item_size)) == NULL ||
            ((table->items = items),
             (ids = nvtxw_realloc(table->ids, capacity * sizeof *ids)) == NULL)) {
            import_error("out of memory reading %s definitions", table->what);
            return NULL;
        }
        table->items = items;
        table->ids = ids;
        table->capacity = capacity;
    }
    put = id_index_put(&table->index, id, (uint32_t)table->count);
    if (put != 0) {
        import_error(put > 0 ? "corrupt definitions: %s %llu is defined twice"
                             : "out of memory reading %s definitions",
                     table->what, (unsigned long long)id);
        return NULL;
    }
    table->ids[table->count] = id;
    item = table->items + table->count++ * table->item_size;
    memset(item, 0, table->item_size);
    return item;
}

void* def_table_find(const def_table* table, uint64_t id, uint32_t* index_out) {
    uint32_t index;
    if (id < table->count && table->ids[id] == id) /* dense IDs: the usual case */
        index = (uint32_t)id;
    else if (!id_index_get(&table->index, id, &index))
        return NULL;
    if (index_out != NULL)
        *index_out = index;
    return table->items + (size_t)index * table->item_size;
}

void* def_table_at(const def_table* table, size_t index) {
    return table->items + index * table->item_size;
}

void def_table_free(def_table* table) {
    id_index_free(&table->index);
    nvtxw_free(table->items);
    nvtxw_free(table->ids);
    table->items = NULL;
    table->ids = NULL;
    table->count = table->capacity = 0;
}

/* OTF2 reports errors through a callback (by default printed to stderr as
 * "[OTF2] file:line: ..."). The importer keeps the first message since the
 * last reset, per thread, and puts it into its own error message. */
static _Thread_local char otf2_message[256];

static OTF2_ErrorCode keep_otf2_error(void* user_data, const char* file, uint64_t line,
                                      const char* function, OTF2_ErrorCode code, const char* format,
                                      va_list va) {
    (void)user_data, (void)file, (void)line, (void)function;
    if (otf2_message[0] == '\0') {
        int n =
            snprintf(otf2_message, sizeof otf2_message, "%s: ", OTF2_Error_GetDescription(code));
        if (n > 0 && (size_t)n < sizeof otf2_message)
            vsnprintf(otf2_message + n, sizeof otf2_message - (size_t)n, format, va);
    }
    return code;
}

void import_otf2_errors_install(void) { OTF2_Error_RegisterCallback(keep_otf2_error, NULL); }

void import_otf2_error_reset(void) { otf2_message[0] = '\0'; }

const char* import_otf2_error(OTF2_ErrorCode code) {
    return otf2_message[0] != '\0' ? otf2_message : OTF2_Error_GetDescription(code);
}
