/*
 * tests/gen/otf2_gen_defs.c - the definitions of nvtxw-otf2-gen: each
 * location's local clock offsets and the global definitions (otf2_gen.c
 * lists them). Both are written after the events, whose counts and end time
 * they declare. Global string ids: the fixed ones of otf2_gen.h first, then
 * each def_string call takes the next, so the order of the calls below is
 * part of the archive.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "otf2_gen.h"

/* ---- Local definitions --------------------------------------------------- */

/* Each location's two clock offsets, at the first and the last timestamp. */
void gen_write_local_defs(gen* g) {
    gen_check(g, OTF2_Archive_OpenDefFiles(g->archive), "OTF2_Archive_OpenDefFiles");
    for (uint32_t i = 0; i < g->location_count && g->status == OTF2_SUCCESS; i++) {
        OTF2_DefWriter* w = OTF2_Archive_GetDefWriter(g->archive, i);
        if (w == NULL) {
            gen_check(g, OTF2_ERROR_PROCESSED_WITH_FAULTS, "OTF2_Archive_GetDefWriter");
            break;
        }
        int64_t k = 1 + i % OFFSET_STEPS;
        gen_check(g, OTF2_DefWriter_WriteClockOffset(w, GLOBAL_OFFSET, 30 * k, 0.0),
                  "WriteClockOffset");
        gen_check(g, OTF2_DefWriter_WriteClockOffset(w, g->end, 45 * k, 0.0), "WriteClockOffset");
        gen_check(g, OTF2_Archive_CloseDefWriter(g->archive, w), "OTF2_Archive_CloseDefWriter");
    }
    gen_check(g, OTF2_Archive_CloseDefFiles(g->archive), "OTF2_Archive_CloseDefFiles");
}

/* ---- Global definitions -------------------------------------------------- */

typedef struct defs {
    gen* g;
    OTF2_GlobalDefWriter* w;
    OTF2_StringRef next_string;
} defs;

/* Defines a string with the next free id and returns the id. At most one
 * call per expression: the archive must not depend on evaluation order. */
static OTF2_StringRef def_string(defs* d, const char* format, ...) {
    char text[128];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    gen_check(d->g, OTF2_GlobalDefWriter_WriteString(d->w, d->next_string, text), "WriteString");
    return d->next_string++;
}

static void def_fixed_strings(defs* d) {
    static const char* const fixed[S_FIXED] = {"",         "./solver", "--grid=256", "--steps=1000",
                                               "explicit", "implicit", "solver.c"};
    for (uint32_t i = 0; i < S_FIXED; i++)
        gen_check(d->g, OTF2_GlobalDefWriter_WriteString(d->w, i, fixed[i]), "WriteString");
    d->next_string = S_FIXED;
}

/* Clock, paradigms, system tree and location groups. */
static void def_clock_and_tree(defs* d) {
    gen* g = d->g;
    uint64_t length = g->end - GLOBAL_OFFSET + 45 * OFFSET_STEPS + 1;
    OTF2_StringRef node = def_string(d, "node");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteClockProperties(d->w, TIMER_RESOLUTION, GLOBAL_OFFSET,
                                                        length, REALTIME_NS),
              "WriteClockProperties");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteParadigm(d->w, OTF2_PARADIGM_MPI, def_string(d, "MPI"),
                                                 OTF2_PARADIGM_CLASS_PROCESS),
              "WriteParadigm");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteParadigm(d->w, OTF2_PARADIGM_OPENMP,
                                                 def_string(d, "OpenMP"),
                                                 OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN),
              "WriteParadigm");
    OTF2_StringRef machine = def_string(d, "machine");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, N_MACHINE, machine, machine,
                                                       OTF2_UNDEFINED_SYSTEM_TREE_NODE),
              "WriteSystemTreeNode");
    for (uint32_t k = 0; k < (g->opt.ranks + 1) / 2; k++)
        gen_check(g,
                  OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, 1 + k, def_string(d, "node%u", k),
                                                           node, N_MACHINE),
                  "WriteSystemTreeNode");
    for (uint32_t r = 0; r < g->opt.ranks; r++)
        gen_check(g,
                  OTF2_GlobalDefWriter_WriteLocationGroup(d->w, r, def_string(d, "MPI Rank %u", r),
                                                          OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                          1 + r / 2, OTF2_UNDEFINED_LOCATION_GROUP),
                  "WriteLocationGroup");
}

