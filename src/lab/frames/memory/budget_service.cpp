#include "frames/memory/budget_service.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <alloclab/budget_watcher.hpp>

#include "frames/memory/figures.hpp"
#include "process/measuring_worker.hpp"
#include "frames/memory/process_figures.hpp"
#include "process/proc_memory.hpp"
#include "process/rss_series.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

constexpr std::size_t operations_per_request = 32;
constexpr std::size_t steady_requests = 600;
constexpr std::size_t max_events = 4096;
constexpr std::chrono::milliseconds watcher_period{10};

struct block {
  void* data;
  std::size_t size;
};

// A watcher crossing or a purge by the service, for the event list.
struct budget_record {
  double t_ms = 0;
  const char* kind = "";  // "crossing" or "service_purge"
  budget_level from = budget_level::normal;
  budget_level to = budget_level::normal;
  std::uint64_t usage = 0;
  std::uint64_t usage_after = 0;  // service_purge only
  bool purged = false;
};

budget_event event_of(const budget_record& e, std::uint64_t limit) {
  budget_event out;
  out.t_ms = std::round(e.t_ms * 10) / 10;
  out.kind = e.kind;
  out.from = to_string(e.from);
  out.to = to_string(e.to);
  out.usage_bytes = e.usage;
  if (e.usage_after > 0) out.usage_after_bytes = e.usage_after;
  out.fraction = static_cast<double>(e.usage) / static_cast<double>(limit);
  out.purged = e.purged;
  return out;
}

// The service: a live set of blocks and the phases that move it.
class service {
 public:
  service(std::uint64_t room, std::uint64_t seed) : random_(seed) {
    live_.reserve(room / 2048 + 4096);  // ~4x the blocks expected: no growth mid-run
  }
  ~service() {
    for (const block& b : live_) std::free(b.data);
  }
  service(const service&) = delete;
  service& operator=(const service&) = delete;

  std::uint64_t live_bytes() const { return live_bytes_; }
  double fraction(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(random_);
  }
  enum class phase { grow, shrink, keep };
  // One request: `grow` allocates until the live set reaches `target`, `shrink` frees random
  // blocks down to it, `keep` replaces random blocks one for one. False once it is reached.
  bool request(phase p, std::uint64_t target) {
    for (std::size_t op = 0; op < operations_per_request; ++op) {
      if (p == phase::keep) {
        release_random();
        allocate();
      } else if (p == phase::grow ? live_bytes_ >= target : live_bytes_ <= target) {
        return false;
      } else if (p == phase::grow) {
        allocate();
      } else {
        release_random();
      }
    }
    return true;
  }
  std::uint64_t checksum() const { return checksum_; }

 private:
  void allocate() {
    const double log_size = std::uniform_real_distribution<double>(5, 16)(random_);
    const auto size = static_cast<std::size_t>(std::exp2(log_size));
    void* p = std::malloc(size);
    if (p == nullptr) throw std::bad_alloc();
    std::memset(p, static_cast<int>(live_.size() & 0xff), size);
    checksum_ += size;
    live_.push_back({p, size});
    live_bytes_ += size;
  }
  void release_random() {
    if (live_.empty()) return;
    const std::size_t i = std::uniform_int_distribution<std::size_t>(0, live_.size() - 1)(random_);
    checksum_ += static_cast<const unsigned char*>(live_[i].data)[0];
    live_bytes_ -= live_[i].size;
    std::free(live_[i].data);
    live_[i] = live_.back();
    live_.pop_back();
  }

  std::mt19937_64 random_;
  std::vector<block> live_;
  std::uint64_t live_bytes_ = 0;
  std::uint64_t checksum_ = 0;
};

std::size_t cycles_of(const memory_spec& spec) {
  return spec.quick ? 2 : 6;
}

double peak_in(const heap::rss_series& s, bool cgroup, double from, double to) {
  double peak = 0;
  for (const heap::rss_point& p : s.points)
    if (p.t_ms >= from && p.t_ms <= to)
      peak = std::max(
          peak, cgroup ? static_cast<double>(p.cgroup_bytes) : static_cast<double>(p.rss_bytes));
  return peak;
}

memory_budget budget_for(const memory_spec& spec) {
  memory_budget_options where;
  where.caller_limit = spec.budget_bytes;
  where.prefer_caller_limit = !spec.budget_from_cgroup;
  return memory_budget::detect(where);
}

}  // namespace

double ms_at_or_above(const heap::rss_series& s, bool cgroup, double threshold, double from,
                      double to) {
  double total = 0;
  for (std::size_t i = 0; i + 1 < s.points.size(); ++i) {
    const heap::rss_point& p = s.points[i];
    const double begin = std::max(p.t_ms, from), end = std::min(s.points[i + 1].t_ms, to);
    const double usage =
        cgroup ? static_cast<double>(p.cgroup_bytes) : static_cast<double>(p.rss_bytes);
    if (end > begin && usage >= threshold) total += end - begin;
  }
  return total;
}

