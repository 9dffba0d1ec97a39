/*
 * sink/perfetto/perfetto_event.c - the Perfetto sink's write path: events
 * and counter samples to TrackEvent packets on the stream's sequence
 * (docs/perfetto.md). Runs concurrently across streams and touches only
 * the stream's state.
 *
 * Roles (schema flags, spec 3.4) to TrackEvents:
 *   RANGE_PUSHPOP            SLICE_BEGIN at begin, SLICE_END at end, on the
 *                            stream's track
 *   RANGE_PUSH / RANGE_POP   SLICE_BEGIN / SLICE_END on the stream's track
 *                            (the pop's annotations join the slice's); a
 *                            pop with nothing pushed is the instant
 *                            "(unmatched pop)"; pushes still open at
 *                            StreamClose end at the stream's last time
 *   RANGE_STARTEND           a slice on a lane of the stream's process: a
 *                            track named after the event's category, the
 *                            first whose last range ended by the begin
 *   RANGE_START / RANGE_END  SLICE_BEGIN / SLICE_END on the track of the
 *                            range ID (a hash of domain and ID, described
 *                            at the start), so an end written on another
 *                            stream finds it
 *   MARK, no role            INSTANT on the stream's track
 *   COUNTER_GROUP, counters  COUNTER values on a counter track per numeric
 *                            field, under the stream's track
 * Flows: "flow_out" is a flow_ids entry of the event (a slice's begin) and
 * "flow_in" a terminating_flow_ids entry (a whole range's end). Task events
 * (a top-level scope_id naming a task scope) that are whole ranges or
 * marks are written on the task's track as well; the flow end goes there.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/text_hash.h"
#include "sink/perfetto/perfetto_internal.h"
#include "sink/perfetto/perfetto_pb.h"

enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };

/* One TrackEvent to write. */
typedef struct track_event {
    int type;
    int64_t ts;
    uint64_t track; /* 0: the stream's (the sequence's default) */
    const char* name;
    size_t name_length;
    int name_stable;      /* name lives until the session ends: interned by address */
    const char* category; /* NULL: none */
    int with_args;
    uint64_t flow_out, flow_in; /* 0: none */
    int has_value, is_double;
    int64_t value;
    double double_value;
} track_event;

/* Category text: the registered name, the number (in st->category_number),
 * else the domain's name, else "nvtx" (as in the JSON sink). All but the
 * number live until the session ends. */
static const char* event_category(perfetto_stream* st) {
    const core_domain* domain = st->stream->domain;
    if (st->ev.has_category && st->ev.category != 0) {
        const char* name = core_domain_category(domain, st->ev.category);
        if (name != NULL)
            return name;
        snprintf(st->category_number, sizeof st->category_number, "%" PRIu64, st->ev.category);
        return st->category_number;
    }
    return domain->name[0] != '\0' ? domain->name : "nvtx";
}

/* The event's time for a begin-like (1), end-like (2) or point (0) side. */
static int64_t event_time(const perfetto_stream* st, int which) {
    const perfetto_event* ev = &st->ev;
    if (which == 1 && ev->has_begin)
        return ev->begin;
    if (which == 2 && ev->has_end)
        return ev->end;
    if (ev->has_point)
        return ev->point;
    if (ev->has_begin)
        return ev->begin;
    return ev->has_end ? ev->end : st->previous_ts;
}

/* The event's name: its message, else its first schema's name. */
static void event_name(const perfetto_stream* st, track_event* e) {
    e->name_stable = 1;
    if (st->ev.has_message && st->ev.stable_message != NULL) {
        e->name = st->ev.stable_message;
    } else if (st->ev.has_message) {
        e->name = st->name.data ? st->name.data : "";
        e->name_length = st->name.length;
        e->name_stable = 0;
    } else {
        e->name = st->ev.title != NULL ? st->ev.title : "(unnamed)";
    }
}

static void event_init(perfetto_stream* st, track_event* e, int type, const char* category) {
    memset(e, 0, sizeof *e);
    e->type = type;
    e->category = category;
    e->with_args = 1;
    event_name(st, e);
}