static void def_locations(defs* d) {
    gen* g = d->g;
    OTF2_StringRef first = d->next_string;
    def_string(d, "Master thread");
    for (uint32_t t = 1; t < g->opt.threads; t++)
        def_string(d, "OMP thread %u", t);
    for (uint32_t i = 0; i + 1 < g->location_count; i++)
        gen_check(g,
                  OTF2_GlobalDefWriter_WriteLocation(d->w, i, first + i % g->opt.threads,
                                                     OTF2_LOCATION_TYPE_CPU_THREAD,
                                                     g->locs[i].events, i / g->opt.threads),
                  "WriteLocation");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteLocation(
                  d->w, g->location_count - 1, def_string(d, "power sensor"),
                  OTF2_LOCATION_TYPE_METRIC, g->locs[g->location_count - 1].events, 0),
              "WriteLocation");
}

static void def_region(defs* d, OTF2_RegionRef id, const char* name, OTF2_RegionRole role,
                       OTF2_Paradigm paradigm) {
    OTF2_StringRef s = def_string(d, "%s", name);
    gen_check(d->g,
              OTF2_GlobalDefWriter_WriteRegion(
                  d->w, id, s, s, S_EMPTY, role, paradigm, OTF2_REGION_FLAG_NONE,
                  paradigm == OTF2_PARADIGM_USER ? S_SOURCE : S_EMPTY, 0, 0),
              "WriteRegion");
}

static void def_regions(defs* d) {
    static const char* const mpi[] = {"MPI_Send",  "MPI_Recv", "MPI_Isend",
                                      "MPI_Irecv", "MPI_Wait", "MPI_Allreduce"};
    char name[32];
    def_region(d, R_MAIN, "main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    def_region(d, R_SOLVE, "solve", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    for (uint32_t k = 0; k < 10; k++) {
        snprintf(name, sizeof name, "compute_%u", k);
        def_region(d, R_COMPUTE0 + k, name, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    }
    for (uint32_t i = 0; i < 6; i++)
        def_region(d, R_MPI_SEND + i, mpi[i],
                   R_MPI_SEND + i == R_MPI_ALLREDUCE ? OTF2_REGION_ROLE_COLL_ALL2ALL
                                                     : OTF2_REGION_ROLE_POINT2POINT,
                   OTF2_PARADIGM_MPI);
    def_region(d, R_OMP_PARALLEL, "!$omp parallel", OTF2_REGION_ROLE_PARALLEL,
               OTF2_PARADIGM_OPENMP);
    def_region(d, R_OMP_TASK, "!$omp task", OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_OPENMP);
}

/* Members: first, first+stride, ... (count of them). */
static void def_group(defs* d, OTF2_GroupRef id, const char* name, OTF2_GroupType type,
                      OTF2_Paradigm paradigm, uint64_t first, uint32_t count, uint64_t stride) {
    uint64_t* members = malloc((count ? count : 1) * sizeof *members);
    if (members == NULL) {
        gen_check(d->g, OTF2_ERROR_MEM_ALLOC_FAILED, "malloc");
        return;
    }
    for (uint32_t i = 0; i < count; i++)
        members[i] = first + i * stride;
    gen_check(d->g,
              OTF2_GlobalDefWriter_WriteGroup(d->w, id, def_string(d, "%s", name), type, paradigm,
                                              OTF2_GROUP_FLAG_NONE, count, members),
              "WriteGroup");
    free(members);
}

static void def_comm(defs* d, OTF2_CommRef id, const char* name, OTF2_GroupRef group,
                     OTF2_CommRef parent) {
    gen_check(d->g,
              OTF2_GlobalDefWriter_WriteComm(d->w, id, def_string(d, "%s", name), group, parent,
                                             OTF2_COMM_FLAG_NONE),
              "WriteComm");
}

static void def_groups(defs* d) {
    uint32_t ranks = d->g->opt.ranks, threads = d->g->opt.threads;
    char name[48];
    def_group(d, G_MPI_LOCATIONS, "MPI locations", OTF2_GROUP_TYPE_COMM_LOCATIONS,
              OTF2_PARADIGM_MPI, 0, ranks, threads);
    def_group(d, G_WORLD, "MPI_COMM_WORLD", OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 0, ranks,
              1);
    def_group(d, G_ROW, "row_comm", OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 0,
              (ranks + 1) / 2, 2);
    def_group(d, G_OMP_LOCATIONS, "OpenMP locations", OTF2_GROUP_TYPE_COMM_LOCATIONS,
              OTF2_PARADIGM_OPENMP, 0, ranks * threads, 1);
    def_comm(d, C_WORLD, "MPI_COMM_WORLD", G_WORLD, OTF2_UNDEFINED_COMM);
    def_comm(d, C_ROW, "row_comm", G_ROW, C_WORLD);
    for (uint32_t r = 0; r < ranks; r++) {
        snprintf(name, sizeof name, "Thread team %u", r);
        def_group(d, G_TEAM0 + r, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                  (uint64_t)r * threads, threads, 1);
        def_comm(d, C_TEAM0 + r, name, G_TEAM0 + r, OTF2_UNDEFINED_COMM);
    }
}

static void def_member(defs* d, OTF2_MetricMemberRef id, const char* name, OTF2_MetricType type,
                       OTF2_MetricMode mode, OTF2_Type value_type, const char* unit) {
    OTF2_StringRef s = def_string(d, "%s", name);
    gen_check(d->g,
              OTF2_GlobalDefWriter_WriteMetricMember(d->w, id, s, s, type, mode, value_type,
                                                     OTF2_BASE_DECIMAL, 0,
                                                     def_string(d, "%s", unit)),
              "WriteMetricMember");
}

static void def_metrics(defs* d) {
    static const OTF2_MetricMemberRef sync[1] = {MM_INSTRUCTIONS};
    static const OTF2_MetricMemberRef async[2] = {MM_POWER, MM_TEMPERATURE};
    gen* g = d->g;
    def_member(d, MM_INSTRUCTIONS, "PAPI_TOT_INS", OTF2_METRIC_TYPE_PAPI,
               OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, "#");
    def_member(d, MM_POWER, "power", OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
               OTF2_TYPE_DOUBLE, "W");
    def_member(d, MM_TEMPERATURE, "temperature", OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_LAST,
               OTF2_TYPE_INT64, "C");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteMetricClass(d->w, M_SYNC, 1, sync, OTF2_METRIC_SYNCHRONOUS,
                                                    OTF2_RECORDER_KIND_CPU),
              "WriteMetricClass");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteMetricClass(
                  d->w, M_ASYNC, 2, async, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT),
              "WriteMetricClass");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteMetricInstance(
                  d->w, M_SENSOR, M_ASYNC, g->location_count - 1, OTF2_SCOPE_SYSTEM_TREE_NODE, 1),
              "WriteMetricInstance");
    for (uint32_t i = 0; i + 1 < g->location_count; i++)
        gen_check(g, OTF2_GlobalDefWriter_WriteMetricClassRecorder(d->w, M_SYNC, i),
                  "WriteMetricClassRecorder");
}

