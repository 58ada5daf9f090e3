#include "frames/heap/cell.hpp"

#include "text/enum_names.hpp"
#include "frames/heap/figures.hpp"
#include "frames/heap/retention_timeline.hpp"
#include "lockstep/slice_gate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <thread>

#include <alloclab/memory_budget.hpp>

#include "process/proc_memory.hpp"
#include "process/worker_main.hpp"
#include "stats/log2_histogram.hpp"

namespace alloclab::heap {

namespace {

using nlohmann::json;

/// Sizes precomputed per cell; longer runs wrap around this many sizes (64 MiB of uint32).
constexpr std::size_t max_precomputed_sizes = std::size_t{1} << 24;

json summary(const std::vector<double>& samples, std::size_t per_sample, bool keep) {
  json j = json::object();
  j["count"] = samples.size();
  j["pairs_per_sample"] = per_sample;
  if (samples.empty()) return j;
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  auto pct = [&s](double p) {  // nearest rank
    const double rank = std::ceil(p / 100.0 * static_cast<double>(s.size()));
    const std::size_t idx = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
    return s[std::min(idx, s.size() - 1)];
  };
  j["min"] = s.front();
  j["p50"] = pct(50);
  j["p90"] = pct(90);
  j["p99"] = pct(99);
  j["max"] = s.back();
  j["mean"] = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  if (keep) j["samples"] = samples;
  return j;
}

template <class T>
T get_or(const json& j, const char* key, T fallback) {
  if (!j.contains(key)) return fallback;
  return j.at(key).get<T>();
}

}  // namespace

json to_json(const cell_spec& s) {
  return json{
      {"malloc", s.malloc_name},
      {"preload", s.preload},
      {"kernel", std::string(to_string(s.kernel))},
      {"dist", std::string(to_string(s.dist))},
      {"iterations", s.iterations},
      {"repetitions", s.repetitions},
      {"seed", s.seed},
      {"batch", s.config.batch},
      {"capacity", s.config.capacity},
      {"touch", std::string(to_string(s.config.touch))},
      {"touch_stride", s.config.touch_stride},
      {"exponential_mean", s.dist_params.exponential_mean},
      {"lognormal_mode", s.dist_params.lognormal_mode},
      {"lognormal_sigma", s.dist_params.lognormal_sigma},
      {"keep_samples", s.keep_samples},
      {"settle", s.settle},
  };
}

cell_spec cell_spec_from_json(const json& j) {
  cell_spec s;
  try {
    if (!j.is_object()) throw std::invalid_argument("cell spec is not a JSON object");
    s.malloc_name = j.at("malloc").get<std::string>();
    s.preload = get_or<std::string>(j, "preload", s.preload);
    const auto kernel = parse_kernel_kind(j.at("kernel").get<std::string>());
    if (!kernel)
      throw std::invalid_argument("unknown kernel '" + j.at("kernel").get<std::string>() + "'");
    s.kernel = *kernel;
    const auto dist = parse_size_dist(j.at("dist").get<std::string>());
    if (!dist)
      throw std::invalid_argument("unknown distribution '" + j.at("dist").get<std::string>() + "'");
    s.dist = *dist;
    s.iterations = get_or<std::size_t>(j, "iterations", s.iterations);
    s.repetitions = get_or<std::size_t>(j, "repetitions", s.repetitions);
    s.seed = get_or<std::uint64_t>(j, "seed", s.seed);
    s.config.batch = get_or<std::size_t>(j, "batch", s.config.batch);
    s.config.capacity = get_or<std::size_t>(j, "capacity", s.config.capacity);
    const auto touch_name = get_or<std::string>(j, "touch", std::string(to_string(s.config.touch)));
    const auto touch = parse_touch_mode(touch_name);
    if (!touch) throw std::invalid_argument("unknown touch mode '" + touch_name + "'");
    s.config.touch = *touch;
    s.config.touch_stride = get_or<std::size_t>(j, "touch_stride", s.config.touch_stride);
    s.dist_params.exponential_mean =
        get_or<double>(j, "exponential_mean", s.dist_params.exponential_mean);
    s.dist_params.lognormal_mode =
        get_or<double>(j, "lognormal_mode", s.dist_params.lognormal_mode);
    s.dist_params.lognormal_sigma =
        get_or<double>(j, "lognormal_sigma", s.dist_params.lognormal_sigma);
    s.keep_samples = get_or<bool>(j, "keep_samples", s.keep_samples);
    s.settle = get_or<bool>(j, "settle", s.settle);
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("invalid cell spec: ") + e.what());
  }
  if ((s.malloc_name == mallocs::custom_malloc_name) == s.preload.empty()) {
    throw std::invalid_argument("a preload path goes with malloc \"custom\", and only with it");
  }
  if (s.iterations == 0 || s.iterations > 100'000'000) {
    throw std::invalid_argument("iterations must be in 1..100000000");
  }
  if (s.repetitions == 0 || s.repetitions > 1000) {
    throw std::invalid_argument("repetitions must be in 1..1000");
  }
  if (s.config.batch == 0 || s.config.capacity < s.config.batch ||
      s.config.capacity > 100'000'000 || s.config.touch_stride == 0) {
    throw std::invalid_argument("need 1 <= batch <= capacity <= 100000000 and touch_stride >= 1");
  }
  return s;
}