static int name_iid_of(perfetto_stream* st, const track_event* e, uint64_t* iid) {
    if (e->name_stable)
        return perfetto_stream_intern_stable(st, &st->names, 2, e->name, iid);
    return perfetto_stream_intern(st, &st->names, 2, e->name, e->name_length, iid);
}

static int put_fixed64s(strbuf* out, uint32_t number, uint64_t value) {
    return value != 0 && pb_fixed64(out, number, value) != 0 ? -1 : 0;
}

static int category_iid_of(perfetto_stream* st, const char* category, uint64_t* iid) {
    if (category == st->category_number)
        return perfetto_stream_intern(st, &st->categories, 1, category, strlen(category), iid);
    return perfetto_stream_intern_stable(st, &st->categories, 1, category, iid);
}

/* Writes one TrackEvent packet. */
static int emit(perfetto_stream* st, const track_event* e) {
    strbuf* out = &st->out;
    uint64_t name_iid = 0, category_iid = 0;
    size_t body;
    st->previous_ts = e->ts;
    if (perfetto_packet_begin(st, e->ts) != 0 ||
        (e->type != TYPE_SLICE_END && e->type != TYPE_COUNTER &&
         name_iid_of(st, e, &name_iid) != 0) ||
        (e->category != NULL && category_iid_of(st, e->category, &category_iid) != 0))
        return -1;
    if (pb_room(out, 5 * PB_FIELD_MAX) != 0) /* the TrackEvent's start, four fields */
        return -1;
    body = pb_put_open(out, 11);
    pb_put_field(out, 9, (uint64_t)e->type);
    if (e->track != 0)
        pb_put_field(out, 11, e->track);
    if (name_iid != 0)
        pb_put_field(out, 10, name_iid);
    if (category_iid != 0)
        pb_put_field(out, 3, category_iid);
    if ((e->with_args && st->args.length > 0 &&
         strbuf_append(out, st->args.data, st->args.length) != 0) ||
        put_fixed64s(out, 47, e->flow_out) != 0 || put_fixed64s(out, 48, e->flow_in) != 0)
        return -1;
    if (e->has_value && (e->is_double ? pb_double(out, 44, e->double_value)
                                      : pb_varint(out, 30, (uint64_t)e->value)) != 0)
        return -1;
    return pb_close(out, body) || perfetto_packet_end(st);
}

/*
 * A slice from begin to end (end before begin: a slice of length 0). A flow
 * that starts here starts at its begin; one that ends here ends at its end:
 * Perfetto follows flows in time order and ignores the end of a flow not
 * yet started, and a receive (or a resumed task) often begins before the
 * send (or the wake-up) that it waits for, but ends after it.
 */
static int emit_slice(perfetto_stream* st, const char* category, uint64_t track, uint64_t flow_out,
                      uint64_t flow_in) {
    track_event e;
    int64_t end = event_time(st, 2);
    event_init(st, &e, TYPE_SLICE_BEGIN, category);
    e.ts = event_time(st, 1);
    e.track = track;
    e.flow_out = flow_out;
    if (emit(st, &e) != 0)
        return -1;
    event_init(st, &e, TYPE_SLICE_END, NULL);
    e.ts = end < e.ts ? e.ts : end;
    e.track = track;
    e.with_args = 0;
    e.flow_in = flow_in;
    return emit(st, &e);
}

static int emit_instant(perfetto_stream* st, const char* category, const char* name, uint64_t track,
                        uint64_t flow_out, uint64_t flow_in) {
    track_event e;
    event_init(st, &e, TYPE_INSTANT, category);
    if (name != NULL) {
        e.name = name; /* a literal */
        e.name_stable = 1;
    }
    e.ts = event_time(st, 0);
    e.track = track;
    e.flow_out = flow_out;
    e.flow_in = flow_in;
    return emit(st, &e);
}

