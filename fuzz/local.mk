# libFuzzer targets: ./configure CC=clang --enable-fuzzing, then
# `make fuzz/visit_fuzz` and run it (fuzzing is not part of make check). The
# target compiles the library sources into itself so that every library
# function is instrumented (coverage and sanitizers), and needs no libtool
# library.
EXTRA_DIST += fuzz/visit_fuzz.c fuzz/README.md fuzz/fuzz_temp.h fuzz/fuzz_json.h
EXTRA_DIST += fuzz/yaml_fuzz.c fuzz/yaml_fuzz.dict
EXTRA_DIST += fuzz/registry_fuzz.c fuzz/reader_fuzz.c
EXTRA_DIST += fuzz/capture_fuzz.c fuzz/capture_fuzz.dict fuzz/roundtrip_fuzz.c
EXTRA_DIST += fuzz/chrome_fuzz.c fuzz/chrome_fuzz.dict fuzz/config_fuzz.c fuzz/config_fuzz.dict
# nvtxw-replay's capture reader, compiled into capture_fuzz and roundtrip_fuzz
# (and their replays) as that tool compiles it.
FUZZ_CAPTURE_SOURCES = tools/replay/capture/capture_read.c \
	tools/replay/capture/capture_input.c tools/replay/capture/capture_jsonl.c \
	tools/replay/capture/capture_maps.c tools/replay/capture/capture_lines.c \
	tools/replay/capture/capture_regs.c tools/replay/capture/capture_payload.c \
	tools/replay/capture/capture_replay.c tools/common/tool_interrupt.c
if ENABLE_FUZZING
# Each target compiles the library's sources itself, instrumented.
# Undefined behaviour stops the run like a crash (else UBSan prints and
# libFuzzer goes on: no artifact, and a run that "found nothing").
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY -DNVTXW_LIBFUZZER
FUZZ_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) $(ZSTD_CFLAGS) $(YAML_CFLAGS) $(YAJL_CFLAGS) $(XXHASH_CFLAGS)
FUZZ_LDADD = $(ZSTD_LIBS) $(YAML_LIBS) $(YAJL_LIBS) $(XXHASH_LIBS) $(SQLITE_LIBS)
noinst_PROGRAMS += fuzz/visit_fuzz fuzz/yaml_fuzz fuzz/registry_fuzz fuzz/reader_fuzz
fuzz_visit_fuzz_SOURCES = fuzz/visit_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_visit_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_visit_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_visit_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_visit_fuzz_LDADD = $(FUZZ_LDADD)
fuzz_yaml_fuzz_SOURCES = fuzz/yaml_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_yaml_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_yaml_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_yaml_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_yaml_fuzz_LDADD = $(FUZZ_LDADD)
fuzz_registry_fuzz_SOURCES = fuzz/registry_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_registry_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_registry_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_registry_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_registry_fuzz_LDADD = $(FUZZ_LDADD)
fuzz_reader_fuzz_SOURCES = fuzz/reader_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_reader_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_reader_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_reader_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_reader_fuzz_LDADD = $(FUZZ_LDADD)
# The capture reader is nvtxw-replay's (tools/replay/capture/).
noinst_PROGRAMS += fuzz/capture_fuzz
fuzz_capture_fuzz_SOURCES = fuzz/capture_fuzz.c $(FUZZ_CAPTURE_SOURCES) \
	$(libnvtxw_libnvtxw_la_SOURCES)
fuzz_capture_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS) -I$(top_srcdir)/tools/replay \
	-I$(top_srcdir)/tools/common \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
fuzz_capture_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_capture_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_capture_fuzz_LDADD = $(FUZZ_LDADD)
# The report writer driven by capture files, its reports read back: the
# capture reader's sources again, another oracle.
noinst_PROGRAMS += fuzz/roundtrip_fuzz
fuzz_roundtrip_fuzz_SOURCES = fuzz/roundtrip_fuzz.c $(FUZZ_CAPTURE_SOURCES) \
	$(libnvtxw_libnvtxw_la_SOURCES)
fuzz_roundtrip_fuzz_CPPFLAGS = $(fuzz_capture_fuzz_CPPFLAGS)
fuzz_roundtrip_fuzz_CFLAGS = $(FUZZ_CFLAGS) $(YAJL_CFLAGS) $(SQLITE_CFLAGS)
fuzz_roundtrip_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_roundtrip_fuzz_LDADD = $(FUZZ_LDADD) $(YAJL_LIBS)
# The Chrome trace reader is nvtxw-replay's (tools/replay/chrome/).
noinst_PROGRAMS += fuzz/chrome_fuzz fuzz/config_fuzz
fuzz_chrome_fuzz_SOURCES = fuzz/chrome_fuzz.c $(FUZZ_CHROME_SOURCES) \
	$(libnvtxw_libnvtxw_la_SOURCES)
fuzz_chrome_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS) -I$(top_srcdir)/tools/replay \
	-I$(top_srcdir)/tools/common
fuzz_chrome_fuzz_CFLAGS = $(FUZZ_CFLAGS) $(YAJL_CFLAGS)
fuzz_chrome_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_chrome_fuzz_LDADD = $(FUZZ_LDADD) $(YAJL_LIBS) -lm
fuzz_config_fuzz_SOURCES = fuzz/config_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_config_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_config_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_config_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_config_fuzz_LDADD = $(FUZZ_LDADD)

