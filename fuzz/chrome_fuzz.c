/*
 * fuzz/chrome_fuzz.c - libFuzzer target for the Chrome Trace Event Format
 * input of nvtxw-replay (tools/replay/chrome/, docs/chrome-input.md):
 * arbitrary bytes as a trace file, replayed into a session whose sink is
 * Sink=json writing its own temporary file in place, so that whatever the
 * reader accepts also goes through the JSON writer. Any input must end in
 * exit status 0 or 1 with no crash, leak or sanitizer report, and an input
 * replayed with status 0 must leave valid JSON (fuzz_json.h);
 * fuzz/chrome_fuzz.dict holds the format's keys and phases. The input's
 * size picks the paths: odd sizes read the second pass on one thread,
 * sizes with bit 1 set parse the whole file in the first pass (the
 * defaults are the scan and two threads).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_json.h"
#include "fuzz_temp.h"
#include "nvtxw/nvtxw.h"
#include "replay_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const nvtxwInterface_t* iface;
    replay_input_ctx ctx;
    char input[FUZZ_TEMP_NAME_MAX], output[FUZZ_TEMP_NAME_MAX], config[FUZZ_TEMP_NAME_MAX + 64];
    if (iface == NULL && nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface) != 0)
        abort();
    setenv("NVTXW_CHROME_PARSE_THREAD", size & 1 ? "0" : "1", 1);
    setenv("NVTXW_CHROME_FIRST_PASS", size & 2 ? "parser" : "", 1);
    fuzz_temp_write(input, "chrome", data, size);
    fuzz_temp_write(output, "chrome-out", NULL, 0);
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=in-place", output);
    ctx.tool = "chrome_fuzz";
    ctx.iface = iface;
    ctx.config = config;
    if (chrome_trace_replay(&ctx, input) == 0)
        fuzz_json_check("chrome_fuzz", output);
    unlink(input);
    unlink(output);
    return 0;
}
