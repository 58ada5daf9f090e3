#include "mallocs/knob_readback.hpp"

#include "mallocs/malloc_table.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/types.h>

#include <algorithm>
#include <charconv>

#include <cstdio>
#include <cstdlib>

namespace alloclab::mallocs {
namespace {

knob_reading unread(std::string knob, std::string why) {
  return {std::move(knob), std::nullopt, std::move(why)};
}

using mallctl_fn = int (*)(const char*, void*, std::size_t*, void*, std::size_t);

template <class T>
std::optional<T> mallctl_read(const char* name) {
  void* entry = ::dlsym(RTLD_DEFAULT, "mallctl");
  if (entry == nullptr) return std::nullopt;
  T value{};
  std::size_t size = sizeof value;
  if (reinterpret_cast<mallctl_fn>(entry)(name, &value, &size, nullptr, 0) != 0 ||
      size != sizeof value)
    return std::nullopt;
  return value;
}

}  // namespace

knob_reading read_jemalloc_knob(const std::string& knob) {
  const std::string how =
      "mallctl(\"" + (knob == "background_thread" ? knob : "opt." + knob) + "\")";
  if (knob == "background_thread") {
    const auto on = mallctl_read<bool>("background_thread");
    if (!on) return unread(knob, how + " failed (jemalloc not loaded?)");
    return {knob, *on ? "true" : "false", how};
  }
  if (knob != "dirty_decay_ms" && knob != "muzzy_decay_ms")
    return unread(knob, "jemalloc: no read-back for this knob");
  const auto ms = mallctl_read<ssize_t>(("opt." + knob).c_str());
  if (!ms) return unread(knob, how + " failed (jemalloc not loaded?)");
  return {knob, std::to_string(*ms), how};
}

namespace {

// mi_option_t in Debian 12's mimalloc 2.0.9 (/usr/include/mimalloc.h): the 4th and 16th entries.
constexpr int mi_version_checked = 209;
constexpr int mi_option_eager_commit = 3;
constexpr int mi_option_decommit_delay = 15;

}  // namespace

knob_reading read_mimalloc_knob(const std::string& knob) {
  void* version = ::dlsym(RTLD_DEFAULT, "mi_version");
  void* get = ::dlsym(RTLD_DEFAULT, "mi_option_get");
  if (version == nullptr || get == nullptr)
    return unread(knob, "mi_version/mi_option_get do not resolve (mimalloc not loaded?)");
  const int v = reinterpret_cast<int (*)()>(version)();
  if (v != mi_version_checked)
    return unread(knob, "mimalloc " + std::to_string(v) +
                            ": its option numbers are not checked here (only 2.0.9's are)");
  const bool purge = knob == "purge_delay";
  if (!purge && knob != "arena_eager_commit")
    return unread(knob, "mimalloc: no read-back for this knob");
  const long value = reinterpret_cast<long (*)(int)>(get)(purge ? mi_option_decommit_delay
                                                                : mi_option_eager_commit);
  return {knob, std::to_string(value),
          purge ? "mi_option_get(mi_option_decommit_delay), 2.0's name of purge_delay"
                : "mi_option_get(mi_option_eager_commit), 2.0's arena_eager_commit"};
}

knob_reading read_tcmalloc_knob(const std::string& knob) {
  if (knob != "release_rate") return unread(knob, "tcmalloc: no read-back for this knob");
  // gperftools' C API has no release-rate getter; its C++ one is a virtual member of the
  // MallocExtension instance, implemented by TCMallocImplementation (exported, Itanium ABI).
  void* instance = ::dlsym(RTLD_DEFAULT, "_ZN15MallocExtension8instanceEv");
  void* getter = ::dlsym(RTLD_DEFAULT, "_ZN22TCMallocImplementation20GetMemoryReleaseRateEv");
  if (instance == nullptr || getter == nullptr)
    return unread(knob,
                  "MallocExtension::instance / TCMallocImplementation::GetMemoryReleaseRate do "
                  "not resolve (tcmalloc not loaded?)");
  void* self = reinterpret_cast<void* (*)()>(instance)();
  const double rate = reinterpret_cast<double (*)(void*)>(getter)(self);
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", rate);
  return {knob, text, "MallocExtension::instance()->GetMemoryReleaseRate()"};
}

namespace {

// dlmalloc's mallopt parameter numbers (dlmalloc.c 2.8.6: M_TRIM_THRESHOLD, M_MMAP_THRESHOLD).
constexpr int dlmalloc_trim_threshold = -1;
constexpr int dlmalloc_mmap_threshold = -3;

}  // namespace

knob_reading read_dlmalloc_knob(const std::string& knob) {
  const bool trim = knob == "trim_threshold";
  if (!trim && knob != "mmap_threshold")
    return unread(knob, "dlmalloc: no read-back for this knob");
  void* entry = ::dlsym(RTLD_DEFAULT, "alloclab_dlmalloc_parameter");
  if (entry == nullptr)
    return unread(knob, "alloclab_dlmalloc_parameter does not resolve (dlmalloc not loaded?)");
  const std::size_t value = reinterpret_cast<std::size_t (*)(int)>(entry)(
      trim ? dlmalloc_trim_threshold : dlmalloc_mmap_threshold);
  return {knob, std::to_string(value),
          std::string("alloclab_dlmalloc_parameter(") +
              (trim ? "M_TRIM_THRESHOLD" : "M_MMAP_THRESHOLD") + "): dlmalloc's mparams"};
}

namespace {

// Whether malloc(bytes) gets a chunk of its own from mmap: mallinfo2's count of mmapped chunks
// grows while it is held. Empty when malloc fails.
std::optional<bool> served_by_mmap(std::size_t bytes) {
  const std::size_t before = ::mallinfo2().hblks;
  void* volatile block = std::malloc(bytes);
  if (block == nullptr) return std::nullopt;
  const bool mapped = ::mallinfo2().hblks > before;
  std::free(block);
  return mapped;
}

std::string served_text(std::size_t bytes, bool mapped) {
  return "malloc(" + std::to_string(bytes) + ") " + (mapped ? "was mmapped" : "came from the heap");
}

// glibc keeps no readable copy of mmap_threshold, but obeys it where nothing else can serve a
// request: beyond every free byte of the heap (mallinfo2's fordblks, the top chunk included), a
// request at or above the threshold is mmapped and one below it grows the heap. Both sides are
// tried where they can be (below only when the threshold is beyond the free bytes).
knob_reading observe_mmap_threshold(const std::string& knob, const std::string& setting,
                                    std::size_t threshold) {
  const std::string preface =
      "observed, not read (glibc offers no read-back; set via GLIBC_TUNABLES): ";
  const std::size_t past_free = ::mallinfo2().fordblks + 64 * 1024;
  const std::size_t above = std::max(threshold, past_free);
  const std::optional<bool> above_mapped = served_by_mmap(above);
  if (!above_mapped)
    return unread(knob, preface + "malloc(" + std::to_string(above) + ") failed, nothing seen");
  std::string seen = served_text(above, *above_mapped);
  bool agrees = *above_mapped;
  if (threshold > past_free + 4096) {
    const std::size_t below = threshold - 4096;
    const std::optional<bool> below_mapped = served_by_mmap(below);
    if (!below_mapped)
      return unread(knob, preface + seen + ", malloc(" + std::to_string(below) + ") failed");
    seen += ", " + served_text(below, *below_mapped);
    agrees = agrees && !*below_mapped;
  }
  return {knob, agrees ? setting : "not-" + setting,
          preface + seen + (agrees ? ", as a threshold of " : ", which a threshold of ") + setting +
              (agrees ? " does" : " would not do")};
}

// glibc applies GLIBC_TUNABLES at start-up and keeps no readable copy: say what the process's
// environment asked for, and observe what can be observed (mmap_threshold).
}  // namespace

knob_reading read_glibc_knob(const std::string& knob) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string text = tunables == nullptr ? "" : tunables;
  const std::string key = "glibc.malloc." + knob + "=";
  const std::size_t at = text.find(key);
  if (at == std::string::npos)
    return unread(knob,
                  "not set (not in this process's GLIBC_TUNABLES); glibc offers no read-back");
  const std::size_t end = text.find(':', at);
  const std::string setting =
      text.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
  std::size_t threshold = 0;
  const char* last = setting.data() + setting.size();
  if (knob == "mmap_threshold" && std::from_chars(setting.data(), last, threshold).ptr == last)
    return observe_mmap_threshold(knob, setting, threshold);
  return unread(knob, "set via GLIBC_TUNABLES (" + key + setting +
                          " in this process's environment), glibc offers no read-back");
}

