#include "split_run.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "heap/worker.hpp"
#include "measurement_json.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

void merge_cell(cell_measurement& into, const cell_measurement& part, const std::string& workload) {
  if (into.checksum != part.checksum && part.status == cell_status::ok &&
      into.status == cell_status::ok)
    throw checksum_mismatch(
        fmt::format("workload {} under strategy {} built {:#x} in one process "
                    "and {:#x} in another",
                    workload, into.strategy, into.checksum, part.checksum));
  if (part.status != cell_status::ok && into.status == cell_status::ok) {
    into.status = part.status;  // one overflowing process voids the cell
    into.reason = part.reason;
  }
  if (into.warning.empty()) into.warning = part.warning;
  auto append = [](std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(into.samples_ns, part.samples_ns);
  append(into.repetition_medians_ns, part.repetition_medians_ns);
  append(into.repetition_p99_ns, part.repetition_p99_ns);
  into.heap_allocations_per_iteration =
      std::max(into.heap_allocations_per_iteration, part.heap_allocations_per_iteration);
  into.heap_bytes_per_iteration =
      std::max(into.heap_bytes_per_iteration, part.heap_bytes_per_iteration);
  into.upstream_fallbacks_per_iteration =
      std::max(into.upstream_fallbacks_per_iteration, part.upstream_fallbacks_per_iteration);
  into.minor_faults += part.minor_faults;
  into.peak_rss_growth_kib = std::max(into.peak_rss_growth_kib, part.peak_rss_growth_kib);
  into.timed_iterations += part.timed_iterations;
  if (into.status != cell_status::ok) {
    into.samples_ns.clear();
    into.repetition_medians_ns.clear();
    into.repetition_p99_ns.clear();
  }
}

run_measurement run_part_in_child(const run_config& part, std::chrono::milliseconds timeout) {
  heap::worker_request request;
  request.argv = {"/proc/self/exe", lab_part_command, to_json(part).dump()};
  request.timeout = timeout;
  request.stdout_max_bytes = std::size_t{512} << 20;
  const heap::worker_outcome outcome = heap::run_worker(request);
  if (!outcome.succeeded())
    throw std::runtime_error(fmt::format("a measuring process failed ({}): {}", outcome.describe(),
                                         outcome.stderr_tail));
  return run_measurement_from_json(json::parse(outcome.stdout_text));
}

}  // namespace

run_config part_config(const run_config& config, std::size_t index) {
  run_config part = config;
  const std::size_t processes = std::max<std::size_t>(1, config.processes);
  part.processes = 1;
  part.repetitions =
      config.repetitions / processes + (index < config.repetitions % processes ? 1 : 0);
  part.order_seed = config.order_seed + index;
  return part;
}

run_measurement merge_parts(const run_config& config, const std::vector<run_measurement>& parts) {
  if (parts.empty()) throw std::invalid_argument("merge_parts: no parts");
  run_measurement merged = parts.front();
  merged.config = config;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const run_measurement& part = parts[p];
    for (std::size_t w = 0; w < merged.workloads.size(); ++w) {
      workload_measurement& into = merged.workloads[w];
      const workload_measurement& from = part.workloads.at(w);
      if (from.checksum != into.checksum)
        throw checksum_mismatch(
            fmt::format("workload {} built {:#x} in one process and {:#x} in "
                        "another",
                        into.name, into.checksum, from.checksum));
      into.batch_size = std::max(into.batch_size, from.batch_size);
      for (std::size_t c = 0; c < into.cells.size(); ++c)
        merge_cell(into.cells[c], from.cells.at(c), into.name);
    }
    merged.clock.overhead_ns = std::max(merged.clock.overhead_ns, part.clock.overhead_ns);
    merged.clock.resolution_ns = std::max(merged.clock.resolution_ns, part.clock.resolution_ns);
  }
  return merged;
}

run_measurement run_split_suite(const run_config& config, const progress_callback& progress,
                                std::chrono::milliseconds part_timeout) {
  const std::size_t processes =
      std::min(std::max<std::size_t>(1, config.processes), config.repetitions);
  if (processes <= 1 || config.workloads.empty()) return run_suite(config, progress);
  const auto started = lab_clock::now();
  std::vector<run_measurement> parts;
  const std::size_t cells = config.workloads.size() * config.strategies.size();
  for (std::size_t index = 0; index < processes; ++index) {
    const run_config part = part_config(config, index);
    progress(
        {index + 1, processes, 0, cells,
         fmt::format("process {} of {}: {} repetitions", index + 1, processes, part.repetitions)});
    parts.push_back(run_part_in_child(part, part_timeout));
  }
  run_config merged_config = config;
  merged_config.processes = processes;
  run_measurement merged = merge_parts(merged_config, parts);
  merged.duration_seconds = static_cast<double>(elapsed_ns(started, lab_clock::now())) / 1e9;
  return merged;
}

int run_lab_part(const char* config_json) {
  try {
    const run_config config = run_config_from_json(json::parse(config_json));
    const run_measurement run = run_suite(config, [](const progress_event&) {});
    std::cout << to_json(run).dump() << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "alloclab " << lab_part_command << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace alloclab::lab
