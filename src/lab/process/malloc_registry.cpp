#include "process/malloc_registry.hpp"

#include "process/preload_libraries.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace alloclab::heap {

namespace {

#if defined(__x86_64__)
constexpr const char* multiarch_triplet = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr const char* multiarch_triplet = "aarch64-linux-gnu";
#elif defined(__i386__)
constexpr const char* multiarch_triplet = "i386-linux-gnu";
#else
constexpr const char* multiarch_triplet = "";
#endif

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dirname_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

#ifndef ALLOCLAB_PRELOAD_DIR
#define ALLOCLAB_PRELOAD_DIR "."
#endif

#define ALLOCLAB_DLMALLOC_LIBRARY ALLOCLAB_PRELOAD_DIR "/liballoclab_dlmalloc.so"
#define ALLOCLAB_NEWLIB_LIBRARY ALLOCLAB_PRELOAD_DIR "/liballoclab_newlib.so"
#define ALLOCLAB_NEWLIB_NANO_LIBRARY ALLOCLAB_PRELOAD_DIR "/liballoclab_newlib_nano.so"

// How to get each of the lab's own builds (src/preload) when it is missing.
struct built_here {
  std::string_view name;
  std::string_view how;
};
constexpr std::string_view newlib_how =
    "built by CMake from Debian's newlib-source tarball: apt install newlib-source, then "
    "reconfigure and build alloclab";
constexpr built_here built_here_table[] = {
    {"dlmalloc",
     "built by CMake from dlmalloc.c in Debian's emscripten package: run "
     "scripts/fetch-dlmalloc.sh, then reconfigure and build alloclab"},
    {"newlib", newlib_how},
    {"newlib_nano", newlib_how},
};

}  // namespace

std::string_view preload_build_dir() noexcept {
  return ALLOCLAB_PRELOAD_DIR;
}

const std::vector<malloc_entry>& malloc_registry() {
  // clang-format off
  static const std::vector<malloc_entry> table{
    {"glibc", "glibc ptmalloc2, the native allocator (no preload)", "libc6",
     {}, {}, "libc.so.6", {{"mallinfo2", "libc.so.6"}}},
    {"glibc_arena2", "glibc with MALLOC_ARENA_MAX=2 (fewer arenas, less fragmentation)", "libc6",
     {}, {{"MALLOC_ARENA_MAX", "2"}}, "libc.so.6", {{"mallinfo2", "libc.so.6"}}},
    {"glibc_trim", "glibc with MALLOC_TRIM_THRESHOLD_=131072 (trims the heap top sooner)", "libc6",
     {}, {{"MALLOC_TRIM_THRESHOLD_", "131072"}}, "libc.so.6", {{"mallinfo2", "libc.so.6"}}},
    {"glibc_nocliff", "glibc with memmove's rep-movsb threshold raised (no relative-alignment "
     "copy cliff; see docs/placement.md)", "libc6",
     {}, {{"GLIBC_TUNABLES", rep_movsb_off_tunables}}, "libc.so.6",
     {{"mallinfo2", "libc.so.6"}}},
    {"jemalloc", "jemalloc 5 (LD_PRELOAD)", "libjemalloc2",
     {"libjemalloc.so.2"}, {}, "libjemalloc.so.2", {{"mallctl", "libjemalloc.so.2"}}},
    {"mimalloc", "Microsoft mimalloc 2.0 (LD_PRELOAD)", "libmimalloc2.0",
     {"libmimalloc.so.2"}, {}, "libmimalloc.so.2", {{"mi_version", "libmimalloc.so.2"}}},
    {"tcmalloc", "gperftools tcmalloc, minimal build (LD_PRELOAD)", "libtcmalloc-minimal4",
     {"libtcmalloc_minimal.so.4"}, {}, "libtcmalloc_minimal.so.4",
     {{"MallocExtension_ReleaseFreeMemory", "libtcmalloc_minimal.so.4"},
      {"tc_malloc", "libtcmalloc_minimal.so.4"}}},
    {"tbbmalloc", "oneTBB scalable allocator via its malloc proxy (LD_PRELOAD)", "libtbbmalloc2",
     {"libtbbmalloc_proxy.so.2"}, {}, "libtbbmalloc_proxy.so.2",
     {{"__TBB_malloc_proxy", "libtbbmalloc_proxy.so.2"},
      {"scalable_malloc", "libtbbmalloc.so.2"}}},
    {"dlmalloc", "Doug Lea's dlmalloc 2.8.6, seed 003's allocator, with locks (LD_PRELOAD of "
     "the lab's build of Debian's emscripten copy)", "emscripten",
     {ALLOCLAB_DLMALLOC_LIBRARY}, {}, ALLOCLAB_DLMALLOC_LIBRARY,
     {{"dlmallopt", ALLOCLAB_DLMALLOC_LIBRARY}, {"dlmalloc_footprint", ALLOCLAB_DLMALLOC_LIBRARY}}},
    {"newlib", "newlib 3.3's malloc (mallocr.c, from dlmalloc 2.6), the embedded toolchain's "
     "(LD_PRELOAD of the lab's host build)", "newlib-source",
     {ALLOCLAB_NEWLIB_LIBRARY}, {}, ALLOCLAB_NEWLIB_LIBRARY,
     {{"_malloc_trim_r", ALLOCLAB_NEWLIB_LIBRARY}, {"alloclab_newlib_trim", ALLOCLAB_NEWLIB_LIBRARY}}},
    {"newlib_nano", "newlib-nano's malloc (nano-mallocr.c, a first-fit list; Cortex-M with "
     "nano.specs), 16-byte aligned (LD_PRELOAD of the lab's host build)", "newlib-source",
     {ALLOCLAB_NEWLIB_NANO_LIBRARY}, {}, ALLOCLAB_NEWLIB_NANO_LIBRARY,
     {{"_malloc_r", ALLOCLAB_NEWLIB_NANO_LIBRARY},
      {"alloclab_newlib_heap_bytes", ALLOCLAB_NEWLIB_NANO_LIBRARY}}},
  };
  // clang-format on
  return table;
}

