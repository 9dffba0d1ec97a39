# docs/architecture.md kept true: its dependency direction (STYLE rule 1)
# checked over the #include lines, with the check shown failing on each kind
# of deliberate violation (`make check-includes` runs the check alone), and
# a row in the code map for every folder.
TESTS += tests/layout/include_test.sh tests/layout/code_map_test.sh
EXTRA_DIST += tests/layout/include_test.sh tests/layout/check_includes.py \
	tests/layout/code_map_test.sh
check-includes:
	@python3 '$(top_srcdir)/tests/layout/check_includes.py' '$(top_srcdir)'
.PHONY: check-includes
