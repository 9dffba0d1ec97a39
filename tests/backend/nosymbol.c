/*
 * tests/backend/nosymbol.c - libnosymbol: a loadable shared object that is
 * not an NVTXW backend (it lacks nvtxwGetInterface), for the loader's
 * LIBRARY_SYMBOL_MISSING path.
 */
int nosymbol_marker(void);

int nosymbol_marker(void) { return 42; }
