/*
 * tests/unit/share_test.c - one report written by several "ranks"
 * (nvtxw/share.h, SessionBeginShared): here the ranks are threads of one
 * process and the share's callbacks meet at a barrier, so the library's
 * protocol is tested without MPI (tests/mpi/ runs the real thing).
 *
 * Checked: the shared report reads back record for record like the same
 * calls made by one process (by the index and by a scan, with no damage,
 * so the padding of the extents is invisible), for 1 to 4 ranks; a rank
 * whose registrations differ, a rank whose writes fail, rank 0 unable to
 * create the file and a sink that cannot be shared fail every rank with a
 * message naming the rank, and leave no file behind; an invalid share is
 * refused before the ranks meet.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtxw/nvtxw.h"
#include "test_util.h"

#define MAX_RANKS 4
#define SAMPLES 60000 /* per rank: several extents of 256 KiB */

static char dir[PATH_MAX];

/* ---- the ranks' meeting place ----------------------------------------- */

typedef struct world {
    unsigned ranks;
    pthread_barrier_t barrier;
    pthread_mutex_t lock;
    uint64_t end;
    int fail_reserve_rank; /* -1: none */
    unsigned char broadcast[8192];
    const void* gathered[MAX_RANKS];
    size_t gathered_size[MAX_RANKS];
    uint64_t reduced[MAX_RANKS][4];
} world;

typedef struct rank_ctx {
    world* w;
    unsigned rank;
    /* what the rank does and what it got */
    const char* config;
    int extra_string;
    nvtxwResultCode_t begin, end;
    char message[1024];
} rank_ctx;

static int share_reserve(void* context, uint64_t size, uint64_t* offset) {
    rank_ctx* c = context;
    pthread_mutex_lock(&c->w->lock);
    *offset = c->w->end;
    c->w->end += size;
    pthread_mutex_unlock(&c->w->lock);
    /* the failing rank fails all but rank 0's file header */
    return (int)c->rank == c->w->fail_reserve_rank && *offset != 0 ? -1 : 0;
}

static int share_broadcast(void* context, void* data, size_t size) {
    rank_ctx* c = context;
    ck_assert_uint_le(size, sizeof c->w->broadcast);
    if (c->rank == 0)
        memcpy(c->w->broadcast, data, size);
    pthread_barrier_wait(&c->w->barrier);
    if (c->rank != 0)
        memcpy(data, c->w->broadcast, size);
    pthread_barrier_wait(&c->w->barrier);
    return 0;
}

static int share_gather(void* context, const void* data, size_t size, void** all,
                        size_t* all_size) {
    rank_ctx* c = context;
    c->w->gathered[c->rank] = data;
    c->w->gathered_size[c->rank] = size;
    pthread_barrier_wait(&c->w->barrier);
    if (c->rank == 0) {
        size_t total = 0;
        unsigned char* out;
        for (unsigned r = 0; r < c->w->ranks; r++)
            total += c->w->gathered_size[r];
        out = malloc(total ? total : 1);
        ck_assert_ptr_nonnull(out);
        *all = out;
        *all_size = total;
        for (unsigned r = 0; r < c->w->ranks; r++) {
            memcpy(out, c->w->gathered[r], c->w->gathered_size[r]);
            out += c->w->gathered_size[r];
        }
    }
    pthread_barrier_wait(&c->w->barrier);
    return 0;
}

static int share_reduce_max(void* context, uint64_t* values, size_t count) {
    rank_ctx* c = context;
    ck_assert_uint_le(count, 4);
    memcpy(c->w->reduced[c->rank], values, count * sizeof *values);
    pthread_barrier_wait(&c->w->barrier);
    for (size_t i = 0; i < count; i++)
        for (unsigned r = 0; r < c->w->ranks; r++)
            if (c->w->reduced[r][i] > values[i])
                values[i] = c->w->reduced[r][i];
    pthread_barrier_wait(&c->w->barrier);
    return 0;
}

static nvtxwShare_t share_of(rank_ctx* c) {
    nvtxwShare_t s;
    memset(&s, 0, sizeof s);
    s.structSize = sizeof s;
    s.rank = c->rank;
    s.ranks = c->w->ranks;
    s.context = c;
    s.reserve = share_reserve;
    s.broadcast = share_broadcast;
    s.gather = share_gather;
    s.reduceMax = share_reduce_max;
    return s;
}

static const nvtxwExtensionInterface_t* extension(void) {
    const void* table = NULL;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, &table),
                     NVTXW_RESULT_SUCCESS);
    ck_assert(NVTXW_EXTENSION_HAS((const nvtxwExtensionInterface_t*)table, SessionBeginShared));
    return table;
}