/*
 * Nesting on the stream's own track. Perfetto pairs each SLICE_END with the
 * innermost open slice of its track, in time order, and events of equal
 * time in file order; so the slices of one track must nest, and of two
 * that begin together the one written first is the outer. Whole push/pop
 * ranges come with both times, in any order (a tracer that writes a call
 * when it returns writes children before their parent), and need not nest
 * (Chrome's "X" events of one thread may overlap). One goes to the
 * stream's track when it provably nests with everything written there,
 * else to a lane of the group "overlapping ranges" under the stream's
 * track:
 *   - in begin order (its begin not before the latest begin): it must end
 *     by the end of the innermost slice still open at its begin, the top
 *     of `nest` (the slices containing the latest begin, a chain);
 *   - out of order: it must nest with every slice in `nest` and the last
 *     PERFETTO_RECENT_SLICES written, and begin after every earlier one
 *     ended (`forgotten_end`); it then joins `nest` in its place.
 * Split pushes are in `nest` from push to pop (end INT64_MAX), then among
 * the recent slices.
 */
static int nest_insert(perfetto_stream* st, size_t at, int64_t begin, int64_t end) {
    if (st->nest_count == st->nest_capacity) {
        size_t capacity = st->nest_capacity ? st->nest_capacity * 2 : 16;
        struct perfetto_nest* nest = nvtxw_reallocarray(st->nest, capacity, sizeof *nest);
        if (nest == NULL)
            return -1;
        st->nest = nest;
        st->nest_capacity = capacity;
    }
    memmove(&st->nest[at + 1], &st->nest[at], (st->nest_count - at) * sizeof *st->nest);
    st->nest[at].begin = begin;
    st->nest[at].end = end;
    st->nest_count++;
    if (begin > st->nest_latest_begin)
        st->nest_latest_begin = begin;
    return 0;
}

static void recent_add(perfetto_stream* st, int64_t begin, int64_t end) {
    struct perfetto_nest* slot = &st->recent[st->recent_count++ % PERFETTO_RECENT_SLICES];
    if (st->recent_count > PERFETTO_RECENT_SLICES && slot->end > st->forgotten_end)
        st->forgotten_end = slot->end;
    slot->begin = begin;
    slot->end = end;
}

/* Forgets the slices that end by `at`: nothing beginning at `at` or later,
 * written after them, can be inside them (an end and a begin of equal time
 * keep their file order, so the end comes first). */
static void nest_close_by(perfetto_stream* st, int64_t at) {
    while (st->nest_count > 0 && st->nest[st->nest_count - 1].end <= at)
        st->nest_count--;
}

/* Whether [begin, end], written after `y`, nests with it. */
static int nests_with(int64_t begin, int64_t end, const struct perfetto_nest* y) {
    return y->end <= begin ||                      /* y before, its end written first */
           end < y->begin ||                       /* y after (x's end is written later) */
           (y->begin <= begin && end <= y->end) || /* in y (y, written first, is outer) */
           (begin < y->begin && y->end <= end);    /* around y */
}

/* Out of begin order: whether [begin, end] nests with what the track
 * remembers; then its place in `nest` (the slices that begin before it). */
static int nest_fits_late(perfetto_stream* st, int64_t begin, int64_t end, size_t* at) {
    size_t i, recent = st->recent_count < PERFETTO_RECENT_SLICES ? st->recent_count
                                                                 : PERFETTO_RECENT_SLICES;
    if (begin < st->forgotten_end)
        return 0;
    for (i = 0; i < recent; i++)
        if (!nests_with(begin, end, &st->recent[i]))
            return 0;
    for (*at = 0; *at < st->nest_count && st->nest[*at].begin <= begin; ++*at)
        ;
    for (i = 0; i < st->nest_count; i++)
        if (!nests_with(begin, end, &st->nest[i]))
            return 0;
    return 1;
}

/* Puts whole range [begin, end] on the stream's track if it nests there. */
static int nest_take(perfetto_stream* st, int64_t begin, int64_t end) {
    size_t at;
    if (st->nest_count == PERFETTO_MAX_NEST)
        return 0;
    if (begin >= st->nest_latest_begin) {
        nest_close_by(st, begin);
        if (st->nest_count > 0 && end > st->nest[st->nest_count - 1].end)
            return 0;
        at = st->nest_count;
    } else if (!nest_fits_late(st, begin, end, &at)) {
        return 0;
    }
    recent_add(st, begin, end);
    /* in `nest` only while it contains the latest begin */
    if (end > st->nest_latest_begin || begin >= st->nest_latest_begin)
        return nest_insert(st, at, begin, end) == 0 ? 1 : -1;
    return 1;
}

