/*
 * fuzz/capture_fuzz.c - libFuzzer target for the capture reader
 * (tools/replay/capture/, docs/capture-format.md): arbitrary bytes as a
 * capture file, replayed into a session whose sink is Sink=capture writing
 * to /dev/null, so that whatever the reader accepts also goes through the
 * capture writer. Any input must end in exit status 0 or 1 with no crash,
 * leak or sanitizer report. Inputs starting with '{' take the JSON Lines
 * path, others the YAML path; fuzz/capture_fuzz.dict holds the keys.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_temp.h"
#include "nvtxw/nvtxw.h"
#include "replay_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const nvtxwInterface_t* iface;
    replay_input_ctx ctx;
    char path[FUZZ_TEMP_NAME_MAX];
    if (iface == NULL && nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface) != 0)
        abort();
    fuzz_temp_write(path, "capture", data, size);
    ctx.tool = "capture_fuzz";
    ctx.iface = iface;
    ctx.config = "Sink=capture|Output=/dev/null|Overwrite=yes";
    capture_replay(&ctx, path);
    unlink(path);
    return 0;
}
