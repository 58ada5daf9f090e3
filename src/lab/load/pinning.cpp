#include "load/pinning.hpp"

#include <pthread.h>
#include <sched.h>

#include <fmt/format.h>

namespace alloclab::lab::load {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

std::string pin_plan::describe() const {
  if (!server_cpu || !load_cpu) return "not pinned: fewer than 2 CPUs available";
  return fmt::format("server on cpu {}, load generator on cpu {}", *server_cpu, *load_cpu);
}

pin_plan plan_pinning(const std::vector<int>& cpus) {
  pin_plan plan;
  if (cpus.size() >= 2) {
    plan.server_cpu = cpus[0];
    plan.load_cpu = cpus[1];
  }
  return plan;
}

bool pin_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace alloclab::lab::load
