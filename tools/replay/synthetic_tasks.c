#include "config.h"
#include "synthetic.h"
static const synth_param params[] = {SYNTH_COMMON_PARAMS};
static int run_x(synth_run* run) {
    (void)run;
    return 1;
}
const synth_generator synth_tasks = {"tasks", params, 2, run_x};
