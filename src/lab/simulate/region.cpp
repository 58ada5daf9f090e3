#include "simulate/region.hpp"

#include <sys/resource.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define ALLOCLAB_HAS_CALLGRIND 1
#else
#define ALLOCLAB_HAS_CALLGRIND 0
#endif

namespace alloclab::lab::simulate {
namespace {

region_os_counts os_counts_now() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return {u.ru_minflt, u.ru_majflt, u.ru_nvcsw, u.ru_nivcsw};
}

region_os_counts difference(const region_os_counts& after, const region_os_counts& before) {
  return {after.minor_faults - before.minor_faults, after.major_faults - before.major_faults,
          after.voluntary_switches - before.voluntary_switches,
          after.involuntary_switches - before.involuntary_switches};
}

// A write to fd -1 fails with EBADF and does nothing, but strace shows it with its bytes.
void write_marker(const std::string& text) {
  [[maybe_unused]] const ssize_t ignored = ::write(-1, text.data(), text.size());
}

void dump_stats(const std::string& trigger) {
#if ALLOCLAB_HAS_CALLGRIND
  CALLGRIND_DUMP_STATS_AT(trigger.c_str());
#else
  (void)trigger;
#endif
}

}  // namespace

std::string region_marker(const std::string& region, bool begin) {
  return "alloclab-region:" + region + (begin ? ":begin" : ":end");
}

bool running_on_valgrind() {
#if ALLOCLAB_HAS_CALLGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

simulated_regions::simulated_regions() {
#if ALLOCLAB_HAS_CALLGRIND
  CALLGRIND_START_INSTRUMENTATION;
#endif
}

simulated_regions::~simulated_regions() {
#if ALLOCLAB_HAS_CALLGRIND
  CALLGRIND_STOP_INSTRUMENTATION;
#endif
}

void simulated_regions::count(const std::string& name, const std::function<void()>& body) {
  write_marker(region_marker(name, true));
  dump_stats("before:" + name);  // zeroes every thread's counters
  const region_os_counts before = os_counts_now();
  body();
  const region_os_counts after = os_counts_now();
  dump_stats(name);
  write_marker(region_marker(name, false));
  regions_.emplace_back(name, difference(after, before));
}

nlohmann::json simulated_regions::result(const std::string& unit, std::uint64_t units,
                                         const std::string& measured,
                                         const std::string& baseline) const {
  nlohmann::json os = nlohmann::json::object();
  for (const auto& [name, c] : regions_)
    os[name] = {{"minor_faults", c.minor_faults},
                {"major_faults", c.major_faults},
                {"voluntary_switches", c.voluntary_switches},
                {"involuntary_switches", c.involuntary_switches}};
  return {{"unit", unit},       {"units", units},
          {"region", measured}, {"baseline_region", baseline},
          {"region_os", os},    {"on_valgrind", running_on_valgrind()}};
}

}  // namespace alloclab::lab::simulate
