// Compiled with -fsyntax-only by a 32-bit cross compiler (ctest
// headers.<compiler>.32bit): every header alloclab.hpp includes must build
// with a 32-bit size_t (issue 39: arena_resource shifted a size_t by 62).
#include <alloclab/alloclab.hpp>

static_assert(sizeof(std::size_t) == 4, "this check is meant for a 32-bit target");

int main() {}
