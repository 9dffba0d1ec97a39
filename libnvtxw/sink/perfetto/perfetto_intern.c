/*
 * sink/perfetto/perfetto_intern.c - a sequence's interning table: strings
 * (event names, categories, debug annotation names) to the iids a
 * sequence's InternedData gave them (perfetto_internal.h). Open addressing
 * by text_hash (common/text_hash.h), linear probing, at most half full; the texts
 * live in one buffer. Clearing it (a new incremental state) keeps the
 * memory for the next one.
 */
#include "config.h"

#include "common/alloc.h"
#include "common/text_hash.h"
#include "sink/perfetto/perfetto_internal.h"

static int table_grow(perfetto_intern* t) {
    size_t capacity = t->capacity ? t->capacity * 2 : 16, i;
    perfetto_intern_slot* slots = nvtxw_calloc(capacity, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (i = 0; i < t->capacity; i++) {
        const perfetto_intern_slot* s = &t->slots[i];
        size_t at;
        if (s->iid == 0)
            continue;
        for (at = (size_t)s->hash & (capacity - 1); slots[at].iid != 0;
             at = (at + 1) & (capacity - 1))
            ;
        slots[at] = *s;
    }
    nvtxw_free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

int perfetto_intern_find(perfetto_intern* t, const char* text, size_t length, uint64_t* iid) {
    uint64_t hash = text_hash(text, length);
    size_t at;
    perfetto_intern_slot* s;
    if ((t->count + 1) * 2 > t->capacity && table_grow(t) != 0)
        return -1;
    for (at = (size_t)hash & (t->capacity - 1);; at = (at + 1) & (t->capacity - 1)) {
        s = &t->slots[at];
        if (s->iid == 0)
            break;
        if (s->hash == hash && s->length == length &&
            memcmp(t->text.data + s->offset, text, length) == 0) {
            *iid = s->iid;
            return 0;
        }
    }
    if (strbuf_append(&t->text, text, length) != 0)
        return -1;
    s->hash = hash;
    s->offset = t->text.length - length;
    s->length = length;
    s->iid = ++t->count;
    *iid = s->iid;
    return 1;
}

void perfetto_intern_clear(perfetto_intern* t) {
    if (t->slots != NULL)
        memset(t->slots, 0, t->capacity * sizeof *t->slots);
    t->count = 0;
    strbuf_clear(&t->text);
}

void perfetto_intern_free(perfetto_intern* t) {
    nvtxw_free(t->slots);
    strbuf_free(&t->text);
    memset(t, 0, sizeof *t);
}
