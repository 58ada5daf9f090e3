// Keeps the server and its load generator off each other's cores: with at least two CPUs
// allowed, the server gets the first and the load generator the second.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace alloclab::lab::load {

// CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

struct pin_plan {
  std::optional<int> server_cpu;
  std::optional<int> load_cpu;
  std::string describe() const;  // "server on cpu 0, load generator on cpu 1" or why not
};

pin_plan plan_pinning(const std::vector<int>& cpus);

// Pins the calling thread (and threads it creates afterwards); false when refused.
bool pin_current_thread(int cpu);

}  // namespace alloclab::lab::load
