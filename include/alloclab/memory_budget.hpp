// alloclab/memory_budget.hpp: where this process's memory limit and usage come
// from, and why that source was chosen.
//
// `memory_budget::detect()` tries, in order:
//   1. cgroup v2: the process's cgroup from /proc/self/cgroup ("0::<path>"),
//      limit = the tightest finite `memory.high` / `memory.max` from the leaf
//      up to the mount ("max" means unlimited), usage = `memory.current`;
//   2. cgroup v1: the "memory" controller's cgroup, limit = the tightest
//      `memory.limit_in_bytes` up to the mount (values >= 2^62, such as the
//      kernel's 9223372036854771712, mean unlimited), usage =
//      `memory.usage_in_bytes`;
//   3. a limit given by the caller, usage = RSS from /proc/self/statm.
// The first source with a finite limit wins (`prefer_caller_limit` puts 3
// first). A source whose files are missing, unlimited or malformed is skipped,
// and `reason()` says why for each. cgroup usage counts page cache charged to
// the cgroup too; RSS does not. Both roots are injectable, so tests point them
// at fixture directories. It only reads: it never creates or writes a cgroup.
//
// Example:
//   #include <alloclab/memory_budget.hpp>
//   #include <cstdio>
//
//   int main() {
//     alloclab::memory_budget_options options;
//     options.caller_limit = std::uint64_t{1} << 40;  // used when no cgroup sets a limit
//     const alloclab::memory_budget budget = alloclab::memory_budget::detect(options);
//     std::printf("%s: %s\n", alloclab::to_string(budget.source()), budget.reason().c_str());
//     const std::optional<std::uint64_t> used = budget.usage();
//     if (budget.source() == alloclab::budget_source::none || !used) return 1;
//     return *used > 0 && budget.limit() > 0 ? 0 : 1;
//   }
//
// Thread-safe after construction: every member is const; usage() reads a file.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "detail/linux_files.hpp"

namespace alloclab {

enum class budget_source { cgroup_v2, cgroup_v1, caller_limit, none };

inline const char* to_string(budget_source source) noexcept {
  switch (source) {
    case budget_source::cgroup_v2:
      return "cgroup v2";
    case budget_source::cgroup_v1:
      return "cgroup v1";
    case budget_source::caller_limit:
      return "caller limit";
    case budget_source::none:
      return "none";
  }
  return "unknown";
}

struct memory_budget_options {
  std::optional<std::uint64_t> caller_limit;  // bytes; with RSS from statm
  bool prefer_caller_limit = false;           // try the caller's limit before the cgroups
  std::string proc_self = "/proc/self";       // reads cgroup and statm
  std::string cgroup_root = "/sys/fs/cgroup";
};

class memory_budget {
 public:
  static constexpr std::uint64_t unlimited = UINT64_MAX;

  static memory_budget detect(const memory_budget_options& options = {}) {
    memory_budget budget;
    std::string why;
    const bool caller_first = options.prefer_caller_limit;
    if (caller_first && budget.try_caller_limit(options, why)) return budget;
    if (budget.try_cgroup(v2_layout(), options, why)) return budget;
    if (budget.try_cgroup(v1_layout(), options, why)) return budget;
    if (!caller_first && budget.try_caller_limit(options, why)) return budget;
    budget.reason_ = why + "no source sets a finite limit";
    return budget;
  }

  // This process's cgroup usage file (v2 `memory.current`, else v1
  // `memory.usage_in_bytes`) whether or not the cgroup sets a limit, for
  // callers that track usage over time; nullopt when neither is readable.
  static std::optional<std::string> cgroup_usage_file(const memory_budget_options& options = {}) {
    std::string why;
    for (const cgroup_layout& layout : {v2_layout(), v1_layout()})
      if (const std::optional<cgroup_place> place = find_cgroup(layout, options, why))
        return place->directory + "/" + layout.usage_file;
    return std::nullopt;
  }

  budget_source source() const noexcept { return source_; }
  // The limit the thresholds apply to: for cgroup v2 the tighter of memory.high
  // and memory.max; `unlimited` when source() is none.
  std::uint64_t limit() const noexcept { return limit_; }
  // The cgroup's hard limit (memory.max, memory.limit_in_bytes) and v2's
  // memory.high, each the tightest found up the hierarchy; unlimited if none.
  std::uint64_t hard_limit() const noexcept { return hard_limit_; }
  std::uint64_t high_limit() const noexcept { return high_limit_; }
  // The cgroup directory in use (empty for caller_limit and none).
  const std::string& cgroup_directory() const noexcept { return directory_; }
  // The file usage() reads.
  const std::string& usage_path() const noexcept { return usage_path_; }
  // Which source is in use and why each earlier one was skipped.
  const std::string& reason() const noexcept { return reason_; }

