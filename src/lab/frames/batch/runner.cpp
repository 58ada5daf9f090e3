#include "frames/batch/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <memory>
#include <new>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "lockstep/slice_gate.hpp"
#include "measure/address_residues.hpp"
#include "measure/keep_alive.hpp"
#include "measure/contention_reference.hpp"
#include "measure/heap_counter.hpp"
#include "measure/os_stats.hpp"
#include "plan/budget.hpp"
#include "stats/stats.hpp"
#include "strategies/sizing.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
namespace {

// A known extra cost, for validating how the lab decides (bench/lockstep_validation.py): the
// share of each timed batch's own time that ALLOCLAB_INJECT_PERCENT adds to it (0: none).
double injected_share() {
  static const double share = [] {
    const char* value = std::getenv("ALLOCLAB_INJECT_PERCENT");
    const double percent = value != nullptr ? std::atof(value) : 0.0;
    return percent > 0 && percent < 1000 ? percent / 100 : 0.0;
  }();
  return share;
}

// Spins until the time since `start` has grown by `share` of itself.
void spin_for_share(lab_clock::time_point start, double share) {
  const auto worked = lab_clock::now() - start;
  const auto until =
      start + worked + std::chrono::duration_cast<lab_clock::duration>(worked * share);
  while (lab_clock::now() < until) {
  }
}

// A strategy seen through a residue-recording resource (polymorphic kinds; the arena_static
// kind calls its arena directly, so its blocks are not seen). Used in the counted pass only.
class recording_source final : public iteration_source {
 public:
  recording_source(iteration_source& inner, address_residue_recorder& recorder)
      : inner_(inner), recording_(&recorder, inner.resource()) {}
  allocator_kind kind() const override { return inner_.kind(); }
  std::pmr::memory_resource* resource() override {
    return inner_.resource() != nullptr ? &recording_ : nullptr;
  }
  alloclab::arena_resource* arena() override { return inner_.arena(); }
  alloclab::multipool_resource* multipool() override { return inner_.multipool(); }
  void end_iteration() override { inner_.end_iteration(); }

 private:
  iteration_source& inner_;
  residue_recording_resource recording_;
};

// One workload x strategy cell and everything needed to measure it.
class cell {
 public:
  cell(const workload_entry& workload, const strategy_entry& strategy, const void* input,
       const workload_footprint& footprint, cell_measurement& out)
      : workload_(workload), strategy_(strategy), input_(input), out_(out) {
    out_.strategy = strategy.name;
    std::string why_not = thread_safety_reason(strategy, workload.threads);
    if (why_not.empty()) why_not = strategy.not_applicable(footprint);
    if (!why_not.empty()) {
      out_.status = cell_status::not_applicable;
      out_.reason = std::move(why_not);
      return;
    }
    instance_ = strategy.make(footprint);
    out_.buffer_bytes = instance_->buffer_bytes();
  }

  bool active() const { return out_.status == cell_status::ok; }
  const cell_measurement& result() const { return out_; }

  // Untimed: checksum, heap allocations, upstream fallbacks and block addresses per iteration.
  void counted_pass(std::size_t iterations) {
    auto first = run_guarded(1);
    if (!first) return;
    out_.checksum = *first;
    if (!run_guarded(1)) return;  // second warm iteration: pools and caches settle
    const std::uint64_t fallbacks_before = instance_->upstream_fallbacks();
    // Block addresses are recorded on one thread only: multithreaded workloads have none.
    const bool record_addresses = workload_.threads <= 1;
    address_residue_recorder addresses;
    recording_source recorded(*instance_, addresses);
    const scoped_malloc_residue_recording malloc_side(record_addresses ? &addresses : nullptr);
    std::optional<std::uint64_t> sum;
    heap_counting_begin();
    try {
      sum = record_addresses ? workload_.run_batch(input_, recorded, iterations)
                             : workload_.run_batch(input_, *instance_, iterations);
    } catch (const std::bad_alloc& e) {
      heap_counting_end();
      mark_overflowed(e);
      return;
    }
    const heap_usage heap = heap_counting_end();
    verify(*sum, iterations);
    const auto n = static_cast<double>(iterations);
    out_.heap_allocations_per_iteration = static_cast<double>(heap.allocations) / n;
    out_.heap_bytes_per_iteration = static_cast<double>(heap.bytes) / n;
    out_.upstream_fallbacks_per_iteration =
        static_cast<double>(instance_->upstream_fallbacks() - fallbacks_before) / n;
    if (record_addresses) out_.residues = to_json(addresses);
    apply_fallback_rule();
  }

