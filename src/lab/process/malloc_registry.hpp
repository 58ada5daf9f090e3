// The process-wide allocators the heap study can run under. One table entry per allocator;
// adding an allocator is adding one entry in malloc_registry.cpp.
//
// Non-glibc entries run in a child process started with LD_PRELOAD of the Debian library;
// glibc variants differ only in environment variables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace alloclab::heap {

/// A symbol that must resolve (dlsym(RTLD_DEFAULT)) inside a specific shared object.
struct symbol_proof {
  std::string_view symbol;
  std::string_view owner_soname;
};

struct env_var {
  std::string_view name;
  std::string_view value;
};

struct malloc_entry {
  std::string_view name;                  ///< "--malloc" name: glibc, jemalloc, ...
  std::string_view description;           ///< one line for `alloclab list`
  std::string_view debian_package;        ///< what to apt install
  std::vector<std::string_view> preload;  ///< sonames for LD_PRELOAD, in order; empty = none
  std::vector<env_var> env;               ///< extra environment for the worker
  std::string_view malloc_owner;          ///< soname that must define the live malloc and free
  std::vector<symbol_proof> proofs;       ///< allocator-specific symbols; all must resolve
};

/// Every known allocator, in report order (glibc first).
const std::vector<malloc_entry>& malloc_registry();
/// nullptr when unknown.
const malloc_entry* find_malloc(std::string_view name) noexcept;
/// Registry names, in order (for error messages listing valid names).
std::vector<std::string> malloc_names();

/// Directories searched for a bare soname, in order: LD_LIBRARY_PATH entries, the directory of
/// the running libc, the multiarch directories (/usr/lib/<triplet>, /lib/<triplet>), then
/// /usr/local/lib, /usr/lib64, /lib64, /usr/lib, /lib. Duplicates removed.
std::vector<std::string> library_search_dirs();

/// A path containing '/' is returned as given if it names a regular file; a bare soname is
/// looked up in library_search_dirs(). nullopt when not found.
std::optional<std::string> resolve_library(std::string_view path_or_soname);

struct preload_resolution {
  std::vector<std::string> paths;    ///< resolved preload libraries, in order
  std::vector<std::string> missing;  ///< sonames (preload or proof owners) that were not found
  bool complete() const noexcept { return missing.empty(); }
};
preload_resolution resolve_preload(const malloc_entry& e);

/// Every preload library and every proof owner library is present on this machine.
bool installed(const malloc_entry& e);
/// "jemalloc: not installed (libjemalloc.so.2 not found; apt install libjemalloc2)".
std::string not_installed_reason(const malloc_entry& e);

/// Environment changes for a worker running under `e`.
struct worker_env {
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
};
/// LD_PRELOAD (colon-joined resolved paths) and the entry's env vars are set; LD_PRELOAD (when
/// the entry preloads nothing) and every env var another entry sets are removed, so a cell never
/// inherits another cell's tuning from the parent's environment.
/// Throws std::runtime_error with not_installed_reason() when a library is missing.
worker_env worker_environment(const malloc_entry& e);
/// The same for a user-supplied library (already validated with validate_preload): LD_PRELOAD is
/// exactly `path`, and every tuning variable a registry entry sets is removed.
worker_env custom_worker_environment(const std::string& path);

/// The malloc name of a user-supplied preload library (its path is given beside it).
inline constexpr const char* custom_malloc_name = "custom";

}  // namespace alloclab::heap