/* A split pop at `at`: the innermost open push, and what is inside it, are
 * done. */
static void nest_pop(perfetto_stream* st, int64_t at) {
    while (st->nest_count > 0) {
        struct perfetto_nest* top = &st->nest[--st->nest_count];
        if (top->end == INT64_MAX) {
            recent_add(st, top->begin, at < top->begin ? top->begin : at);
            return;
        }
    }
}

static int emit_push(perfetto_stream* st, const char* category) {
    track_event e;
    event_init(st, &e, TYPE_SLICE_BEGIN, category);
    e.ts = event_time(st, 1);
    e.flow_out = st->ev.flow_out;
    e.flow_in = st->ev.flow_in;
    nest_close_by(st, e.ts);
    if (emit(st, &e) != 0 || nest_insert(st, st->nest_count, e.ts, INT64_MAX) != 0)
        return -1;
    st->open_pushes++;
    return 0;
}

static int emit_pop(perfetto_stream* st, const char* category) {
    track_event e;
    if (st->open_pushes == 0) {
        st->unmatched_pops++;
        return emit_instant(st, category, "(unmatched pop)", 0, st->ev.flow_out, st->ev.flow_in);
    }
    event_init(st, &e, TYPE_SLICE_END, NULL);
    e.ts = event_time(st, 2);
    e.flow_out = st->ev.flow_out;
    e.flow_in = st->ev.flow_in;
    if (emit(st, &e) != 0)
        return -1;
    nest_pop(st, e.ts);
    st->open_pushes--;
    return 0;
}

int perfetto_close_pushes(perfetto_stream* st) {
    track_event e;
    if (st->open_pushes > 0 && perfetto_stream_prepare(st) != 0)
        return -1;
    memset(&e, 0, sizeof e);
    e.type = TYPE_SLICE_END;
    e.ts = st->previous_ts;
    for (; st->open_pushes > 0; st->open_pushes--) {
        st->closed_pushes++;
        if (emit(st, &e) != 0)
            return -1;
    }
    return 0;
}

/* ---- tracks made on the write path ---- */

/* Describes a stream-local track (a lane, a range's track, a counter) in
 * the stream's own packets, before the events that use it. */
static int describe(perfetto_stream* st, const perfetto_track_desc* d) {
    return perfetto_put_track(&st->out, st->sequence, d);
}

/* The track of start/end range `id` of the stream's domain in its process:
 * the same on every stream of the process, so an end written on another
 * thread ends the same slice (NVTX range IDs are unique in a process; two
 * processes may use the same ones). */
static uint64_t range_track(const perfetto_stream* st, uint64_t id) {
    uint64_t h =
        idmap_hash(idmap_hash(id) ^ st->process_uuid ^ (uint64_t)st->stream->domain->index << 48);
    return h | UINT64_C(1) << 63;
}

/* The lane group named `name` under track `parent`, made on first use. */
static perfetto_lane_group* lane_group(perfetto_stream* st, const char* name, uint64_t parent) {
    perfetto_lane_group* groups = st->groups;
    size_t i;
    for (i = 0; i < st->group_count; i++)
        if (groups[i].parent == parent && strcmp(groups[i].name, name) == 0)
            return &groups[i];
    if ((groups = nvtxw_reallocarray(groups, st->group_count + 1, sizeof *groups)) == NULL)
        return NULL;
    st->groups = groups;
    memset(&groups[st->group_count], 0, sizeof *groups);
    groups[st->group_count].parent = parent;
    if ((groups[st->group_count].name = nvtxw_strdup(name)) == NULL)
        return NULL;
    return &groups[st->group_count++];
}

/* A lane of `group` free at `begin`, taken until `end`: its track, made
 * and described when every lane is busy; 0 out of memory. Past
 * PERFETTO_MAX_LANES overlapping ranges a range gets a track of its own. */
