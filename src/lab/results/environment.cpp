#include "environment.hpp"

#include <gnu/libc-version.h>
#include <sched.h>
#include <sys/utsname.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#ifndef ALLOCLAB_LAB_SOURCE_DIR
#define ALLOCLAB_LAB_SOURCE_DIR ""
#endif
#ifndef ALLOCLAB_LAB_GIT_REVISION
#define ALLOCLAB_LAB_GIT_REVISION ""
#endif

namespace alloclab::lab {
namespace {

// First line of a file, or null when it cannot be read.
nlohmann::json first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return nullptr;
  return line;
}

nlohmann::json cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return nullptr;
}

std::string command_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  std::string out;
  char chunk[256];
  while (std::fgets(chunk, sizeof chunk, pipe.get())) out += chunk;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// The source revision: asked of git at run time (the tree may have moved since configure),
// falling back to the configure-time answer; null when neither knows. "-dirty": the tree
// differs from the commit (untracked files included: new sources are measured code too).
nlohmann::json git_revision() {
  const std::string dir = ALLOCLAB_LAB_SOURCE_DIR;
  if (!dir.empty()) {
    std::string rev = command_output("git -C '" + dir + "' rev-parse --short=12 HEAD 2>/dev/null");
    if (!rev.empty()) {
      if (!command_output("git -C '" + dir + "' status --porcelain 2>/dev/null").empty())
        rev += "-dirty";
      return rev;
    }
  }
  const std::string configured = ALLOCLAB_LAB_GIT_REVISION;
  if (!configured.empty()) return configured + " (at configure time)";
  return nullptr;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

}  // namespace

nlohmann::json describe_environment(const build_facts& build) {
  utsname names{};
  uname(&names);
  return {
      {"cpu_model", cpu_model()},
      {"logical_cpus", std::thread::hardware_concurrency()},
      {"usable_cpus", usable_cpus()},
      {"governor", first_line_of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")},
      {"transparent_hugepages", first_line_of("/sys/kernel/mm/transparent_hugepage/enabled")},
      {"clocksource",
       first_line_of("/sys/devices/system/clocksource/clocksource0/current_clocksource")},
      {"kernel", std::string(names.sysname) + " " + names.release},
      {"machine", names.machine},
      {"glibc", gnu_get_libc_version()},
      {"compiler", build.compiler},
      {"cxx_flags", build.flags},
      {"build_type", build.build_type},
      {"build", build.describe()},
      {"optimized", build.optimized},
      {"assertions", build.assertions},
      {"git_revision", git_revision()},
  };
}

nlohmann::json describe_timer(const clock_profile& clock) {
  return {
      {"clock", "std::chrono::steady_clock"},
      {"overhead_ns", clock.overhead_ns},
      {"resolution_ns", clock.resolution_ns},
      {"batch_threshold_ns", clock.batch_threshold_ns()},
  };
}

}  // namespace alloclab::lab
