/*
 * tools/record/rec_inject.c - libnvtxw-inject.so's entry point: NVTX calls
 * InitializeInjectionNvtx2 once, at the program's first NVTX call, after
 * loading this library from NVTX_INJECTION64_PATH (nvtx_inject_abi.h). It
 * begins the session (rec_session.c), fills the core and core2 callback
 * tables (rec_events.c) and returns 1; on 0 NVTX turns every call into a
 * no-op, so a session that cannot begin leaves the program running
 * unrecorded, with the reason on stderr.
 *
 * The session ends at exit: an atexit handler, and the library's destructor
 * for a process that leaves without running its atexit handlers through
 * the usual path (the first of the two does it).
 */
#define _GNU_SOURCE /* clock_gettime in rec_internal.h */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "nvtxw/export.h"
#include "rec_internal.h"

#define REC_NVTX_VERSION 3

static void fill_module(const rec_nvtx_export_callbacks* callbacks, int module,
                        void (*fill)(rec_nvtx_table, unsigned)) {
    rec_nvtx_table table = NULL;
    unsigned size = 0;
    if (callbacks->get_module_function_table(module, &table, &size) && table != NULL)
        fill(table, size);
}

static void at_exit(void) { rec_session_end(); }

__attribute__((destructor)) static void unloaded(void) { rec_session_end(); }

NVTXW_API int InitializeInjectionNvtx2(rec_nvtx_get_export_table get_export_table);
NVTXW_API int InitializeInjectionNvtxExtension(rec_nvtx_ext_module_info* info);

/* NVTX's extension modules, once each after the core: the payload and
 * counters extensions are recorded; others (the memory extension) and
 * versions of these this library does not know are refused, and NVTX
 * makes their calls no-ops. */
NVTXW_API int InitializeInjectionNvtxExtension(rec_nvtx_ext_module_info* info) {
    void (*fill)(intptr_t*, size_t);
    size_t s;
    if (info == NULL || !atomic_load(&rec.active))
        return 0;
    if (info->module_id == REC_NVTX_PAYLOAD_MODULE_ID &&
        info->compat_id == REC_NVTX_PAYLOAD_COMPAT_ID)
        fill = rec_fill_payload;
    else if (info->module_id == REC_NVTX_COUNTERS_MODULE_ID &&
             info->compat_id == REC_NVTX_COUNTERS_COMPAT_ID)
        fill = rec_fill_counters;
    else
        return 0;
    for (s = 0; s < info->segments_count; s++)
        if (info->segments[s].segment_id == 0 && info->segments[s].function_slots != NULL)
            fill(info->segments[s].function_slots, info->segments[s].slot_count);
    return 1;
}

NVTXW_API int InitializeInjectionNvtx2(rec_nvtx_get_export_table get_export_table) {
    const rec_nvtx_export_callbacks* callbacks;
    const rec_nvtx_export_version* version;
    if (get_export_table == NULL)
        return 0;
    callbacks = get_export_table(REC_NVTX_ETID_CALLBACKS);
    if (callbacks == NULL || callbacks->struct_size < sizeof *callbacks ||
        callbacks->get_module_function_table == NULL) {
        fprintf(stderr, "nvtxw-record: error: this program's NVTX has no callback table\n");
        return 0;
    }
    version = get_export_table(REC_NVTX_ETID_VERSIONINFO);
    if (version != NULL && version->struct_size >= sizeof *version &&
        version->set_injection_nvtx_version != NULL)
        version->set_injection_nvtx_version(REC_NVTX_VERSION);
    if (rec_session_begin() != 0)
        return 0;
    atexit(at_exit);
    fill_module(callbacks, REC_NVTX_MODULE_CORE, rec_fill_core);
    fill_module(callbacks, REC_NVTX_MODULE_CORE2, rec_fill_core2);
    fill_module(callbacks, REC_NVTX_MODULE_SYNC, rec_fill_sync);
    return 1;
}