  // Median time of single iterations: decides the batch size.
  double single_iteration_ns() {
    std::vector<double> times;
    for (int i = 0; i < 15 && active(); ++i) {
      auto start = lab_clock::now();
      auto sum = run_guarded(1);
      auto stop = lab_clock::now();
      if (sum) times.push_back(static_cast<double>(elapsed_ns(start, stop)));
    }
    return times.empty() ? 0.0 : percentile(times, 0.5);
  }

  // The samples of each repetition when they are sized by time: from a timed warm-up of at least
  // two batches and a tenth of the target, once per process (0 when the warm-up overflowed), at
  // least `least` (the workload's floor, from its calibration: not this process's warm-up, which
  // a busy moment can slow), at most `most`.
  std::size_t samples_for_target(double target_ns, std::size_t least, std::size_t most,
                                 std::size_t batch) {
    if (sized_samples_ > 0) return sized_samples_;
    std::size_t batches = 0;
    const auto start = lab_clock::now();
    double elapsed = 0;
    while (batches < 2 || (elapsed < target_ns / 10 && batches < 1000)) {
      if (!run_guarded(batch)) return 0;
      ++batches;
      elapsed = static_cast<double>(elapsed_ns(start, lab_clock::now()));
    }
    const double sample_ns = elapsed / static_cast<double>(batches);
    sized_samples_ = std::min(most, samples_for_time(target_ns, sample_ns, least));
    return sized_samples_;
  }

  // One repetition: a reference reading, the warm-up, `samples` timed batches, a second reading.
  void timed_repetition(std::size_t samples, std::size_t batch, contention_reference& reference) {
    const double reference_before_ns = reference.reading();
    const double memory_before_ns = reference.memory_reading();
    const std::size_t warmup_batches = std::max<std::size_t>(2, samples / 20);
    for (std::size_t i = 0; i < warmup_batches; ++i)
      if (!run_guarded(batch)) return;

    std::vector<double> times;
    times.reserve(samples);
    const os_snapshot before = take_os_snapshot();
    try {
      for (std::size_t i = 0; i < samples; ++i) {
        const auto start = lab_clock::now();
        const std::uint64_t sum = workload_.run_batch(input_, *instance_, batch);
        if (injected_share() > 0) spin_for_share(start, injected_share());
        const auto stop = lab_clock::now();
        keep(sum);
        verify(sum, batch);
        times.push_back(static_cast<double>(elapsed_ns(start, stop)) / static_cast<double>(batch));
      }
    } catch (const std::bad_alloc& e) {
      mark_overflowed(e);
      return;
    }
    const os_snapshot after = take_os_snapshot();
    out_.repetition_reference_before_ns.push_back(reference_before_ns);
    out_.repetition_reference_after_ns.push_back(reference.reading());
    out_.repetition_memory_reference_before_ns.push_back(memory_before_ns);
    out_.repetition_memory_reference_after_ns.push_back(reference.memory_reading());
    out_.minor_faults += after.minor_faults - before.minor_faults;
    out_.peak_rss_growth_kib += after.peak_rss_kib - before.peak_rss_kib;
    out_.timed_iterations += samples * batch;
    out_.repetition_medians_ns.push_back(percentile(times, 0.5));
    out_.repetition_p99_ns.push_back(percentile(times, 0.99));
    const summary s = summarize(times);
    out_.repetition_means_ns.push_back(s.mean);
    out_.repetition_cv.push_back(s.cv);
    out_.samples_ns.insert(out_.samples_ns.end(), times.begin(), times.end());
  }

