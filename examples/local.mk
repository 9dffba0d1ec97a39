# Bundled example input of scripts/demo and the CLI tests.
EXTRA_DIST += examples/kernel.yaml examples/kernel-launch.hex examples/occupancy.hex