static uint64_t lane_take(perfetto_stream* st, perfetto_lane_group* g, int64_t begin, int64_t end) {
    perfetto_track_desc d = {0};
    size_t i;
    for (i = 0; i < g->count; i++)
        if (g->busy_until[i] <= begin) {
            g->busy_until[i] = end;
            return g->uuids[i];
        }
    d.kind = PERFETTO_DESC_TRACK;
    d.parent = g->parent;
    d.name = g->name;
    if ((d.uuid = perfetto_stream_local_uuid(st, PERFETTO_TRACK_LANE)) == 0)
        d.uuid = range_track(st, UINT64_MAX - st->next_local);
    if (describe(st, &d) != 0)
        return 0;
    if (g->count == PERFETTO_MAX_LANES)
        return d.uuid;
    if (g->count == g->capacity) {
        size_t capacity = g->capacity ? g->capacity * 2 : 4;
        uint64_t* uuids = nvtxw_reallocarray(g->uuids, capacity, sizeof *uuids);
        int64_t* busy;
        if (uuids == NULL)
            return 0;
        g->uuids = uuids;
        if ((busy = nvtxw_reallocarray(g->busy_until, capacity, sizeof *busy)) == NULL)
            return 0;
        g->busy_until = busy;
        g->capacity = capacity;
    }
    g->uuids[g->count] = d.uuid;
    g->busy_until[g->count++] = end;
    return d.uuid;
}

/* Whole start/end range: a slice on a lane of its category. */
static int emit_start_end(perfetto_stream* st, const char* category) {
    perfetto_lane_group* g = lane_group(st, category, st->process_uuid);
    int64_t begin = event_time(st, 1), end = event_time(st, 2);
    uint64_t lane = g != NULL ? lane_take(st, g, begin, end < begin ? begin : end) : 0;
    if (lane == 0)
        return -1;
    return emit_slice(st, category, lane, st->ev.flow_out, st->ev.flow_in);
}

/* Whole push/pop range: a slice of the stream's track where it nests, else
 * of a lane beside it (see "nesting" above). */
static int emit_push_pop(perfetto_stream* st, const char* category) {
    int64_t begin = event_time(st, 1), end = event_time(st, 2);
    perfetto_lane_group* g;
    uint64_t lane;
    int fits;
    if (end < begin)
        end = begin;
    if ((fits = nest_take(st, begin, end)) != 0)
        return fits < 0 || emit_slice(st, category, 0, st->ev.flow_out, st->ev.flow_in);
    st->overlapping_ranges++;
    if ((g = lane_group(st, "overlapping ranges", st->uuid)) == NULL ||
        (lane = lane_take(st, g, begin, end)) == 0)
        return -1;
    return emit_slice(st, category, lane, st->ev.flow_out, st->ev.flow_in);
}

/* Split start: its range's track, described here, and the slice's begin. */
static int emit_start(perfetto_stream* st, const char* category) {
    perfetto_track_desc d = {0};
    track_event e;
    d.kind = PERFETTO_DESC_TRACK;
    d.parent = st->process_uuid;
    d.name = category;
    d.uuid = st->ev.has_range_id ? range_track(st, st->ev.range_id)
                                 : perfetto_stream_local_uuid(st, PERFETTO_TRACK_LANE);
    if (d.uuid == 0 || describe(st, &d) != 0)
        return -1;
    event_init(st, &e, TYPE_SLICE_BEGIN, category);
    e.ts = event_time(st, 1);
    e.track = d.uuid;
    e.flow_out = st->ev.flow_out;
    e.flow_in = st->ev.flow_in;
    return emit(st, &e);
}

/* Split end: the end of its range's slice; an end without a range ID ends
 * nothing and is an instant. */
