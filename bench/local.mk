# Benchmarks (make bench) arrive with the writer core.
