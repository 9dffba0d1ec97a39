/*
 * tools/otf2-import/defs_check.c - references between global definitions.
 *
 * A definition may only name definitions that exist (OTF2's undefined
 * sentinels excepted). Checking them all once, before any event, lets the
 * event callbacks trust the tables; an archive that breaks the rule is
 * refused with the first bad reference ("corrupt definitions: region 4
 * names string 99, which is not defined").
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"

static int bad_ref(const char* what, uint64_t id, const char* field, const def_table* target,
                   uint64_t ref) {
    import_error("corrupt definitions: %s %" PRIu64 " names %s %" PRIu64
                 " as its %s, which is not defined",
                 what, id, target->what, ref, field);
    return -1;
}

/* 0 when `ref` is `undefined` or defined in `target`. */
static int check_ref(const def_table* target, uint64_t ref, uint64_t undefined, const char* what,
                     uint64_t id, const char* field) {
    if (ref == undefined || def_table_find(target, ref, NULL) != NULL)
        return 0;
    return bad_ref(what, id, field, target, ref);
}

#define STRING_REF(what, id, ref, field)                                                           \
    check_ref(&defs->strings, (ref), OTF2_UNDEFINED_STRING, (what), (id), (field))

const char* defs_string(const otf2_defs* defs, uint32_t id) {
    string_def* s = def_table_find(&defs->strings, id, NULL);
    return s != NULL ? s->text : "";
}

/* The definition ID of a table record. */
static uint64_t id_at(const def_table* table, size_t index) { return table->ids[index]; }

static int check_regions(otf2_defs* defs) {
    for (size_t i = 0; i < defs->regions.count; i++) {
        region_def* r = def_table_at(&defs->regions, i);
        uint64_t id = id_at(&defs->regions, i);
        if (STRING_REF("region", id, r->name, "name") != 0 ||
            STRING_REF("region", id, r->canonical, "canonical name") != 0)
            return -1;
        if (defs_string(defs, r->name)[0] == '\0')
            r->name = r->canonical; /* the display name, else the canonical one */
        r->text = defs_string(defs, r->name);
    }
    for (size_t i = 0; i < defs->contexts.count; i++) {
        context_def* c = def_table_at(&defs->contexts, i);
        if (check_ref(&defs->regions, c->region, OTF2_UNDEFINED_REGION, "calling context",
                      id_at(&defs->contexts, i), "region") != 0)
            return -1;
    }
    return 0;
}

static int check_system(otf2_defs* defs) {
    for (size_t i = 0; i < defs->nodes.count; i++) {
        node_def* n = def_table_at(&defs->nodes, i);
        uint64_t id = id_at(&defs->nodes, i);
        if (STRING_REF("system tree node", id, n->name, "name") != 0 ||
            STRING_REF("system tree node", id, n->class_name, "class name") != 0 ||
            check_ref(&defs->nodes, n->parent, OTF2_UNDEFINED_SYSTEM_TREE_NODE, "system tree node",
                      id, "parent") != 0)
            return -1;
    }
    for (size_t i = 0; i < defs->groups.count; i++) {
        group_def* g = def_table_at(&defs->groups, i);
        uint64_t id = id_at(&defs->groups, i);
        if (STRING_REF("location group", id, g->name, "name") != 0 ||
            check_ref(&defs->nodes, g->parent_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE,
                      "location group", id, "system tree parent") != 0)
            return -1;
    }
    return 0;
}

/* "<group name>/<location name> [L<id>]": unique, and the same in every
 * part of a --part conversion. */
static int name_streams(otf2_defs* defs) {
    for (size_t i = 0; i < defs->locations.count; i++) {
        location_def* l = def_table_at(&defs->locations, i);
        group_def* g = def_table_find(&defs->groups, l->group, NULL);
        const char* group = g != NULL ? defs_string(defs, g->name) : "";
        const char* name = defs_string(defs, l->name);
        size_t size = strlen(group) + strlen(name) + 32;
        if (STRING_REF("location", l->id, l->name, "name") != 0)
            return -1;
        if (g == NULL)
            return bad_ref("location", l->id, "location group", &defs->groups, l->group);
        if ((l->stream_name = nvtxw_malloc(size)) == NULL) {
            import_error("out of memory naming streams");
            return -1;
        }
        snprintf(l->stream_name, size, "%s/%s [L%" PRIu64 "]", group, name, l->id);
    }
    return 0;
}

/* World ranks: position of a process's location in the MPI COMM_LOCATIONS
 * group (OTF2's definition of MPI_COMM_WORLD's ranks). */
static int assign_world_ranks(otf2_defs* defs) {
    for (size_t i = 0; i < defs->member_groups.count; i++) {
        members_def* m = def_table_at(&defs->member_groups, i);
        if (m->type != OTF2_GROUP_TYPE_COMM_LOCATIONS || m->paradigm != OTF2_PARADIGM_MPI)
            continue;
        defs->mpi_locations = (uint32_t)i + 1;
        for (uint32_t r = 0; r < m->count; r++) {
            location_def* l = def_table_find(&defs->locations, m->members[r], NULL);
            group_def* g;
            if (l == NULL)
                return bad_ref("group", id_at(&defs->member_groups, i), "member", &defs->locations,
                               m->members[r]);
            if ((g = def_table_find(&defs->groups, l->group, NULL)) != NULL)
                g->world_rank = r;
        }
        break;
    }
    return 0;
}