static int emit_end(perfetto_stream* st, const char* category) {
    perfetto_track_desc d = {0};
    track_event e;
    if (!st->ev.has_range_id)
        return emit_instant(st, category, NULL, 0, st->ev.flow_out, st->ev.flow_in);
    /* described here too (the same descriptor): the start may be on
     * another stream, or missing, and an end never refers to nothing */
    d.kind = PERFETTO_DESC_TRACK;
    d.parent = st->process_uuid;
    d.name = category;
    d.uuid = range_track(st, st->ev.range_id);
    if (describe(st, &d) != 0)
        return -1;
    event_init(st, &e, TYPE_SLICE_END, NULL);
    e.ts = event_time(st, 2);
    e.track = d.uuid;
    e.flow_out = st->ev.flow_out;
    e.flow_in = st->ev.flow_in;
    return emit(st, &e);
}

/* ---- counters ---- */

static size_t counter_slot(uint64_t key, uint32_t field, int is_name, size_t capacity) {
    return idmap_hash(key ^ (uint64_t)field << 48 ^ (uint64_t)is_name << 63) & (capacity - 1);
}

static perfetto_counter_track* counter_find(perfetto_counter_map* map, uint64_t key, uint32_t field,
                                            int is_name) {
    size_t at;
    if (map->capacity == 0)
        return NULL;
    for (at = counter_slot(key, field, is_name, map->capacity); map->slots[at].uuid != 0;
         at = (at + 1) & (map->capacity - 1)) {
        perfetto_counter_track* t = &map->slots[at];
        if (t->key == key && t->field == field && t->is_name == is_name)
            return t;
    }
    return &map->slots[at];
}

static int counter_map_grow(perfetto_counter_map* map) {
    size_t capacity = map->capacity ? map->capacity * 2 : 16, i;
    perfetto_counter_map grown = {nvtxw_calloc(capacity, sizeof *grown.slots), capacity, 0};
    if (grown.slots == NULL)
        return -1;
    for (i = 0; i < map->capacity; i++) {
        const perfetto_counter_track* t = &map->slots[i];
        if (t->uuid != 0)
            *counter_find(&grown, t->key, t->field, t->is_name) = *t;
    }
    grown.count = map->count;
    nvtxw_free(map->slots);
    *map = grown;
    return 0;
}

/* The unit of a counter from its counter semantics (unit string): Perfetto
 * knows nanoseconds, counts and bytes; other units are named. */
static void counter_unit(const core_counter* counter, perfetto_track_desc* d) {
    const nvtxSemanticsHeader_t* h;
    for (h = counter != NULL ? counter->semantics : NULL; h != NULL; h = h->next) {
        const nvtxSemanticsCounter_t* c = (const nvtxSemanticsCounter_t*)h;
        if (h->semanticId != NVTX_SEMANTIC_ID_COUNTERS_V1 ||
            h->structSize < offsetof(nvtxSemanticsCounter_t, unit) + sizeof c->unit ||
            c->unit == NULL || c->unit[0] == '\0')
            continue;
        if (strcmp(c->unit, "ns") == 0)
            d->unit = 1; /* UNIT_TIME_NS */
        else if (strcmp(c->unit, "B") == 0 || strcmp(c->unit, "bytes") == 0)
            d->unit = 3; /* UNIT_SIZE_BYTES */
        else
            d->unit_name = c->unit;
        return;
    }
}

/*
 * The counter track of numeric field `field` of a counter (`counter`, or a
 * COUNTER_GROUP event named `name`): made and described under the stream's
 * track on first use, named after the counter, plus " FIELD" when its
 * samples have several numbers. 0 out of memory.
 */
static uint64_t counter_track(perfetto_stream* st, const core_counter* counter, const char* name,
                              uint64_t key, int is_name, uint32_t field) {
    perfetto_counter_map* map = &st->counter_tracks;
    perfetto_counter_track* t;
    perfetto_track_desc d = {0};
    strbuf full = {0};
    int status;
    if ((map->count + 1) * 2 > map->capacity && counter_map_grow(map) != 0)
        return 0;
    t = counter_find(map, key, field, is_name);
    if (t->uuid != 0)
        return t->uuid;
    d.kind = PERFETTO_DESC_COUNTER;
    d.no_merge = 1;
    d.parent = st->uuid;
    if ((d.uuid = perfetto_stream_local_uuid(st, PERFETTO_TRACK_COUNTER)) == 0)
        return 0;
    counter_unit(counter, &d);
    status = strbuf_append(&full, name, strlen(name));
    if (st->sample_count > 1)
        status = status || strbuf_append(&full, " ", 1) ||
                 strbuf_append(&full, st->samples[field].name, strlen(st->samples[field].name));
    d.name = full.data;
    status = status || describe(st, &d);
    strbuf_free(&full);
    if (status != 0)
        return 0;
    t->key = key;
    t->field = field;
    t->is_name = is_name;
    t->uuid = d.uuid;
    map->count++;
    return d.uuid;
}

