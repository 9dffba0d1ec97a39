/*
 * sink/json/json_cache.c - what a stream's events repeat, kept from one
 * event to the next: the escaped text of registry-owned strings (field
 * names, category and domain names), the role of the schemas it uses, and
 * the JSON-text values it wrote last. Each is a small direct-mapped table
 * of the stream (no lock, no sharing: the write path of one stream),
 * allocated at its CHROME_CACHE_AFTER-th lookup; until then, or when that
 * allocation fails, every lookup is a miss that is not remembered.
 *
 * Why each is exact:
 *   - a registry-owned string never changes or moves until the session
 *     ends (core/sink.h), so its address names its text, and the escaped
 *     text (json_put_string's bytes) is that of the address;
 *   - a schema's flags never change after its registration;
 *   - a JSON-text value is written as json_value_append writes it: for the
 *     same bytes the same answer, so a value equal byte for byte to one
 *     that was valid and already compact is written again without a parse.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/json_value.h"
#include "common/slot_hash.h"
#include "nvtxw/payload.h"
#include "sink/json/json_internal.h"

static unsigned pointer_slot(const void* p, unsigned bits) {
    return slot_hash((uint64_t)(uintptr_t)p, bits);
}

/* The stream's caches, or NULL while it has made few lookups. */
static json_caches* caches_of(json_stream* st) {
    if (st->caches == NULL && ++st->uncached == CHROME_CACHE_AFTER)
        st->caches = nvtxw_calloc(1, sizeof *st->caches); /* NULL: go on without */
    return st->caches;
}

void json_caches_free(json_stream* st) {
    nvtxw_free(st->caches);
    st->caches = NULL;
}

int json_put_stable(json_stream* st, strbuf* out, const char* text) {
    json_caches* caches = caches_of(st);
    json_text_slot* slot =
        caches != NULL ? &caches->texts[pointer_slot(text, CHROME_TEXT_CACHE_BITS)] : NULL;
    size_t mark;
    if (slot == NULL)
        return json_put_cstring(out, text);
    if (slot->text == text) {
        if (strbuf_reserve(out, sizeof slot->escaped) != 0)
            return -1;
        memcpy(out->data + out->length, slot->escaped, sizeof slot->escaped);
        out->length += slot->length;
        out->data[out->length] = '\0';
        return 0;
    }
    mark = out->length;
    if (json_put_cstring(out, text) != 0)
        return -1;
    if (out->length - mark <= sizeof slot->escaped) { /* longer ones are escaped each time */
        slot->text = text;
        slot->length = (unsigned char)(out->length - mark);
        memcpy(slot->escaped, out->data + mark, slot->length);
    }
    return 0;
}

int json_schema_role(json_stream* st, uint64_t schema_id) {
    json_caches* caches = caches_of(st);
    json_role_slot* slot =
        caches != NULL ? &caches->roles[slot_hash(schema_id, CHROME_ROLE_CACHE_BITS)] : NULL;
    const nvtxw_schema_t* schema;
    nvtxPayloadSchemaAttr_t attr;
    int role;
    if (slot != NULL && slot->known && slot->schema_id == schema_id)
        return slot->role;
    schema = nvtxw_schema_registry_find_schema(st->stream->domain->schemas, schema_id);
    if (schema == NULL)
        return -1;
    nvtxw_schema_get_attr(schema, &attr);
    role = (int)(attr.flags >> 3 & 0xF);
    if (slot != NULL) {
        slot->known = 1;
        slot->schema_id = schema_id;
        slot->role = role;
    }
    return role;
}

int json_put_value(json_stream* st, const nvtxw_field_info_t* field, const char* text,
                   size_t length) {
    json_caches* caches = caches_of(st);
    json_value_slot* slot =
        caches != NULL ? &caches->values[pointer_slot(field, CHROME_VALUE_CACHE_BITS)] : NULL;
    size_t mark = st->args.length;
    int status;
    if (slot != NULL && slot->field == field && slot->length == length &&
        memcmp(slot->text, text, length) == 0)
        return strbuf_append(&st->args, text, length);
    status = json_value_append(&st->args, text, length);
    /* Remembered when written as given (valid and compact already). */
    if (slot != NULL && status == 0 && length <= sizeof slot->text &&
        st->args.length - mark == length && memcmp(st->args.data + mark, text, length) == 0) {
        slot->field = field;
        slot->length = length;
        memcpy(slot->text, text, length);
    }
    return status;
}
