# Precompiled headers for the lab and the test drivers: most of a lab file's compile time is
# parsing nlohmann/json, fmt and GoogleTest again. Each target gets its own precompiled header
# (built with that target's flags). Every preset uses them; ALLOCLAB_PCH=OFF turns them off, for
# a build that checks that each source file names its own includes.
option(ALLOCLAB_PCH "Precompile the heavy third-party headers of the lab and the tests" ON)

set(alloclab_pch_std <algorithm> <functional> <map> <memory> <optional> <string> <vector>)

# alloclab_precompile(TARGET [JSON] [FMT] [GTEST]): the standard headers, and those named (the
# target must already link the library each comes from).
function(alloclab_precompile target)
  if(NOT ALLOCLAB_PCH)
    return()
  endif()
  cmake_parse_arguments(arg "JSON;FMT;GTEST" "" "" ${ARGN})
  set(headers ${alloclab_pch_std})
  if(arg_JSON)
    list(APPEND headers <nlohmann/json.hpp>)
  endif()
  if(arg_FMT)
    list(APPEND headers <fmt/format.h>)
  endif()
  if(arg_GTEST)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