 private:
  // Runs iterations; an arena that refuses to grow ends the cell (no number), not the run.
  std::optional<std::uint64_t> run_guarded(std::size_t iterations) {
    try {
      const std::uint64_t sum = workload_.run_batch(input_, *instance_, iterations);
      keep(sum);
      return sum;
    } catch (const std::bad_alloc& e) {
      mark_overflowed(e);
      return std::nullopt;
    }
  }

  void mark_overflowed(const std::bad_alloc& e) {
    instance_->end_iteration();
    out_.status = cell_status::overflowed;
    out_.reason = fmt::format("buffer of {} B exhausted ({}); no number reported",
                              out_.buffer_bytes, e.what());
    out_.samples_ns.clear();
    out_.repetition_medians_ns.clear();
    out_.repetition_p99_ns.clear();
    out_.repetition_means_ns.clear();
    out_.repetition_cv.clear();
    out_.repetition_reference_before_ns.clear();
    out_.repetition_reference_after_ns.clear();
    out_.repetition_memory_reference_before_ns.clear();
    out_.repetition_memory_reference_after_ns.clear();
  }

  void verify(std::uint64_t sum, std::size_t iterations) const {
    if (sum != out_.checksum * iterations)
      throw checksum_mismatch(
          fmt::format("workload {} under strategy {} is not deterministic: "
                      "{} iterations summed to {:#x}, expected {} x {:#x}",
                      workload_.name, strategy_.name, iterations, sum, iterations, out_.checksum));
  }

  void apply_fallback_rule() {
    const bool touched_heap =
        out_.heap_allocations_per_iteration > 0 || out_.upstream_fallbacks_per_iteration > 0;
    if (!touched_heap) return;
    if (strategy_.fallbacks == fallback_rule::forbidden) {
      out_.status = cell_status::overflowed;
      out_.reason = fmt::format(
          "buffer of {} B overflowed: {:.1f} upstream fallbacks and {:.1f} heap "
          "allocations per iteration; no number reported",
          out_.buffer_bytes, out_.upstream_fallbacks_per_iteration,
          out_.heap_allocations_per_iteration);
    } else if (strategy_.fallbacks == fallback_rule::expected_warning) {
      out_.warning = fmt::format("{} B buffer fell back to the heap {:.1f} times per iteration",
                                 out_.buffer_bytes, out_.upstream_fallbacks_per_iteration);
    }
  }

  const workload_entry& workload_;
  const strategy_entry& strategy_;
  const void* input_;
  cell_measurement& out_;
  std::unique_ptr<strategy_instance> instance_;
  std::size_t sized_samples_ = 0;
};

struct workload_state {
  const workload_entry* entry = nullptr;
  prepared_input input;
  std::vector<std::unique_ptr<cell>> cells;
};

// The checksum every strategy must reproduce: the baseline's when it ran, else the first cell's.
void check_checksums(workload_measurement& w) {
  const cell_measurement* reference = nullptr;
  for (const auto& c : w.cells) {
    if (c.status == cell_status::not_applicable ||
        (c.status == cell_status::overflowed && c.checksum == 0))
      continue;
    if (!reference || c.strategy == baseline_strategy) reference = &c;
    if (c.strategy == baseline_strategy) break;
  }
  if (!reference) return;
  w.checksum = reference->checksum;
  for (const auto& c : w.cells) {
    if (c.status != cell_status::ok) continue;
    if (c.checksum != w.checksum)
      throw checksum_mismatch(
          fmt::format("checksum mismatch on workload {}: {} built {:#x} but {} built {:#x}", w.name,
                      reference->strategy, w.checksum, c.strategy, c.checksum));
  }
}

// The fastest active cell's median single iteration, in ns (0 when none ran).
double fastest_iteration_ns(std::vector<std::unique_ptr<cell>>& cells) {
  double fastest = 0;
  for (auto& c : cells) {
    if (!c->active()) continue;
    const double t = c->single_iteration_ns();
    if (t > 0 && (fastest == 0 || t < fastest)) fastest = t;
  }
  return fastest;
}

std::size_t batch_size_for(double fastest, const clock_profile& clock) {
  if (fastest <= 0 || fastest >= clock.batch_threshold_ns()) return 1;
  return static_cast<std::size_t>(std::ceil(clock.batch_threshold_ns() / fastest));
}

}  // namespace