json run_budget_service(const memory_spec& spec) {
  const bool trim = spec.strategy == budget_trim_strategy;
  const memory_budget budget = budget_for(spec);
  const bool cgroup_usage =
      budget.source() == budget_source::cgroup_v2 || budget.source() == budget_source::cgroup_v1;
  const std::uint64_t limit = budget.limit();
  const budget_thresholds thresholds;
  const std::optional<std::uint64_t> start_usage = budget.usage();
  if (!start_usage || *start_usage + min_memory_budget_bytes / 2 > limit)
    throw std::runtime_error("the budget (" + std::to_string(limit) +
                             " bytes) leaves no room above the usage at start (" +
                             std::to_string(start_usage.value_or(0)) +
                             " bytes); give a larger --memory-budget");
  const std::uint64_t room = limit - *start_usage;

  heap::rss_sampler sampler(heap::rss_sample_period, heap::rss_series_capacity,
                            cgroup_usage ? budget.usage_path() : std::string());
  std::mutex events_mutex;
  std::vector<budget_record> events;
  events.reserve(max_events);
  // Stamped under the lock, so the list is in time order: the watcher thread and the service
  // record concurrently, and a time read before the lock let a later event land first.
  auto record_event = [&](budget_record e) {
    std::lock_guard<std::mutex> lock(events_mutex);
    e.t_ms = sampler.now_ms();
    if (events.size() < max_events) events.push_back(e);
  };
  budget_watcher_options options;
  options.period = watcher_period;
  options.thresholds = thresholds;
  options.on_crossing = [&](const alloclab::budget_event& e) {
    record_event({0, "crossing", e.from, e.to, e.usage, 0, e.purged});
  };
  std::optional<budget_watcher> watcher;
  if (trim) watcher.emplace(budget, options);
  const allocator_purge purge = allocator_purge::find();

  service svc(room, spec.seed);
  std::vector<double> samples, repetition_seconds, over_soft_ms, over_soft_share, peak_usage;
  std::vector<std::size_t> per_repetition;
  std::vector<std::pair<double, double>> repetition_ms;  // [start, end] on the series clock
  const heap::fault_counts faults_before = heap::read_faults();
  sampler.start();
  if (watcher) watcher->start();
  for (std::size_t rep = 0; rep < spec.repetitions; ++rep) {
    const std::size_t first_sample = samples.size();
    const double rep_start = sampler.now_ms();
    const auto wall_start = steady::now();
    for (std::size_t cycle = 0; cycle < cycles_of(spec); ++cycle) {
      const auto peak =
          static_cast<std::uint64_t>(svc.fraction(0.90, 1.05) * static_cast<double>(room));
      const auto low =
          static_cast<std::uint64_t>(svc.fraction(0.10, 0.30) * static_cast<double>(room));
      auto timed = [&](auto&& body) {
        const auto t0 = steady::now();
        const bool more = body();
        samples.push_back(std::chrono::duration<double, std::nano>(steady::now() - t0).count());
        return more;
      };
      while (timed([&] { return svc.request(service::phase::grow, peak); })) {
      }
      while (timed([&] { return svc.request(service::phase::shrink, low); })) {
      }
      // The quiescent point: a trimming service purges while the watcher says it is over.
      timed([&] {
        if (watcher && watcher->level() != budget_level::normal) {
          const std::uint64_t before = budget.usage().value_or(0);
          const bool ok = purge.run();
          record_event({0, "service_purge", watcher->level(), watcher->level(), before,
                        budget.usage().value_or(0), ok});
        }
        return svc.request(service::phase::keep, low);
      });
      for (std::size_t i = 1; i < steady_requests; ++i)
        timed([&] { return svc.request(service::phase::keep, low); });
    }
    repetition_seconds.push_back(std::chrono::duration<double>(steady::now() - wall_start).count());
    per_repetition.push_back(samples.size() - first_sample);
    repetition_ms.push_back({rep_start, sampler.now_ms()});
  }
  if (watcher) watcher->stop();
  sampler.stop();
  const heap::fault_counts faults_after = heap::read_faults();
  const heap::rss_series series = sampler.series();

  // Per repetition, from the series: time at or above the soft threshold, and the peak usage.
  const double soft_bytes = thresholds.soft * static_cast<double>(limit);
  for (const auto& [from, to] : repetition_ms) {
    over_soft_ms.push_back(ms_at_or_above(series, cgroup_usage, soft_bytes, from, to));
    over_soft_share.push_back(to > from ? over_soft_ms.back() / (to - from) : 0.0);
    peak_usage.push_back(peak_in(series, cgroup_usage, from, to));
  }

  budget_reading r;
  r.budget_bytes = limit;
  r.budget_source = to_string(budget.source());
  r.budget_reason = budget.reason();
  r.usage_source = cgroup_usage ? budget.usage_path() : std::string("RSS (/proc/self/statm)");
  r.soft_fraction = thresholds.soft;
  r.hard_fraction = thresholds.hard;
  r.usage_at_start_bytes = *start_usage;
  r.room_bytes = room;
  r.cycles_per_repetition = cycles_of(spec);
  r.watcher = trim;
  r.watcher_period_ms = watcher_period.count();
  r.purge_method = trim ? to_string(purge.kind()) : "none (no watcher)";
  r.time_over_soft_ms = over_soft_ms;
  r.time_over_soft_share = over_soft_share;
  r.peak_usage_bytes = peak_usage;
  {
    std::lock_guard<std::mutex> lock(events_mutex);
    for (const budget_record& e : events) {
      r.events.push_back(event_of(e, limit));
      const bool crossing = std::strcmp(e.kind, "crossing") == 0;
      r.crossings += crossing ? 1 : 0;
      r.service_purges += crossing ? 0 : 1;
      r.watcher_purges += crossing && e.purged ? 1 : 0;
    }
    r.events_dropped = events.size() >= max_events;
  }
  r.minor_faults = faults_after.minor - faults_before.minor;
  r.major_faults = faults_after.major - faults_before.major;
  r.checksum = svc.checksum();
  return memory_figures{repetition_seconds,    samples,
                        per_repetition,        operations_per_request,
                        heap::to_json(series), model::write_json(r)};
}

}  // namespace alloclab::lab