# make fuzz-smoke: every target for FUZZ_SECONDS (10) from its seeds, with
# its dictionary; make fuzz-long: FUZZ_LONG_SECONDS (3600) each. A finding
# fails the run and leaves crash-*/leak-* files in fuzz/findings/<target>/.
FUZZ_TARGETS = visit yaml registry reader capture roundtrip chrome config
FUZZ_SECONDS = 10
FUZZ_LONG_SECONDS = 3600
fuzz-smoke: $(FUZZ_TARGETS:%=fuzz/%_fuzz)
	@$(SHELL) $(top_srcdir)/fuzz/run_fuzzers.sh $(top_srcdir) $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-long: $(FUZZ_TARGETS:%=fuzz/%_fuzz)
	@$(SHELL) $(top_srcdir)/fuzz/run_fuzzers.sh $(top_srcdir) $(FUZZ_LONG_SECONDS) $(FUZZ_TARGETS)
else
fuzz-smoke fuzz-long:
	@echo "fuzzing needs ./configure CC=clang --enable-fuzzing" >&2; exit 1
endif
.PHONY: fuzz-smoke fuzz-long
EXTRA_DIST += fuzz/run_fuzzers.sh
FUZZ_CHROME_SOURCES = tools/replay/chrome/chrome_in_doc.c tools/replay/chrome/chrome_in_events.c \
	tools/replay/chrome/chrome_in_json.c tools/replay/chrome/chrome_in_main.c \
	tools/replay/chrome/chrome_in_meta.c tools/replay/chrome/chrome_in_scan.c \
	tools/replay/chrome/chrome_in_pipe.c \
	tools/replay/chrome/chrome_in_time.c \
	tools/replay/chrome/chrome_in_write.c tools/common/tool_interrupt.c

# Replay in make check, in every build (plain, -Werror, sanitizers): each
# target's LLVMFuzzerTestOneInput linked with fuzz/fuzz_replay_main.c runs
# on fuzz/corpus/<name>/ and fuzz/reproducers/<name>/ (found through
# $top_srcdir, exported by AM_TESTS_ENVIRONMENT). The targets use only the
# public API, so they link the libtool library; SANITIZER_FLAGS come with
# AM_CFLAGS. fuzz/replay_selftest.sh checks that the driver reports each
# kind of failure, with a target that misbehaves on request.
FUZZ_REPLAY_CPPFLAGS = $(TOOL_CPPFLAGS) -DFUZZ_REPLAY_SRCDIR='"$(abs_top_srcdir)"'
check_PROGRAMS += fuzz/visit_replay fuzz/yaml_replay fuzz/registry_replay \
	fuzz/reader_replay fuzz/capture_replay fuzz/roundtrip_replay fuzz/chrome_replay \
	fuzz/config_replay fuzz/replay_selftest_replay
TESTS += fuzz/visit_replay fuzz/yaml_replay fuzz/registry_replay \
	fuzz/reader_replay fuzz/capture_replay fuzz/roundtrip_replay fuzz/chrome_replay \
	fuzz/config_replay fuzz/replay_selftest.sh
EXTRA_DIST += fuzz/replay_selftest.sh fuzz/make_seeds.py fuzz/corpus fuzz/reproducers
fuzz_visit_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/visit_fuzz.c
fuzz_visit_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"visit"'
fuzz_visit_replay_LDADD = libnvtxw/libnvtxw.la
fuzz_yaml_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/yaml_fuzz.c
fuzz_yaml_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"yaml"'
fuzz_yaml_replay_LDADD = libnvtxw/libnvtxw.la
fuzz_registry_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/registry_fuzz.c
fuzz_registry_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"registry"'
fuzz_registry_replay_LDADD = libnvtxw/libnvtxw.la
fuzz_reader_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/reader_fuzz.c
fuzz_reader_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"reader"'
fuzz_reader_replay_LDADD = libnvtxw/libnvtxw.la
fuzz_capture_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/capture_fuzz.c $(FUZZ_CAPTURE_SOURCES)
FUZZ_CAPTURE_REPLAY_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -I$(top_srcdir)/tools/replay \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
fuzz_capture_replay_CPPFLAGS = $(FUZZ_CAPTURE_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"capture"'
fuzz_capture_replay_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(YAJL_CFLAGS)
fuzz_capture_replay_LDADD = libnvtxw/libnvtxw.la $(YAML_LIBS) $(YAJL_LIBS)
# roundtrip_fuzz replays the capture seeds; its reproducers are its own.
fuzz_roundtrip_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/roundtrip_fuzz.c \
	$(FUZZ_CAPTURE_SOURCES)
fuzz_roundtrip_replay_CPPFLAGS = $(FUZZ_CAPTURE_REPLAY_CPPFLAGS) \
	-DFUZZ_REPLAY_NAME='"roundtrip"' -DFUZZ_REPLAY_SEEDS='"capture"'
fuzz_roundtrip_replay_CFLAGS = $(fuzz_capture_replay_CFLAGS) $(SQLITE_CFLAGS)
fuzz_roundtrip_replay_LDADD = $(fuzz_capture_replay_LDADD) $(SQLITE_LIBS)
fuzz_replay_selftest_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/replay_selftest_fuzz.c
fuzz_replay_selftest_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"selftest"'
fuzz_chrome_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/chrome_fuzz.c $(FUZZ_CHROME_SOURCES)
fuzz_chrome_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"chrome"' \
	-I$(top_srcdir)/tools/replay
fuzz_chrome_replay_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
fuzz_chrome_replay_LDADD = libnvtxw/libnvtxw.la $(YAJL_LIBS) -lm
fuzz_config_replay_SOURCES = fuzz/fuzz_replay_main.c fuzz/config_fuzz.c
fuzz_config_replay_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_REPLAY_NAME='"config"'
fuzz_config_replay_LDADD = libnvtxw/libnvtxw.la
