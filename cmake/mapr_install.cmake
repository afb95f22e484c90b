# The shared library, and the install/export rules (included at the end of
# the top-level CMakeLists.txt, once every target_sources(mapr ...) is known).
#
# Static and shared from one compilation: `mapr` (STATIC, what the tests and
# the command link) compiles every source once, PIC, with hidden visibility;
# only MAPR_EXPORT declarations (mapr/export.h) are visible. `mapr_shared`
# (libmapr.so) links those same object files. Hidden visibility inside the
# static archive costs nothing (symbols still resolve at link time) and
# keeps mapr's internals out of any shared object a host builds from it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(mapr PROPERTIES
  OUTPUT_NAME mapr
  EXPORT_NAME mapr_static
  C_VISIBILITY_PRESET hidden
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_compile_definitions(mapr PRIVATE MAPR_COMPILE_LIBRARY MAPR_SHARED_LIBRARY)
target_compile_features(mapr PUBLIC cxx_std_20)

# 0.x releases promise no ABI stability between minor versions, so the
# SONAME carries the minor version until 1.0 (libmapr.so.0.1).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(MAPR_SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
  set(MAPR_VERSION_COMPATIBILITY SameMinorVersion)
else()
  set(MAPR_SOVERSION "${PROJECT_VERSION_MAJOR}")
  set(MAPR_VERSION_COMPATIBILITY SameMajorVersion)
endif()

# mapr's link interface, split into what users see (absl, threads) and what
# only the library needs (RE2, xxHash; the static lib lists those as
# $<LINK_ONLY:...>). Read back from `mapr`, so both libraries stay in step.
get_target_property(_mapr_interface mapr INTERFACE_LINK_LIBRARIES)
set(_mapr_public_libs)
foreach(_lib IN LISTS _mapr_interface)
  if(NOT _lib MATCHES "^\\$<LINK_ONLY:")
    list(APPEND _mapr_public_libs "${_lib}")
  endif()
endforeach()
get_target_property(_mapr_all_libs mapr LINK_LIBRARIES)

add_library(mapr_shared SHARED $<TARGET_OBJECTS:mapr>)
add_library(mapr::mapr_shared ALIAS mapr_shared)
set_target_properties(mapr_shared PROPERTIES
  OUTPUT_NAME mapr
  EXPORT_NAME mapr_shared
  VERSION ${PROJECT_VERSION}
  SOVERSION ${MAPR_SOVERSION})
target_include_directories(mapr_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<BUILD_INTERFACE:${MAPR_GENERATED_INCLUDE_DIR}>)
target_compile_definitions(mapr_shared INTERFACE MAPR_SHARED_LIBRARY)
target_compile_features(mapr_shared PUBLIC cxx_std_20)
target_link_libraries(mapr_shared
  PUBLIC ${_mapr_public_libs}
  PRIVATE ${_mapr_all_libs})
# Every symbol the objects need must come from a declared dependency.
target_link_options(mapr_shared PRIVATE LINKER:--no-undefined)

if(NOT MAPR_INSTALL)
  return()
endif()

set(MAPR_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/mapr")

install(TARGETS mapr mapr_shared EXPORT maprTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mapr_development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mapr_runtime
          NAMELINK_COMPONENT mapr_development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET mapr_cli)
  install(TARGETS mapr_cli
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mapr_runtime)
endif()

# The public headers: mapr/*.h only, never util/ or other private folders,
# and never mapr/*_internal.h or mapr/*_testing.h (mapr's own access to its
# internals, and test hooks). Plus the generated mapr/version.h.
file(GLOB _mapr_public_headers CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/mapr/*.h")
list(FILTER _mapr_public_headers EXCLUDE REGEX "_(internal|testing)\\.h$")
install(FILES ${_mapr_public_headers}
  "${MAPR_GENERATED_INCLUDE_DIR}/mapr/version.h"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mapr COMPONENT mapr_development)

install(EXPORT maprTargets
  NAMESPACE mapr::
  DESTINATION ${MAPR_CMAKE_INSTALL_DIR}
  COMPONENT mapr_development)
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/mapr-config.cmake.in"
  "${PROJECT_BINARY_DIR}/mapr-config.cmake"
  INSTALL_DESTINATION ${MAPR_CMAKE_INSTALL_DIR})
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/mapr-config-version.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY ${MAPR_VERSION_COMPATIBILITY})
install(FILES
  "${PROJECT_BINARY_DIR}/mapr-config.cmake"
  "${PROJECT_BINARY_DIR}/mapr-config-version.cmake"
  DESTINATION ${MAPR_CMAKE_INSTALL_DIR} COMPONENT mapr_development)

# mapr.pc. Relocatable: the prefix is computed from the file's own location
# (${pcfiledir}), so `cmake --install --prefix DIR` yields a working file.
# Requires lists the absl libraries the public headers use (from mapr's
# PUBLIC link list: absl::status -> absl_status).
set(_mapr_pc_requires)
foreach(_lib IN LISTS _mapr_public_libs)
  if(_lib MATCHES "^absl::(.+)$")
    list(APPEND _mapr_pc_requires "absl_${CMAKE_MATCH_1}")
  endif()
endforeach()
list(JOIN _mapr_pc_requires " " MAPR_PC_REQUIRES)
set(MAPR_PC_REQUIRES_PRIVATE "re2 libxxhash zlib libisal libzstd liblzma simdjson")
if(MAPR_HAVE_JOURNAL)
  string(APPEND MAPR_PC_REQUIRES_PRIVATE " libsystemd")
endif()
set(MAPR_PC_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR
   IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  # Distribution layouts with absolute dirs: not relocatable.
  set(MAPR_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(MAPR_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(MAPR_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _mapr_pc_up "/root/${MAPR_PC_INSTALL_DIR}" "/root")
  string(REGEX REPLACE "/$" "" _mapr_pc_up "${_mapr_pc_up}")
  set(MAPR_PC_PREFIX "\${pcfiledir}/${_mapr_pc_up}")
  set(MAPR_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(MAPR_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/mapr.pc.in"
  "${PROJECT_BINARY_DIR}/mapr.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/mapr.pc"
  DESTINATION ${MAPR_PC_INSTALL_DIR} COMPONENT mapr_development)
