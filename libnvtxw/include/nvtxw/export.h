/*
 * nvtxw/export.h - the one export macro. The library is built with
 * -fvisibility=hidden; only declarations marked NVTXW_API leave it.
 */
#ifndef NVTXW_EXPORT_H
#define NVTXW_EXPORT_H

#if defined(_WIN32)
#if defined(NVTXW_BUILDING_LIBRARY)
#define NVTXW_API __declspec(dllexport)
#else
#define NVTXW_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define NVTXW_API __attribute__((visibility("default")))
#else
#define NVTXW_API
#endif

#endif /* NVTXW_EXPORT_H */
