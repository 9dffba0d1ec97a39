/*
 * tools/otf2-import/register_scopes.c - system tree, location groups and
 * locations as scopes; metrics as counters (task scopes: tasks.c).
 *
 * Scope paths (ABI spec 2.10) are "<kind>[<name>]" nodes below the parent's
 * scope: system tree nodes "<class>[<name>]" (machine[Linux], node[n01]),
 * location groups "process[<name>]", locations "thread[<name> #<id>]",
 * "gpu_stream[...]" or "metrics[...]"; '/', '[', ']' and '\' in names are
 * escaped with '\'.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"

static void escape(const char* in, char* out, size_t size) {
    size_t n = 0;
    for (; *in != '\0' && n + 3 < size; in++) {
        if (*in == '/' || *in == '[' || *in == ']' || *in == '\\')
            out[n++] = '\\';
        out[n++] = *in;
    }
    out[n] = '\0';
}

static nvtxwResultCode_t scope_register(importer* im, const char* kind, const char* name,
                                        uint64_t suffix_id, int with_id, uint64_t parent,
                                        uint64_t id) {
    char escaped_kind[128], escaped[512], path[800];
    nvtxScopeAttr_t attr = {sizeof attr, path, parent, id};
    uint64_t out;
    nvtxwResultCode_t rc;
    escape(kind, escaped_kind, sizeof escaped_kind);
    escape(name, escaped, sizeof escaped);
    if (with_id)
        snprintf(path, sizeof path, "%s[%s #%" PRIu64 "]", escaped_kind, escaped, suffix_id);
    else
        snprintf(path, sizeof path, "%s[%s]", escaped_kind, escaped);
    rc = im->t->ScopeRegister(im->domain, &attr, &out);
    if (rc != NVTXW_RESULT_SUCCESS)
        import_error("cannot register scope %s: %s", path, nvtxw_last_error());
    return rc;
}

/* The depth of every node (roots 0), walking each parent chain once; -1
 * when the tree has a cycle. depth[i] = -1 marks "not yet known". */
static int node_depths(const def_table* nodes, long* depth, size_t* chain) {
    for (size_t i = 0; i < nodes->count; i++)
        depth[i] = -1;
    for (size_t i = 0; i < nodes->count; i++) {
        size_t n = 0, at = i;
        long base;
        uint32_t parent;
        while (depth[at] == -1) { /* up to a known node or a root */
            node_def* node = def_table_at(nodes, at);
            if (n == nodes->count)
                return -1; /* longer than the tree: a cycle */
            chain[n++] = at;
            if (node->parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE)
                break;
            def_table_find(nodes, node->parent, &parent);
            at = parent;
        }
        base = depth[at] == -1 ? -1 : depth[at]; /* -1: chain ends at a root */
        while (n > 0)
            depth[chain[--n]] = ++base;
    }
    return 0;
}

/* order[] = 0..count-1 sorted by depth (counting sort, stable); depth
 * values are below count. depth[] is overwritten. */
static void sort_by_depth(long* depth, size_t count, size_t* order) {
    size_t* start = nvtxw_calloc(count + 1, sizeof *start);
    if (start == NULL) { /* keep the walk order: parents may come late, then */
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        return;
    }
    for (size_t i = 0; i < count; i++)
        start[depth[i] + 1]++;
    for (size_t d = 1; d <= count; d++)
        start[d] += start[d - 1];
    for (size_t i = 0; i < count; i++)
        order[start[depth[i]]++] = i;
    nvtxw_free(start);
}

/* Nodes in parent-first order (by depth: linear in the number of nodes,
 * however the archive orders them); a cycle is refused. */
