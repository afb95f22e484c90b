/* mapr/export.h: symbol visibility for the mapr library.
 *
 * mapr compiles its sources once, with -fvisibility=hidden, into the static
 * libmapr.a and links the same objects into the shared libmapr.so. Only
 * declarations marked MAPR_EXPORT (the public API in the mapr/ headers and
 * mapr/c_api.h) are visible outside libmapr.so.
 *
 *   MAPR_COMPILE_LIBRARY  defined while compiling mapr itself.
 *   MAPR_SHARED_LIBRARY   defined while compiling mapr's objects and for
 *                         users of the shared library (mapr::mapr_shared
 *                         sets it); selects dllexport/dllimport on Windows.
 *
 * Valid C and C++ (mapr/c_api.h includes it).
 */
#ifndef MAPR_MAPR_EXPORT_H_
#define MAPR_MAPR_EXPORT_H_

#if defined(MAPR_SHARED_LIBRARY)
#if defined(_WIN32)
#if defined(MAPR_COMPILE_LIBRARY)
#define MAPR_EXPORT __declspec(dllexport)
#else
#define MAPR_EXPORT __declspec(dllimport)
#endif
#elif defined(MAPR_COMPILE_LIBRARY)
#define MAPR_EXPORT __attribute__((visibility("default")))
#else
#define MAPR_EXPORT
#endif
#else
#define MAPR_EXPORT
#endif

#endif /* MAPR_MAPR_EXPORT_H_ */
