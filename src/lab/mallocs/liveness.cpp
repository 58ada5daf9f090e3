#include "mallocs/liveness.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>

#include <cstdlib>

#include "mallocs/preload_check.hpp"

namespace alloclab::mallocs {

namespace {

std::string canonical(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return path;
  return buf;
}

std::string_view file_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

void add_detail(live_allocator& r, const std::string& text) {
  if (!r.detail.empty()) r.detail += "; ";
  r.detail += text;
}

live_allocator check_owner(std::string expected_name, std::string_view expected_owner) {
  live_allocator r;
  r.expected = std::move(expected_name);
  r.expected_owner = std::string(expected_owner);
  r.malloc_owner_path = symbol_owner("malloc");
  r.free_owner_path = symbol_owner("free");
  const bool malloc_ok = library_matches(r.malloc_owner_path, expected_owner);
  const bool free_ok = library_matches(r.free_owner_path, expected_owner);
  r.malloc_owner_ok = malloc_ok && free_ok;
  if (!malloc_ok) {
    add_detail(r, "malloc is served by '" +
                      (r.malloc_owner_path.empty() ? std::string("?") : r.malloc_owner_path) +
                      "', expected " + r.expected_owner);
  }
  if (!free_ok) {
    add_detail(r, "free is served by '" +
                      (r.free_owner_path.empty() ? std::string("?") : r.free_owner_path) +
                      "', expected " + r.expected_owner);
  }
  return r;
}

// The loaded object whose own code holds `address`, or null.
const link_map* object_of(const void* address, Dl_info& info) {
  void* extra = nullptr;
  if (dladdr1(address, &info, &extra, RTLD_DL_LINKMAP) == 0) return nullptr;
  return static_cast<const link_map*>(extra);
}

// The first object after the main program, in lookup order, that defines `symbol` itself: the
// one a canonical PLT entry of the main program jumps to.
std::string first_definer_after(const link_map* main_program, const char* symbol) {
  for (const link_map* m = main_program->l_next; m != nullptr; m = m->l_next) {
    if (m->l_name == nullptr || m->l_name[0] == '\0') continue;
    void* handle = dlopen(m->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* found = dlsym(handle, symbol);
    dlclose(handle);
    Dl_info info{};
    if (found != nullptr && object_of(found, info) == m) return m->l_name;
  }
  return {};
}

}  // namespace

std::string symbol_owner(const char* symbol) {
  void* sym = dlsym(RTLD_DEFAULT, symbol);
  if (sym == nullptr) return {};
  Dl_info info{};
  const link_map* owner = object_of(sym, info);
  if (owner == nullptr || info.dli_fname == nullptr) return {};
  if (owner->l_prev != nullptr) return info.dli_fname;
  // The main program: a definition of its own, or (non-PIE code that takes the function's
  // address) a canonical PLT entry that jumps to the library that really serves it.
  const std::string program = canonical("/proc/self/exe");
  if (elf_defines_function(program, symbol)) return program;
  return first_definer_after(owner, symbol);
}

bool library_matches(std::string_view owner_path, std::string_view expected) {
  if (owner_path.empty() || expected.empty()) return false;
  const std::string owner(owner_path);
  if (expected.find('/') != std::string_view::npos) {
    return canonical(owner) == canonical(std::string(expected));
  }
  if (file_name(owner_path) == expected) return true;
  const auto resolved = resolve_library(expected);
  return resolved && canonical(*resolved) == canonical(owner);
}

live_allocator prove_live(const malloc_entry& e) {
  live_allocator r = check_owner(std::string(e.name), e.malloc_owner);
  bool all_found = true;
  for (const symbol_proof& p : e.proofs) {
    symbol_check c;
    c.symbol = std::string(p.symbol);
    c.expected_owner = std::string(p.owner_soname);
    c.owner_path = symbol_owner(c.symbol.c_str());
    c.found = !c.owner_path.empty();
    c.ok = c.found && library_matches(c.owner_path, p.owner_soname);
    if (!c.found) {
      add_detail(r, "proof symbol " + c.symbol + " does not resolve");
    } else if (!c.ok) {
      add_detail(r, "proof symbol " + c.symbol + " resolves in '" + c.owner_path + "', expected " +
                        c.expected_owner);
    }
    all_found = all_found && c.ok;
    r.proofs.push_back(std::move(c));
  }
  r.proof_symbol_found = all_found;
  for (const env_var& v : e.env) {
    const std::string name(v.name);
    const char* actual = std::getenv(name.c_str());
    if (actual == nullptr || std::string_view(actual) != v.value) {
      r.env_mismatch.push_back(name);
      add_detail(r, "environment " + name +
                        (actual == nullptr ? " is unset" : "=" + std::string(actual)) +
                        ", expected " + std::string(v.value));
    }
  }
  r.ok = r.malloc_owner_ok && r.proof_symbol_found && r.env_mismatch.empty();
  return r;
}

live_allocator prove_live_custom(std::string_view preload) {
  std::string expected(preload);
  if (expected.find('/') == std::string::npos) {
    if (auto resolved = resolve_library(expected)) expected = *resolved;
  }
  live_allocator r = check_owner("custom", expected);
  r.proof_symbol_found = true;  // nothing to prove beyond ownership
  r.ok = r.malloc_owner_ok;
  return r;
}

live_allocator prove_named(const std::string& malloc_name, std::string_view preload) {
  if (malloc_name == custom_malloc_name) return prove_live_custom(preload);
  if (const malloc_entry* e = find_malloc(malloc_name)) return prove_live(*e);
  live_allocator unknown;
  unknown.expected = malloc_name;
  unknown.detail = "unknown allocator '" + malloc_name + "'";
  return unknown;
}

std::string named_malloc_label(const std::string& malloc_name, const std::string& preload) {
  if (malloc_name != custom_malloc_name) return malloc_name;
  return malloc_name + ":" + preload.substr(preload.rfind('/') + 1);
}

}  // namespace alloclab::mallocs
