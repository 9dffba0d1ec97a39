# tests/unit/tasks.mk - the task model (tasks_test.c): payload structs of
# nvtxw/tasks.h against schemas/tasks.yaml, the helpers over a recording
# table, bad use, one scenario through Sink=json (checked by tasks_check.py:
# task rows, gaps, flows bound to slices), Sink=stats (task tables) and a
# report read back and replayed, and 4 writer threads (also under TSan).
check_PROGRAMS += tests/unit/tasks_test
TESTS += tests/unit/tasks_test
tests_unit_tasks_test_SOURCES = tests/unit/tasks_test.c
tests_unit_tasks_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_tasks_test_LDADD = $(TEST_LIBS) -lpthread
EXTRA_DIST += tests/unit/tasks_check.py
