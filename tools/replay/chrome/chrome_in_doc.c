/*
 * tools/replay/chrome/chrome_in_doc.c - one JSON value (a trace event, otherData)
 * as a tree of nodes in two growable arenas, its compact JSON text, and the
 * string-keyed tables of the import (chrome_in.h).
 *
 * Nodes refer to each other by index, never by pointer, so the arenas may
 * move while they grow. A doc is bounded by CHROME_EVENT_MAX bytes.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_in.h"
#include "tool_alloc.h"

void cj_doc_reset(cj_doc* doc) {
    doc->count = 0;
    doc->root_indexed = 0;
    doc->text_len = 0;
    doc->open = CJ_NONE;
    doc->depth = 0;
    doc->has_pending_key = 0;
}

void cj_doc_free(cj_doc* doc) {
    nvtxw_free(doc->nodes);
    nvtxw_free(doc->text);
    memset(doc, 0, sizeof *doc);
    doc->open = CJ_NONE;
}

static int doc_fits(const cj_doc* doc, size_t more_text) {
    return (doc->count + 1) * sizeof(cj_node) + doc->text_len + more_text <= CHROME_EVENT_MAX;
}

/* Copies text (plus a NUL) into the arena; its offset, or CJ_NONE. */
static inline uint32_t doc_text(cj_doc* doc, const char* text, size_t len) {
    uint32_t at;
    if (doc->text_len + len + 1 > doc->text_cap &&
        nvtxw_grow_array((void**)&doc->text, &doc->text_cap, doc->text_len + len + 1, 1, 256) != 0)
        return CJ_NONE;
    at = (uint32_t)doc->text_len;
    if (len > 0)
        memcpy(doc->text + at, text, len);
    doc->text[at + len] = '\0';
    doc->text_len += len + 1;
    return at;
}

/* The key goes into the arena now; the value's text follows it there. */
int cj_doc_key(cj_doc* doc, const char* key, size_t len) {
    if (!doc_fits(doc, len + 1) || doc_text(doc, key, len) == CJ_NONE)
        return -1;
    doc->pending_key_len = (uint32_t)len;
    doc->has_pending_key = 1;
    return 0;
}

/* Links node `index` as the last child of the open container. */
static void doc_link(cj_doc* doc, uint32_t index) {
    uint32_t* last;
    if (doc->depth == 0)
        return;
    last = &doc->last[doc->depth - 1];
    if (*last != CJ_NONE)
        doc->nodes[*last].next = index;
    else
        doc->nodes[doc->open].filled = 1;
    *last = index;
}

int cj_doc_add(cj_doc* doc, cj_type type, const char* text, size_t len) {
    uint32_t index = (uint32_t)doc->count, at;
    int container = type == CJ_OBJECT || type == CJ_ARRAY;
    if (!doc_fits(doc, len + 1) || (container && doc->depth == CJ_DEPTH) ||
        (doc->count == doc->cap && nvtxw_grow_array((void**)&doc->nodes, &doc->cap, doc->count + 1,
                                                    sizeof *doc->nodes, 64) != 0) ||
        (at = doc_text(doc, container ? "" : text, container ? 0 : len)) == CJ_NONE)
        return -1;
    /* one store of the whole node: field by field, the bit-fields' byte
     * stores stall the loads of the same word that follow them */
    doc->nodes[index] = (cj_node){.type = type,
                                  .filled = 0,
                                  .member = doc->has_pending_key != 0,
                                  .key_len = doc->has_pending_key ? doc->pending_key_len : 0,
                                  .text = at,
                                  .len = (uint32_t)len, /* 0 for a container */
                                  .next = CJ_NONE};
    doc->has_pending_key = 0;
    doc->count++;
    doc_link(doc, index);
    if (container) {
        doc->containers[doc->depth] = index;
        doc->last[doc->depth] = CJ_NONE;
        doc->depth++;
        doc->open = index;
    }
    return 0;
}

void cj_doc_index(cj_doc* doc) {
    unsigned members = 0;
    memset(doc->root_slots, 0, sizeof doc->root_slots);
    doc->root_indexed = doc->count != 0 && doc->nodes[0].type == CJ_OBJECT;
    for (uint32_t i = cj_first(doc, 0); doc->root_indexed && i != CJ_NONE; i = doc->nodes[i].next) {
        unsigned j = cj_root_hash(cj_key(doc, i), doc->nodes[i].key_len);
        if (i >= UINT16_MAX || ++members > CJ_ROOT_SLOTS / 2) {
            /* a member beyond a huge one, or too many members: found by a walk */
            memset(doc->root_slots, 0, sizeof doc->root_slots);
            doc->root_indexed = 0;
            break;
        }
        while (doc->root_slots[j] != 0 &&
               !cj_key_is(doc, doc->root_slots[j] - 1u, cj_key(doc, i), doc->nodes[i].key_len))
            j = (j + 1) & (CJ_ROOT_SLOTS - 1);
        if (doc->root_slots[j] == 0)
            doc->root_slots[j] = (uint16_t)(i + 1);
    }
}

void cj_doc_close(cj_doc* doc) {
    if (doc->depth == 0)
        return;
    doc->depth--;
    doc->open = doc->depth != 0 ? doc->containers[doc->depth - 1] : CJ_NONE;
}

uint32_t cj_get_walk(const cj_doc* doc, uint32_t object, const char* key, size_t len) {
    if (object == CJ_NONE || doc->nodes[object].type != CJ_OBJECT)
        return CJ_NONE;
    for (uint32_t i = cj_first(doc, object); i != CJ_NONE; i = doc->nodes[i].next) {
        if (cj_key_is(doc, i, key, len))
            return i;
    }
    return CJ_NONE;
}

