#include "mallocs/allocator_stats.hpp"

#include "mallocs/malloc_table.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace alloclab::mallocs {
namespace {

allocator_stats nothing(std::string why) {
  return {{}, std::move(why)};
}

}  // namespace

allocator_stats read_glibc_stats() {
  const struct mallinfo2 info = ::mallinfo2();
  return {{{"arena", static_cast<double>(info.arena)},
           {"mmapped", static_cast<double>(info.hblkhd)},
           {"in_use", static_cast<double>(info.uordblks)},
           {"free", static_cast<double>(info.fordblks)},
           {"releasable", static_cast<double>(info.keepcost)}},
          {}};
}

namespace {

using mallctl_fn = int (*)(const char*, void*, std::size_t*, void*, std::size_t);

}  // namespace

allocator_stats read_jemalloc_stats() {
  const auto mallctl = reinterpret_cast<mallctl_fn>(::dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl == nullptr) return nothing("mallctl does not resolve");
  // Writing the epoch makes jemalloc merge its per-arena counters into the stats.* values.
  std::uint64_t epoch = 1;
  std::size_t size = sizeof epoch;
  if (mallctl("epoch", &epoch, &size, &epoch, sizeof epoch) != 0)
    return nothing("mallctl(\"epoch\") failed");
  allocator_stats out;
  for (const char* name : {"allocated", "active", "metadata", "resident", "mapped", "retained"}) {
    std::size_t value = 0;
    size = sizeof value;
    const std::string key = std::string("stats.") + name;
    if (mallctl(key.c_str(), &value, &size, nullptr, 0) == 0 && size == sizeof value)
      out.stats.push_back({name, static_cast<double>(value)});
  }
  if (out.stats.empty()) out.reason = "mallctl(\"stats.*\") failed (jemalloc built without stats?)";
  return out;
}

namespace {

using mi_process_info_fn = void (*)(std::size_t*, std::size_t*, std::size_t*, std::size_t*,
                                    std::size_t*, std::size_t*, std::size_t*, std::size_t*);

}  // namespace

allocator_stats read_mimalloc_stats() {
  const auto info = reinterpret_cast<mi_process_info_fn>(::dlsym(RTLD_DEFAULT, "mi_process_info"));
  if (info == nullptr) return nothing("mi_process_info does not resolve");
  std::size_t elapsed = 0, user = 0, system = 0, rss = 0, peak_rss = 0, commit = 0, peak_commit = 0,
              faults = 0;
  info(&elapsed, &user, &system, &rss, &peak_rss, &commit, &peak_commit, &faults);
  return {{{"current_rss", static_cast<double>(rss)},
           {"peak_rss", static_cast<double>(peak_rss)},
           {"current_commit", static_cast<double>(commit)},
           {"peak_commit", static_cast<double>(peak_commit)}},
          {}};
}

allocator_stats read_tcmalloc_stats() {
  using property_fn = int (*)(const char*, std::size_t*);
  const auto property =
      reinterpret_cast<property_fn>(::dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty"));
  if (property == nullptr) return nothing("MallocExtension_GetNumericProperty does not resolve");
  allocator_stats out;
  const std::pair<const char*, const char*> properties[] = {
      {"allocated", "generic.current_allocated_bytes"},
      {"heap_size", "generic.heap_size"},
      {"pageheap_free", "tcmalloc.pageheap_free_bytes"},
      {"pageheap_unmapped", "tcmalloc.pageheap_unmapped_bytes"}};
  for (const auto& [name, key] : properties) {
    std::size_t value = 0;
    if (property(key, &value) != 0) out.stats.push_back({name, static_cast<double>(value)});
  }
  if (out.stats.empty()) out.reason = "MallocExtension_GetNumericProperty answered nothing";
  return out;
}

namespace {

// dlmalloc 2.8.6's own struct mallinfo (USE_DL_PREFIX, MALLINFO_FIELD_TYPE size_t): not glibc's.
struct dlmalloc_mallinfo {
  std::size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};

}  // namespace

allocator_stats read_dlmalloc_stats() {
  using mallinfo_fn = dlmalloc_mallinfo (*)();
  using footprint_fn = std::size_t (*)();
  const auto info = reinterpret_cast<mallinfo_fn>(::dlsym(RTLD_DEFAULT, "dlmallinfo"));
  const auto footprint =
      reinterpret_cast<footprint_fn>(::dlsym(RTLD_DEFAULT, "dlmalloc_footprint"));
  const auto peak = reinterpret_cast<footprint_fn>(::dlsym(RTLD_DEFAULT, "dlmalloc_max_footprint"));
  if (info == nullptr || footprint == nullptr || peak == nullptr)
    return nothing("dlmallinfo/dlmalloc_footprint/dlmalloc_max_footprint do not resolve");
  const dlmalloc_mallinfo m = info();
  return {{{"arena", static_cast<double>(m.arena)},
           {"mmapped", static_cast<double>(m.hblkhd)},
           {"in_use", static_cast<double>(m.uordblks)},
           {"free", static_cast<double>(m.fordblks)},
           {"releasable", static_cast<double>(m.keepcost)},
           {"footprint", static_cast<double>(footprint())},
           {"max_footprint", static_cast<double>(peak())}},
          {}};
}

// The lab's newlib preload: the bytes newlib holds from its break (sbrk'd, not yet trimmed).
allocator_stats read_newlib_stats() {
  const auto heap =
      reinterpret_cast<std::size_t (*)()>(::dlsym(RTLD_DEFAULT, "alloclab_newlib_heap_bytes"));
  if (heap == nullptr) return nothing("alloclab_newlib_heap_bytes does not resolve");
  return {{{"heap", static_cast<double>(heap())}}, {}};
}

allocator_stats_reader::allocator_stats_reader() {
  const alloclab::allocator_purge purge = alloclab::allocator_purge::find();
  entry_ = malloc_purged_by(purge.kind());
  allocator_ = entry_ == nullptr ? "unknown" : std::string(entry_->name);
  find_reason_ = purge.reason();
}

allocator_stats allocator_stats_reader::read() const {
  if (entry_ == nullptr) return nothing(find_reason_);
  if (entry_->statistics.read == nullptr) return nothing(std::string(entry_->statistics.why_none));
  return entry_->statistics.read();
}

}  // namespace alloclab::mallocs