/* One COUNTER value per numeric field of the sample collected. */
static int emit_samples(perfetto_stream* st, const core_counter* counter, const char* name,
                        int64_t ts) {
    uint64_t key = counter != NULL ? counter->id : text_hash_cstr(name);
    uint32_t i;
    for (i = 0; i < st->sample_count; i++) {
        const struct perfetto_sample* sample = &st->samples[i];
        track_event e;
        memset(&e, 0, sizeof e);
        e.type = TYPE_COUNTER;
        e.ts = ts;
        if ((e.track = counter_track(st, counter, name, key, counter == NULL, i)) == 0)
            return -1;
        e.has_value = 1;
        e.is_double = sample->is_double;
        e.value = sample->i;
        e.double_value = sample->d;
        if (emit(st, &e) != 0)
            return -1;
    }
    return 0;
}

/* ---- the write path ---- */

/*
 * A task event (a whole range or a mark carrying a task scope): on the
 * stream's side and again on the task's track, where the flow ends. A
 * task's slices never overlap, so they are slices of the task's track
 * itself. On the stream's side they go to a lane of the group "tasks"
 * under the stream's track: a task slice may begin inside a region of the
 * worker and end after it (a task suspended there), which one track's
 * nested slices cannot show; the worker's tasks rarely overlap each other,
 * so one lane is the rule.
 */
static int emit_task_event(perfetto_stream* st, const char* category) {
    uint64_t task = st->ev.task->uuid, lane;
    perfetto_lane_group* g;
    int64_t begin = event_time(st, 1), end = event_time(st, 2);
    if (st->ev.role != 2 && st->ev.role != 3)
        return emit_instant(st, category, NULL, 0, st->ev.flow_out, 0) ||
               emit_instant(st, category, NULL, task, 0, st->ev.flow_in);
    if ((g = lane_group(st, "tasks", st->uuid)) == NULL ||
        (lane = lane_take(st, g, begin, end < begin ? begin : end)) == 0)
        return -1;
    return emit_slice(st, category, lane, st->ev.flow_out, 0) ||
           emit_slice(st, category, task, 0, st->ev.flow_in);
}

static int emit_event(perfetto_stream* st) {
    const char* category = event_category(st);
    if (st->ev.task != NULL && (st->ev.role == 0 || (st->ev.role >= 2 && st->ev.role <= 4)))
        return emit_task_event(st, category);
    switch (st->ev.role) {
    case 1: { /* COUNTER_GROUP */
        track_event named;
        event_init(st, &named, TYPE_COUNTER, NULL);
        return emit_samples(st, NULL, named.name, event_time(st, 0));
    }
    case 2: /* RANGE_PUSHPOP */
        return emit_push_pop(st, category);
    case 3: /* RANGE_STARTEND */
        return emit_start_end(st, category);
    case 5: /* RANGE_PUSH */
        return emit_push(st, category);
    case 6: /* RANGE_POP */
        return emit_pop(st, category);
    case 7: /* RANGE_START */
        return emit_start(st, category);
    case 8: /* RANGE_END */
        return emit_end(st, category);
    default: /* MARK, no role */
        return emit_instant(st, category, NULL, 0, st->ev.flow_out, st->ev.flow_in);
    }
}

/* Restores the pending packets after a failed event, so it leaves no
 * trace. What the cut packets held (interned strings, the clock's value,
 * track descriptors) is forgotten too: the next packet starts a new
 * incremental state, and tracks are described again when used. */
