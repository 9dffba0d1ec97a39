# Bundled example inputs of scripts/demo and the CLI tests, and an example
# producer that reaches the backend only through the reference loader.
EXTRA_DIST += examples/kernel.yaml examples/kernel-launch.hex examples/occupancy.hex \
	examples/capture/demo.jsonl
noinst_PROGRAMS += examples/hello_producer
examples_hello_producer_SOURCES = examples/hello_producer.c libnvtxw/loader/loader.c \
	libnvtxw/common/error.c libnvtxw/common/alloc.c
examples_hello_producer_LDADD = -lpthread
examples_hello_producer_LDFLAGS = $(AM_LDFLAGS) -no-install
