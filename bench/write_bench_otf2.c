/*
 * bench/write_bench_otf2.c - the baseline of bench/write_bench: OTF2's own
 * writer and reader on the same trace.
 *
 * Writing: a complete archive, one CPU thread location per trace, as a
 * serial producer writes it: all event files, then the (empty) local
 * definitions, then the global definitions (clock properties, strings, a
 * region per name, system tree node, location group, locations and, for a
 * profiler trace, the mark parameter and the counter's metric). Operations
 * map to one event record each:
 *   OP_ENTER  -> Enter(region),   OP_LEAVE -> Leave(region),
 *   OP_MARK   -> ParameterString(parameter "mark", string = the name),
 *   OP_SAMPLE -> Metric(one member of type INT64).
 * The metric is defined as Score-P defines a user counter
 * (SCOREP_USER_METRIC_INT64): a MetricMember of type USER, mode
 * ABSOLUTE_POINT, value type INT64, base decimal, exponent 0, in a
 * one-member MetricClass with occurrence ASYNCHRONOUS and recorder kind CPU,
 * with a MetricClassRecorder per location; no MetricInstance (that is for
 * metrics one location records for others). No compression, no BufferFlush
 * records (no post-flush callback).
 *
 * Reading: the global definitions (String, Region, Location callbacks), then
 * the local definitions of every location, then the events with Enter and
 * Leave callbacks that sum region refs and timestamps: per location with an
 * OTF2_EvtReader each (as bench/otf2_count.c does), or merged in time order
 * across locations with OTF2's global event reader.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>

#include <otf2/otf2.h>

#include "write_bench.h"

/* String refs: 0 is "", 1..NAME_COUNT the names, then these, then one
 * "thread <i>" per location. */
enum { S_MACHINE = 1, S_PROCESS, S_MARK, S_COUNTER, S_UNIT, S_THREAD0 };
#define STRING_REF(s) ((OTF2_StringRef)(NAME_COUNT + (s)))

static void check_otf2(OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS)
        fail("%s failed: %s: %s", what, OTF2_Error_GetName(code), OTF2_Error_GetDescription(code));
}

/* ---- Writing ------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void* user, OTF2_FileType type, OTF2_LocationRef location,
                                void* caller, bool final) {
    (void)user, (void)type, (void)location, (void)caller, (void) final;
    return OTF2_FLUSH;
}

/* No post-flush callback: OTF2 then writes no BufferFlush records, so the
 * archive holds exactly the workload's events. */
static OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

static void replay(OTF2_EvtWriter* writer, const trace* tr) {
    static const OTF2_Type int64_type = OTF2_TYPE_INT64;
    OTF2_RegionRef stack[MAX_DEPTH];
    int depth = 0;
    for (size_t i = 0; i < tr->count; i++) {
        const op* o = &tr->ops[i];
        OTF2_TimeStamp ts = (OTF2_TimeStamp)o->ts;
        OTF2_ErrorCode code;
        if (o->kind == OP_ENTER) {
            stack[depth++] = (OTF2_RegionRef)o->name;
            code = OTF2_EvtWriter_Enter(writer, NULL, ts, stack[depth - 1]);
        } else if (o->kind == OP_LEAVE) {
            code = OTF2_EvtWriter_Leave(writer, NULL, ts, stack[--depth]);
        } else if (o->kind == OP_MARK) {
            code = OTF2_EvtWriter_ParameterString(writer, NULL, ts, 0, (OTF2_StringRef)o->name + 1);
        } else {
            OTF2_MetricValue value;
            value.signed_int = o->value;
            code = OTF2_EvtWriter_Metric(writer, NULL, ts, 0, 1, &int64_type, &value);
        }
        if (code != OTF2_SUCCESS)
            check_otf2(code, "OTF2_EvtWriter_*");
    }
}

static void write_strings(OTF2_GlobalDefWriter* defs, int count) {
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, 0, ""), "WriteString");
    for (uint32_t i = 0; i < NAME_COUNT; i++)
        check_otf2(OTF2_GlobalDefWriter_WriteString(defs, i + 1, NAMES[i]), "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, STRING_REF(S_MACHINE), "node0"),
               "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, STRING_REF(S_PROCESS), "process 0"),
               "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, STRING_REF(S_MARK), "mark"), "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, STRING_REF(S_COUNTER), "bytes_in_use"),
               "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, STRING_REF(S_UNIT), "bytes"), "WriteString");
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "thread %d", i);
        check_otf2(OTF2_GlobalDefWriter_WriteString(defs, STRING_REF(S_THREAD0 + i), name),
                   "WriteString");
    }
}