static void forget(perfetto_stream* st, size_t mark) {
    size_t i;
    st->out.length = mark;
    st->state_valid = 0;
    strbuf_clear(&st->interned);
    if (st->counter_tracks.slots != NULL)
        memset(st->counter_tracks.slots, 0,
               st->counter_tracks.capacity * sizeof *st->counter_tracks.slots);
    st->counter_tracks.count = 0;
    for (i = 0; i < st->group_count; i++)
        st->groups[i].count = 0;
}

static nvtxwResultCode_t event_failed(perfetto_stream* st, size_t mark) {
    forget(st, mark);
    return error_oom("a Perfetto event");
}

/* A payload the walk refused (or a visitor out of memory): the argument
 * names it interned are forgotten with the sequence's state. */
static nvtxwResultCode_t rejected(perfetto_stream* st, size_t mark, nvtxwResultCode_t status) {
    if (st->interned.length > 0)
        forget(st, mark);
    return status;
}

nvtxwResultCode_t perfetto_event_write(void* state, const core_event* event) {
    perfetto_stream* st = state;
    core_event_facts facts;
    size_t mark = st->out.length;
    nvtxwResultCode_t status;
    if (perfetto_stream_prepare(st) != 0)
        return event_failed(st, mark);
    perfetto_visit_reset(st, 0);
    switch (perfetto_direct_event(st, event)) {
    case 1:
        st->direct_events++;
        break;
    case 0:
        st->walked_events++;
        status = core_event_visit(event, &perfetto_visitor, st, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS,
                                  &facts);
        if (status != NVTXW_RESULT_SUCCESS)
            return rejected(st, mark, status);
        break;
    default:
        return event_failed(st, mark);
    }
    if (emit_event(st) != 0)
        return event_failed(st, mark);
    return perfetto_stream_flush(st, 0);
}

nvtxwResultCode_t perfetto_counter_write(void* state, int64_t timestamp,
                                         const core_counter* counter, const void* data,
                                         size_t size) {
    perfetto_stream* st = state;
    size_t mark = st->out.length;
    char fallback[40];
    nvtxwResultCode_t status;
    if (perfetto_stream_prepare(st) != 0)
        return event_failed(st, mark);
    perfetto_visit_reset(st, 1);
    status = core_counter_visit(st->stream->domain, counter, data, size, &perfetto_visitor, st);
    if (status != NVTXW_RESULT_SUCCESS)
        return rejected(st, mark, status);
    /* the fallback name only when needed: made per sample, it was 14 % of the
     * sink's instructions on `--synthetic mpi` */
    if (counter->name[0] == '\0')
        snprintf(fallback, sizeof fallback, "counter %" PRIu64, counter->id);
    timestamp =
        time_map_convert(&st->times, time_map_semantics_domain(counter->semantics), timestamp);
    if (emit_samples(st, counter, counter->name[0] != '\0' ? counter->name : fallback, timestamp) !=
        0)
        return event_failed(st, mark);
    return perfetto_stream_flush(st, 0);
}

/* A sample without a value: the track keeps its last value (as in the
 * JSON sink; Perfetto has no "no value"). */
nvtxwResultCode_t perfetto_counter_no_value_write(void* state, int64_t timestamp,
                                                  const core_counter* counter, uint8_t reason) {
    (void)state, (void)timestamp, (void)counter, (void)reason;
    return NVTXW_RESULT_SUCCESS;
}

/* Conversions into the session's time domain (sink/shared/time_map.h),
 * for the stream's later timestamps. */
nvtxwResultCode_t perfetto_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                             const nvtxSyncPoint_t* points, size_t count) {
    perfetto_stream* st = state;
    return time_map_points(&st->times, src, dst, points, count) == 0
               ? NVTXW_RESULT_SUCCESS
               : error_oom("a Perfetto stream's time conversions");
}

nvtxwResultCode_t perfetto_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                   double slope, int64_t ts_src, int64_t ts_dst) {
    perfetto_stream* st = state;
    return time_map_factor(&st->times, src, dst, slope, ts_src, ts_dst) == 0
               ? NVTXW_RESULT_SUCCESS
               : error_oom("a Perfetto stream's time conversions");
}
