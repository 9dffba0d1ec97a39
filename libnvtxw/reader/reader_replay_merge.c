/*
 * reader/reader_replay_merge.c - what the inputs of nvtxw_reader_replay_many
 * share in the new session: domains by name, registered strings by text,
 * static IDs by signature (a canonical text of the attributes that must be
 * equal for two inputs to share the ID), stream names made unique, and the
 * filters (name patterns, time window).
 */
#include "config.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/text_hash.h"
#include "reader/reader_replay.h"

static size_t dict_slot(const replay_dict_entry* slots, size_t capacity, const char* key) {
    size_t i = (size_t)text_hash_cstr(key) & (capacity - 1);
    while (slots[i].key != NULL && strcmp(slots[i].key, key) != 0)
        i = (i + 1) & (capacity - 1);
    return i;
}

static int dict_grow(replay_dict* dict) {
    size_t capacity = dict->capacity ? dict->capacity * 2 : 64, i;
    replay_dict_entry* slots = nvtxw_calloc(capacity, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (i = 0; i < dict->capacity; i++) {
        if (dict->slots[i].key != NULL)
            slots[dict_slot(slots, capacity, dict->slots[i].key)] = dict->slots[i];
    }
    nvtxw_free(dict->slots);
    dict->slots = slots;
    dict->capacity = capacity;
    return 0;
}

replay_dict_entry* replay_dict_find(const replay_dict* dict, const char* key) {
    size_t i;
    if (dict->capacity == 0)
        return NULL;
    i = dict_slot(dict->slots, dict->capacity, key);
    return dict->slots[i].key != NULL ? &dict->slots[i] : NULL;
}

replay_dict_entry* replay_dict_get(replay_dict* dict, const char* key, int* added) {
    replay_dict_entry* e = replay_dict_find(dict, key);
    size_t i;
    *added = 0;
    if (e != NULL)
        return e;
    if ((dict->count + 1) * 2 > dict->capacity && dict_grow(dict) != 0)
        return NULL;
    i = dict_slot(dict->slots, dict->capacity, key);
    if ((dict->slots[i].key = nvtxw_strdup(key)) == NULL)
        return NULL;
    dict->slots[i].extra = NULL;
    dict->slots[i].value = 0;
    dict->count++;
    *added = 1;
    return &dict->slots[i];
}

void replay_dict_free(replay_dict* dict) {
    size_t i;
    for (i = 0; i < dict->capacity; i++) {
        nvtxw_free(dict->slots[i].key);
        nvtxw_free(dict->slots[i].extra);
    }
    nvtxw_free(dict->slots);
    memset(dict, 0, sizeof *dict);
}

int replay_match(const char* const* patterns, const uint8_t* exact, size_t count,
                 const char* name) {
    size_t i;
    if (patterns == NULL || count == 0)
        return 1;
    for (i = 0; i < count; i++) {
        if (patterns[i] != NULL && (exact != NULL && exact[i] ? strcmp(patterns[i], name) == 0
                                                              : fnmatch(patterns[i], name, 0) == 0))
            return 1;
    }
    return 0;
}

/* Whether `pattern` is the name of a stream (streams != 0) or domain of an
 * input. */
static int names_something(const replay_state* st, const char* pattern, int streams) {
    size_t i;
    uint64_t k;
    for (i = 0; i < st->input_count; i++) {
        const nvtxw_reader_t* r = st->inputs[i].reader;
        size_t n = streams ? nvtxw_reader_stream_count(r) : nvtxw_reader_domain_count(r);
        for (k = 0; k < n; k++) {
            const char* name =
                streams ? nvtxw_reader_stream_name(r, k) : nvtxw_reader_domain_name(r, k);
            if (name != NULL && strcmp(name, pattern) == 0)
                return 1;
        }
    }
    return 0;
}

nvtxwResultCode_t replay_patterns_resolve(replay_state* st) {
    size_t i;
    if (st->opts.stream_pattern_count > 0 && st->opts.streams != NULL &&
        (st->stream_exact = nvtxw_calloc(st->opts.stream_pattern_count, 1)) == NULL)
        return error_oom("the stream patterns");
    if (st->opts.domain_pattern_count > 0 && st->opts.domains != NULL &&
        (st->domain_exact = nvtxw_calloc(st->opts.domain_pattern_count, 1)) == NULL)
        return error_oom("the domain patterns");
    for (i = 0; st->stream_exact != NULL && i < st->opts.stream_pattern_count; i++)
        st->stream_exact[i] =
            st->opts.streams[i] != NULL && names_something(st, st->opts.streams[i], 1);
    for (i = 0; st->domain_exact != NULL && i < st->opts.domain_pattern_count; i++)
        st->domain_exact[i] =
            st->opts.domains[i] != NULL && names_something(st, st->opts.domains[i], 0);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t add_target(replay_state* st, const char* name) {
    nvtxwDomainAttributes_t attr = {sizeof attr, name};
    replay_target* t;
    if (st->target_count == st->target_capacity) {
        size_t capacity = st->target_capacity ? st->target_capacity * 2 : 4;
        replay_target* grown = nvtxw_reallocarray(st->targets, capacity, sizeof *grown);
        if (grown == NULL)
            return error_oom("the replay domains");
        st->targets = grown;
        st->target_capacity = capacity;
    }
    t = &st->targets[st->target_count];
    memset(t, 0, sizeof *t);
    if ((t->name = nvtxw_strdup(name)) == NULL)
        return error_oom("a domain name");
    st->target_count++;
    return st->t->DomainRegister(st->session, &attr, &t->handle);
}

nvtxwResultCode_t replay_target_for(replay_state* st, const char* name, size_t* index) {
    size_t i;
    nvtxwResultCode_t status;
    for (i = 0; i < st->target_count; i++) {
        if (strcmp(st->targets[i].name, name) == 0) {
            *index = i;
            return NVTXW_RESULT_SUCCESS;
        }
    }
    status = add_target(st, name);
    *index = st->target_count - 1;
    return status;
}

nvtxwResultCode_t replay_target_string(replay_state* st, size_t target, const char* text,
                                       nvtxStringHandle_t* out) {
    replay_target* t = &st->targets[target];
    int added;
    nvtxwResultCode_t status;
    replay_dict_entry* e = replay_dict_get(&t->strings, text, &added);
    if (e == NULL)
        return error_oom("the replay strings");
    if (!added) {
        *out = (nvtxStringHandle_t)(uintptr_t)e->value;
        return NVTXW_RESULT_SUCCESS;
    }
    status = st->t->StringRegister(t->handle, text, out);
    e->value = (uint64_t)(uintptr_t)*out;
    return status;
}

static const char* const kind_names[] = {"",      "",       "",     "category", "",           "",
                                         "scope", "schema", "enum", "counter",  "time domain"};

/* The statics key of a static ID: schemas and enums share one ID namespace
 * per domain. */
static void static_key(char* key, size_t size, int kind, uint64_t id) {
    snprintf(key, size, "%d:%llu", kind == NVTXW_RECORD_ENUM ? NVTXW_RECORD_SCHEMA : kind,
             (unsigned long long)id);
}

/* The statics key of a renumbered static ID: the ID and the signature the
 * later input registered, so a third input with that signature shares the
 * new number (in the scratch arena; NULL out of memory). */
static char* renumber_key(replay_state* st, int kind, uint64_t id, const char* signature) {
    size_t size = strlen(signature) + 48;
    char* key = reader_arena_alloc(&st->scratch, size);
    if (key != NULL)
        snprintf(key, size, "R%d:%llu|%s", kind == NVTXW_RECORD_ENUM ? NVTXW_RECORD_SCHEMA : kind,
                 (unsigned long long)id, signature);
    return key;
}

nvtxwResultCode_t replay_static_claim(replay_state* st, size_t target, int kind, uint64_t id,
                                      const char* signature, replay_claim* claim) {
    replay_target* t = &st->targets[target];
    char key[48];
    int added;
    replay_dict_entry* e;
    memset(claim, 0, sizeof *claim);
    static_key(key, sizeof key, kind, id);
    if (kind == NVTXW_RECORD_CATEGORY && id > t->category_max)
        t->category_max = id;
    if ((e = replay_dict_get(&t->statics, key, &added)) == NULL)
        return error_oom("the static IDs");
    if (added) {
        e->value = st->in->index;
        claim->action = REPLAY_CLAIM_REGISTER;
        return (e->extra = nvtxw_strdup(signature)) != NULL ? NVTXW_RESULT_SUCCESS
                                                            : error_oom("the static IDs");
    }
    if (strcmp(e->extra, signature) == 0) {
        claim->action = REPLAY_CLAIM_SHARED;
        return NVTXW_RESULT_SUCCESS;
    }
    /* The same static ID with other attributes: the new session gets them
     * under another ID, once per distinct signature. */
    claim->first_input = (size_t)e->value;
    if ((claim->key = renumber_key(st, kind, id, signature)) == NULL ||
        (e = replay_dict_get(&t->statics, claim->key, &added)) == NULL)
        return error_oom("the static IDs");
    claim->action = added ? REPLAY_CLAIM_RENUMBER : REPLAY_CLAIM_RENUMBERED;
    claim->renumbered = e->value;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t replay_static_renumbered(replay_state* st, size_t target, int kind, uint64_t id,
                                           const replay_claim* claim, uint64_t renumbered) {
    replay_target* t = &st->targets[target];
    replay_dict_entry* e;
    if (claim->action == REPLAY_CLAIM_RENUMBER) {
        if ((e = replay_dict_find(&t->statics, claim->key)) == NULL)
            return error_set(NVTXW_RESULT_FAILED, "renumbered static ID lost");
        e->value = renumbered;
    }
    if (st->opts.on_renumber != NULL) {
        nvtxw_replay_renumbered_t r;
        r.struct_size = sizeof r;
        r.kind = kind_names[kind];
        r.domain = t->name;
        r.id = id;
        r.renumbered = renumbered;
        r.input_path = st->in->reader->path;
        r.first_path = st->inputs[claim->first_input].reader->path;
        st->opts.on_renumber(st->opts.renumber_context, &r);
    }
    return NVTXW_RESULT_SUCCESS;
}

uint64_t replay_new_category(replay_state* st, size_t target) {
    return ++st->targets[target].category_max;
}

/* A growing text in the scratch arena. */
typedef struct sig_text {
    replay_state* st;
    char* p;
    size_t size, capacity;
    int failed;
} sig_text;

static void sig_add(sig_text* s, const char* format, ...) NVTXW_PRINTF(2, 3);
static void sig_add(sig_text* s, const char* format, ...) {
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (s->failed || n < 0)
        return;
    if (s->size + (size_t)n + 1 > s->capacity) {
        size_t capacity = (s->capacity + (size_t)n + 1) * 2;
        char* grown = reader_arena_alloc(&s->st->scratch, capacity);
        if (grown == NULL) {
            s->failed = 1;
            return;
        }
        memcpy(grown, s->p ? s->p : "", s->size + (s->p != NULL));
        s->p = grown;
        s->capacity = capacity;
    }
    va_start(args, format);
    vsnprintf(s->p + s->size, s->capacity - s->size, format, args);
    va_end(args);
    s->size += (size_t)n;
}

const char* replay_schema_signature(replay_state* st, const nvtxw_schema_t* schema) {
    nvtxPayloadSchemaAttr_t a;
    sig_text s = {st, NULL, 0, 0, 0};
    size_t i;
    nvtxw_schema_get_attr(schema, &a);
    sig_add(&s, "%llx|%s|%llx|%llx|%zu|%zu|%zu", (unsigned long long)a.fieldMask,
            a.name ? a.name : "", (unsigned long long)a.type, (unsigned long long)a.flags,
            a.payloadStaticSize, a.packAlign, a.numEntries);
    for (i = 0; i < a.numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* e = &a.entries[i];
        sig_add(&s, "|%llx,%llx,%s,%s,%llx,%llx,%d", (unsigned long long)e->flags,
                (unsigned long long)e->type, e->name ? e->name : "",
                e->description ? e->description : "", (unsigned long long)e->arrayOrUnionDetail,
                (unsigned long long)e->offset, e->semantics != NULL);
    }
    return s.failed || s.p == NULL ? NULL : s.p;
}

const char* replay_enum_signature(replay_state* st, const nvtxw_enum_t* enumeration) {
    nvtxPayloadEnumAttr_t a;
    sig_text s = {st, NULL, 0, 0, 0};
    size_t i;
    nvtxw_enum_get_attr(enumeration, &a);
    sig_add(&s, "enum|%llx|%s|%zu|%zu", (unsigned long long)a.fieldMask, a.name ? a.name : "",
            a.sizeOfEnum, a.numEntries);
    for (i = 0; i < a.numEntries; i++)
        sig_add(&s, "|%s,%llx,%d", a.entries[i].name ? a.entries[i].name : "",
                (unsigned long long)a.entries[i].value, (int)a.entries[i].isFlag);
    return s.failed || s.p == NULL ? NULL : s.p;
}

nvtxwResultCode_t replay_stream_name(replay_state* st, const char* name, const char** out) {
    size_t length = strlen(name) + 24;
    char* candidate = reader_arena_alloc(&st->scratch, length);
    unsigned long long n;
    int added = 0;
    replay_dict_entry* e = NULL;
    if (candidate == NULL)
        return error_oom("a stream name");
    snprintf(candidate, length, "%s", name);
    for (n = 2; (e = replay_dict_get(&st->stream_names, candidate, &added)) != NULL && !added; n++)
        snprintf(candidate, length, "%s#%llu", name, n);
    if (e == NULL)
        return error_oom("the stream names");
    *out = candidate;
    return NVTXW_RESULT_SUCCESS;
}

void replay_merge_free(replay_state* st) {
    size_t i;
    for (i = 0; i < st->target_count; i++) {
        nvtxw_free(st->targets[i].name);
        replay_dict_free(&st->targets[i].strings);
        replay_dict_free(&st->targets[i].statics);
    }
    nvtxw_free(st->targets);
    replay_dict_free(&st->stream_names);
    nvtxw_free(st->stream_exact);
    nvtxw_free(st->domain_exact);
    st->stream_exact = st->domain_exact = NULL;
    st->targets = NULL;
    st->target_count = st->target_capacity = 0;
}

enum { ROLE_PUSH = 5, ROLE_POP = 6 };

static int event_role(const replay_input* in, const nvtxw_record_t* rec) {
    const nvtxw_schema_registry_t* registry = nvtxw_reader_registry(in->reader, rec->domain);
    const nvtxw_schema_t* schema;
    nvtxPayloadSchemaAttr_t attr;
    if (rec->u.event.count == 0 || registry == NULL)
        return 0;
    schema = nvtxw_schema_registry_find_schema(registry, rec->u.event.payloads[0].schemaId);
    if (schema == NULL)
        return 0;
    nvtxw_schema_get_attr(schema, &attr);
    return (int)NVTXW_PAYLOAD_SCHEMA_ROLE(attr.flags);
}

static int stack_push(replay_stack* s, uint8_t kept) {
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 16;
        uint8_t* grown = nvtxw_realloc(s->kept, capacity);
        if (grown == NULL)
            return -1;
        s->kept = grown;
        s->capacity = capacity;
    }
    s->kept[s->count++] = kept;
    return 0;
}

int replay_window_keep(replay_state* st, replay_input* in, const nvtxw_record_t* rec) {
    const nvtxw_replay_options_t* o = &st->opts;
    int inside =
        (!o->has_from || rec->timestamp >= o->from) && (!o->has_to || rec->timestamp <= o->to);
    replay_stack* stack = &in->stacks[rec->stream];
    int role;
    if (!o->has_from && !o->has_to)
        return 1;
    if (rec->kind == NVTXW_RECORD_COUNTER_SAMPLE || rec->kind == NVTXW_RECORD_COUNTER_NO_VALUE)
        return inside;
    if (rec->kind != NVTXW_RECORD_EVENT)
        return 1;
    role = event_role(in, rec);
    if (role == ROLE_POP && stack->count > 0)
        return stack->kept[--stack->count];
    if (!rec->has_timestamp)
        inside = 1;
    if (role == ROLE_PUSH && stack_push(stack, (uint8_t)inside) != 0)
        return -1;
    return inside;
}