/* ---- what the ranks write --------------------------------------------- */

/* Sample i of stream s: values that do not compress to nothing. */
static int64_t sample_value(unsigned s, int i) {
    uint64_t x = ((uint64_t)s << 32 | (uint64_t)i) * 0x9E3779B97F4A7C15ull;
    return (int64_t)(x >> 20);
}

/* The registrations every rank makes (plus one string when `extra`), and
 * `ranks` streams; writes stream s's samples for each s with write[s]. */
static void write_session(const nvtxwInterface_t* t, nvtxwSessionHandle_t session, unsigned ranks,
                          const int* write, int extra) {
    const nvtxwExtensionInterface_t* ext = extension();
    nvtxwStreamHandle_t streams[MAX_RANKS];
    nvtxDomainHandle_t d;
    nvtxStringHandle_t str;
    uint64_t counter = 0;
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "d", &d), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StringRegister(d, "every rank", &str), NVTXW_RESULT_SUCCESS);
    if (extra)
        ck_assert_int_eq(t->StringRegister(d, "only this rank", &str), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterInt64Register(t, d, "c", NULL, &counter), NVTXW_RESULT_SUCCESS);
    for (unsigned s = 0; s < ranks; s++) {
        char name[16];
        snprintf(name, sizeof name, "s%u", s);
        ck_assert_int_eq(nvtxwStreamOpen(t, session, name, d, "node/p", 0, &streams[s]),
                         NVTXW_RESULT_SUCCESS);
    }
    for (unsigned s = 0; s < ranks; s++) {
        if (!write[s])
            continue;
        for (int i = 0; i < SAMPLES; i++) {
            /* a rank whose writes fail goes on writing: its calls fail */
            nvtxwCounterInt64Write(t, streams[s], 1000 + 7 * (int64_t)i + s, counter,
                                   sample_value(s, i));
            if (i % 5000 == 4999) /* more, smaller chunks */
                ext->StreamFlush(streams[s]);
        }
    }
}

static void* rank_main(void* arg) {
    rank_ctx* c = arg;
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    nvtxwSessionAttributes_t attr = {sizeof attr, "shared", c->config};
    nvtxwShare_t share = share_of(c);
    nvtxwSessionHandle_t session = NULL;
    int write[MAX_RANKS] = {0};
    c->begin = extension()->SessionBeginShared(&attr, &share, &session);
    if (c->begin != NVTXW_RESULT_SUCCESS) {
        snprintf(c->message, sizeof c->message, "%s", nvtxw_last_error());
        return NULL;
    }
    write[c->rank] = 1;
    write_session(t, session, c->w->ranks, write, c->extra_string);
    c->end = t->SessionEnd(session);
    snprintf(c->message, sizeof c->message, "%s", nvtxw_last_error());
    return NULL;
}

/* Runs `ranks` ranks on `config`; rank `extra_rank` registers one more
 * string, rank `fail_rank`'s reserve fails (-1: none). */
static void run_ranks(unsigned ranks, const char* config, int extra_rank, int fail_rank,
                      rank_ctx* ctx) {
    pthread_t threads[MAX_RANKS];
    world w;
    memset(&w, 0, sizeof w);
    w.ranks = ranks;
    w.fail_reserve_rank = fail_rank;
    pthread_barrier_init(&w.barrier, NULL, ranks);
    pthread_mutex_init(&w.lock, NULL);
    for (unsigned r = 0; r < ranks; r++) {
        memset(&ctx[r], 0, sizeof ctx[r]);
        ctx[r].w = &w;
        ctx[r].rank = r;
        ctx[r].config = config;
        ctx[r].extra_string = (int)r == extra_rank;
        ctx[r].end = NVTXW_RESULT_FAILED;
        ck_assert_int_eq(pthread_create(&threads[r], NULL, rank_main, &ctx[r]), 0);
    }
    for (unsigned r = 0; r < ranks; r++)
        pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&w.barrier);
    pthread_mutex_destroy(&w.lock);
    for (unsigned r = 0; r < ranks; r++)
        ctx[r].w = NULL;
}

/* ---- reading back ----------------------------------------------------- */

