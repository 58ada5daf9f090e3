#include "frames/heap/retention_timeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "frames/heap/kernel_policies.hpp"
#include "frames/heap/kernels.hpp"
#include "mallocs/knob_readback.hpp"
#include "process/proc_memory.hpp"

namespace alloclab::heap {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

constexpr std::chrono::milliseconds light_period(10);  // light load: a few pairs every 10 ms
constexpr std::size_t light_pairs = 10;                // 1000 malloc+free pairs a second

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double rss_now() {
  return static_cast<double>(process::read_proc_status().vm_rss_bytes.value_or(0));
}

// What a service keeps doing: short-lived blocks of the same sizes, first byte written.
void light_work(const std::vector<std::uint32_t>& sizes, std::size_t& next) {
  for (std::size_t i = 0; i < light_pairs; ++i) {
    void* p = malloc_policy::allocate(sizes[next++ % sizes.size()]);
    static_cast<volatile char*>(p)[0] = 1;
    malloc_policy::deallocate(p, 0);
  }
}

// RSS and LazyFree now, `t` seconds after the last free.
retention_reading reading_at(double t, double baseline, double peak) {
  retention_reading r;
  r.t_s = t;
  r.rss_bytes = rss_now();
  r.lazy_free_bytes = parse_lazy_free(read_text("/proc/self/smaps_rollup"));
  r.kept = kept_share(r.rss_bytes, 0, baseline, peak);
  r.kept_unreclaimable = kept_share(r.rss_bytes, r.lazy_free_bytes, baseline, peak);
  return r;
}

// jemalloc's `background_thread` as it reads it back, if it can.
std::optional<std::string> jemalloc_background_thread() {
  const auto readings = mallocs::read_knobs("jemalloc", {"background_thread"});
  if (readings.empty()) return std::nullopt;
  return readings.front().value;
}

}  // namespace

json to_json(const retention_spec& s) {
  json j = {{"mode", "retention"}};
  lab::model::write_fields(s, j);
  return j;
}

retention_spec retention_spec_from_json(const json& j) {
  retention_spec s;
  try {
    lab::model::read_fields(j, s, "");
  } catch (const lab::model::model_error& e) {
    throw std::invalid_argument(std::string("invalid retention spec: ") + e.what());
  }
  if (!(s.horizon_s > 0) || s.horizon_s > 600 || s.iterations == 0 || s.iterations > 100000)
    throw std::invalid_argument("retention spec: need 0 < horizon_s <= 600, 1..100000 iterations");
  return s;
}

std::vector<double> retention_sample_times(double horizon_s) {
  std::vector<double> times;
  for (double t : {0.0,  0.1,  0.25, 0.5,  1.0,  2.0,  3.0,   5.0,   7.5,   10.0,  12.0,
                   15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 300.0, 450.0, 600.0})
    if (t < horizon_s) times.push_back(t);
  times.push_back(horizon_s);
  return times;
}

double parse_lazy_free(const std::string& smaps_rollup) {
  std::istringstream in(smaps_rollup);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("LazyFree:", 0) == 0) return 1024.0 * std::strtod(line.c_str() + 9, nullptr);
  return 0;
}

std::optional<double> kept_share(double rss, double lazy, double baseline, double peak) {
  if (!(peak > baseline)) return std::nullopt;
  return std::clamp((rss - lazy - baseline) / (peak - baseline), 0.0, 1.0);
}

retention_timeline_figures measure_retention(const retention_spec& spec) {
  const std::vector<std::uint32_t> sizes = make_sizes(spec.dist, spec.iterations * 100, spec.seed);
  kernel_config config;
  config.touch = touch_mode::every_page;
  process::reset_peak_rss();
  retention_timeline_figures out;
  out.baseline_rss_bytes = rss_now();
  run_kernel<malloc_policy>(kernel_kind::fifo, sizes, spec.iterations, config);  // drains it all
  const auto last_free = steady::now();
  out.peak_rss_bytes = static_cast<double>(process::read_proc_status().vm_hwm_bytes.value_or(0));
  std::size_t next = 0;
  for (const double t : retention_sample_times(spec.horizon_s)) {
    const auto due =
        last_free + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(t));
    while (steady::now() < due) {
      if (spec.light_load) light_work(sizes, next);
      std::this_thread::sleep_until(std::min(due, steady::now() + light_period));
    }
    out.timeline.push_back(reading_at(t, out.baseline_rss_bytes, out.peak_rss_bytes));
  }
  out.kept = out.timeline.back().kept;
  out.kept_unreclaimable = out.timeline.back().kept_unreclaimable;
  if (spec.malloc_name == "jemalloc") out.background_thread = jemalloc_background_thread();
  return out;
}

}  // namespace alloclab::heap