  // Bytes in use now, read from usage_path(); nullopt if unreadable or malformed.
  std::optional<std::uint64_t> usage() const {
    if (usage_path_.empty()) return std::nullopt;
    const std::optional<std::string> text = detail::read_small_file(usage_path_);
    if (!text) return std::nullopt;
    if (usage_is_statm_) return resident_bytes_from_statm(*text);
    return detail::parse_decimal(*text);
  }

  // RSS in bytes from the text of /proc/<pid>/statm (its second field).
  static std::optional<std::uint64_t> resident_bytes_from_statm(std::string_view statm) {
    const auto space = statm.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    statm.remove_prefix(space + 1);
    const std::optional<std::uint64_t> pages =
        detail::parse_decimal(statm.substr(0, statm.find(' ')));
    if (!pages) return std::nullopt;
    return *pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  }

 private:
  // How one cgroup version names things.
  struct cgroup_layout {
    budget_source source;
    const char* mount;      // below cgroup_root; "" for the root itself
    const char* alt_mount;  // a second place to look ("unified" on hybrid systems)
    const char* usage_file;
    const char* hard_file;
    const char* high_file;  // nullptr when the version has none
  };
  static cgroup_layout v2_layout() noexcept {
    return {budget_source::cgroup_v2, "",           "/unified",
            "memory.current",         "memory.max", "memory.high"};
  }
  static cgroup_layout v1_layout() noexcept {
    return {budget_source::cgroup_v1, "/memory", nullptr, "memory.usage_in_bytes",
            "memory.limit_in_bytes",  nullptr};
  }

  // The cgroup path of this process for `source`, from the text of /proc/self/cgroup.
  static std::optional<std::string> cgroup_path(std::string_view text, budget_source source) {
    while (!text.empty()) {
      const std::string_view line = text.substr(0, text.find('\n'));
      text.remove_prefix(std::min(text.size(), line.size() + 1));
      const auto first = line.find(':');
      const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
      if (second == std::string_view::npos) continue;
      const std::string_view id = line.substr(0, first);
      const std::string_view controllers = line.substr(first + 1, second - first - 1);
      const std::string_view path = line.substr(second + 1);
      if (path.empty() || path.front() != '/') continue;
      if (source == budget_source::cgroup_v2 && id == "0" && controllers.empty())
        return std::string(path);
      if (source == budget_source::cgroup_v1 && lists_memory(controllers)) return std::string(path);
    }
    return std::nullopt;
  }

  static bool lists_memory(std::string_view controllers) noexcept {
    while (!controllers.empty()) {
      const std::string_view name = controllers.substr(0, controllers.find(','));
      if (name == "memory") return true;
      controllers.remove_prefix(std::min(controllers.size(), name.size() + 1));
    }
    return false;
  }

  // A limit file's value: `unlimited` for "max" (v2) or the v1 sentinel,
  // nullopt when malformed.
  static std::optional<std::uint64_t> parse_limit(std::string_view text) noexcept {
    if (detail::trim_whitespace(text) == "max") return unlimited;
    const std::optional<std::uint64_t> value = detail::parse_decimal(text);
    if (value && *value >= (std::uint64_t{1} << 62)) return unlimited;
    return value;
  }

  static std::string bytes_text(std::uint64_t bytes) {
    return bytes == unlimited ? std::string("unlimited") : std::to_string(bytes) + " bytes";
  }

  // "memory.max 1073741824 bytes (from /sys/fs/cgroup/app.slice)"
  static std::string limit_text(const char* file, std::uint64_t bytes, const std::string& from,
                                const std::string& leaf) {
    std::string text = std::string(file) + " " + bytes_text(bytes);
    if (!from.empty() && from != leaf) text += " (from " + from + ")";
    return text;
  }

  // The leaf directory for `path` below `mount`, or the mount itself when the
  // leaf is not visible (a cgroup namespace or a container's own mount).
  static std::string leaf_directory(const std::string& mount, const std::string& path,
                                    const char* usage_file) {
    const std::string leaf = path == "/" ? mount : mount + path;
    if (detail::is_file(leaf + "/" + usage_file)) return leaf;
    return mount;
  }

  // Reads `file` in `dir` and each parent up to `mount`, keeping the tightest
  // limit. False (with `why`) when a file that exists is malformed.
  static bool tightest_limit(const std::string& mount, std::string dir, const char* file,
                             std::uint64_t& limit, std::string& from, std::string& why) {
    limit = unlimited;
    for (;;) {
      const std::string path = dir + "/" + file;
      if (const std::optional<std::string> text = detail::read_small_file(path)) {
        const std::optional<std::uint64_t> value = parse_limit(*text);
        if (!value) {
          why = path + " is malformed (" + detail::quoted_excerpt(*text) + ")";
          return false;
        }
        if (*value < limit) {
          limit = *value;
          from = dir;
        }
      }
      if (dir.size() <= mount.size()) return true;
      dir.erase(dir.rfind('/'));
    }
  }