static int check_comms(otf2_defs* defs) {
    for (size_t i = 0; i < defs->comms.count; i++) {
        comm_def* c = def_table_at(&defs->comms, i);
        uint64_t id = id_at(&defs->comms, i);
        if (STRING_REF("communicator", id, c->name, "name") != 0 ||
            check_ref(&defs->member_groups, c->group, OTF2_UNDEFINED_GROUP, "communicator", id,
                      "group") != 0)
            return -1;
    }
    for (size_t i = 0; i < defs->windows.count; i++) {
        named_def* w = def_table_at(&defs->windows, i);
        if (STRING_REF("RMA window", id_at(&defs->windows, i), w->name, "name") != 0)
            return -1;
    }
    return 0;
}

/* Classes get their members' value types; instances share their class's
 * member list (they do not own it). */
static int check_metrics(otf2_defs* defs) {
    for (size_t i = 0; i < defs->members.count; i++) {
        member_def* m = def_table_at(&defs->members, i);
        uint64_t id = id_at(&defs->members, i);
        if (STRING_REF("metric member", id, m->name, "name") != 0 ||
            STRING_REF("metric member", id, m->description, "description") != 0 ||
            STRING_REF("metric member", id, m->unit, "unit") != 0)
            return -1;
    }
    for (size_t i = 0; i < defs->metrics.count; i++) {
        metric_def* c = def_table_at(&defs->metrics, i);
        for (uint32_t k = 0; !c->instance && k < c->count; k++) {
            member_def* m = def_table_find(&defs->members, c->members[k], NULL);
            if (m == NULL)
                return bad_ref("metric class", id_at(&defs->metrics, i), "member", &defs->members,
                               c->members[k]);
            c->value_types[k] = m->value_type;
        }
    }
    for (size_t i = 0; i < defs->metrics.count; i++) {
        metric_def* m = def_table_at(&defs->metrics, i);
        metric_def* c;
        if (!m->instance)
            continue;
        c = def_table_find(&defs->metrics, m->class_id, NULL);
        if (c == NULL || c->instance)
            return bad_ref("metric instance", id_at(&defs->metrics, i), "class", &defs->metrics,
                           m->class_id);
        if (def_table_find(&defs->locations, m->recorder, NULL) == NULL)
            return bad_ref("metric instance", id_at(&defs->metrics, i), "recorder",
                           &defs->locations, m->recorder);
        m->count = c->count;
        m->members = c->members;
        m->value_types = c->value_types;
    }
    return 0;
}

static int check_named(otf2_defs* defs) {
    def_table* tables[] = {&defs->attributes, &defs->parameters, &defs->io_handles,
                           &defs->io_files,   &defs->generators, &defs->paradigms};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (size_t i = 0; i < tables[t]->count; i++) {
            /* attribute_def, parameter_def and named_def all start with `name` */
            uint32_t name = *(uint32_t*)def_table_at(tables[t], i);
            if (STRING_REF(tables[t]->what, id_at(tables[t], i), name, "name") != 0)
                return -1;
        }
    }
    return 0;
}

int defs_check(otf2_defs* defs) {
    if (!defs->has_clock) {
        import_error("corrupt definitions: no ClockProperties definition");
        return -1;
    }
    if (defs->locations.count == 0) {
        import_error("the archive defines no locations");
        return -1;
    }
    if (check_regions(defs) != 0 || check_system(defs) != 0 || name_streams(defs) != 0 ||
        check_comms(defs) != 0 || assign_world_ranks(defs) != 0 || check_metrics(defs) != 0 ||
        check_named(defs) != 0)
        return -1;
    return 0;
}

int64_t defs_world_rank(const otf2_defs* defs, uint32_t comm, uint32_t rank) {
    comm_def* c = def_table_find(&defs->comms, comm, NULL);
    members_def* g;
    if (c == NULL || c->inter)
        return -1;
    g = def_table_find(&defs->member_groups, c->group, NULL);
    if (g == NULL)
        return -1;
    if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        return rank < g->count ? (int64_t)rank : -1;
    if (g->type == OTF2_GROUP_TYPE_COMM_SELF)
        return -2; /* the caller's own rank */
    return rank < g->count ? (int64_t)g->members[rank] : -1;
}

static const char* const paradigm_names[] = {
    "unknown",   "user",     "compiler",   "OpenMP",   "MPI",     "CUDA",   "measurement",
    "pthread",   "HMPP",     "OmpSs",      "hardware", "GASPI",   "UPC",    "SHMEM",
    "WinThread", "QtThread", "ACE thread", "TBB",      "OpenACC", "OpenCL", "MTAPI",
    "sampling",  "none",     "HIP",        "Kokkos"};

const char* defs_paradigm_name(unsigned paradigm) {
    return paradigm < sizeof paradigm_names / sizeof paradigm_names[0] ? paradigm_names[paradigm]
                                                                       : NULL;
}

static const char* const role_names[] = {"unknown",
                                         "function",
                                         "wrapper",
                                         "loop",
                                         "code",
                                         "parallel",
                                         "sections",
                                         "section",
                                         "workshare",
                                         "single",
                                         "single sblock",
                                         "master",
                                         "critical",
                                         "critical sblock",
                                         "atomic",
                                         "barrier",
                                         "implicit barrier",
                                         "flush",
                                         "ordered",
                                         "ordered sblock",
                                         "task",
                                         "task create",
                                         "task wait",
                                         "coll one2all",
                                         "coll all2one",
                                         "coll all2all",
                                         "coll other",
                                         "file io",
                                         "point2point",
                                         "rma",
                                         "data transfer",
                                         "artificial",
                                         "thread create",
                                         "thread wait",
                                         "task untied",
                                         "allocate",
                                         "deallocate",
                                         "reallocate",
                                         "file io metadata"};

const char* defs_role_name(unsigned role) {
    return role < sizeof role_names / sizeof role_names[0] ? role_names[role] : NULL;
}
