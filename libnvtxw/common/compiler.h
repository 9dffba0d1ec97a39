/*
 * common/compiler.h - hints for the hot paths, empty where the compiler
 * does not know them.
 *
 * NVTXW_NOINLINE keeps a rare or heavy path out of its caller, so that the
 * caller's common case neither inlines it nor saves the registers it
 * needs; NVTXW_ALWAYS_INLINE puts a short step of a hot path into each
 * caller where the compiler would call it (measured where used).
 */
#ifndef NVTXW_COMMON_COMPILER_H
#define NVTXW_COMMON_COMPILER_H

#if defined(__GNUC__)
#define NVTXW_NOINLINE __attribute__((noinline))
#define NVTXW_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define NVTXW_NOINLINE
#define NVTXW_ALWAYS_INLINE inline
#endif

#endif /* NVTXW_COMMON_COMPILER_H */
