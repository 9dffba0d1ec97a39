/*
 * tools/replay/synthetic/synthetic_spec.c - the --synthetic argument and the entry
 * point synthetic_replay.
 *
 * Grammar (docs/synthetic.md):
 *   spec   = NAME [ ":" [ param { "," param } ] ]
 *   param  = KEY "=" VALUE
 *   VALUE  = decimal digits [ "k" | "M" | "G" ]     (x1e3, x1e6, x1e9)
 * Every KEY is one of the generator's parameters, at most once; a value
 * outside the parameter's range is an error, never clamped. Messages name
 * the generator and the parameter: "--synthetic tasks: unknown parameter
 * 'x' (seed, events, workers, ...)".
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthetic.h"

static const synth_generator* const generators[] = {&synth_tasks, &synth_mpi, &synth_gpu,
                                                    &synth_nested};
#define GENERATOR_COUNT (sizeof generators / sizeof generators[0])

static const synth_generator* find_generator(const char* name, size_t length) {
    for (size_t i = 0; i < GENERATOR_COUNT; i++) {
        if (strlen(generators[i]->name) == length && !strncmp(generators[i]->name, name, length))
            return generators[i];
    }
    return NULL;
}

/* "a, b, c" into buf. */
static void list_params(const synth_generator* gen, char* buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < gen->param_count && used < size; i++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", gen->params[i].name);
}

/* A decimal value with an optional k/M/G suffix; 0 or -1. */
static int parse_number(const char* text, size_t length, uint64_t* out) {
    char digits[32];
    uint64_t scale = 1;
    unsigned long long value;
    char* end;
    if (length == 0 || length >= sizeof digits || text[0] < '0' || text[0] > '9')
        return -1;
    memcpy(digits, text, length);
    digits[length] = '\0';
    errno = 0;
    value = strtoull(digits, &end, 10);
    if (*end == 'k' || *end == 'M' || *end == 'G') {
        scale = *end == 'k' ? 1000u : *end == 'M' ? 1000000u : 1000000000u;
        end++;
    }
    if (errno != 0 || *end != '\0' || value > UINT64_MAX / scale)
        return -1;
    *out = (uint64_t)value * scale;
    return 0;
}

/* One "key=value" of `length` bytes; 0, or 1 with the error printed. */
static int parse_param(synth_run* run, const synth_generator* gen, const char* item, size_t length,
                       unsigned char* seen) {
    const char* tool = run->ctx->tool;
    const char* eq = memchr(item, '=', length);
    size_t key_length = eq ? (size_t)(eq - item) : length;
    char names[512];
    for (size_t i = 0; i < gen->param_count; i++) {
        const synth_param* p = &gen->params[i];
        uint64_t value;
        if (strlen(p->name) != key_length || strncmp(p->name, item, key_length) != 0)
            continue;
        if (eq == NULL || parse_number(eq + 1, length - key_length - 1, &value) != 0 ||
            value < p->min || value > p->max) {
            fprintf(stderr,
                    "%s: error: --synthetic %s: parameter '%s' takes an integer from %" PRIu64
                    " to %" PRIu64 ", not '%.*s'\n",
                    tool, gen->name, p->name, p->min, p->max,
                    eq ? (int)(length - key_length - 1) : 0, eq ? eq + 1 : "");
            return 1;
        }
        if (seen[i]) {
            fprintf(stderr, "%s: error: --synthetic %s: parameter '%s' given twice\n", tool,
                    gen->name, p->name);
            return 1;
        }
        seen[i] = 1;
        run->value[i] = value;
        return 0;
    }
    list_params(gen, names, sizeof names);
    fprintf(stderr, "%s: error: --synthetic %s: unknown parameter '%.*s' (%s)\n", tool, gen->name,
            (int)key_length, item, names);
    return 1;
}

static int unknown_generator(const synth_run* run, const char* spec, size_t length) {
    fprintf(stderr, "%s: error: --synthetic: unknown generator '%.*s' (", run->ctx->tool,
            (int)length, spec);
    for (size_t i = 0; i < GENERATOR_COUNT; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", generators[i]->name);
    fprintf(stderr, ")\n");
    return 1;
}

int synth_spec_parse(synth_run* run, const char* spec, const synth_generator** gen_out) {
    const char* colon = strchr(spec, ':');
    size_t name_length = colon ? (size_t)(colon - spec) : strlen(spec);
    const synth_generator* gen = find_generator(spec, name_length);
    unsigned char seen[SYNTH_MAX_PARAMS] = {0};
    if (gen == NULL)
        return unknown_generator(run, spec, name_length);
    run->generator = gen->name;
    for (size_t i = 0; i < gen->param_count; i++)
        run->value[i] = gen->params[i].def;
    for (const char* item = colon ? colon + 1 : ""; *item != '\0';) {
        const char* comma = strchr(item, ',');
        size_t length = comma ? (size_t)(comma - item) : strlen(item);
        if (parse_param(run, gen, item, length, seen) != 0)
            return 1;
        item += length + (comma != NULL);
    }
    run->rng = run->value[SYNTH_SEED];
    *gen_out = gen;
    return 0;
}

int synthetic_replay(const replay_input_ctx* ctx, const char* spec) {
    synth_run run;
    const synth_generator* gen;
    int status;
    memset(&run, 0, sizeof run);
    run.ctx = ctx;
    run.t = ctx->iface;
    run.ext = ctx->ext;
    if (synth_spec_parse(&run, spec, &gen) != 0)
        return 1;
    if (synth_session_begin(&run) != 0)
        return 1;
    status = gen->run(&run);
    return synth_session_end(&run, status);
}
