/*
 * common/json_value.c - JSON text fields checked and compacted through
 * yajl: a text without whitespace is only checked by yajl's parser and
 * copied; any other has the parser's callbacks drive yajl's generator, so
 * what is written is what was parsed. A text yajl refuses is refused whole.
 */
#include "config.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "common/alloc.h"
#include "common/json_value.h"

/*
 * yajl's memory for one text: a parser (handle, lexer, buffer, stack) or a
 * generator is a handful of small blocks, made and freed for every value.
 * They come from an arena on the caller's stack, so a value costs no
 * malloc/free; a block that does not fit (a deep or long value) comes from
 * the allocator as before. Freeing an arena block does nothing (the arena
 * goes with the call); a block grown by realloc is copied to a new one.
 */
#define ARENA_BYTES 4096

typedef struct arena {
    size_t used;
    alignas(max_align_t) unsigned char bytes[ARENA_BYTES];
} arena;

/* Each arena block is preceded by its size, in a max_align_t slot. */
#define ARENA_HEADER sizeof(max_align_t)

static int in_arena(const arena* a, const void* p) {
    const unsigned char* b = p;
    return b >= a->bytes && b < a->bytes + ARENA_BYTES;
}

static void* arena_malloc(void* ctx, size_t size) {
    arena* a = ctx;
    size_t need = ARENA_HEADER + (size + ARENA_HEADER - 1) / ARENA_HEADER * ARENA_HEADER;
    unsigned char* block;
    if (size > ARENA_BYTES || need > ARENA_BYTES - a->used)
        return nvtxw_malloc(size);
    block = a->bytes + a->used;
    memcpy(block, &size, sizeof size);
    a->used += need;
    return block + ARENA_HEADER;
}

static void arena_free(void* ctx, void* p) {
    if (p != NULL && !in_arena(ctx, p))
        nvtxw_free(p);
}

static void* arena_realloc(void* ctx, void* p, size_t size) {
    size_t old;
    void* grown;
    if (p == NULL)
        return arena_malloc(ctx, size);
    if (!in_arena(ctx, p))
        return nvtxw_realloc(p, size);
    memcpy(&old, (unsigned char*)p - ARENA_HEADER, sizeof old);
    if (size <= old)
        return p;
    if ((grown = arena_malloc(ctx, size)) != NULL)
        memcpy(grown, p, old);
    return grown;
}

static yajl_alloc_funcs arena_funcs(arena* a) {
    yajl_alloc_funcs funcs = {arena_malloc, arena_realloc, arena_free, a};
    a->used = 0;
    return funcs;
}

int json_value_field(const nvtxw_field_info_t* field) {
    const nvtxSemanticsHeader_t* h;
    if (field == NULL || field->entry == NULL)
        return 0;
    switch (field->type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8:
    case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING:
        break;
    default:
        return 0;
    }
    for (h = field->entry->semantics; h != NULL; h = h->next) {
        if (h->semanticId == NVTXW_SEMANTIC_ID_JSON_TEXT)
            return 1;
    }
    return 0;
}

/* The compaction: each token of the walk handed to yajl's generator (the
 * context); 0 goes on. */
static int gen_status(yajl_gen_status status) { return status == yajl_gen_status_ok ? 0 : 1; }

static int gen_null(void* g) { return gen_status(yajl_gen_null(g)); }

static int gen_bool(void* g, int value) { return gen_status(yajl_gen_bool(g, value)); }

static int gen_number(void* g, const char* text, size_t length) {
    return gen_status(yajl_gen_number(g, text, length));
}

static int gen_string(void* g, const char* text, size_t length) {
    return gen_status(yajl_gen_string(g, (const unsigned char*)text, length));
}

static int gen_open(void* g, int is_array) {
    return gen_status(is_array ? yajl_gen_array_open(g) : yajl_gen_map_open(g));
}

static int gen_close(void* g, int is_array) {
    return gen_status(is_array ? yajl_gen_array_close(g) : yajl_gen_map_close(g));
}

static const json_value_ops gen_ops = {gen_null,   gen_bool, gen_number, gen_string,
                                       gen_string, gen_open, gen_close};

/* The walk: yajl's callbacks forwarded to the caller's ops (none: only
 * checked), containers counted to bound the depth. */
typedef struct walk {
    const json_value_ops* ops;
    void* ctx;
    unsigned depth;
} walk;

static int walk_null(void* w) { return ((walk*)w)->ops->on_null(((walk*)w)->ctx) == 0; }

