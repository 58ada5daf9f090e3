// The malloc table: every process-wide malloc the lab can run under, one entry each, holding
// everything the lab knows about it: its Debian package and how it gets onto a machine, the
// libraries it preloads and the environment of a tuning variant, the symbols that prove it live,
// whether `try` runs it by default, its knobs and how they are read back, how its statistics
// are read and how it purges. Adding a malloc is adding one entry in malloc_table.cpp: the
// `--malloc` help, `alloclab list`, the plan's validation, `try`'s defaults and --variants,
// the worker environment, the knob read-back, the serve frame's statistics and the check of
// scripts/deps.sh (tests/heap/registry_test.cpp) all read it.
//
// Non-glibc entries run in a child process started with LD_PRELOAD of their library; glibc
// variants differ only in environment variables.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <alloclab/allocator_purge.hpp>

#include "mallocs/allocator_stats.hpp"
#include "mallocs/knob_readback.hpp"

namespace alloclab::mallocs {

/// GLIBC_TUNABLES value that moves glibc's rep-movsb threshold above any copy the lab makes
/// (glibc_nocliff's environment, and the placement probe's twin).
inline constexpr const char* rep_movsb_off_tunables = "glibc.cpu.x86_rep_movsb_threshold=4000000";

/// A symbol that must resolve (dlsym(RTLD_DEFAULT)) inside a specific shared object.
struct symbol_proof {
  std::string_view symbol;
  std::string_view owner_soname;
};

struct env_var {
  std::string_view name;
  std::string_view value;
};

/// How a malloc gets onto a machine (scripts/deps.sh is checked against it).
enum class package_route {
  base_system,   ///< part of every Debian system (libc6): nothing to install
  apt,           ///< deps.sh's ALLOCLAB_MALLOC_PACKAGES installs the package, the library in it
  built_from,    ///< deps.sh installs the package; the lab builds the library from its sources
  fetched_from,  ///< the lab builds it from a file of the package, fetched without installing
};

struct malloc_package {
  std::string_view debian;  ///< the Debian package
  package_route route;
  std::string_view how;  ///< built_from, fetched_from: how to get it when it is missing
};

/// How a knob's value is written and checked.
enum class knob_value { count_from_1, count, int_count, decay_ms, boolean, eager_commit, rate };

/// How a malloc's knobs become environment: GLIBC_TUNABLES and MALLOC_CONF collect all of a
/// variant's knobs in one variable; the others have variables of their own for each knob.
enum class knob_style { glibc_tunables, malloc_conf, one_variable_each };

struct knob_spec {
  std::string_view name;
  knob_value kind;
  std::vector<std::string_view> variables;  ///< one_variable_each: every name gets the value
};

struct malloc_knobs {
  knob_style style = knob_style::one_variable_each;
  std::vector<knob_spec> specs;  ///< empty: the malloc has no knobs here
  /// What the malloc in this process uses for one knob (knob_readback.hpp); nullptr: no read-back.
  knob_reading (*read_back)(const std::string& knob) = nullptr;
};

struct malloc_statistics {
  /// The live malloc's own statistics (allocator_stats.hpp); nullptr: it has none readable.
  allocator_stats (*read)() = nullptr;
  std::string_view why_none;  ///< read == nullptr: why
};

struct malloc_entry {
  std::string_view name;                  ///< "--malloc" name: glibc, jemalloc, ...
  std::string_view description;           ///< one line for `alloclab list`
  malloc_package package;                 ///< what to apt install, or how to build it
  std::vector<std::string_view> preload;  ///< sonames for LD_PRELOAD, in order; empty = none
  std::vector<env_var> env;               ///< extra environment for the worker
  std::string_view malloc_owner;          ///< soname that must define the live malloc and free
  std::vector<symbol_proof> proofs;       ///< allocator-specific symbols; all must resolve
  bool try_default = false;               ///< `try` runs it when --malloc is not given
  malloc_knobs knobs;                     ///< `try`'s and `replay`'s --variants knobs
  malloc_statistics statistics;           ///< read by allocator_stats_reader
  /// The purge alloclab/allocator_purge.hpp finds when this malloc is live (none: it finds
  /// none, and the live malloc is not recognised); the first entry of a kind names it.
  purge_kind purge = purge_kind::none;
};

/// Every known allocator, in report order (glibc first). A deque: a test's throwaway entry
/// (scoped_malloc_entry) moves no other entry.
const std::deque<malloc_entry>& malloc_registry();
/// nullptr when unknown.
const malloc_entry* find_malloc(std::string_view name) noexcept;
/// Registry names, in order (for error messages listing valid names).
std::vector<std::string> malloc_names();
/// The names `try` runs when --malloc is not given (the entries with try_default), in order.
std::vector<std::string> try_default_mallocs();
/// The first entry allocator_purge finds `kind` for; nullptr for none or a kind no entry has.
const malloc_entry* malloc_purged_by(purge_kind kind) noexcept;

/// Adds `entry` to the table until destroyed (a test's throwaway malloc; the lab has none).
class scoped_malloc_entry {
 public:
  explicit scoped_malloc_entry(malloc_entry entry);
  ~scoped_malloc_entry();
  scoped_malloc_entry(const scoped_malloc_entry&) = delete;
  scoped_malloc_entry& operator=(const scoped_malloc_entry&) = delete;
};
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

}  // namespace alloclab::mallocs
