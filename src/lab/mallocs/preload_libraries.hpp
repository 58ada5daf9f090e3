// The registry's mallocs the lab builds itself (src/preload: dlmalloc, newlib, newlib_nano) from
// sources Debian packages, and how to get any registry malloc that is missing.
//
// They are named in the registry by absolute path in the build directory, where CMake puts them
// beside the alloclab binary; a Debian malloc is named by soname. Knobs, read-back, statistics
// and purge of the lab's own builds: docs/heap-study.md, "Seed 003's own allocator".
#pragma once

#include <string>
#include <string_view>

#include "mallocs/malloc_table.hpp"

namespace alloclab::mallocs {

/// The directory the libraries of src/preload are built into (the alloclab binary's).
std::string_view preload_build_dir() noexcept;

/// What gets `e` onto this machine: "apt install <package>" for a Debian malloc, how to build
/// it for one of the lab's own (what not_installed_reason() says).
std::string install_command(const malloc_entry& e);

}  // namespace alloclab::mallocs
