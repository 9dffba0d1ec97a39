/*
 * tools/replay/driver/replay_patterns.c - patterns that match nothing, and
 * the names a user probably meant (see replay_patterns.h).
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "config.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_patterns.h"

/* Closest names shown per pattern. */
#define CLOSEST_MAX 3
/* Longest prefix of a name compared (edit distance is quadratic). */
#define DISTANCE_MAX_LENGTH 256

typedef const char* (*name_at_fn)(const nvtxw_reader_t* reader, uint64_t index);
typedef size_t (*name_count_fn)(const nvtxw_reader_t* reader);

typedef struct candidate {
    const char* name;
    size_t distance;
} candidate;

/* Levenshtein distance of the first DISTANCE_MAX_LENGTH bytes of a and b. */
static size_t edit_distance(const char* a, const char* b) {
    size_t la = strnlen(a, DISTANCE_MAX_LENGTH), lb = strnlen(b, DISTANCE_MAX_LENGTH);
    size_t row[DISTANCE_MAX_LENGTH + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[lb];
}

/* Keeps the CLOSEST_MAX nearest distinct names in `best` (sorted). */
static void consider(candidate* best, size_t* kept, const char* name, size_t distance) {
    size_t i;
    for (i = 0; i < *kept; i++)
        if (strcmp(best[i].name, name) == 0)
            return;
    for (i = *kept; i > 0 && best[i - 1].distance > distance; i--)
        if (i < CLOSEST_MAX)
            best[i] = best[i - 1];
    if (i < CLOSEST_MAX) {
        best[i] = (candidate){name, distance};
        if (*kept < CLOSEST_MAX)
            (*kept)++;
    }
}

static int matches(const char* pattern, const char* name) {
    return strcmp(pattern, name) == 0 || fnmatch(pattern, name, 0) == 0;
}

/* One pattern against every name of one kind; warns when none matches. */
static int warn_one(const char* tool, const char* option, const char* what,
                    nvtxw_reader_t* const* readers, size_t count, const char* pattern,
                    name_count_fn name_count, name_at_fn name_at) {
    candidate best[CLOSEST_MAX];
    size_t kept = 0;
    for (size_t r = 0; r < count; r++) {
        for (uint64_t k = 0; k < name_count(readers[r]); k++) {
            const char* name = name_at(readers[r], k);
            if (name == NULL)
                continue;
            if (matches(pattern, name))
                return 0;
            consider(best, &kept, name, edit_distance(pattern, name));
        }
    }
    fprintf(stderr, "%s: warning: %s '%s' matches no %s of the inputs", tool, option, pattern,
            what);
    for (size_t i = 0; i < kept; i++)
        fprintf(stderr, "%s'%s'", i == 0 ? "; the closest: " : ", ", best[i].name);
    fputc('\n', stderr);
    return 1;
}

size_t replay_warn_unmatched(const char* tool, nvtxw_reader_t* const* readers, size_t count,
                             const char* const* streams, size_t stream_count,
                             const char* const* domains, size_t domain_count) {
    size_t unmatched = 0;
    for (size_t i = 0; i < stream_count; i++)
        unmatched += warn_one(tool, "--streams", "stream", readers, count, streams[i],
                              nvtxw_reader_stream_count, nvtxw_reader_stream_name);
    for (size_t i = 0; i < domain_count; i++)
        unmatched += warn_one(tool, "--domains", "domain", readers, count, domains[i],
                              nvtxw_reader_domain_count, nvtxw_reader_domain_name);
    return unmatched;
}