namespace {

// What the worker read of its memory, as the results cell reads it back.
lab::heap_memory_reading memory_reading(const memory_figures& m) {
  auto finite = [](double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; };
  lab::heap_memory_reading r;
  r.baseline_rss_bytes = m.baseline_rss_bytes;
  r.peak_rss_bytes = m.peak_rss_bytes;
  r.peak_was_reset = m.peak_was_reset;
  r.rss_after_free_bytes = m.rss_after_free_bytes;
  if (m.settled) {  // a process that did not wait has no settled readings (not zeros)
    r.rss_100ms_after_free_bytes.emplace(m.rss_100ms_after_free_bytes);
    r.rss_1s_after_free_bytes.emplace(m.rss_1s_after_free_bytes);
  }
  r.rss_after_purge_bytes = m.rss_after_purge_bytes;
  r.last_free_ms = m.last_free_ms;
  r.purge_ms = m.purge_ms;
  r.rss_series = process::model_of(m.series);
  r.purge = process::model_of(m.purge);
  r.minor_faults = m.minor_faults;
  r.major_faults = m.major_faults;
  r.fragmentation = finite(m.fragmentation);
  r.fragmentation_net = finite(m.fragmentation_net);
  return r;
}

// The figures of a measured cell: the worker document's "result".
json result_json(const cell_result& r) {
  return json{
      {"ns_per_pair", r.ns_per_pair},
      {"ns_per_pair_reps", r.ns_per_pair_reps},
      {"pairs_per_rep", r.pairs_per_rep},
      {"peak_live_bytes", r.peak_live_bytes},
      {"total_bytes_per_rep", r.total_bytes_per_rep},
      {"checksum", r.checksum},
      {"size_histogram_log2", r.size_histogram_log2},
      {"batch_ns", summary(r.batch_ns, r.spec.config.batch, r.spec.keep_samples)},
      {"noop_batch_ns", summary(r.noop_batch_ns, r.spec.config.batch, r.spec.keep_samples)},
      {"memory", lab::model::write_json(memory_reading(r.memory))},
  };
}

// Measures the cell `r.spec` names into `r`, its malloc proven live.
void measure_cell(cell_result& r) {
  lab::lockstep::slice_gate& gate = lab::lockstep::this_process_gate();  // reads its setting now
  const cell_spec& spec = r.spec;
  const std::size_t wanted = spec.iterations * spec.config.batch;
  const std::vector<std::uint32_t> sizes =
      make_sizes(spec.dist, std::min(wanted, max_precomputed_sizes), spec.seed, spec.dist_params);
  validate_kernel_args(sizes, spec.config);
  r.size_histogram_log2 = lab::trimmed_counts(lab::histogram_of(sizes));
  r.batch_ns.reserve(spec.iterations * spec.repetitions);
  r.noop_batch_ns.reserve(spec.iterations * spec.repetitions);
  // Nothing this function keeps may be allocated between the runs: a small block left at the
  // top of glibc's heap pins everything below it and would be charged to the allocator.
  r.ns_per_pair_reps.reserve(spec.repetitions);

  memory_figures& m = r.memory;
  process::rss_sampler sampler(process::rss_sample_period, process::rss_series_capacity,
                               alloclab::memory_budget::cgroup_usage_file().value_or(""));
  sampler.start();
  m.peak_was_reset = process::reset_peak_rss();
  m.baseline_rss_bytes = process::read_proc_status().vm_rss_bytes.value_or(0);
  const process::fault_counts f0 = process::read_faults();
  for (std::size_t rep = 0; rep < spec.repetitions; ++rep) {
    gate.begin();  // one repetition is one slice of a lockstep ring (a no-op outside one)
    const kernel_result noop =
        run_kernel<noop_policy>(spec.kernel, sizes, spec.iterations, spec.config);
    const kernel_result real =
        run_kernel<malloc_policy>(spec.kernel, sizes, spec.iterations, spec.config);
    if (rep == 0) {
      r.checksum = real.checksum;
      r.pairs_per_rep = real.pairs;
      r.peak_live_bytes = real.peak_live_bytes;
      r.total_bytes_per_rep = real.total_bytes;
    } else if (real.checksum != r.checksum) {
      throw std::runtime_error("heap cell: checksum differs between repetitions");
    }
    r.ns_per_pair_reps.push_back(ns_per_pair(real.total_ns, noop.total_ns, real.pairs));
    r.batch_ns.insert(r.batch_ns.end(), real.batch_ns.begin(), real.batch_ns.end());
    r.noop_batch_ns.insert(r.noop_batch_ns.end(), noop.batch_ns.begin(), noop.batch_ns.end());
    gate.end();
  }
  gate.finish();
  const auto last_free = std::chrono::steady_clock::now();
  m.last_free_ms = sampler.now_ms();
  const process::fault_counts f1 = process::read_faults();
  const process::proc_status after_free = process::read_proc_status();
  m.minor_faults = f1.minor - f0.minor;
  m.major_faults = f1.major - f0.major;
  m.peak_rss_bytes = after_free.vm_hwm_bytes.value_or(0);
  m.rss_after_free_bytes = after_free.vm_rss_bytes.value_or(0);
  if (spec.settle) {
    std::this_thread::sleep_until(last_free + retention_delays[0]);
    m.rss_100ms_after_free_bytes = process::read_proc_status().vm_rss_bytes.value_or(0);
    std::this_thread::sleep_until(last_free + retention_delays[1]);
    m.rss_1s_after_free_bytes = process::read_proc_status().vm_rss_bytes.value_or(0);
    m.settled = true;
  }
  m.purge_ms = sampler.now_ms();
  m.purge = mallocs::purge_live_malloc();  // a custom library without a known entry point: "none"
  m.rss_after_purge_bytes = process::read_proc_status().vm_rss_bytes.value_or(0);
  sampler.stop();
  m.series = sampler.series();
  m.fragmentation = process::fragmentation(m.peak_rss_bytes, r.peak_live_bytes);
  m.fragmentation_net =
      process::fragmentation(m.peak_rss_bytes, r.peak_live_bytes, m.baseline_rss_bytes);
  r.ns_per_pair = std::accumulate(r.ns_per_pair_reps.begin(), r.ns_per_pair_reps.end(), 0.0) /
                  static_cast<double>(r.ns_per_pair_reps.size());
  r.measured = true;
}

// The cell's name for the process hooks: "<kernel>_<dist>/malloc@<malloc label>".
std::string cell_id(const cell_spec& spec) {
  return std::string(to_string(spec.kernel)) + "_" + std::string(to_string(spec.dist)) +
         "/malloc@" + mallocs::named_malloc_label(spec.malloc_name, spec.preload);
}

process::worker_cell worker_cell_of(const cell_spec& spec) {
  process::worker_cell cell;
  cell.id = cell_id(spec);
  cell.prove = [spec] { return mallocs::prove_named(spec.malloc_name, spec.preload); };
  cell.head = {{"schema", cell_schema}, {"spec", to_json(spec)}};
  cell.measure = [spec] {
    cell_result r;
    r.spec = spec;
    measure_cell(r);
    return json{{"result", result_json(r)}};
  };
  return cell;
}

// A retention timeline (retention_timeline.hpp): "retention_<dist>/<malloc>".
process::worker_cell retention_worker_cell(const retention_spec& spec) {
  process::worker_cell cell;
  cell.id = "retention_" + std::string(to_string(spec.dist)) + "/malloc@" + spec.malloc_name;
  cell.prove = [spec] { return mallocs::prove_named(spec.malloc_name, ""); };
  cell.head = {{"schema", "alloclab.heap.retention/1"}, {"spec", to_json(spec)}};
  cell.measure = [spec] {
    return lab::model::write_json(retention_worker_result{measure_retention(spec)});
  };
  return cell;
}

}  // namespace

