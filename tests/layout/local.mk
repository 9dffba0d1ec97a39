# The dependency direction of docs/architecture.md (STYLE rule 1), checked
# over the #include lines; the test also shows the check failing on each
# kind of deliberate violation. `make check-includes` runs the check alone.
TESTS += tests/layout/include_test.sh
EXTRA_DIST += tests/layout/include_test.sh tests/layout/check_includes.py
check-includes:
	@python3 '$(top_srcdir)/tests/layout/check_includes.py' '$(top_srcdir)'
.PHONY: check-includes