static nvtxwResultCode_t register_nodes(importer* im) {
    def_table* nodes = &im->defs.nodes;
    long* depth = nvtxw_malloc((nodes->count + 1) * sizeof *depth);
    size_t* chain = nvtxw_malloc((nodes->count + 1) * sizeof *chain);
    nvtxwResultCode_t rc = NVTXW_RESULT_SUCCESS;
    if (depth == NULL || chain == NULL) {
        rc = NVTXW_RESULT_FAILED;
        import_error("out of memory registering the system tree");
    } else if (node_depths(nodes, depth, chain) != 0) {
        rc = NVTXW_RESULT_INVALID_ARGUMENT;
        import_error("corrupt definitions: the system tree has a cycle");
    }
    if (rc == NVTXW_RESULT_SUCCESS)
        sort_by_depth(depth, nodes->count, chain); /* chain: reused as the order */
    for (size_t k = 0; rc == NVTXW_RESULT_SUCCESS && k < nodes->count; k++) {
        size_t i = chain[k];
        node_def* n = def_table_at(nodes, i);
        uint32_t parent = 0;
        if (n->parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE)
            def_table_find(nodes, n->parent, &parent);
        rc = scope_register(
            im, defs_string(&im->defs, n->class_name), defs_string(&im->defs, n->name), 0, 0,
            n->parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? NVTX_SCOPE_ROOT
                                                         : IMPORT_SCOPE_NODE_BASE + parent,
            IMPORT_SCOPE_NODE_BASE + i);
    }
    nvtxw_free(depth);
    nvtxw_free(chain);
    return rc;
}

static const char* location_kind(uint8_t type) {
    switch (type) {
    case OTF2_LOCATION_TYPE_CPU_THREAD:
        return "thread";
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM:
        return "gpu_stream";
    case OTF2_LOCATION_TYPE_METRIC:
        return "metrics";
    default:
        return "location";
    }
}

static nvtxwResultCode_t register_groups_and_locations(importer* im) {
    otf2_defs* defs = &im->defs;
    nvtxwResultCode_t rc = NVTXW_RESULT_SUCCESS;
    for (size_t i = 0; i < defs->groups.count && rc == NVTXW_RESULT_SUCCESS; i++) {
        group_def* g = def_table_at(&defs->groups, i);
        uint32_t node;
        uint64_t parent = NVTX_SCOPE_ROOT;
        if (def_table_find(&defs->nodes, g->parent_node, &node) != NULL)
            parent = IMPORT_SCOPE_NODE_BASE + node;
        rc = scope_register(
            im, g->type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR ? "accelerator" : "process",
            defs_string(defs, g->name), 0, 0, parent, IMPORT_SCOPE_GROUP_BASE + i);
    }
    for (size_t i = 0; i < defs->locations.count && rc == NVTXW_RESULT_SUCCESS; i++) {
        location_def* l = def_table_at(&defs->locations, i);
        uint32_t group;
        def_table_find(&defs->groups, l->group, &group);
        rc = scope_register(im, location_kind(l->type), defs_string(defs, l->name), l->id, 1,
                            IMPORT_SCOPE_GROUP_BASE + group, IMPORT_SCOPE_LOCATION_BASE + i);
    }
    return rc;
}

nvtxwResultCode_t register_scopes(importer* im) {
    otf2_defs* defs = &im->defs;
    nvtxwResultCode_t rc;
    if (defs->nodes.count >= IMPORT_SCOPE_INDEX_LIMIT ||
        defs->groups.count >= IMPORT_SCOPE_INDEX_LIMIT ||
        defs->locations.count >= IMPORT_SCOPE_INDEX_LIMIT) {
        import_error("too many system tree nodes, location groups or locations (limit %u each)",
                     IMPORT_SCOPE_INDEX_LIMIT);
        return NVTXW_RESULT_NOT_SUPPORTED;
    }
    if ((rc = register_nodes(im)) != NVTXW_RESULT_SUCCESS)
        return rc;
    return register_groups_and_locations(im);
}

/* ---- counters ------------------------------------------------------------ */

/* OTF2 metric mode -> NVTX counter semantic flags (docs/otf2-mapping.md). */
static uint64_t counter_flags(uint8_t mode) {
    uint64_t flags = 0;
    switch (mode & OTF2_METRIC_VALUE_MASK) {
    case OTF2_METRIC_VALUE_ACCUMULATED:
        flags |= NVTX_COUNTER_FLAG_VALUETYPE_DELTA_SINCE_START;
        break;
    case OTF2_METRIC_VALUE_RELATIVE:
        flags |= NVTX_COUNTER_FLAG_VALUETYPE_DELTA;
        break;
    default:
        flags |= NVTX_COUNTER_FLAG_VALUETYPE_ABSOLUTE;
        break;
    }
    switch (mode & OTF2_METRIC_TIMING_MASK) {
    case OTF2_METRIC_TIMING_LAST:
        flags |= NVTX_COUNTER_FLAG_INTERPOLATION_SINCE_LAST;
        break;
    case OTF2_METRIC_TIMING_NEXT:
        flags |= NVTX_COUNTER_FLAG_INTERPOLATION_UNTIL_NEXT;
        break;
    default:
        flags |= NVTX_COUNTER_FLAG_INTERPOLATION_POINT;
        break;
    }
    return flags;
}