json to_json(const cell_result& r) {
  json j{{"schema", cell_schema},
         {"spec", to_json(r.spec)},
         {"live_allocator", process::to_json(r.live)},
         {"measured", r.measured}};
  if (r.measured)
    j["result"] = result_json(r);
  else
    j["error"] = "allocator '" + r.spec.malloc_name + "' not proven live: " + r.live.detail;
  return j;
}

cell_result run_cell(const cell_spec& spec) {
  cell_result r;
  r.spec = spec;
  r.live = mallocs::prove_named(spec.malloc_name, spec.preload);
  if (r.live.ok) measure_cell(r);  // else refuse: no numbers for an allocator not the live one
  return r;
}

int heap_worker_main(std::string_view spec_json, std::ostream& out, std::ostream& err,
                     const std::function<void(const std::string&)>& before_measuring) {
  const process::worker_entry entry{
      "heap worker",
      [](const json& spec) {
        const std::string mode = spec.is_object() ? spec.value("mode", "") : std::string();
        if (mode == "retention") return retention_worker_cell(retention_spec_from_json(spec));
        if (mode == "simulate")
          return simulated_worker_cell(cell_spec_from_json(spec),
                                       spec.at("warmup").get<std::size_t>());
        return worker_cell_of(cell_spec_from_json(spec));
      },
      before_measuring};
  return process::run_worker_main(entry, spec_json, out, err);
}

}  // namespace alloclab::heap
