#include "frames/program/program_run.hpp"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "process/malloc_registry.hpp"
#include "process/worker.hpp"

namespace alloclab::program {
namespace {

constexpr const char* probe_file_name = "liballoclab_program_probe.so";

void set_variable(heap::worker_env& env, const std::string& name, const std::string& value) {
  env.unset.erase(std::remove(env.unset.begin(), env.unset.end(), name), env.unset.end());
  for (auto& [key, old] : env.set) {
    if (key == name) {
      old = value;
      return;
    }
  }
  env.set.emplace_back(name, value);
}

const std::string* find_variable(const heap::worker_env& env, const std::string& name) {
  for (const auto& [key, value] : env.set)
    if (key == name) return &value;
  return nullptr;
}

// The registry's environment for the malloc (its preload; other entries' tuning removed), every
// knob variable removed, the variant's knobs set, and the probe preloaded after the malloc.
heap::worker_env run_environment(const variant& combination, const std::string& probe_path,
                                 const std::string& proof_file) {
  const heap::malloc_entry* entry = heap::find_malloc(combination.malloc);
  if (entry == nullptr) throw std::runtime_error("unknown malloc '" + combination.malloc + "'");
  heap::worker_env env = heap::worker_environment(*entry);
  for (const std::string& name : knob_variables())
    if (find_variable(env, name) == nullptr) env.unset.push_back(name);
  for (const auto& [name, value] : knob_environment(combination)) set_variable(env, name, value);
  const std::string* preload = find_variable(env, "LD_PRELOAD");
  set_variable(env, "LD_PRELOAD", preload == nullptr ? probe_path : *preload + ":" + probe_path);
  set_variable(env, "ALLOCLAB_PROOF_FILE", proof_file);
  set_variable(env, "ALLOCLAB_PROOF_MALLOC", combination.malloc);
  return env;
}

// Every process that loaded the probe wrote "<pid> ok" or "<pid> failed <why>". "" when all are
// ok and there is at least one, else why not.
std::string proof_problem(const std::string& proof_file) {
  std::ifstream in(proof_file);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    const std::size_t space = line.find(' ');
    const std::string verdict = space == std::string::npos ? "" : line.substr(space + 1);
    if (verdict != "ok")
      return "malloc not proven live in process " + line.substr(0, space) + ": " +
             (verdict.rfind("failed ", 0) == 0 ? verdict.substr(7) : verdict);
  }
  if (lines == 0)
    return "malloc not proven live: no process loaded the liveness probe (a static or setuid "
           "program ignores LD_PRELOAD)";
  return {};
}

run_figures figures_of(const heap::worker_outcome& outcome) {
  const struct rusage& u = outcome.usage;
  run_figures f;
  f.user_seconds =
      static_cast<double>(u.ru_utime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec);
  f.sys_seconds =
      static_cast<double>(u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_stime.tv_usec);
  f.wall_seconds = outcome.wall_seconds;
  f.peak_rss_bytes = static_cast<std::uint64_t>(u.ru_maxrss) * 1024;  // Linux: kibibytes
  f.minor_faults = static_cast<std::uint64_t>(u.ru_minflt);
  f.major_faults = static_cast<std::uint64_t>(u.ru_majflt);
  f.voluntary_switches = static_cast<std::uint64_t>(u.ru_nvcsw);
  f.involuntary_switches = static_cast<std::uint64_t>(u.ru_nivcsw);
  return f;
}

}  // namespace

std::string default_probe_path() {
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  std::string path(self, static_cast<std::size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + probe_file_name;
  return ::access(path.c_str(), R_OK) == 0 ? path : std::string();
}

run_record run_once(const run_setup& setup, const variant& combination,
                    const std::string& proof_file) {
  const heap::worker_env env = run_environment(combination, setup.probe_path, proof_file);
  ::unlink(proof_file.c_str());
  heap::worker_request request;
  request.argv = setup.argv;
  request.search_path = true;
  request.stdin_path = setup.stdin_path;
  request.working_directory = setup.working_directory;
  request.timeout = setup.timeout;
  request.env_set = env.set;
  request.env_unset = env.unset;
  request.stdout_max_bytes = 0;  // hashed, not kept
  const heap::worker_outcome outcome = heap::run_worker(request);

  run_record r;
  r.exit_code = outcome.exit_code;
  r.stdout_hash = outcome.stdout_hash;
  r.stdout_bytes = outcome.stdout_bytes;
  r.figures = figures_of(outcome);
  const std::string not_live = outcome.started ? proof_problem(proof_file) : "";
  r.live = outcome.started && not_live.empty();
  ::unlink(proof_file.c_str());
  if (!outcome.succeeded()) {
    r.reason = outcome.describe();
    if (!outcome.stderr_tail.empty()) {
      std::string tail = outcome.stderr_tail.substr(
          outcome.stderr_tail.size() > 200 ? outcome.stderr_tail.size() - 200 : 0);
      std::replace(tail.begin(), tail.end(), '\n', ' ');
      r.reason += "; stderr: " + tail;
    }
  } else if (!r.live) {
    r.reason = not_live;
  }
  r.ok = r.reason.empty();
  return r;
}

}  // namespace alloclab::program
