/*
 * tools/otf2-import/task_set.c - a set of OTF2 tasks, each with a 64-bit
 * value (its scope, or its parent in the prescan): open addressing over
 * positions into dense key and value arrays, with deletion, so a map that
 * keeps adding tasks and removing completed ones stays as small as the
 * tasks alive at once (tasks.c).
 */
#include "config.h"

#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"

task_key thread_task_key(uint32_t team, uint32_t creator, uint32_t generation) {
    task_key key;
    memset(&key, 0, sizeof key); /* compared with memcmp */
    key.team = team;
    key.creator = creator;
    key.generation = generation;
    return key;
}

task_key omp_task_key(size_t group_index, uint64_t id) {
    task_key key;
    memset(&key, 0, sizeof key);
    key.team = UINT32_MAX;
    key.creator = group_index;
    key.generation = id;
    return key;
}

uint64_t task_key_hash(const task_key* key) {
    uint64_t h = (uint64_t)key->team * 0x9E3779B97F4A7C15ULL;
    h ^= key->creator * 0xC2B2AE3D27D4EB4FULL;
    h ^= key->generation + 0x165667B19E3779F9ULL + (h << 6) + (h >> 2);
    h ^= h >> 33; /* spread consecutive generations over the low bits */
    h *= 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 33);
}

static int same_task(const task_key* a, const task_key* b) {
    return a->team == b->team && a->creator == b->creator && a->generation == b->generation;
}

/* The slot holding `key`, or the empty slot where it would go (linear
 * probing; the set keeps at least a quarter of its slots empty). */
static size_t task_slot(const task_set* set, const task_key* key) {
    size_t mask = set->slot_count - 1;
    for (size_t s = (size_t)task_key_hash(key) & mask;; s = (s + 1) & mask) {
        uint32_t p = set->slots[s];
        if (p == 0 || same_task(&set->keys[p - 1], key))
            return s;
    }
}

int task_set_find(const task_set* set, const task_key* key, size_t* index) {
    uint32_t p = set->slot_count != 0 ? set->slots[task_slot(set, key)] : 0;
    if (p == 0)
        return 0;
    *index = p - 1;
    return 1;
}

static int grow_slots(task_set* set) {
    size_t count = set->slot_count ? set->slot_count * 2 : 64;
    uint32_t* slots = nvtxw_calloc(count, sizeof *slots);
    if (slots == NULL)
        return -1;
    nvtxw_free(set->slots);
    set->slots = slots;
    set->slot_count = count;
    for (size_t i = 0; i < set->count; i++)
        set->slots[task_slot(set, &set->keys[i])] = (uint32_t)i + 1;
    return 0;
}

static int grow_entries(task_set* set) {
    size_t capacity = set->capacity ? set->capacity * 2 : 64;
    task_key* keys;
    uint64_t* values;
    if (capacity >= UINT32_MAX)
        return -1;
    if ((keys = nvtxw_realloc(set->keys, capacity * sizeof *keys)) == NULL)
        return -1;
    set->keys = keys;
    if ((values = nvtxw_realloc(set->values, capacity * sizeof *values)) == NULL)
        return -1;
    set->values = values;
    set->capacity = capacity;
    return 0;
}

int task_set_add(task_set* set, const task_key* key, uint64_t value) {
    if (set->slot_count != 0 && set->slots[task_slot(set, key)] != 0)
        return 0;
    if ((set->count + 1) * 4 > set->slot_count * 3 && grow_slots(set) != 0)
        return -1;
    if (set->count == set->capacity && grow_entries(set) != 0)
        return -1;
    set->keys[set->count] = *key;
    set->values[set->count] = value;
    set->count++;
    set->slots[task_slot(set, key)] = (uint32_t)set->count;
    return 0;
}

/* Backward-shift deletion (no tombstones: a set that keeps adding and
 * removing probes as a fresh one would); the last entry moves into the
 * removed one's position. */
int task_set_remove(task_set* set, const task_key* key, uint64_t* value) {
    size_t mask = set->slot_count - 1, hole, s;
    uint32_t removed, last;
    if (set->slot_count == 0 || (removed = set->slots[hole = task_slot(set, key)]) == 0)
        return 0;
    if (value != NULL)
        *value = set->values[removed - 1];
    for (s = (hole + 1) & mask; set->slots[s] != 0; s = (s + 1) & mask) {
        size_t home = (size_t)task_key_hash(&set->keys[set->slots[s] - 1]) & mask;
        if (((s - home) & mask) >= ((s - hole) & mask)) { /* its probe passes the hole */
            set->slots[hole] = set->slots[s];
            hole = s;
        }
    }
    set->slots[hole] = 0;
    last = (uint32_t)set->count--;
    if (removed != last) {
        for (s = (size_t)task_key_hash(&set->keys[last - 1]) & mask; set->slots[s] != last;
             s = (s + 1) & mask)
            ;
        set->slots[s] = removed;
        set->keys[removed - 1] = set->keys[last - 1];
        set->values[removed - 1] = set->values[last - 1];
    }
    return 1;
}

void task_set_free(task_set* set) {
    nvtxw_free(set->slots);
    nvtxw_free(set->keys);
    nvtxw_free(set->values);
    memset(set, 0, sizeof *set);
}
