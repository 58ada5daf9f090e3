// Proof, from inside a (worker) process, of which allocator actually serves malloc/free.
//
// LD_PRELOAD fails quietly: ld.so prints a warning and runs the program with glibc. So a worker
// never trusts its environment. It resolves malloc and free with dlsym(RTLD_DEFAULT, ...), asks
// dladdr() which shared object owns them, checks that object is the expected library, and checks
// that the allocator-specific proof symbols resolve in their expected libraries. Numbers are
// reported only when all of that holds (`ok`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mallocs/malloc_table.hpp"

namespace alloclab::mallocs {

struct symbol_check {
  std::string symbol;
  std::string expected_owner;  ///< soname or path
  std::string owner_path;      ///< dladdr() of the resolved symbol; empty when unresolved
  bool found = false;          ///< resolved at all
  bool ok = false;             ///< resolved inside expected_owner
};

struct live_allocator {
  std::string expected;           ///< registry name (or "custom")
  std::string expected_owner;     ///< soname/path that must own malloc and free
  std::string malloc_owner_path;  ///< dladdr(dlsym(RTLD_DEFAULT, "malloc")).dli_fname
  std::string free_owner_path;    ///< same for free
  bool malloc_owner_ok = false;   ///< malloc and free both owned by expected_owner
  std::vector<symbol_check> proofs;
  bool proof_symbol_found = false;        ///< every proof symbol resolved in its owner
  std::vector<std::string> env_mismatch;  ///< required env vars absent or different
  bool ok = false;                        ///< all of the above; otherwise report no numbers
  std::string detail;                     ///< why not ok (empty when ok)
};

/// The shared object that owns `symbol` as resolved by dlsym(RTLD_DEFAULT); "" if unresolved.
std::string symbol_owner(const char* symbol);

/// Does the library at `owner_path` (a dladdr name) match `expected` — a soname (compared by
/// file name, then by canonical path of its resolution) or a path (compared canonically)?
bool library_matches(std::string_view owner_path, std::string_view expected);

/// Checks the running process against a registry entry.
live_allocator prove_live(const malloc_entry& e);

/// Checks that malloc/free are owned by a user-supplied preload library (path or soname);
/// there is no proof symbol for an unknown library, so only ownership is checked.
live_allocator prove_live_custom(std::string_view preload);

/// Checks a registry name, or custom_malloc_name with its `preload`; an unknown name is not live.
live_allocator prove_named(const std::string& malloc_name, std::string_view preload);

/// The label of such a malloc in cell ids: the registry name, or "custom:<library file name>".
std::string named_malloc_label(const std::string& malloc_name, const std::string& preload);

}  // namespace alloclab::mallocs
