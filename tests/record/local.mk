# nvtxw-record (tests/record/record_test.sh): programs written only against
# NVIDIA's nvtx3 headers, recorded through libnvtxw-inject.so. They need the
# headers (CUDA toolkit), as the ABI tests do.
if HAVE_NVTX3
check_PROGRAMS += tests/record/nvtx_program tests/record/nvtx_cpp_program
tests_record_nvtx_cpp_program_SOURCES = tests/record/nvtx_cpp_program.cpp
tests_record_nvtx_cpp_program_CPPFLAGS = -I$(NVTX3_INCLUDE)
tests_record_nvtx_cpp_program_CXXFLAGS = -std=c++14 $(SANITIZER_FLAGS)
tests_record_nvtx_cpp_program_LDADD = -ldl -lpthread
tests_record_nvtx_program_SOURCES = tests/record/nvtx_program.c
tests_record_nvtx_program_CPPFLAGS = -I$(NVTX3_INCLUDE)
tests_record_nvtx_program_CFLAGS = $(AM_CFLAGS) -Wno-unused-parameter
tests_record_nvtx_program_LDADD = -ldl
TESTS += tests/record/record_test.sh
check_PROGRAMS += tests/record/record_abi_test
TESTS += tests/record/record_abi_test
tests_record_record_abi_test_SOURCES = tests/record/record_abi_test.c
tests_record_record_abi_test_CPPFLAGS = -I$(NVTX3_INCLUDE) -I$(top_srcdir)/tools/record \
	-I$(top_srcdir)/libnvtxw/include -I$(top_srcdir)/tests/unit
tests_record_record_abi_test_CFLAGS = $(TEST_CFLAGS) -Wno-unused-parameter
tests_record_record_abi_test_LDADD = $(CHECK_LIBS) -ldl
else
SKIPPED_CHECKS += 'tests/record/record_test.sh and record_abi_test (NVTX-annotated programs recorded by nvtxw-record; the recorder's NVTX types against NVIDIA's): this build has no NVIDIA nvtx3 headers to build them with; install the CUDA toolkit or pass --with-nvtx3=DIR'
endif
EXTRA_DIST += tests/record/record_test.sh tests/record/nvtx_program.c tests/record/record_abi_test.c \
	tests/record/nvtx_cpp_program.cpp
