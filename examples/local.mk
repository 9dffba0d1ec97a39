# Bundled example inputs of scripts/demo and the CLI tests, and an example
# producer that reaches the backend only through the reference loader.
EXTRA_DIST += examples/kernel.yaml examples/kernel-launch.hex examples/occupancy.hex \
	examples/capture/demo.jsonl
noinst_PROGRAMS += examples/hello_producer
examples_hello_producer_SOURCES = examples/hello_producer.c libnvtxw/loader/loader.c \
	libnvtxw/common/error.c libnvtxw/common/alloc.c
examples_hello_producer_LDADD = -lpthread
examples_hello_producer_LDFLAGS = $(AM_LDFLAGS) -no-install

# Installed with the documentation (docs/producer-guide.md): the guide's
# complete producer, and the loader-only one. make installcheck compiles the
# guide's against the installed library through pkg-config and runs it.
exampledir = $(docdir)/examples
dist_example_DATA = examples/producer_guide.c examples/hello_producer.c
noinst_PROGRAMS += examples/producer_guide
examples_producer_guide_SOURCES = examples/producer_guide.c
examples_producer_guide_CPPFLAGS = -I$(top_srcdir)/libnvtxw/include
examples_producer_guide_LDADD = libnvtxw/libnvtxw.la -lpthread

# make installcheck: the installed documents, and the guide's producer built
# as a user builds it (pkg-config, an rpath to the installed library),
# run, and its report read back by the installed nvtxw-replay.
installcheck-local:
	@set -u; pass=0; fail=0; \
	tmp=`mktemp -d "$${TMPDIR:-/tmp}/nvtxw-installcheck.XXXXXX"` || exit 1; \
	trap 'rm -rf "$$tmp"' EXIT; \
	check() { if eval "$$2" >"$$tmp/log" 2>&1; then pass=$$((pass + 1)); echo "PASS: $$1"; \
	  else fail=$$((fail + 1)); echo "FAIL: $$1"; sed 's/^/    /' "$$tmp/log" | head -20; fi; }; \
	docs="$(DESTDIR)$(docdir)"; libdir="$(DESTDIR)$(libdir)"; \
	pcflags="--define-variable=prefix=$(DESTDIR)$(prefix) --define-variable=exec_prefix=$(DESTDIR)$(exec_prefix)"; \
	check "the producer guide is installed" "test -s '$$docs/producer-guide.md'"; \
	check "its example is installed" "test -s '$$docs/examples/producer_guide.c'"; \
	check "the guide's example builds with pkg-config" \
	  "$(CC) -std=c11 -Wall -Wextra -Werror '$$docs/examples/producer_guide.c' \
	     \`PKG_CONFIG_PATH='$$libdir/pkgconfig' $(PKG_CONFIG) $$pcflags --cflags --libs nvtxw\` \
	     -Wl,-rpath,'$$libdir' -lpthread -o '$$tmp/producer_guide'"; \
	check "it writes a report" "'$$tmp/producer_guide' '$$tmp/guide.nvtxw' && test -s '$$tmp/guide.nvtxw'"; \
	check "the installed nvtxw-replay reads it: 2000 steps" \
	  "LD_LIBRARY_PATH='$$libdir' '$(DESTDIR)$(bindir)/nvtxw-replay' '$$tmp/guide.nvtxw' --stats=csv | grep -q ',2000,.*,PushPop,guide:step\$$'"; \
	echo "installcheck: $$pass passed, $$fail failed"; \
	test "$$fail" -eq 0 && test "$$pass" -gt 0
