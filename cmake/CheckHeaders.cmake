# Compiles every public header on its own (a translation unit that includes
# only that header) with COMPILER as C++STANDARD, warnings as errors.
# Optional: FLAGS (space-separated, e.g. "-fno-exceptions -fno-rtti" or a
# cross target's), EXCLUDE (space-separated header names, e.g.
# "budget_watcher.hpp": headers that need what the target lacks).
# Run with cmake -P; used by the headers.* tests.
file(GLOB headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/alloclab/*.hpp")
separate_arguments(extra_flags UNIX_COMMAND "${FLAGS}")
separate_arguments(excluded UNIX_COMMAND "${EXCLUDE}")
foreach(name IN LISTS excluded)
  list(REMOVE_ITEM headers "alloclab/${name}")
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")
set(failures 0)
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${header}" name)
  set(source "${WORK_DIR}/${name}.cpp")
  file(WRITE "${source}" "#include <${header}>\n#include <${header}>  // include guard works\nint main() {}\n")
  execute_process(
    COMMAND "${COMPILER}" -std=c++${STANDARD} -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow
            -Wconversion -Werror ${extra_flags} -I "${INCLUDE_DIR}" "${source}"
    RESULT_VARIABLE result ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(SEND_ERROR "${header} does not compile alone with ${COMPILER} -std=c++${STANDARD} ${FLAGS}:\n${errors}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
list(LENGTH headers count)
message(STATUS "${count} headers checked with ${COMPILER} -std=c++${STANDARD} ${FLAGS}, ${failures} failed")
