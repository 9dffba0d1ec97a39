/* tests/unit/run_suite.h - how every Check test program runs its suite.
 *
 * Self-contained (Check and the C library only), so that the ABI tests,
 * which include nothing of the project but the public headers, use it too. */
#ifndef NVTXW_TESTS_UNIT_RUN_SUITE_H
#define NVTXW_TESTS_UNIT_RUN_SUITE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs every test of `suite` (CK_NORMAL output; CK_FORK, CK_RUN_CASE and the
 * other Check environment variables apply), frees the runner and the suite,
 * and returns EXIT_SUCCESS when at least one test ran and none failed. A run
 * of no test fails: a filter that matches nothing, or a suite whose cases
 * were all compiled out, must never look green. */
static inline int tu_run_suite(Suite* suite) {
    SRunner* runner = srunner_create(suite);
    int ran, failed;
    srunner_run_all(runner, CK_NORMAL);
    ran = srunner_ntests_run(runner);
    failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    if (ran == 0) {
        fprintf(stderr, "error: the suite ran no test (check CK_RUN_SUITE and CK_RUN_CASE)\n");
        return EXIT_FAILURE;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* NVTXW_TESTS_UNIT_RUN_SUITE_H */
