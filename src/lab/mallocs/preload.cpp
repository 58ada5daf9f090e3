// Finding a malloc table entry's libraries on this machine and the environment a worker runs
// under (declared in malloc_table.hpp).
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "mallocs/malloc_table.hpp"
#include "mallocs/preload_libraries.hpp"

namespace alloclab::mallocs {

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

}  // namespace

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
  if (!e.package.how.empty()) return std::string(e.package.how);
  return "apt install " + std::string(e.package.debian);
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

}  // namespace alloclab::mallocs
