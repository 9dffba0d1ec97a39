# tests/unit/abi.mk - ABI conformance tests (spec sections 1-4, 8 items 1-27, 10).
#
# abi_test and abi_nvidia_test need only the public headers, so they link Check
# alone and do not depend on the state of the library sources.

check_PROGRAMS += tests/unit/abi_test
TESTS += tests/unit/abi_test
tests_unit_abi_test_SOURCES = tests/unit/abi_test.c
tests_unit_abi_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_abi_test_LDADD = $(CHECK_LIBS)

# Coexistence with NVIDIA's nvtx3 headers, in both include orders. Built only
# when configure found them ("checking for NVIDIA nvtx3 headers"); NVIDIA's
# headers are not -pedantic clean, so no -pedantic here.
if HAVE_NVTX3
check_PROGRAMS += tests/unit/abi_nvidia_test
TESTS += tests/unit/abi_nvidia_test
tests_unit_abi_nvidia_test_SOURCES = tests/unit/abi_nvidia_test.c \
	tests/unit/abi_nvidia_order1.c tests/unit/abi_nvidia_order2.c \
	tests/unit/abi_facts.inc tests/unit/abi_fact_record.h
tests_unit_abi_nvidia_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(NVTX3_INCLUDE)
tests_unit_abi_nvidia_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_abi_nvidia_test_LDADD = $(CHECK_LIBS)
else
EXTRA_DIST += tests/unit/abi_nvidia_test.c tests/unit/abi_nvidia_order1.c \
	tests/unit/abi_nvidia_order2.c tests/unit/abi_facts.inc tests/unit/abi_fact_record.h
endif

# Every public header compiles alone as C11, C++11 and C++17; the library
# exports exactly the NVTXW_API declarations.
TESTS += tests/unit/headers_test.sh tests/unit/exports_test.sh
EXTRA_DIST += tests/unit/headers_test.sh tests/unit/exports_test.sh
