// Validation of a user-supplied LD_PRELOAD library before any worker is started.
//
// ld.so silently ignores a preload it cannot load, and happily preloads a library that is not an
// allocator; both would produce glibc numbers under another name. This check rejects them up
// front (the CLI maps a rejection to exit code 2). It reads the file's ELF dynamic symbol table
// itself and never dlopen()s the library into the calling process.
#pragma once

#include <string>
#include <string_view>

namespace alloclab::mallocs {

struct preload_check {
  bool ok = false;
  std::string path;   ///< resolved path (a bare soname is looked up like a registry library)
  std::string error;  ///< one clear line when !ok
};

/// Accepts a path or bare soname of a regular, readable, 64-bit ELF shared object for this
/// machine's architecture whose dynamic symbol table defines both `malloc` and `free`.
preload_check validate_preload(std::string_view path_or_soname);

/// Whether the 64-bit ELF file at `path` (a shared library or an executable) defines the function
/// `symbol` in its dynamic symbol table. An executable's canonical PLT entry (an undefined symbol
/// with an address, made when non-PIE code takes a library function's address) is not a
/// definition. false when the file cannot be read.
bool elf_defines_function(const std::string& path, std::string_view symbol);

}  // namespace alloclab::mallocs