/* Parameters, attributes, the RMA window and the I/O definitions (one
 * pre-created handle per rank on one regular file). */
static void def_misc(defs* d) {
    gen* g = d->g;
    OTF2_StringRef file = def_string(d, "out.dat");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteParameter(d->w, P_SIZE, def_string(d, "size"),
                                                  OTF2_PARAMETER_TYPE_INT64),
              "WriteParameter");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteParameter(d->w, P_ITERATIONS, def_string(d, "iterations"),
                                                  OTF2_PARAMETER_TYPE_UINT64),
              "WriteParameter");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteParameter(d->w, P_MODE, def_string(d, "mode"),
                                                  OTF2_PARAMETER_TYPE_STRING),
              "WriteParameter");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteAttribute(d->w, A_LINE, def_string(d, "line"), S_EMPTY,
                                                  OTF2_TYPE_UINT32),
              "WriteAttribute");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteAttribute(d->w, A_FILE, def_string(d, "file"), S_EMPTY,
                                                  OTF2_TYPE_STRING),
              "WriteAttribute");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteRmaWin(d->w, WIN, def_string(d, "win"), C_WORLD,
                                               OTF2_RMA_WIN_FLAG_NONE),
              "WriteRmaWin");
    OTF2_StringRef posix = def_string(d, "POSIX");
    gen_check(g,
              OTF2_GlobalDefWriter_WriteIoParadigm(
                  d->w, IO_PARADIGM, posix, def_string(d, "POSIX I/O"),
                  OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL),
              "WriteIoParadigm");
    gen_check(g, OTF2_GlobalDefWriter_WriteIoRegularFile(d->w, IO_FILE, file, 1),
              "WriteIoRegularFile");
    for (uint32_t r = 0; r < g->opt.ranks; r++) {
        gen_check(g,
                  OTF2_GlobalDefWriter_WriteIoHandle(d->w, r, file, IO_FILE, IO_PARADIGM,
                                                     OTF2_IO_HANDLE_FLAG_PRE_CREATED,
                                                     OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE),
                  "WriteIoHandle");
        gen_check(g,
                  OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(
                      d->w, r, OTF2_IO_ACCESS_MODE_WRITE_ONLY, OTF2_IO_STATUS_FLAG_NONE),
                  "WriteIoPreCreatedHandleState");
    }
}

void gen_write_global_defs(gen* g) {
    defs d = {g, OTF2_Archive_GetGlobalDefWriter(g->archive), 0};
    if (d.w == NULL) {
        gen_check(g, OTF2_ERROR_PROCESSED_WITH_FAULTS, "OTF2_Archive_GetGlobalDefWriter");
        return;
    }
    def_fixed_strings(&d);
    def_clock_and_tree(&d);
    def_locations(&d);
    def_regions(&d);
    def_groups(&d);
    def_metrics(&d);
    def_misc(&d);
}