static uint64_t counter_type(uint8_t value_type) {
    switch (value_type) {
    case OTF2_TYPE_UINT64:
        return NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
    case OTF2_TYPE_DOUBLE:
        return NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE;
    default:
        return NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    }
}

/* What a metric instance measures: its scope ID (NONE for a class, whose
 * samples are the recording stream's) and that scope's name ("" for none).
 * One lookup of the scope's definition for both. */
typedef struct instance_scope {
    uint64_t id;
    const char* name;
} instance_scope;

static instance_scope instance_scope_of(const otf2_defs* defs, const metric_def* m) {
    instance_scope out = {NVTX_SCOPE_NONE, ""};
    uint32_t index, name = 0;
    uint64_t base = 0;
    const void* def = NULL;
    if (!m->instance)
        return out;
    switch (m->scope_type) {
    case OTF2_SCOPE_LOCATION:
        if ((def = def_table_find(&defs->locations, m->scope, &index)) != NULL)
            base = IMPORT_SCOPE_LOCATION_BASE, name = ((const location_def*)def)->name;
        break;
    case OTF2_SCOPE_LOCATION_GROUP:
        if ((def = def_table_find(&defs->groups, m->scope, &index)) != NULL)
            base = IMPORT_SCOPE_GROUP_BASE, name = ((const group_def*)def)->name;
        break;
    case OTF2_SCOPE_SYSTEM_TREE_NODE:
        if ((def = def_table_find(&defs->nodes, m->scope, &index)) != NULL)
            base = IMPORT_SCOPE_NODE_BASE, name = ((const node_def*)def)->name;
        break;
    default:
        break;
    }
    if (def != NULL) {
        out.id = base + index;
        out.name = defs_string(defs, name);
    }
    return out;
}

static nvtxwResultCode_t register_member(importer* im, const metric_def* m, uint32_t k,
                                         uint64_t id) {
    member_def* member = def_table_find(&im->defs.members, m->members[k], NULL);
    instance_scope scope = instance_scope_of(&im->defs, m);
    char name[512];
    nvtxSemanticsCounter_t sem = {
        {sizeof sem, NVTX_SEMANTIC_ID_COUNTERS_V1, NVTX_COUNTER_SEMANTIC_VERSION, NULL},
        counter_flags(member->mode),
        defs_string(&im->defs, member->unit),
        0,
        0,
        NVTX_COUNTER_LIMIT_UNDEFINED,
        {0},
        {0}};
    nvtxCounterAttr_t attr = {sizeof attr, counter_type(member->value_type),
                              name,        defs_string(&im->defs, member->description),
                              scope.id,    &sem.header,
                              id};
    uint64_t out;
    nvtxwResultCode_t rc;
    /* An instance's member is named after what it measures too: the class's
     * member (recorded by the location itself) has the same member name. */
    snprintf(name, sizeof name, scope.name[0] != '\0' ? "%s (%s)" : "%s",
             defs_string(&im->defs, member->name), scope.name);
    rc = im->t->CounterRegister(im->domain, &attr, &out);
    if (rc != NVTXW_RESULT_SUCCESS)
        import_error("cannot register counter %s: %s", attr.name, nvtxw_last_error());
    return rc;
}

nvtxwResultCode_t register_counters(importer* im) {
    uint64_t next = IMPORT_COUNTER_BASE;
    for (size_t i = 0; i < im->defs.metrics.count; i++) {
        metric_def* m = def_table_at(&im->defs.metrics, i);
        m->counter_base = next;
        if (m->count > IMPORT_COUNTER_LIMIT - next) {
            import_error("too many metric members (more than %u)",
                         IMPORT_COUNTER_LIMIT - IMPORT_COUNTER_BASE);
            return NVTXW_RESULT_NOT_SUPPORTED;
        }
        for (uint32_t k = 0; k < m->count; k++) {
            nvtxwResultCode_t rc = register_member(im, m, k, next++);
            if (rc != NVTXW_RESULT_SUCCESS)
                return rc;
        }
    }
    return NVTXW_RESULT_SUCCESS;
}
