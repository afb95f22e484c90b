# Target-scoped warnings. Never edit CMAKE_CXX_FLAGS for this.
#
# One set for gcc and clang, except for shadowing: gcc's -Wshadow=local (a
# local that shadows another local or a parameter) has no clang spelling,
# and clang gets its -Wshadow, which also covers locals that shadow members
# or globals. Clang also checks Abseil's lock annotations (ABSL_GUARDED_BY,
# ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...) with -Wthread-safety; the
# thread-safety preset is that build with -Werror.
function(mapr_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wnon-virtual-dtor
      -Wimplicit-fallthrough>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wpedantic>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wshadow=local>)
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wshadow -Wthread-safety>)
  endif()
  if(MAPR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