/* The mark parameter and the counter's metric (see the opening comment). */
static void write_profile_defs(OTF2_GlobalDefWriter* defs, int count) {
    static const OTF2_MetricMemberRef members[1] = {0};
    check_otf2(OTF2_GlobalDefWriter_WriteParameter(defs, 0, STRING_REF(S_MARK),
                                                   OTF2_PARAMETER_TYPE_STRING),
               "WriteParameter");
    check_otf2(OTF2_GlobalDefWriter_WriteMetricMember(defs, 0, STRING_REF(S_COUNTER), 0,
                                                      OTF2_METRIC_TYPE_USER,
                                                      OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_INT64,
                                                      OTF2_BASE_DECIMAL, 0, STRING_REF(S_UNIT)),
               "WriteMetricMember");
    check_otf2(OTF2_GlobalDefWriter_WriteMetricClass(defs, 0, 1, members, OTF2_METRIC_ASYNCHRONOUS,
                                                     OTF2_RECORDER_KIND_CPU),
               "WriteMetricClass");
    for (int i = 0; i < count; i++)
        check_otf2(OTF2_GlobalDefWriter_WriteMetricClassRecorder(defs, 0, (OTF2_LocationRef)i),
                   "WriteMetricClassRecorder");
}

static void write_definitions(OTF2_GlobalDefWriter* defs, const trace* traces, int count) {
    uint64_t first = UINT64_MAX, last = 0, profile = 0;
    for (int i = 0; i < count; i++) {
        uint64_t a = (uint64_t)traces[i].ops[0].ts;
        uint64_t b = (uint64_t)traces[i].ops[traces[i].count - 1].ts;
        first = a < first ? a : first;
        last = b > last ? b : last;
        profile += traces[i].marks + traces[i].samples;
    }
    check_otf2(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, first, last - first,
                                                         OTF2_UNDEFINED_TIMESTAMP),
               "WriteClockProperties");
    write_strings(defs, count);
    for (uint32_t i = 0; i < NAME_COUNT; i++)
        check_otf2(OTF2_GlobalDefWriter_WriteRegion(defs, i, i + 1, i + 1, 0,
                                                    OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                                    OTF2_REGION_FLAG_NONE, 0, 0, 0),
                   "WriteRegion");
    check_otf2(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, STRING_REF(S_MACHINE),
                                                        STRING_REF(S_MACHINE),
                                                        OTF2_UNDEFINED_SYSTEM_TREE_NODE),
               "WriteSystemTreeNode");
    check_otf2(OTF2_GlobalDefWriter_WriteLocationGroup(defs, 0, STRING_REF(S_PROCESS),
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                       OTF2_UNDEFINED_LOCATION_GROUP),
               "WriteLocationGroup");
    for (int i = 0; i < count; i++)
        check_otf2(
            OTF2_GlobalDefWriter_WriteLocation(defs, (OTF2_LocationRef)i, STRING_REF(S_THREAD0 + i),
                                               OTF2_LOCATION_TYPE_CPU_THREAD, traces[i].count, 0),
            "WriteLocation");
    if (profile != 0)
        write_profile_defs(defs, count);
}

/* Events of every location, then their (empty) local definitions, as a
 * serial OTF2 producer closes them. */