static int walk_bool(void* w, int value) {
    return ((walk*)w)->ops->on_bool(((walk*)w)->ctx, value) == 0;
}

static int walk_number(void* w, const char* text, size_t length) {
    return ((walk*)w)->ops->on_number(((walk*)w)->ctx, text, length) == 0;
}

static int walk_string(void* w, const unsigned char* text, size_t length) {
    return ((walk*)w)->ops->on_string(((walk*)w)->ctx, (const char*)text, length) == 0;
}

static int walk_key(void* w, const unsigned char* text, size_t length) {
    return ((walk*)w)->ops->on_key(((walk*)w)->ctx, (const char*)text, length) == 0;
}

static int walk_open(walk* w, int is_array) {
    if (++w->depth > JSON_VALUE_MAX_DEPTH)
        return 0;
    return w->ops == NULL || w->ops->on_open(w->ctx, is_array) == 0;
}

static int walk_close(walk* w, int is_array) {
    w->depth--;
    return w->ops == NULL || w->ops->on_close(w->ctx, is_array) == 0;
}

static int walk_map_open(void* w) { return walk_open(w, 0); }

static int walk_map_close(void* w) { return walk_close(w, 0); }

static int walk_array_open(void* w) { return walk_open(w, 1); }

static int walk_array_close(void* w) { return walk_close(w, 1); }

static const yajl_callbacks walk_callbacks = {
    .yajl_null = walk_null,
    .yajl_boolean = walk_bool,
    .yajl_number = walk_number,
    .yajl_string = walk_string,
    .yajl_start_map = walk_map_open,
    .yajl_map_key = walk_key,
    .yajl_end_map = walk_map_close,
    .yajl_start_array = walk_array_open,
    .yajl_end_array = walk_array_close,
};

/* Checking alone: only the containers are seen (the depth). */
static const yajl_callbacks check_callbacks = {
    .yajl_start_map = walk_map_open,
    .yajl_end_map = walk_map_close,
    .yajl_start_array = walk_array_open,
    .yajl_end_array = walk_array_close,
};

/* 1 when `text` is one JSON value (nothing after it: "1 2" and "[1] x" are
 * not JSON text) that every callback took, 0 when not, -1 when yajl has no
 * memory for its parser. */
static int parse(const yajl_callbacks* callbacks, walk* w, const char* text, size_t length) {
    arena memory;
    yajl_alloc_funcs funcs = arena_funcs(&memory);
    yajl_handle parser = yajl_alloc(callbacks, &funcs, w);
    int valid;
    if (parser == NULL)
        return -1;
    valid = yajl_parse(parser, (const unsigned char*)text, length) == yajl_status_ok &&
            yajl_complete_parse(parser) == yajl_status_ok;
    yajl_free(parser);
    return valid;
}

int json_value_walk(const char* text, size_t length, const json_value_ops* ops, void* ctx) {
    walk w = {ops, ctx, 0};
    return parse(&walk_callbacks, &w, text, length) == 1 ? 0 : 1;
}

/* Compact already: no byte JSON allows only as whitespace between tokens
 * (inside strings they are escaped, so any of them means a token gap). */
static int compact_already(const char* text, size_t length) {
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            return 0;
    }
    return length > 0;
}

int json_value_append(strbuf* out, const char* text, size_t length) {
    arena memory;
    yajl_alloc_funcs funcs;
    yajl_gen gen;
    const unsigned char* compact;
    size_t compact_length;
    int status;
    /* The common case, text a JSON writer made: checked, then copied as it
     * is (yajl's generator would write the same bytes, slower). */
    if (compact_already(text, length)) {
        walk check = {NULL, NULL, 0};
        int valid = parse(&check_callbacks, &check, text, length);
        if (valid <= 0)
            return valid < 0 ? -1 : 1;
        return strbuf_append(out, text, length) != 0 ? -1 : 0;
    }
    funcs = arena_funcs(&memory);
    if ((gen = yajl_gen_alloc(&funcs)) == NULL)
        return -1;
    status = json_value_walk(text, length, &gen_ops, gen) == 0 &&
                     yajl_gen_get_buf(gen, &compact, &compact_length) == yajl_gen_status_ok &&
                     compact_length > 0
                 ? 0
                 : 1;
    if (status == 0 && strbuf_append(out, (const char*)compact, compact_length) != 0)
        status = -1;
    yajl_gen_free(gen);
    return status;
}