calibration calibrate_workload(const std::string& name, std::uint64_t seed) {
  const workload_entry* entry = find_workload(name);
  if (entry == nullptr) throw std::invalid_argument("unknown workload " + name);
  calibration result;
  result.clock = measure_clock();
  const prepared_input input = entry->prepare(seed);
  result.footprint = measure_footprint(*entry, input.get());
  cell_measurement measured;
  std::vector<std::unique_ptr<cell>> cells;
  cells.push_back(std::make_unique<cell>(*entry, *find_strategy(baseline_strategy), input.get(),
                                         result.footprint, measured));
  cells.front()->counted_pass(2);
  result.checksum = measured.checksum;
  result.iteration_ns = fastest_iteration_ns(cells);
  result.batch_size = batch_size_for(result.iteration_ns, result.clock);
  return result;
}

run_measurement run_suite(const run_config& config, const progress_callback& progress) {
  const auto started = lab_clock::now();
  run_measurement run;
  run.config = config;
  run.clock = measure_clock();

  std::vector<workload_state> states(config.workloads.size());
  run.workloads.resize(config.workloads.size());
  const std::size_t cells_total = config.workloads.size() * config.strategies.size();

  for (std::size_t w = 0; w < config.workloads.size(); ++w) {
    workload_state& state = states[w];
    workload_measurement& out = run.workloads[w];
    state.entry = find_workload(config.workloads[w]);
    out.name = state.entry->name;
    out.description = state.entry->description;
    progress({0, config.repetitions, w * config.strategies.size(), cells_total,
              "preparing " + out.name});
    state.input = state.entry->prepare(config.seed);
    out.footprint = measure_footprint(*state.entry, state.input.get());
    out.cells.resize(config.strategies.size());
    for (std::size_t s = 0; s < config.strategies.size(); ++s) {
      const strategy_entry* strategy = find_strategy(config.strategies[s]);
      state.cells.push_back(std::make_unique<cell>(*state.entry, *strategy, state.input.get(),
                                                   out.footprint, out.cells[s]));
      if (state.cells.back()->active()) state.cells.back()->counted_pass(config.counted_iterations);
    }
    check_checksums(out);
    out.batch_size = config.batch_size > 0
                         ? config.batch_size
                         : batch_size_for(fastest_iteration_ns(state.cells), run.clock);
  }

  contention_reference reference;
  lockstep::slice_gate& gate = lockstep::this_process_gate();
  std::mt19937_64 shuffler(config.order_seed);
  std::vector<std::size_t> workload_order(states.size());
  for (std::size_t i = 0; i < workload_order.size(); ++i) workload_order[i] = i;
  for (std::size_t rep = 1; rep <= config.repetitions; ++rep) {
    std::shuffle(workload_order.begin(), workload_order.end(), shuffler);
    std::size_t done = 0;
    for (std::size_t w : workload_order) {
      std::vector<cell*> order;
      for (auto& c : states[w].cells) order.push_back(c.get());
      std::shuffle(order.begin(), order.end(), shuffler);
      progress({rep, config.repetitions, done, cells_total, run.workloads[w].name});
      const std::size_t batch = run.workloads[w].batch_size;
      for (cell* c : order) {
        if (!c->active()) continue;
        // One repetition is one slice of a lockstep ring (a no-op outside one).
        gate.begin(states[w].entry->threads <= 1);
        const std::size_t samples =
            config.repetition_target_ns > 0
                ? c->samples_for_target(config.repetition_target_ns, config.min_samples,
                                        config.samples_per_repetition, batch)
                : config.samples_per_repetition;
        if (c->active()) c->timed_repetition(samples, batch, reference);
        gate.end();
      }
      done += order.size();
    }
  }
  gate.finish();
  run.duration_seconds = static_cast<double>(elapsed_ns(started, lab_clock::now())) / 1e9;
  return run;
}

}  // namespace alloclab::lab
