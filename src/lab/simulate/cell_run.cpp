#include "simulate/cell_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "process/measuring_worker.hpp"
#include "simulate/events.hpp"
#include "simulate/left_out.hpp"

namespace alloclab::lab::simulate {
namespace fs = std::filesystem;
using json = nlohmann::json;
using steady = std::chrono::steady_clock;

namespace {

constexpr std::chrono::seconds normal_run_timeout{60};
constexpr std::chrono::minutes simulation_timeout{10};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A directory of its own for one cell's dumps, removed when done.
struct scratch_directory {
  fs::path path;
  scratch_directory() {
    std::string pattern = (fs::temp_directory_path() / "alloclab-simulate-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw fs::filesystem_error("mkdtemp", {}, {});
    path = pattern;
  }
  ~scratch_directory() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

process::cell_outcome run_under(std::vector<std::string> prefix, const cell_simulation_request& r,
                                const simulation_tools& tools, std::chrono::milliseconds timeout) {
  process::worker_request w;
  w.argv = std::move(prefix);
  w.argv.push_back(tools.executable);
  w.argv.insert(w.argv.end(), r.args.begin(), r.args.end());
  w.search_path = w.argv.front().find('/') == std::string::npos;
  w.env_set = r.env.set;
  w.env_unset = r.env.unset;
  w.timeout = timeout;
  w.cancel = r.cancel;
  w.on_group = r.on_group;
  return process::run_measuring_worker(w);
}

// Every client-request dump in `directory`, by its name.
std::map<std::string, event_counts> dumps_in(const fs::path& directory) {
  std::map<std::string, event_counts> dumps;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.path().filename().string().rfind("callgrind.out", 0) != 0) continue;
    const std::string text = read_text(entry.path());
    // Only the regions' dumps: the one at exit can hold garbage in its summary (Callgrind 3.19
    // after STOP_INSTRUMENTATION), and nothing of it is used.
    if (text.find("desc: Trigger: Client Request: ") == std::string::npos) continue;
    const callgrind_dump dump = read_callgrind_dump(text);
    if (const auto name = client_request_name(dump)) dumps[*name] = dump.events;
  }
  return dumps;
}

model::simulated_events per_unit(const event_counts& e, std::uint64_t units) {
  const auto n = static_cast<double>(units);
  model::simulated_events out;
  out.instructions = static_cast<double>(e.ir) / n;
  out.data_reads = static_cast<double>(e.dr) / n;
  out.data_writes = static_cast<double>(e.dw) / n;
  out.l1_misses = static_cast<double>(e.l1_misses()) / n;
  out.d1_misses = static_cast<double>(e.d1mr + e.d1mw) / n;
  out.ll_misses = static_cast<double>(e.ll_misses()) / n;
  out.cost = simulated_cost(e) / n;
  return out;
}

// The region's events net of its baseline region, per unit; throws when a dump is missing.
model::simulated_events events_of(const json& result, const fs::path& directory) {
  const std::map<std::string, event_counts> dumps = dumps_in(directory);
  const auto region = [&](const std::string& name) {
    const auto found = dumps.find(name);
    if (found == dumps.end()) throw std::runtime_error("no callgrind dump of region " + name);
    return found->second;
  };
  event_counts e = region(result.at("region").get<std::string>());
  const std::string baseline = result.at("baseline_region");
  if (!baseline.empty()) e = e - region(baseline);
  return per_unit(e, result.at("units").get<std::uint64_t>());
}

// Faults and switches of the region in a normal run, per 1000 units.
std::optional<model::left_out_counts> normal_run_counts(const cell_simulation_request& r,
                                                        const simulation_tools& tools) {
  const process::cell_outcome o = run_under({}, r, tools, normal_run_timeout);
  if (o.status != process::cell_status::ok) return std::nullopt;
  const json& result = o.document.at("result");
  const json& os = result.at("region_os").at(result.at("region").get<std::string>());
  const double per = 1000.0 / result.at("units").get<double>();
  model::left_out_counts c;
  c.minor_faults = per * os.at("minor_faults").get<double>();
  c.major_faults = per * os.at("major_faults").get<double>();
  c.voluntary_switches = per * os.at("voluntary_switches").get<double>();
  c.involuntary_switches = per * os.at("involuntary_switches").get<double>();
  return c;
}

// The region's memory syscalls under strace, per 1000 units; nullopt when strace failed.
std::optional<std::map<std::string, double>> traced_syscalls(const cell_simulation_request& r,
                                                             const simulation_tools& tools,
                                                             const fs::path& directory) {
  const std::string out = (directory / "strace.txt").string();
  const process::cell_outcome o = run_under(
      {tools.strace, "-f", "-qq", "-o", out, "-e", "trace=" + strace_filter(), "-e", "signal=none"},
      r, tools, normal_run_timeout);
  if (o.status != process::cell_status::ok) return std::nullopt;
  const json& result = o.document.at("result");
  const double per = 1000.0 / result.at("units").get<double>();
  std::map<std::string, double> calls;
  for (const auto& [name, n] : syscalls_in_region(read_text(out), result.at("region")))
    calls[name] = per * static_cast<double>(n);
  return calls;
}

model::simulated_cost unmeasured(const std::string& status, const std::string& reason) {
  model::simulated_cost c;
  c.status = status;
  c.reason = reason;
  return c;
}

}  // namespace

// Valgrind counts each byte `rep movsb` moves as an instruction with its own accesses, which
// glibc's memcpy and memmove use above ~2 KiB on CPUs with fast string moves: a cell that relocates
// a vector with memmove counted 1.7 times the instructions of one that copies element by element,
// where the hardware takes about the same time. Under Callgrind, glibc copies with vector loops
// instead (the tunable raises the size it would switch at), which Callgrind counts as the
// hardware spends.
mallocs::worker_env without_rep_movsb(mallocs::worker_env env) {
  constexpr const char* tunable = "glibc.cpu.x86_rep_movsb_threshold=4294967295";
  const auto set = std::find_if(env.set.begin(), env.set.end(),
                                [](const auto& kv) { return kv.first == "GLIBC_TUNABLES"; });
  if (set != env.set.end())
    set->second += std::string(":") + tunable;
  else
    env.set.emplace_back("GLIBC_TUNABLES", tunable);
  env.unset.erase(std::remove(env.unset.begin(), env.unset.end(), "GLIBC_TUNABLES"),
                  env.unset.end());
  return env;
}

std::vector<std::string> callgrind_options(const std::string& out_file) {
  return {"--tool=callgrind",
          "--cache-sim=yes",
          "--I1=32768,8,64",
          "--D1=32768,8,64",
          "--LL=8388608,16,64",
          "--instr-atstart=no",
          "--dump-instr=no",
          "--dump-line=no",
          "-q",
          "--callgrind-out-file=" + out_file};
}

std::string simulated_caches() {
  return "I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines (LRU, inclusive-less, as "
         "Callgrind models them)";
}

model::simulated_cost simulate_cell(const cell_simulation_request& request,
                                    const simulation_tools& tools) {
  const auto started = steady::now();
  const auto left = std::min<std::chrono::milliseconds>(
      simulation_timeout,
      std::chrono::duration_cast<std::chrono::milliseconds>(request.deadline - started));
  if (left.count() <= 0) return unmeasured("not_simulated", "the run ended first");
  model::simulated_cost c;
  try {
    const scratch_directory scratch;
    std::vector<std::string> valgrind = {tools.valgrind};
    for (std::string& option : callgrind_options((scratch.path / "callgrind.out").string()))
      valgrind.push_back(std::move(option));
    cell_simulation_request simulated = request;
    simulated.env = without_rep_movsb(request.env);
    const process::cell_outcome o = run_under(valgrind, simulated, tools, left);
    if (o.status != process::cell_status::ok) {
      const bool cancelled = request.cancel != nullptr && request.cancel->load();
      if (o.worker.timed_out && (cancelled || steady::now() >= request.deadline))
        return unmeasured("not_simulated", "the run ended first");
      return unmeasured(o.status == process::cell_status::refused ? "refused" : "failed", o.detail);
    }
    const json& result = o.document.at("result");
    if (result.contains("not_applicable"))  // the strategy cannot serve this workload
      return unmeasured("not_simulated", result.at("not_applicable").get<std::string>());
    c.status = "ok";
    c.unit = result.at("unit");
    c.units = result.at("units");
    c.malloc_proven = o.document.at("live_allocator").at("ok").get<bool>();
    c.per_unit = events_of(result, scratch.path);
    c.left_out = normal_run_counts(request, tools);
    if (c.left_out) c.left_out->syscalls = traced_syscalls(request, tools, scratch.path);
  } catch (const std::exception& e) {
    return unmeasured("failed", e.what());
  }
  c.seconds = std::chrono::duration<double>(steady::now() - started).count();
  return c;
}

found_tools find_tools() {
  found_tools found;
  std::error_code ec;
  found.tools.executable = fs::read_symlink("/proc/self/exe", ec).string();
  process::worker_request ask;
  ask.argv = {found.tools.valgrind, "--version"};
  ask.search_path = true;
  ask.timeout = std::chrono::seconds(20);
  const process::worker_outcome version = process::run_worker(ask);
  if (!version.succeeded())
    found.missing = "valgrind is not installed (apt-get install valgrind; scripts/deps.sh)";
  else
    found.valgrind_version =
        version.stdout_text.substr(0, version.stdout_text.find_first_of("\r\n"));
  return found;
}

}  // namespace alloclab::lab::simulate
