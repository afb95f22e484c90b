// mapr/version.h: the library version.
#ifndef MAPR_MAPR_VERSION_H_
#define MAPR_MAPR_VERSION_H_

#define MAPR_VERSION_MAJOR 0
#define MAPR_VERSION_MINOR 1
#define MAPR_VERSION_PATCH 0
#define MAPR_VERSION_STRING "0.1.0"

#endif  // MAPR_MAPR_VERSION_H_
