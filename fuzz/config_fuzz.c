/*
 * fuzz/config_fuzz.c - libFuzzer target for the session configuration
 * string (docs/config.md): arbitrary bytes after a fixed first line that
 * chooses the sink (the first occurrence of a key wins, so the input cannot
 * make the run write anywhere else: the text and stats sinks write
 * /dev/null in place, the report sink a temporary file of its own), then
 * SessionBegin and SessionEnd. The first input byte picks the sink, so the
 * sink-specific keys (Stats*, Compression*) are parsed too. Any input must
 * give SUCCESS or a refusal with a message, with no crash, leak or
 * sanitizer report.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_temp.h"
#include "nvtxw/nvtxw.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char* const sinks[] = {"Sink=null\n", "Sink=text|Output=/dev/null\n",
                                        "Sink=stats|Output=/dev/null|Overwrite=in-place\n",
                                        "Sink=report|Output=%s|Overwrite=in-place\n"};
    static const nvtxwInterface_t* iface;
    char report[FUZZ_TEMP_NAME_MAX], first[FUZZ_TEMP_NAME_MAX + 64];
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwResultCode_t rc;
    const char* line;
    char* config;
    int fd;
    if (iface == NULL && nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface) != 0)
        abort();
    line = sinks[size > 0 ? data[0] % 4 : 0];
    fuzz_temp_name(report, "config");
    if ((fd = mkstemp(report)) < 0)
        abort();
    close(fd);
    snprintf(first, sizeof first, line, report);
    config = malloc(strlen(first) + size + 1);
    if (config == NULL)
        abort();
    strcpy(config, first);
    if (size > 1)
        memcpy(config + strlen(first), data + 1, size - 1);
    config[strlen(first) + (size > 1 ? size - 1 : 0)] = '\0';
    nvtxwSessionAttributesInit(&attr);
    attr.name = "config_fuzz";
    attr.configString = config;
    rc = iface->SessionBegin(&attr, &session);
    if (rc == NVTXW_RESULT_SUCCESS)
        rc = iface->SessionEnd(session);
    else if (nvtxw_last_error()[0] == '\0' || session != NULL)
        abort(); /* a refusal names what was wrong and gives no session */
    free(config);
    unlink(report);
    return 0;
}