static void write_locations(OTF2_Archive* archive, const trace* traces, int count) {
    check_otf2(OTF2_Archive_OpenEvtFiles(archive), "OTF2_Archive_OpenEvtFiles");
    for (int i = 0; i < count; i++) {
        OTF2_EvtWriter* events = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)i);
        if (events == NULL)
            fail("OTF2_Archive_GetEvtWriter failed");
        replay(events, &traces[i]);
        check_otf2(OTF2_Archive_CloseEvtWriter(archive, events), "OTF2_Archive_CloseEvtWriter");
    }
    check_otf2(OTF2_Archive_CloseEvtFiles(archive), "OTF2_Archive_CloseEvtFiles");
    check_otf2(OTF2_Archive_OpenDefFiles(archive), "OTF2_Archive_OpenDefFiles");
    for (int i = 0; i < count; i++) {
        OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)i);
        if (local == NULL)
            fail("OTF2_Archive_GetDefWriter failed");
        check_otf2(OTF2_Archive_CloseDefWriter(archive, local), "OTF2_Archive_CloseDefWriter");
    }
    check_otf2(OTF2_Archive_CloseDefFiles(archive), "OTF2_Archive_CloseDefFiles");
}

double otf2_write(const char* path, const trace* traces, int count) {
    OTF2_Archive* archive;
    OTF2_GlobalDefWriter* defs;
    double start;
    remove_tree(path);
    start = now();
    archive = OTF2_Archive_Open(path, "trace", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL)
        fail("OTF2_Archive_Open(\"%s\") failed", path);
    check_otf2(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL),
               "OTF2_Archive_SetFlushCallbacks");
    check_otf2(OTF2_Archive_SetSerialCollectiveCallbacks(archive),
               "OTF2_Archive_SetSerialCollectiveCallbacks");
    write_locations(archive, traces, count);
    defs = OTF2_Archive_GetGlobalDefWriter(archive);
    if (defs == NULL)
        fail("OTF2_Archive_GetGlobalDefWriter failed");
    write_definitions(defs, traces, count);
    check_otf2(OTF2_Archive_Close(archive), "OTF2_Archive_Close");
    return now() - start;
}

/* ---- Reading ------------------------------------------------------------- */

typedef struct reading {
    otf2_read_result* out;
    OTF2_LocationRef locations[MERGE_STREAMS];
    int location_count;
    uint64_t definitions;
    OTF2_TimeStamp last;
} reading;

static OTF2_CallbackCode def_string(void* user, OTF2_StringRef self, const char* string) {
    (void)self, (void)string;
    ((reading*)user)->definitions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void* user, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef description,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                    uint32_t end) {
    (void)self, (void)name, (void)canonical, (void)description, (void)role, (void)paradigm;
    (void)flags, (void)file, (void)begin, (void)end;
    ((reading*)user)->definitions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void* user, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t events,
                                      OTF2_LocationGroupRef group) {
    reading* r = user;
    (void)name, (void)type, (void)events, (void)group;
    if (r->location_count == MERGE_STREAMS)
        return OTF2_CALLBACK_INTERRUPT;
    r->locations[r->location_count++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static void read_global_defs(OTF2_Reader* reader, reading* r) {
    OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
    uint64_t read = 0;
    if (callbacks == NULL || defs == NULL)
        fail("cannot read the OTF2 global definitions");
    check_otf2(OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, def_string),
               "SetStringCallback");
    check_otf2(OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, def_region),
               "SetRegionCallback");
    check_otf2(OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, def_location),
               "SetLocationCallback");
    check_otf2(OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, callbacks, r),
               "OTF2_Reader_RegisterGlobalDefCallbacks");
    check_otf2(OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read),
               "OTF2_Reader_ReadAllGlobalDefinitions");
    OTF2_Reader_CloseGlobalDefReader(reader, defs);
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
}

static void count_event(reading* r, OTF2_TimeStamp time, OTF2_RegionRef region) {
    otf2_read_result* out = r->out;
    out->events++;
    out->region_sum += region;
    out->time_sum += time;
    if (time < r->last)
        out->in_time_order = 0;
    r->last = time;
}

static OTF2_CallbackCode local_event(OTF2_LocationRef location, OTF2_TimeStamp time,
                                     uint64_t position, void* user, OTF2_AttributeList* attributes,
                                     OTF2_RegionRef region) {
    (void)location, (void)position, (void)attributes;
    count_event(user, time, region);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode global_event(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                                      OTF2_AttributeList* attributes, OTF2_RegionRef region) {
    (void)location, (void)attributes;
    count_event(user, time, region);
    return OTF2_CALLBACK_SUCCESS;
}

/* Local definitions (none here, but a reader cannot know: they may hold
 * clock offsets and mapping tables OTF2 applies to the events). */
static void read_local_defs(OTF2_Reader* reader, OTF2_LocationRef location) {
    uint64_t read = 0;
    OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader, location);
    if (defs == NULL)
        return;
    check_otf2(OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &read),
               "OTF2_Reader_ReadAllLocalDefinitions");
    OTF2_Reader_CloseDefReader(reader, defs);
}

