/*
 * tools/otf2-import/defs.c - the archive's global definitions.
 *
 * Every definition the mapping needs is copied into a def_table; the others
 * (source code locations, properties, cartesian topologies, ...) carry
 * nothing the report can hold and are read past. After the last record
 * every reference between definitions is checked (defs_check.c), so that
 * the event callbacks only look IDs up.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"

#define ADD(table, type, id)                                                                       \
    type* d = def_table_add(&defs->table, (id));                                                   \
    if (d == NULL)                                                                                 \
    return OTF2_CALLBACK_INTERRUPT

static OTF2_CallbackCode on_string(void* ud, OTF2_StringRef self, const char* text) {
    otf2_defs* defs = ud;
    ADD(strings, string_def, self);
    d->text = nvtxw_strdup(text != NULL ? text : "");
    if (d->text == NULL) {
        import_error("out of memory reading string definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void* ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime) {
    otf2_defs* defs = ud;
    (void)realtime;
    if (resolution == 0) {
        import_error("corrupt definitions: ClockProperties with timer resolution 0");
        return OTF2_CALLBACK_INTERRUPT;
    }
    import_clock_set(defs, resolution, offset);
    defs->trace_length = length;
    defs->has_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_paradigm(void* ud, OTF2_Paradigm paradigm, OTF2_StringRef name,
                                     OTF2_ParadigmClass paradigm_class) {
    otf2_defs* defs = ud;
    (void)paradigm_class;
    ADD(paradigms, named_def, paradigm);
    d->name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_node(void* ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                 OTF2_StringRef class_name, OTF2_SystemTreeNodeRef parent) {
    otf2_defs* defs = ud;
    ADD(nodes, node_def, self);
    d->name = name;
    d->class_name = class_name;
    d->parent = parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void* ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator) {
    otf2_defs* defs = ud;
    (void)creator;
    ADD(groups, group_def, self);
    d->name = name;
    d->type = type;
    d->parent_node = parent;
    d->world_rank = -1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void* ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group) {
    otf2_defs* defs = ud;
    ADD(locations, location_def, self);
    d->id = self;
    d->name = name;
    d->type = type;
    d->events = events;
    d->group = group;
    d->index = defs->locations.count - 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void* ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canonical, OTF2_StringRef description,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                   uint32_t end) {
    otf2_defs* defs = ud;
    (void)description, (void)flags, (void)file, (void)begin, (void)end;
    ADD(regions, region_def, self);
    d->name = name;
    d->canonical = canonical;
    d->role = role;
    d->paradigm = paradigm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_members(void* ud, OTF2_GroupRef self, OTF2_StringRef name,
                                    OTF2_GroupType type, OTF2_Paradigm paradigm,
                                    OTF2_GroupFlag flags, uint32_t count, const uint64_t* members) {
    otf2_defs* defs = ud;
    (void)name, (void)flags;
    ADD(member_groups, members_def, self);
    d->type = type;
    d->paradigm = paradigm;
    d->count = count;
    d->members = nvtxw_malloc((count ? count : 1) * sizeof *d->members);
    if (d->members == NULL) {
        import_error("out of memory reading group %u (%u members)", (unsigned)self, count);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (count > 0)
        memcpy(d->members, members, count * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void* ud, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags) {
    otf2_defs* defs = ud;
    (void)flags;
    ADD(comms, comm_def, self);
    d->name = name;
    d->group = group;
    d->parent = parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_intercomm(void* ud, OTF2_CommRef self, OTF2_StringRef name,
                                      OTF2_GroupRef group_a, OTF2_GroupRef group_b,
                                      OTF2_CommRef common, OTF2_CommFlag flags) {
    otf2_defs* defs = ud;
    (void)group_b, (void)flags;
    ADD(comms, comm_def, self);
    d->name = name;
    d->group = group_a;
    d->parent = common;
    d->inter = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_member(void* ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                   OTF2_StringRef description, OTF2_MetricType metric_type,
                                   OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                                   int64_t exponent, OTF2_StringRef unit) {
    otf2_defs* defs = ud;
    ADD(members, member_def, self);
    d->name = name;
    d->description = description;
    d->metric_type = metric_type;
    d->mode = mode;
    d->value_type = value_type;
    d->base = base;
    d->exponent = exponent;
    d->unit = unit;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_metric_class(void* ud, OTF2_MetricRef self, uint8_t count,
                                         const OTF2_MetricMemberRef* members,
                                         OTF2_MetricOccurrence occurrence,
                                         OTF2_RecorderKind recorder_kind) {
    otf2_defs* defs = ud;
    (void)occurrence, (void)recorder_kind;
    ADD(metrics, metric_def, self);
    d->count = count;
    d->members = nvtxw_malloc((count ? count : 1) * sizeof *d->members);
    d->value_types = nvtxw_malloc((count ? count : 1) * sizeof *d->value_types);
    if (d->members == NULL || d->value_types == NULL) {
        import_error("out of memory reading metric class %u", (unsigned)self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    for (uint8_t i = 0; i < count; i++)
        d->members[i] = members[i];
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_metric_instance(void* ud, OTF2_MetricRef self,
                                            OTF2_MetricRef metric_class, OTF2_LocationRef recorder,
                                            OTF2_MetricScope scope_type, uint64_t scope) {
    otf2_defs* defs = ud;
    ADD(metrics, metric_def, self);
    d->instance = 1;
    d->class_id = metric_class;
    d->recorder = recorder;
    d->scope_type = scope_type;
    d->scope = scope;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attribute(void* ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                      OTF2_StringRef description, OTF2_Type type) {
    otf2_defs* defs = ud;
    (void)description;
    ADD(attributes, attribute_def, self);
    d->name = name;
    d->type = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_parameter(void* ud, OTF2_ParameterRef self, OTF2_StringRef name,
                                      OTF2_ParameterType type) {
    otf2_defs* defs = ud;
    ADD(parameters, parameter_def, self);
    d->name = name;
    d->type = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_window(void* ud, OTF2_RmaWinRef self, OTF2_StringRef name,
                                   OTF2_CommRef comm, OTF2_RmaWinFlag flags) {
    otf2_defs* defs = ud;
    (void)flags;
    ADD(windows, named_def, self);
    d->name = name;
    d->link = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_io_handle(void* ud, OTF2_IoHandleRef self, OTF2_StringRef name,
                                      OTF2_IoFileRef file, OTF2_IoParadigmRef paradigm,
                                      OTF2_IoHandleFlag flags, OTF2_CommRef comm,
                                      OTF2_IoHandleRef parent) {
    otf2_defs* defs = ud;
    (void)paradigm, (void)flags, (void)comm, (void)parent;
    ADD(io_handles, named_def, self);
    d->name = name;
    d->link = file;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_io_file(void* ud, OTF2_IoFileRef self, OTF2_StringRef name,
                                    OTF2_SystemTreeNodeRef scope) {
    otf2_defs* defs = ud;
    (void)scope;
    ADD(io_files, named_def, self);
    d->name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_generator(void* ud, OTF2_InterruptGeneratorRef self,
                                      OTF2_StringRef name, OTF2_InterruptGeneratorMode mode,
                                      OTF2_Base base, int64_t exponent, uint64_t period) {
    otf2_defs* defs = ud;
    (void)mode, (void)base, (void)exponent, (void)period;
    ADD(generators, named_def, self);
    d->name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_context(void* ud, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                    OTF2_SourceCodeLocationRef source,
                                    OTF2_CallingContextRef parent) {
    otf2_defs* defs = ud;
    (void)source;
    ADD(contexts, context_def, self);
    d->region = region;
    d->parent = parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_GlobalDefReaderCallbacks* callbacks(void) {
    OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
    if (cb == NULL)
        return NULL;
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetParadigmCallback(cb, on_paradigm);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_members);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, on_metric_instance);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, on_parameter);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_window);
    OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback(cb, on_io_handle);
    OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback(cb, on_io_file);
    OTF2_GlobalDefReaderCallbacks_SetIoDirectoryCallback(cb, on_io_file);
    OTF2_GlobalDefReaderCallbacks_SetInterruptGeneratorCallback(cb, on_generator);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, on_context);
    return cb;
}

static void defs_init(otf2_defs* defs) {
    memset(defs, 0, sizeof *defs);
    def_table_init(&defs->strings, sizeof(string_def), "string");
    def_table_init(&defs->regions, sizeof(region_def), "region");
    def_table_init(&defs->nodes, sizeof(node_def), "system tree node");
    def_table_init(&defs->groups, sizeof(group_def), "location group");
    def_table_init(&defs->locations, sizeof(location_def), "location");
    def_table_init(&defs->member_groups, sizeof(members_def), "group");
    def_table_init(&defs->comms, sizeof(comm_def), "communicator");
    def_table_init(&defs->members, sizeof(member_def), "metric member");
    def_table_init(&defs->metrics, sizeof(metric_def), "metric");
    def_table_init(&defs->attributes, sizeof(attribute_def), "attribute");
    def_table_init(&defs->parameters, sizeof(parameter_def), "parameter");
    def_table_init(&defs->windows, sizeof(named_def), "RMA window");
    def_table_init(&defs->io_handles, sizeof(named_def), "I/O handle");
    def_table_init(&defs->io_files, sizeof(named_def), "I/O file");
    def_table_init(&defs->generators, sizeof(named_def), "interrupt generator");
    def_table_init(&defs->contexts, sizeof(context_def), "calling context");
    def_table_init(&defs->paradigms, sizeof(named_def), "paradigm");
}

int defs_read(OTF2_Reader* reader, otf2_defs* defs, const char* archive) {
    char file[4200];
    OTF2_GlobalDefReader* gdr;
    OTF2_GlobalDefReaderCallbacks* cb;
    OTF2_ErrorCode rc;
    uint64_t read = 0;
    defs_init(defs);
    import_archive_file(archive, ".def", file, sizeof file);
    import_otf2_error_reset();
    gdr = OTF2_Reader_GetGlobalDefReader(reader);
    if (gdr == NULL) {
        import_error("cannot read the global definitions (%s): %s", file,
                     import_otf2_error(OTF2_ERROR_INVALID));
        return -1;
    }
    if ((cb = callbacks()) == NULL) {
        import_error("out of memory");
        return -1;
    }
    import_error("%s", "");
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cb, defs);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &read);
    OTF2_Reader_CloseGlobalDefReader(reader, gdr);
    if (rc == OTF2_ERROR_INTERRUPTED_BY_CALLBACK && import_last_error()[0] != '\0') {
        char why[1024];
        snprintf(why, sizeof why, "%s", import_last_error());
        import_error("%s, record %llu: %s", file, (unsigned long long)read + 1, why);
        return -1;
    }
    if (rc != OTF2_SUCCESS) {
        if (rc != OTF2_ERROR_INTERRUPTED_BY_CALLBACK || import_last_error()[0] == '\0')
            import_error("cannot read the global definitions (%s) after %llu records: %s", file,
                         (unsigned long long)read, import_otf2_error(rc));
        return -1;
    }
    if (defs_check(defs) != 0) {
        char why[1024];
        snprintf(why, sizeof why, "%s", import_last_error());
        import_error("%s: %s", file, why);
        return -1;
    }
    return 0;
}

void defs_free(otf2_defs* defs) {
    def_table* strings = &defs->strings;
    for (size_t i = 0; i < strings->count; i++)
        nvtxw_free(((string_def*)def_table_at(strings, i))->text);
    for (size_t i = 0; i < defs->locations.count; i++)
        nvtxw_free(((location_def*)def_table_at(&defs->locations, i))->stream_name);
    for (size_t i = 0; i < defs->member_groups.count; i++)
        nvtxw_free(((members_def*)def_table_at(&defs->member_groups, i))->members);
    for (size_t i = 0; i < defs->metrics.count; i++) {
        metric_def* m = def_table_at(&defs->metrics, i);
        if (!m->instance) {
            nvtxw_free(m->members);
            nvtxw_free(m->value_types);
        }
    }
    def_table* all[] = {&defs->strings,    &defs->regions,       &defs->nodes,      &defs->groups,
                        &defs->locations,  &defs->member_groups, &defs->comms,      &defs->members,
                        &defs->metrics,    &defs->attributes,    &defs->parameters, &defs->windows,
                        &defs->io_handles, &defs->io_files,      &defs->generators, &defs->contexts,
                        &defs->paradigms};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        def_table_free(all[i]);
}
