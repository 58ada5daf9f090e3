#include "frames/program/program_run.hpp"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "mallocs/malloc_table.hpp"
#include "process/worker.hpp"
#include "trace/record_target.hpp"

namespace alloclab::program {
namespace {

constexpr const char* probe_file_name = "liballoclab_program_probe.so";

void set_variable(mallocs::worker_env& env, const std::string& name, const std::string& value) {
  env.unset.erase(std::remove(env.unset.begin(), env.unset.end(), name), env.unset.end());
  for (auto& [key, old] : env.set) {
    if (key == name) {
      old = value;
      return;
    }
  }
  env.set.emplace_back(name, value);
}

const std::string* find_variable(const mallocs::worker_env& env, const std::string& name) {
  for (const auto& [key, value] : env.set)
    if (key == name) return &value;
  return nullptr;
}

// The registry's environment for the malloc (its preload; other entries' tuning removed), every
// knob variable removed, the variant's knobs set, and the probe preloaded before the malloc.
mallocs::worker_env run_environment(const variant& combination, const std::string& probe_path,
                                    const std::string& proof_file) {
  const mallocs::malloc_entry* entry = mallocs::find_malloc(combination.malloc);
  if (entry == nullptr) throw std::runtime_error("unknown malloc '" + combination.malloc + "'");
  mallocs::worker_env env = mallocs::worker_environment(*entry);
  for (const std::string& name : knob_variables())
    if (find_variable(env, name) == nullptr) env.unset.push_back(name);
  for (const auto& [name, value] : knob_environment(combination)) set_variable(env, name, value);
  // The probe goes first: ld.so runs preloaded objects' constructors in reverse order, so the
  // malloc's own (tcmalloc reads TCMALLOC_RELEASE_RATE in one) have run when the probe reads its
  // knobs back. The probe defines no allocation function, so the malloc still serves them all.
  const std::string* preload = find_variable(env, "LD_PRELOAD");
  set_variable(env, "LD_PRELOAD", preload == nullptr ? probe_path : probe_path + ":" + *preload);
  set_variable(env, "ALLOCLAB_PROOF_FILE", proof_file);
  set_variable(env, "ALLOCLAB_PROOF_MALLOC", combination.malloc);
  std::string knobs;
  for (const std::string& k : knobs_of(combination.malloc)) knobs += (knobs.empty() ? "" : ",") + k;
  set_variable(env, "ALLOCLAB_PROOF_KNOBS", knobs);
  return env;
}

// What the probes wrote: each process that loaded one, "<pid> ok" or "<pid> failed <why>", then
// "<pid> knob ..." per knob of the malloc, and "<pid> peak_rss KIB" when it called exit().
struct proof {
  std::string problem;  ///< "" when every process is proven and there is at least one
  std::vector<std::vector<mallocs::knob_reading>> knobs;  ///< per process, in the file's order
  std::uint64_t peak_rss_bytes = 0;  ///< the largest own peak a process reported; 0: none
};

// "peak_rss KIB" -> bytes; none for any other line.
std::optional<std::uint64_t> parse_peak_line(const std::string& rest) {
  constexpr std::string_view prefix = "peak_rss ";
  if (rest.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  try {
    return std::stoull(rest.substr(prefix.size())) * 1024;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

proof read_proof(const std::string& proof_file) {
  std::ifstream in(proof_file);
  std::string line, last_pid;
  std::size_t processes = 0;
  proof p;
  while (std::getline(in, line)) {
    const std::size_t space = line.find(' ');
    const std::string pid = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (const auto peak = parse_peak_line(rest)) {
      p.peak_rss_bytes = std::max(p.peak_rss_bytes, *peak);
      continue;
    }
    if (auto reading = mallocs::parse_reading_line(rest)) {
      if (p.knobs.empty() || pid != last_pid) p.knobs.emplace_back();
      last_pid = pid;
      p.knobs.back().push_back(std::move(*reading));
      continue;
    }
    ++processes;
    if (rest != "ok" && p.problem.empty())
      p.problem = "malloc not proven live in process " + pid + ": " +
                  (rest.rfind("failed ", 0) == 0 ? rest.substr(7) : rest);
  }
  if (processes == 0)
    p.problem =
        "malloc not proven live: no process loaded the liveness probe (a static or setuid "
        "program ignores LD_PRELOAD)";
  return p;
}

// "" when, in every probed process, each knob the variant sets reads back as set or cannot be
// read; else the first knob the malloc did not take.
std::string knob_problem(const variant& combination, const proof& p) {
  for (const auto& process : p.knobs)
    if (std::string problem = mallocs::knob_not_applied(combination, process); !problem.empty())
      return problem;
  return {};
}

// wait4's figures; the peak RSS is the program's own as its probes read it (wait4's keeps the
// parent's high-water mark from before exec), wait4's only when no process reported one (a
// program that ends with _exit or a signal, or ignores the preload).
run_figures figures_of(const process::worker_outcome& outcome, std::uint64_t probed_peak_bytes) {
  const struct rusage& u = outcome.usage;
  run_figures f;
  f.user_seconds =
      static_cast<double>(u.ru_utime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec);
  f.sys_seconds =
      static_cast<double>(u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_stime.tv_usec);
  f.cpu_seconds = f.user_seconds + f.sys_seconds;
  f.wall_seconds = outcome.wall_seconds;
  f.peak_rss_bytes =
      probed_peak_bytes > 0 ? probed_peak_bytes : static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
  f.minor_faults = static_cast<std::uint64_t>(u.ru_minflt);
  f.major_faults = static_cast<std::uint64_t>(u.ru_majflt);
  f.voluntary_switches = static_cast<std::uint64_t>(u.ru_nvcsw);
  f.involuntary_switches = static_cast<std::uint64_t>(u.ru_nivcsw);
  return f;
}

}  // namespace

std::string default_probe_path() {
  const auto path = trace::find_lab_library(probe_file_name);
  return path ? path->string() : std::string();
}

run_record run_once(const run_setup& setup, const variant& combination,
                    const std::string& proof_file) {
  const mallocs::worker_env env = run_environment(combination, setup.probe_path, proof_file);
  ::unlink(proof_file.c_str());
  process::worker_request request;
  request.argv = setup.argv;
  request.search_path = true;
  request.stdin_path = setup.stdin_path;
  request.working_directory = setup.working_directory;
  request.timeout = setup.timeout;
  for (const auto& [name, value] : setup.environment)
    if (find_variable(env, name) == nullptr &&
        std::find(env.unset.begin(), env.unset.end(), name) == env.unset.end())
      request.env_set.emplace_back(name, value);
  request.env_set.insert(request.env_set.end(), env.set.begin(), env.set.end());
  request.env_unset = env.unset;
  request.stdout_max_bytes = 0;  // hashed, not kept
  const process::worker_outcome outcome = process::run_worker(request);

  run_record r;
  r.exit_code = outcome.exit_code;
  r.stdout_hash = outcome.stdout_hash;
  r.stdout_bytes = outcome.stdout_bytes;
  const proof probed = outcome.started ? read_proof(proof_file) : proof{};
  r.figures = figures_of(outcome, probed.peak_rss_bytes);
  r.live = outcome.started && probed.problem.empty();
  if (!probed.knobs.empty()) r.knobs = probed.knobs.front();
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
    r.reason = probed.problem;
  } else {
    r.reason = knob_problem(combination, probed);
  }
  r.ok = r.reason.empty();
  return r;
}

}  // namespace alloclab::program
