/*
 * sink/stats/stats_table.c - the stats sink's containers: range groups keyed
 * by (style, name) and maps from RANGE_ID to a waiting range half. Both are
 * open addressing tables with linear probing, power-of-two capacity, at most
 * half full. Not thread-safe: each instance belongs to one stream or to the
 * sink (serialized lifecycle calls).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "sink/stats/stats_internal.h"

#define STATS_MIN_SLOTS 16

/* FNV-1a over the style byte and the name. */
static size_t group_hash(int style, const char* name) {
    uint64_t h = 1469598103934665603ull ^ (unsigned char)style;
    h *= 1099511628211ull;
    for (; *name != '\0'; name++) {
        h ^= (unsigned char)*name;
        h *= 1099511628211ull;
    }
    return (size_t)(h ^ (h >> 32));
}

static int groups_rehash(stats_groups* groups, size_t capacity) {
    size_t* slots = nvtxw_calloc(capacity, sizeof *slots);
    size_t i;
    if (slots == NULL)
        return -1;
    for (i = 0; i < groups->count; i++) {
        size_t at = group_hash(groups->items[i].style, groups->items[i].name) & (capacity - 1);
        while (slots[at] != 0)
            at = (at + 1) & (capacity - 1);
        slots[at] = i + 1;
    }
    nvtxw_free(groups->slots);
    groups->slots = slots;
    groups->slot_capacity = capacity;
    return 0;
}

static int groups_append(stats_groups* groups, int style, const char* name) {
    stats_group* group;
    if (nvtxw_grow_array((void**)&groups->items, &groups->capacity, groups->count + 1,
                         sizeof *groups->items, 8) != 0)
        return -1;
    group = &groups->items[groups->count];
    memset(group, 0, sizeof *group);
    group->style = style;
    group->name = nvtxw_strdup(name);
    if (group->name == NULL)
        return -1;
    groups->count++;
    return 0;
}

int stats_groups_find_or_add(stats_groups* groups, int style, const char* name, size_t* index) {
    size_t at;
    if ((groups->count + 1) * 2 > groups->slot_capacity &&
        groups_rehash(groups,
                      groups->slot_capacity ? groups->slot_capacity * 2 : STATS_MIN_SLOTS) != 0)
        return -1;
    at = group_hash(style, name) & (groups->slot_capacity - 1);
    while (groups->slots[at] != 0) {
        const stats_group* group = &groups->items[groups->slots[at] - 1];
        if (group->style == style && strcmp(group->name, name) == 0) {
            *index = groups->slots[at] - 1;
            return 0;
        }
        at = (at + 1) & (groups->slot_capacity - 1);
    }
    if (groups_append(groups, style, name) != 0)
        return -1;
    groups->slots[at] = groups->count;
    *index = groups->count - 1;
    return 0;
}

void stats_groups_free(stats_groups* groups) {
    size_t i;
    for (i = 0; i < groups->count; i++) {
        nvtxw_free(groups->items[i].name);
        nvtxw_free(groups->items[i].durations);
    }
    nvtxw_free(groups->items);
    nvtxw_free(groups->slots);
    memset(groups, 0, sizeof *groups);
}

static int group_reserve(stats_group* group, size_t extra) {
    size_t capacity = group->capacity ? group->capacity : 4;
    int64_t* durations;
    if (group->count + extra <= group->capacity)
        return 0;
    while (capacity < group->count + extra)
        capacity *= 2;
    durations = nvtxw_reallocarray(group->durations, capacity, sizeof *durations);
    if (durations == NULL)
        return -1;
    group->durations = durations;
    group->capacity = capacity;
    return 0;
}

int stats_group_add(stats_group* group, int64_t duration) {
    if (group_reserve(group, 1) != 0)
        return -1;
    group->durations[group->count++] = duration;
    return 0;
}

int stats_group_take(stats_group* to, stats_group* from) {
    if (to->count == 0) {
        /* Steal the array: no copy, no second buffer. */
        nvtxw_free(to->durations);
        to->durations = from->durations;
        to->count = from->count;
        to->capacity = from->capacity;
    } else {
        if (group_reserve(to, from->count) != 0)
            return -1;
        if (from->count > 0) /* from->durations may be NULL when empty */
            memcpy(to->durations + to->count, from->durations, from->count * sizeof(int64_t));
        to->count += from->count;
        nvtxw_free(from->durations);
    }
    from->durations = NULL;
    from->count = from->capacity = 0;
    return 0;
}

static size_t id_hash(uint64_t id) {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id;
}

static int map_grow(stats_map* map) {
    size_t capacity = map->capacity ? map->capacity * 2 : STATS_MIN_SLOTS, i;
    stats_map grown;
    grown.slots = nvtxw_calloc(capacity, sizeof *grown.slots);
    grown.used = nvtxw_calloc(capacity, 1);
    grown.capacity = capacity;
    grown.count = 0;
    if (grown.slots == NULL || grown.used == NULL) {
        nvtxw_free(grown.slots);
        nvtxw_free(grown.used);
        return -1;
    }
    for (i = 0; i < map->capacity; i++) {
        if (map->used[i])
            stats_map_put(&grown, &map->slots[i]);
    }
    stats_map_free(map);
    *map = grown;
    return 0;
}

void stats_map_free(stats_map* map) {
    nvtxw_free(map->slots);
    nvtxw_free(map->used);
    memset(map, 0, sizeof *map);
}

stats_pending* stats_map_get(const stats_map* map, uint64_t id) {
    size_t at;
    if (map->count == 0)
        return NULL;
    for (at = id_hash(id) & (map->capacity - 1); map->used[at]; at = (at + 1) & (map->capacity - 1))
        if (map->slots[at].id == id)
            return &map->slots[at];
    return NULL;
}

int stats_map_put(stats_map* map, const stats_pending* entry) {
    size_t at;
    if ((map->count + 1) * 2 > map->capacity && map_grow(map) != 0)
        return -1;
    at = id_hash(entry->id) & (map->capacity - 1);
    while (map->used[at])
        at = (at + 1) & (map->capacity - 1);
    map->slots[at] = *entry;
    map->used[at] = 1;
    map->count++;
    return 0;
}

/* Backward-shift deletion: keeps every probe chain unbroken, no tombstones. */
void stats_map_remove(stats_map* map, stats_pending* entry) {
    size_t mask = map->capacity - 1, hole = (size_t)(entry - map->slots), at = hole;
    map->used[hole] = 0;
    map->count--;
    for (at = (at + 1) & mask; map->used[at]; at = (at + 1) & mask) {
        size_t home = id_hash(map->slots[at].id) & mask;
        /* Move the entry into the hole unless its home lies in (hole, at]. */
        if (((at - home) & mask) >= ((at - hole) & mask)) {
            map->slots[hole] = map->slots[at];
            map->used[hole] = 1;
            map->used[at] = 0;
            hole = at;
        }
    }
}

int64_t stats_duration(int64_t start, int64_t end) {
    return (int64_t)((uint64_t)end - (uint64_t)start);
}

int64_t stats_add_held(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}