int cj_buf_grow(cj_buf* buf, size_t len) {
    return nvtxw_grow_array((void**)&buf->data, &buf->cap, buf->len + len, 1, 16);
}

/* A JSON string literal (RFC 8259 escapes; the text is valid UTF-8, the
 * reader checked it). */
static int put_string(cj_buf* out, const char* text, size_t len) {
    int status = cj_buf_put(out, "\"", 1);
    for (size_t i = 0; i < len && status == 0; i++) {
        unsigned char c = (unsigned char)text[i];
        char escaped[8];
        if (c == '"' || c == '\\') {
            escaped[0] = '\\';
            escaped[1] = (char)c;
            status = cj_buf_put(out, escaped, 2);
        } else if (c < 0x20) {
            snprintf(escaped, sizeof escaped, "\\u%04x", c);
            status = cj_buf_put(out, escaped, 6);
        } else {
            status = cj_buf_put(out, &text[i], 1);
        }
    }
    return status != 0 ? -1 : cj_buf_put(out, "\"", 1);
}

int cj_write_json(const cj_doc* doc, uint32_t node, cj_buf* out) {
    const cj_node* n = &doc->nodes[node];
    int status = 0;
    switch (n->type) {
    case CJ_NULL:
        return cj_buf_put(out, "null", 4);
    case CJ_BOOL:
        return n->len == 1 ? cj_buf_put(out, "true", 4) : cj_buf_put(out, "false", 5);
    case CJ_NUMBER:
        return cj_buf_put(out, cj_text(doc, node), n->len);
    case CJ_STRING:
        return put_string(out, cj_text(doc, node), n->len);
    case CJ_OBJECT:
    case CJ_ARRAY:
        break;
    }
    status = cj_buf_put(out, n->type == CJ_OBJECT ? "{" : "[", 1);
    for (uint32_t i = cj_first(doc, node); i != CJ_NONE && status == 0; i = doc->nodes[i].next) {
        if (i != node + 1)
            status = cj_buf_put(out, ",", 1);
        if (status == 0 && n->type == CJ_OBJECT)
            status = put_string(out, cj_key(doc, i), doc->nodes[i].key_len) != 0 ||
                     cj_buf_put(out, ":", 1) != 0;
        if (status == 0)
            status = cj_write_json(doc, i, out);
    }
    return status != 0 ? -1 : cj_buf_put(out, n->type == CJ_OBJECT ? "}" : "]", 1);
}

/* ---- tables: open addressing, linear probing ---- */

/* Eight bytes a step (args shape keys run to hundreds of bytes), each
 * multiplied in and folded, then a final mix so the low bits (the slot)
 * depend on every byte. */
static size_t key_hash(const char* key, size_t len) {
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h = len * k, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, key + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    if (i < len) {
        w = 0;
        memcpy(&w, key + i, len - i);
        h = (h ^ w) * k;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return (size_t)h;
}

static int table_grow(ct_table* table) {
    size_t cap = table->cap ? table->cap * 2 : 64;
    ct_slot* slots = nvtxw_calloc(cap, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i < table->cap; i++) {
        size_t j;
        if (table->slots[i].key == NULL)
            continue;
        for (j = key_hash(table->slots[i].key, table->slots[i].len) & (cap - 1);
             slots[j].key != NULL; j = (j + 1) & (cap - 1))
            ;
        slots[j] = table->slots[i];
    }
    nvtxw_free(table->slots);
    table->slots = slots;
    table->cap = cap;
    return 0;
}

uint64_t* ct_find(ct_table* table, const char* key, size_t len, int insert, int* added) {
    size_t i;
    if (added != NULL)
        *added = 0;
    if (table->cap == 0 && (!insert || table_grow(table) != 0))
        return NULL;
    for (i = key_hash(key, len) & (table->cap - 1); table->slots[i].key != NULL;
         i = (i + 1) & (table->cap - 1)) {
        if (table->slots[i].len == len && memcmp(table->slots[i].key, key, len) == 0)
            return &table->slots[i].value;
    }
    if (!insert)
        return NULL;
    if ((table->count + 1) * 2 > table->cap) {
        if (table_grow(table) != 0)
            return NULL;
        return ct_find(table, key, len, insert, added);
    }
    if ((table->slots[i].key = nvtxw_malloc(len + 1)) == NULL)
        return NULL;
    memcpy(table->slots[i].key, key, len);
    table->slots[i].key[len] = '\0';
    table->slots[i].len = len;
    table->slots[i].value = 0;
    table->count++;
    if (added != NULL)
        *added = 1;
    return &table->slots[i].value;
}

void ct_free(ct_table* table) {
    for (size_t i = 0; i < table->cap; i++)
        nvtxw_free(table->slots[i].key);
    nvtxw_free(table->slots);
    memset(table, 0, sizeof *table);
}

void ct_remove(ct_table* table, const char* key, size_t len) {
    uint64_t* value = ct_find(table, key, len, 0, NULL);
    size_t hole, j;
    if (value == NULL)
        return;
    hole = (size_t)((ct_slot*)((char*)value - offsetof(ct_slot, value)) - table->slots);
    nvtxw_free(table->slots[hole].key);
    table->slots[hole].key = NULL;
    table->count--;
    /* Backward shift: later entries of the probe run move into the hole
     * when their home slot does not lie between the hole and them. */
    for (j = (hole + 1) & (table->cap - 1); table->slots[j].key != NULL;
         j = (j + 1) & (table->cap - 1)) {
        size_t home = key_hash(table->slots[j].key, table->slots[j].len) & (table->cap - 1);
        int between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (between)
            continue;
        table->slots[hole] = table->slots[j];
        table->slots[j].key = NULL;
        hole = j;
    }
}
