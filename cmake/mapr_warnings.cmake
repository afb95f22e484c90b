# Target-scoped warnings. Never edit CMAKE_CXX_FLAGS for this.
function(mapr_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local
      -Wnon-virtual-dtor -Wimplicit-fallthrough>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wpedantic>)
  if(MAPR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