/* Every record of the report, one line each, in time order; damage fails. */
static char* signature(const char* path, uint32_t flags) {
    nvtxw_reader_options_t opts;
    nvtxw_reader_t* reader = NULL;
    const nvtxw_record_t* rec;
    size_t size = 0, used = 0;
    char* text = NULL;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.order = NVTXW_READER_ORDER_TIME;
    opts.flags = flags;
    ck_assert_msg(nvtxw_reader_open(path, &opts, &reader) == NVTXW_RESULT_SUCCESS, "%s: %s", path,
                  nvtxw_last_error());
    while (nvtxw_reader_next(reader, &rec) == NVTXW_RESULT_SUCCESS && rec != NULL) {
        char line[256];
        int n = snprintf(line, sizeof line, "%d s=%lld d=%lld t=%lld", (int)rec->kind,
                         (long long)rec->stream, (long long)rec->domain,
                         rec->has_timestamp ? (long long)rec->timestamp : -1LL);
        if (rec->kind == NVTXW_RECORD_COUNTER_SAMPLE && rec->u.counter_sample.size == 8) {
            int64_t v;
            memcpy(&v, rec->u.counter_sample.data, 8);
            n += snprintf(line + n, sizeof line - (size_t)n, " c=%llu v=%lld",
                          (unsigned long long)rec->u.counter_sample.counter_id, (long long)v);
        } else if (rec->kind == NVTXW_RECORD_STRING) {
            n += snprintf(line + n, sizeof line - (size_t)n, " %s", rec->u.string.text);
        } else if (rec->kind == NVTXW_RECORD_STREAM_OPEN) {
            n += snprintf(line + n, sizeof line - (size_t)n, " %s", rec->u.stream_open.name);
        }
        n += snprintf(line + n, sizeof line - (size_t)n, "\n");
        if (used + (size_t)n + 1 > size) {
            size = 2 * (used + (size_t)n + 1);
            text = realloc(text, size);
            ck_assert_ptr_nonnull(text);
        }
        memcpy(text + used, line, (size_t)n + 1);
        used += (size_t)n;
    }
    ck_assert_msg(nvtxw_reader_damage_count(reader) == 0, "%s (flags %u): %zu damaged ranges", path,
                  flags, nvtxw_reader_damage_count(reader));
    ck_assert_uint_eq(nvtxw_reader_record_count(reader), nvtxw_reader_record_total(reader));
    nvtxw_reader_close(reader);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* The same calls by one process, every stream written. */
static void write_reference(unsigned ranks, const char* path) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    char config[PATH_MAX + 128];
    int write[MAX_RANKS] = {1, 1, 1, 1};
    nvtxwSessionHandle_t session;
    ck_assert_int_lt(snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path),
                     (int)sizeof config);
    session = tu_session_or_fail(t, "shared", config);
    write_session(t, session, ranks, write, 0);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* No file of `dir` but those named in `keep` (NULL-terminated): no
 * report, no temporary file left behind. */
static void assert_dir_holds_only(const char* const* keep) {
    DIR* d = opendir(dir);
    struct dirent* e;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        int kept = e->d_name[0] == '.';
        for (const char* const* k = keep; *k != NULL && !kept; k++)
            kept = strcmp(e->d_name, *k) == 0;
        ck_assert_msg(kept, "left behind: %s/%s", dir, e->d_name);
    }
    closedir(d);
}

static void config_for(char* config, size_t size, const char* sink, const char* name) {
    ck_assert_int_lt(snprintf(config, size, "Sink=%s|Output=%s/%s|Overwrite=yes", sink, dir, name),
                     (int)size);
}

/* ---- tests ------------------------------------------------------------ */

START_TEST(test_shared_reads_like_one_process) {
    unsigned ranks = (unsigned)_i;
    char config[PATH_MAX + 64], shared[PATH_MAX + 32], single[PATH_MAX + 32];
    rank_ctx ctx[MAX_RANKS];
    char *expected, *got, *scanned;
    const char* keep[] = {"shared.nvtxw", "single.nvtxw", NULL};
    config_for(config, sizeof config, "report", "shared.nvtxw");
    snprintf(shared, sizeof shared, "%s/shared.nvtxw", dir);
    snprintf(single, sizeof single, "%s/single.nvtxw", dir);
    run_ranks(ranks, config, -1, -1, ctx);
    for (unsigned r = 0; r < ranks; r++) {
        ck_assert_msg(ctx[r].begin == NVTXW_RESULT_SUCCESS, "rank %u: %s", r, ctx[r].message);
        ck_assert_msg(ctx[r].end == NVTXW_RESULT_SUCCESS, "rank %u: %s", r, ctx[r].message);
    }
    write_reference(ranks, single);
    expected = signature(single, 0);
    got = signature(shared, 0);
    scanned = signature(shared, NVTXW_READER_SCAN);
    ck_assert_uint_gt(tu_count_substr(expected, "\n"), (size_t)ranks * SAMPLES);
    ck_assert_str_eq(got, expected);
    ck_assert_str_eq(scanned, expected);
    assert_dir_holds_only(keep);
    free(expected);
    free(got);
    free(scanned);
    unlink(shared);
    unlink(single);
}
END_TEST

