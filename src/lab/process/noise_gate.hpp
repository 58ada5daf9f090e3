// The noise gate: what else this machine was doing while the lab measured, and the settings that
// move timings (CPU governor and boost, transparent huge pages, ASLR). Everything is read below
// a root directory ("/" in a run; tests point it at fixture trees in tests/data/noise/), so both
// sides of every rule are tested on any host.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/run_account.hpp"

namespace alloclab::process {

// The "cpu" line of /proc/stat, in clock ticks.
struct cpu_ticks {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  std::uint64_t busy() const { return user + nice + system + irq + softirq; }
  std::uint64_t total() const { return busy() + idle + iowait + steal; }
};

// One look at the machine.
struct machine_snapshot {
  double seconds = 0;  // when (any monotonic clock, seconds)
  std::optional<cpu_ticks> cpu;
  std::optional<double> load_1min;
  // CPU ticks (utime + stime) of every process, by pid, with its name.
  struct process_ticks {
    std::string name;
    std::uint64_t ticks = 0;
    int parent = 0;
  };
  std::map<int, process_ticks> processes;
};

// Settings read once.
struct host_settings {
  std::vector<std::string> governors;  // distinct scaling_governor values; empty: not readable
  std::optional<bool> boost;           // cpufreq/boost, or !intel_pstate/no_turbo
  std::optional<std::string> thp;      // transparent_hugepage/enabled, the [chosen] word
  std::optional<int> aslr;             // kernel/randomize_va_space (2: full)
  int cpus = 0;                        // logical CPUs listed in /proc/stat
};

class noise_probe {
 public:
  explicit noise_probe(std::string root = "/");
  host_settings settings() const;
  // `seconds`: the caller's clock reading for this look.
  machine_snapshot snapshot(double seconds) const;

 private:
  std::string root_;
};

// Parsers of the files, pure (text in, figures out).
std::optional<cpu_ticks> parse_proc_stat(const std::string& text);
std::optional<double> parse_loadavg(const std::string& text);
// "/proc/<pid>/stat": the name (inside the parentheses, which may hold spaces) and utime+stime.
std::optional<machine_snapshot::process_ticks> parse_process_stat(const std::string& text);
std::optional<std::string> bracketed_choice(const std::string& text);  // "a [b] c" -> "b"

// Watches the machine through a run: a look at the start, one every `period` on a thread, one at
// the end; adds up other processes' CPU between looks.
class noise_watch {
 public:
  noise_watch(host_settings settings, int own_pid);
  // A look at the machine (noise_probe::snapshot), in time order. Cheap every few seconds.
  void add(machine_snapshot now);
  // The gate: settings, load and steal before and during, the busiest other processes, the CPU
  // this run used (`own_cpu_seconds`: this process and its waited-for children), and a warning
  // when the machine was busy enough to widen the intervals. Needs two looks.
  lab::model::noise_gate gate(double own_cpu_seconds) const;

 private:
  int own_pid_;
  host_settings settings_;
  std::vector<machine_snapshot> looks_;
  std::map<std::string, double> other_ticks_;  // by process name, summed between looks
};

// A noise_watch on "/" looking every `period_seconds` on a thread of its own, from construction
// to gate().
class periodic_noise_watch {
 public:
  explicit periodic_noise_watch(double period_seconds = 5);
  ~periodic_noise_watch();
  periodic_noise_watch(const periodic_noise_watch&) = delete;
  periodic_noise_watch& operator=(const periodic_noise_watch&) = delete;
  // Stops the thread, takes the last look and returns the gate (own CPU: this process and its
  // reaped children since construction, from getrusage).
  lab::model::noise_gate finish();

 private:
  struct impl;
  impl* impl_;
};

// Thresholds of the warning: other processes using more than this share of one CPU on average,
// or steal time over this share of all CPU time, during the run.
inline constexpr double busy_other_cpus = 0.25;
inline constexpr double busy_steal_share = 0.02;

}  // namespace alloclab::process
