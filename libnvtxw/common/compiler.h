/*
 * common/compiler.h - hints for the hot paths, empty where the compiler
 * does not know them.
 *
 * NVTXW_NOINLINE keeps a rare or heavy path out of its caller, so that the
 * caller's common case neither inlines it nor saves the registers it
 * needs (measured where used).
 */
#ifndef NVTXW_COMMON_COMPILER_H
#define NVTXW_COMMON_COMPILER_H

#if defined(__GNUC__)
#define NVTXW_NOINLINE __attribute__((noinline))
#else
#define NVTXW_NOINLINE
#endif

#endif /* NVTXW_COMMON_COMPILER_H */