  struct cgroup_place {
    std::string mount;      // where the hierarchy is mounted
    std::string directory;  // this process's cgroup in it
  };

  // This process's cgroup directory for `layout`, with a readable, well-formed
  // usage file; nullopt (and why) otherwise.
  static std::optional<cgroup_place> find_cgroup(const cgroup_layout& layout,
                                                 const memory_budget_options& options,
                                                 std::string& why) {
    const std::string name = to_string(layout.source);
    const std::string proc_cgroup = options.proc_self + "/cgroup";
    const std::optional<std::string> listing = detail::read_small_file(proc_cgroup);
    if (!listing) {
      why += name + ": cannot read " + proc_cgroup + "; ";
      return std::nullopt;
    }
    const std::optional<std::string> path = cgroup_path(*listing, layout.source);
    if (!path) {
      why += name + ": " + proc_cgroup + " lists no " +
             (layout.source == budget_source::cgroup_v2 ? "unified (0::) hierarchy"
                                                        : "memory controller") +
             "; ";
      return std::nullopt;
    }
    cgroup_place place{options.cgroup_root + layout.mount, ""};
    place.directory = leaf_directory(place.mount, *path, layout.usage_file);
    if (!detail::is_file(place.directory + "/" + layout.usage_file) && layout.alt_mount) {
      place.mount = options.cgroup_root + layout.alt_mount;
      place.directory = leaf_directory(place.mount, *path, layout.usage_file);
    }
    const std::string usage_file = place.directory + "/" + layout.usage_file;
    const std::optional<std::string> usage_text = detail::read_small_file(usage_file);
    if (!usage_text) {
      why += name + ": no " + layout.usage_file + " for cgroup " + *path + " under " +
             options.cgroup_root + " (no memory controller there); ";
      return std::nullopt;
    }
    if (!detail::parse_decimal(*usage_text)) {
      why += name + ": " + usage_file + " is malformed (" + detail::quoted_excerpt(*usage_text) +
             "); ";
      return std::nullopt;
    }
    return place;
  }

  bool try_cgroup(const cgroup_layout& layout, const memory_budget_options& options,
                  std::string& why) {
    const std::optional<cgroup_place> place = find_cgroup(layout, options, why);
    if (!place) return false;
    const std::string name = to_string(layout.source);
    const std::string& mount = place->mount;
    const std::string& dir = place->directory;
    const std::string usage_file = dir + "/" + layout.usage_file;
    std::uint64_t hard = unlimited, high = unlimited;
    std::string hard_from, high_from, problem;
    if (!tightest_limit(mount, dir, layout.hard_file, hard, hard_from, problem) ||
        (layout.high_file &&
         !tightest_limit(mount, dir, layout.high_file, high, high_from, problem))) {
      why += name + ": " + problem + "; ";
      return false;
    }
    if (hard == unlimited && high == unlimited) {
      why += name + ": " + dir + " and its parents set no limit (" + layout.hard_file +
             (layout.high_file ? std::string(" and ") + layout.high_file : std::string()) +
             " unlimited); ";
      return false;
    }
    source_ = layout.source;
    hard_limit_ = hard;
    high_limit_ = high;
    limit_ = std::min(hard, high);
    directory_ = dir;
    usage_path_ = usage_file;
    reason_ =
        why + name + " in use: " + dir + ", " + limit_text(layout.hard_file, hard, hard_from, dir);
    if (layout.high_file) reason_ += ", " + limit_text(layout.high_file, high, high_from, dir);
    reason_ += ", usage from " + usage_file;
    return true;
  }

  bool try_caller_limit(const memory_budget_options& options, std::string& why) {
    if (!options.caller_limit) {
      why += "caller limit: none given; ";
      return false;
    }
    const std::string statm = options.proc_self + "/statm";
    const std::optional<std::string> text = detail::read_small_file(statm);
    if (!text || !resident_bytes_from_statm(*text)) {
      why += "caller limit: " + statm + " is unreadable or malformed; ";
      return false;
    }
    source_ = budget_source::caller_limit;
    limit_ = *options.caller_limit;
    usage_path_ = statm;
    usage_is_statm_ = true;
    reason_ = why + "caller limit in use: " + bytes_text(limit_) + ", usage = RSS from " + statm;
    return true;
  }

  budget_source source_ = budget_source::none;
  std::uint64_t limit_ = unlimited;
  std::uint64_t hard_limit_ = unlimited;
  std::uint64_t high_limit_ = unlimited;
  std::string directory_;
  std::string usage_path_;
  bool usage_is_statm_ = false;
  std::string reason_;
};

}  // namespace alloclab