/* Every rank fails, none keeps a file, and the ranks that did nothing
 * wrong name the one that did. */
static void assert_all_failed(const rank_ctx* ctx, unsigned ranks, unsigned culprit,
                              const char* own_words, const char* others_words) {
    const char* keep[] = {NULL};
    for (unsigned r = 0; r < ranks; r++) {
        const char* words = r == culprit ? own_words : others_words;
        ck_assert_msg(ctx[r].begin != NVTXW_RESULT_SUCCESS || ctx[r].end != NVTXW_RESULT_SUCCESS,
                      "rank %u succeeded", r);
        ck_assert_msg(strstr(ctx[r].message, words) != NULL, "rank %u: \"%s\" lacks \"%s\"", r,
                      ctx[r].message, words);
    }
    assert_dir_holds_only(keep);
}

START_TEST(test_registrations_differ) {
    char config[PATH_MAX + 64];
    rank_ctx ctx[3];
    config_for(config, sizeof config, "report", "differ.nvtxw");
    run_ranks(3, config, 1, -1, ctx);
    for (unsigned r = 0; r < 3; r++) {
        ck_assert_int_eq(ctx[r].begin, NVTXW_RESULT_SUCCESS);
        ck_assert_int_ne(ctx[r].end, NVTXW_RESULT_SUCCESS);
    }
    assert_all_failed(ctx, 3, 1, "did not make the same registrations",
                      "did not make the same registrations");
}
END_TEST

START_TEST(test_failed_rank_fails_all) {
    char config[PATH_MAX + 64], words[32];
    unsigned culprit = (unsigned)_i;
    rank_ctx ctx[3];
    config_for(config, sizeof config, "report", "failed.nvtxw");
    run_ranks(3, config, -1, (int)culprit, ctx);
    snprintf(words, sizeof words, "rank %u failed", culprit);
    assert_all_failed(ctx, 3, culprit, "reserve callback failed", words);
}
END_TEST

START_TEST(test_rank0_cannot_create) {
    char config[PATH_MAX + 64];
    rank_ctx ctx[3];
    config_for(config, sizeof config, "report", "no/such/folder/r.nvtxw");
    run_ranks(3, config, -1, -1, ctx);
    for (unsigned r = 0; r < 3; r++)
        ck_assert_int_ne(ctx[r].begin, NVTXW_RESULT_SUCCESS);
    assert_all_failed(ctx, 3, 0, "no/such/folder", "rank 0 could not");
}
END_TEST

START_TEST(test_sink_not_shareable) {
    char config[PATH_MAX + 64];
    rank_ctx ctx[2];
    config_for(config, sizeof config, "json", "x.json");
    run_ranks(2, config, -1, -1, ctx);
    for (unsigned r = 0; r < 2; r++) {
        ck_assert_int_eq(ctx[r].begin, NVTXW_RESULT_INVALID_ARGUMENT);
        ck_assert_msg(strstr(ctx[r].message, "Sink=json cannot be written by several") != NULL,
                      "%s", ctx[r].message);
    }
    assert_all_failed(ctx, 2, 0, "only Sink=report", "only Sink=report");
}
END_TEST

/* Refused on the calling rank alone, before any callback: nothing waits. */
START_TEST(test_invalid_share_refused_at_once) {
    nvtxwSessionAttributes_t attr = {sizeof attr, "bad", "Sink=null"};
    nvtxwSessionHandle_t session = NULL;
    rank_ctx c;
    world w;
    nvtxwShare_t share;
    memset(&w, 0, sizeof w);
    memset(&c, 0, sizeof c);
    w.ranks = 2;
    c.w = &w; /* no barrier: a callback would crash */
    share = share_of(&c);
    share.rank = 2;
    ck_assert_int_eq(extension()->SessionBeginShared(&attr, &share, &session),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "rank=2 of ranks=2"));
    share.rank = 0;
    share.gather = NULL;
    ck_assert_int_eq(extension()->SessionBeginShared(&attr, &share, &session),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "callback of the share is NULL"));
    ck_assert_int_eq(extension()->SessionBeginShared(&attr, NULL, &session),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_null(session);
}
END_TEST

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "share_test"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

static Suite* share_suite(void) {
    Suite* s = suite_create("share");
    TCase* tc = tcase_create("share");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_shared_reads_like_one_process, 1, MAX_RANKS + 1);
    tcase_add_test(tc, test_registrations_differ);
    tcase_add_loop_test(tc, test_failed_rank_fails_all, 0, 3);
    tcase_add_test(tc, test_rank0_cannot_create);
    tcase_add_test(tc, test_sink_not_shareable);
    tcase_add_test(tc, test_invalid_share_refused_at_once);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner* sr = srunner_create(share_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