std::vector<knob_reading> read_knobs(std::string_view malloc,
                                     const std::vector<std::string>& knobs) {
  std::vector<knob_reading> out;
  for (const std::string& knob : knobs) {
    const malloc_entry* e = find_malloc(malloc);
    if (e != nullptr && e->knobs.read_back != nullptr) {
      out.push_back(e->knobs.read_back(knob));
    } else {
      out.push_back(unread(knob, std::string(malloc) + ": no read-back"));
    }
  }
  return out;
}

std::string reading_line(const knob_reading& reading) {
  return "knob " + reading.knob + " " + reading.value.value_or("?") + " " + reading.how;
}

std::optional<knob_reading> parse_reading_line(std::string_view line) {
  constexpr std::string_view prefix = "knob ";
  if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
  line.remove_prefix(prefix.size());
  const std::size_t name_end = line.find(' ');
  if (name_end == std::string_view::npos || name_end == 0) return std::nullopt;
  const std::size_t value_end = line.find(' ', name_end + 1);
  if (value_end == std::string_view::npos || value_end == name_end + 1) return std::nullopt;
  knob_reading r;
  r.knob = std::string(line.substr(0, name_end));
  const std::string_view value = line.substr(name_end + 1, value_end - name_end - 1);
  if (value != "?") r.value = std::string(value);
  r.how = std::string(line.substr(value_end + 1));
  return r;
}

}  // namespace alloclab::mallocs
