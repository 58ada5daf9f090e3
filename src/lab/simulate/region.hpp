// Worker side of the simulation: marks the region a cell's simulated cost counts.
//
// A cell's worker, asked for its simulation mode, sets up as it always does (spec, input, malloc
// proof), then opens a simulated_regions: from here on Callgrind simulates (it ran the start-up
// uninstrumented, --instr-atstart=no), so the warm-up the worker runs next fills the simulated
// caches. Each count(name, body) runs `body` between two Callgrind dumps ("before:<name>" and
// "<name>"): the second holds exactly the region's events, every thread's. The same marks cost a
// few instructions in a normal process, where count() also reads the region's page faults and
// context switches (getrusage), and writes a marker to fd -1 (EBADF) before and after, so that a
// `strace` of the worker can count the region's mmap/munmap/madvise/brk/mremap calls.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab::simulate {

// The marker written to fd -1 at a region's ends: "alloclab-region:<name>:begin" and ":end".
std::string region_marker(const std::string& region, bool begin);

// What the operating system counted during one region of a normal (not simulated) run.
struct region_os_counts {
  std::int64_t minor_faults = 0, major_faults = 0;
  std::int64_t voluntary_switches = 0, involuntary_switches = 0;
};

class simulated_regions {
 public:
  simulated_regions();  // starts Callgrind's instrumentation (a no-op outside Valgrind)
  ~simulated_regions();
  simulated_regions(const simulated_regions&) = delete;
  simulated_regions& operator=(const simulated_regions&) = delete;

  // Runs `body` as the region `name`.
  void count(const std::string& name, const std::function<void()>& body);

  // The worker's "result": the unit, how many the measured region ran, the region and the one
  // whose events are subtracted from it (empty: none), each region's OS counts.
  nlohmann::json result(const std::string& unit, std::uint64_t units, const std::string& measured,
                        const std::string& baseline) const;

 private:
  std::vector<std::pair<std::string, region_os_counts>> regions_;
};

// Whether this process runs under Valgrind.
bool running_on_valgrind();

}  // namespace alloclab::lab::simulate