const malloc_entry* find_malloc(std::string_view name) noexcept {
  for (const malloc_entry& e : malloc_registry()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> malloc_names() {
  std::vector<std::string> names;
  for (const malloc_entry& e : malloc_registry()) names.emplace_back(e.name);
  return names;
}

std::vector<std::string> library_search_dirs() {
  std::vector<std::string> dirs;
  auto add = [&dirs](std::string d) {
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    if (d.empty()) return;
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(std::move(d));
  };
  if (const char* llp = std::getenv("LD_LIBRARY_PATH")) {
    std::string_view rest(llp);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      add(std::string(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  // Where the running libc lives (e.g. /lib/x86_64-linux-gnu).
  if (void* sym = dlsym(RTLD_DEFAULT, "gnu_get_libc_version")) {
    Dl_info info{};
    if (dladdr(sym, &info) != 0 && info.dli_fname != nullptr) add(dirname_of(info.dli_fname));
  }
  const std::string triplet(multiarch_triplet);
  if (!triplet.empty()) {
    add("/usr/lib/" + triplet);
    add("/lib/" + triplet);
  }
  for (const char* d : {"/usr/local/lib", "/usr/lib64", "/lib64", "/usr/lib", "/lib"}) add(d);
  return dirs;
}

std::optional<std::string> resolve_library(std::string_view path_or_soname) {
  if (path_or_soname.empty()) return std::nullopt;
  const std::string s(path_or_soname);
  if (s.find('/') != std::string::npos) {
    if (is_regular_file(s)) return s;
    return std::nullopt;
  }
  for (const std::string& dir : library_search_dirs()) {
    std::string candidate = dir + "/" + s;
    if (is_regular_file(candidate)) return candidate;
  }
  return std::nullopt;
}

preload_resolution resolve_preload(const malloc_entry& e) {
  preload_resolution r;
  for (std::string_view so : e.preload) {
    if (auto p = resolve_library(so)) {
      r.paths.push_back(*p);
    } else {
      r.missing.emplace_back(so);
    }
  }
  for (const symbol_proof& proof : e.proofs) {
    const std::string so(proof.owner_soname);
    if (std::find(e.preload.begin(), e.preload.end(), proof.owner_soname) != e.preload.end()) {
      continue;  // already checked above
    }
    if (std::find(r.missing.begin(), r.missing.end(), so) != r.missing.end()) continue;
    if (!resolve_library(so)) r.missing.push_back(so);
  }
  return r;
}

bool installed(const malloc_entry& e) {
  return resolve_preload(e).complete();
}

std::string install_command(const malloc_entry& e) {
  for (const built_here& b : built_here_table)
    if (b.name == e.name) return std::string(b.how);
  return "apt install " + std::string(e.debian_package);
}

std::string not_installed_reason(const malloc_entry& e) {
  const preload_resolution r = resolve_preload(e);
  if (r.complete()) return std::string(e.name) + ": installed";
  std::string missing;
  for (const std::string& m : r.missing) {
    if (!missing.empty()) missing += ", ";
    missing += m;
  }
  return std::string(e.name) + ": not installed (" + missing + " not found; " + install_command(e) +
         ")";
}

namespace {

/// LD_PRELOAD as given (or removed when empty); every registry tuning variable that `keep` does
/// not set is removed, so a cell never inherits another cell's tuning from the parent.
worker_env preload_environment(const std::vector<std::string>& paths, const malloc_entry* keep) {
  worker_env w;
  auto kept = [keep](std::string_view name) {
    return keep != nullptr && std::any_of(keep->env.begin(), keep->env.end(),
                                          [name](const env_var& v) { return v.name == name; });
  };
  if (paths.empty()) {
    w.unset.emplace_back("LD_PRELOAD");
  } else {
    std::string joined;
    for (const std::string& p : paths) {
      if (!joined.empty()) joined += ':';
      joined += p;
    }
    w.set.emplace_back("LD_PRELOAD", joined);
  }
  for (const malloc_entry& other : malloc_registry()) {
    for (const env_var& v : other.env) {
      const std::string name(v.name);
      if (!kept(v.name) && std::find(w.unset.begin(), w.unset.end(), name) == w.unset.end()) {
        w.unset.push_back(name);
      }
    }
  }
  if (keep != nullptr) {
    for (const env_var& v : keep->env)
      w.set.emplace_back(std::string(v.name), std::string(v.value));
  }
  return w;
}

}  // namespace

worker_env worker_environment(const malloc_entry& e) {
  const preload_resolution r = resolve_preload(e);
  if (!r.complete()) throw std::runtime_error(not_installed_reason(e));
  return preload_environment(r.paths, &e);
}

worker_env custom_worker_environment(const std::string& path) {
  return preload_environment({path}, nullptr);
}

}  // namespace alloclab::heap
