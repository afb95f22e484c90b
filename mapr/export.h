// mapr/export.h: symbol visibility for the mapr library.
#ifndef MAPR_MAPR_EXPORT_H_
#define MAPR_MAPR_EXPORT_H_

#if defined(MAPR_SHARED_LIBRARY) && defined(MAPR_COMPILE_LIBRARY)
#define MAPR_EXPORT __attribute__((visibility("default")))
#else
#define MAPR_EXPORT
#endif

#endif  // MAPR_MAPR_EXPORT_H_
