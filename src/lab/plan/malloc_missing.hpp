// Whether a registry malloc can run here: what `run` (a `not installed` row) and `try` (exit 2)
// say about one that cannot.
#pragma once

#include <string>

#include "mallocs/malloc_table.hpp"

namespace alloclab::lab {

/// "" when `e` is installed, else one line saying why not (a test hook may hide it).
std::string malloc_missing_reason(const alloclab::mallocs::malloc_entry& e);

}  // namespace alloclab::lab