static void read_locations(OTF2_Reader* reader, reading* r) {
    OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
    if (callbacks == NULL)
        fail("cannot allocate OTF2 event callbacks");
    check_otf2(OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, local_event), "SetEnter");
    check_otf2(OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, local_event), "SetLeave");
    for (int i = 0; i < r->location_count; i++) {
        uint64_t read = 0;
        OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, r->locations[i]);
        if (events == NULL)
            fail("OTF2_Reader_GetEvtReader failed");
        check_otf2(OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, r),
                   "OTF2_Reader_RegisterEvtCallbacks");
        check_otf2(OTF2_Reader_ReadAllLocalEvents(reader, events, &read),
                   "OTF2_Reader_ReadAllLocalEvents");
        OTF2_Reader_CloseEvtReader(reader, events);
    }
    OTF2_EvtReaderCallbacks_Delete(callbacks);
}

static void read_merged(OTF2_Reader* reader, reading* r) {
    OTF2_GlobalEvtReaderCallbacks* callbacks = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReader* global;
    uint64_t read = 0;
    if (callbacks == NULL)
        fail("cannot allocate OTF2 event callbacks");
    check_otf2(OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(callbacks, global_event), "SetEnter");
    check_otf2(OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(callbacks, global_event), "SetLeave");
    for (int i = 0; i < r->location_count; i++)
        if (OTF2_Reader_GetEvtReader(reader, r->locations[i]) == NULL)
            fail("OTF2_Reader_GetEvtReader failed");
    global = OTF2_Reader_GetGlobalEvtReader(reader);
    if (global == NULL)
        fail("OTF2_Reader_GetGlobalEvtReader failed");
    check_otf2(OTF2_Reader_RegisterGlobalEvtCallbacks(reader, global, callbacks, r),
               "OTF2_Reader_RegisterGlobalEvtCallbacks");
    check_otf2(OTF2_Reader_ReadAllGlobalEvents(reader, global, &read),
               "OTF2_Reader_ReadAllGlobalEvents");
    OTF2_Reader_CloseGlobalEvtReader(reader, global);
    OTF2_GlobalEvtReaderCallbacks_Delete(callbacks);
}

double otf2_read(const char* path, int merged, otf2_read_result* out) {
    char anchor[4200];
    reading r = {out, {0}, 0, 0, 0};
    OTF2_Reader* reader;
    double start;
    snprintf(anchor, sizeof anchor, "%s/trace.otf2", path);
    out->events = out->region_sum = 0;
    out->time_sum = 0;
    out->in_time_order = 1;
    start = now();
    reader = OTF2_Reader_Open(anchor);
    if (reader == NULL)
        fail("OTF2_Reader_Open(\"%s\") failed", anchor);
    check_otf2(OTF2_Reader_SetSerialCollectiveCallbacks(reader),
               "OTF2_Reader_SetSerialCollectiveCallbacks");
    read_global_defs(reader, &r);
    for (int i = 0; i < r.location_count; i++)
        check_otf2(OTF2_Reader_SelectLocation(reader, r.locations[i]), "SelectLocation");
    check_otf2(OTF2_Reader_OpenDefFiles(reader), "OTF2_Reader_OpenDefFiles");
    for (int i = 0; i < r.location_count; i++)
        read_local_defs(reader, r.locations[i]);
    check_otf2(OTF2_Reader_CloseDefFiles(reader), "OTF2_Reader_CloseDefFiles");
    check_otf2(OTF2_Reader_OpenEvtFiles(reader), "OTF2_Reader_OpenEvtFiles");
    if (merged)
        read_merged(reader, &r);
    else
        read_locations(reader, &r);
    check_otf2(OTF2_Reader_CloseEvtFiles(reader), "OTF2_Reader_CloseEvtFiles");
    check_otf2(OTF2_Reader_Close(reader), "OTF2_Reader_Close");
    return now() - start;
}
