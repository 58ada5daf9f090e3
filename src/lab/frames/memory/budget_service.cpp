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

double peak_in(const process::rss_series& s, bool cgroup, double from, double to) {
  double peak = 0;
  for (const process::rss_point& p : s.points)
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

// The watcher's crossings and the service's purges, at most max_events.
class event_log {
 public:
  explicit event_log(const process::rss_sampler& sampler) : sampler_(sampler) {
    events_.reserve(max_events);
  }
  // Stamped under the lock, so the list is in time order: the watcher thread and the service
  // record concurrently, and a time read before the lock let a later event land first.
  void record(budget_record e) {
    std::lock_guard<std::mutex> lock(mutex_);
    e.t_ms = sampler_.now_ms();
    if (events_.size() < max_events) events_.push_back(e);
  }
  // The events and their counts by kind.
  void add_to(budget_reading& r, std::uint64_t limit) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const budget_record& e : events_) {
      r.events.push_back(event_of(e, limit));
      const bool crossing = std::strcmp(e.kind, "crossing") == 0;
      r.crossings += crossing ? 1 : 0;
      r.service_purges += crossing ? 0 : 1;
      r.watcher_purges += crossing && e.purged ? 1 : 0;
    }
    r.events_dropped = events_.size() >= max_events;
  }

 private:
  const process::rss_sampler& sampler_;
  mutable std::mutex mutex_;
  std::vector<budget_record> events_;
};

// The service's timed requests: each one's nanoseconds, and per repetition its wall time, its
// number of samples and its span on the series clock.
struct service_timing {
  std::vector<double> samples, repetition_seconds;
  std::vector<std::size_t> per_repetition;
  std::vector<std::pair<double, double>> repetition_ms;  // [start, end]

  template <class Request>
  bool timed(Request&& request) {
    const auto t0 = steady::now();
    const bool more = request();
    samples.push_back(std::chrono::duration<double, std::nano>(steady::now() - t0).count());
    return more;
  }
};

// One cycle: grow to a random peak near the room, shrink to a random low, then steady requests
// at the low, the first of them after `at_quiescent_point`.
template <class Action>
void run_cycle(service& svc, std::uint64_t room, service_timing& timing,
               const Action& at_quiescent_point) {
  const auto peak =
      static_cast<std::uint64_t>(svc.fraction(0.90, 1.05) * static_cast<double>(room));
  const auto low = static_cast<std::uint64_t>(svc.fraction(0.10, 0.30) * static_cast<double>(room));
  while (timing.timed([&] { return svc.request(service::phase::grow, peak); })) {
  }
  while (timing.timed([&] { return svc.request(service::phase::shrink, low); })) {
  }
  timing.timed([&] {
    at_quiescent_point();
    return svc.request(service::phase::keep, low);
  });
  for (std::size_t i = 1; i < steady_requests; ++i)
    timing.timed([&] { return svc.request(service::phase::keep, low); });
}

template <class Action>
service_timing run_repetitions(const memory_spec& spec, service& svc, std::uint64_t room,
                               const process::rss_sampler& sampler,
                               const Action& at_quiescent_point) {
  service_timing timing;
  for (std::size_t rep = 0; rep < spec.repetitions; ++rep) {
    const std::size_t first_sample = timing.samples.size();
    const double rep_start = sampler.now_ms();
    const auto wall_start = steady::now();
    for (std::size_t cycle = 0; cycle < cycles_of(spec); ++cycle)
      run_cycle(svc, room, timing, at_quiescent_point);
    timing.repetition_seconds.push_back(
        std::chrono::duration<double>(steady::now() - wall_start).count());
    timing.per_repetition.push_back(timing.samples.size() - first_sample);
    timing.repetition_ms.push_back({rep_start, sampler.now_ms()});
  }
  return timing;
}

// Per repetition, from the series: time at or above the soft threshold, and the peak usage.
void add_usage_by_repetition(budget_reading& r, const process::rss_series& series,
                             bool cgroup_usage, double soft_bytes,
                             const std::vector<std::pair<double, double>>& repetition_ms) {
  for (const auto& [from, to] : repetition_ms) {
    r.time_over_soft_ms.push_back(ms_at_or_above(series, cgroup_usage, soft_bytes, from, to));
    r.time_over_soft_share.push_back(to > from ? r.time_over_soft_ms.back() / (to - from) : 0.0);
    r.peak_usage_bytes.push_back(peak_in(series, cgroup_usage, from, to));
  }
}

// The usage at start, when the budget leaves room above it for the service.
std::uint64_t usage_with_room(const memory_budget& budget) {
  const std::uint64_t limit = budget.limit();
  const std::optional<std::uint64_t> start_usage = budget.usage();
  if (!start_usage || *start_usage + min_memory_budget_bytes / 2 > limit)
    throw std::runtime_error("the budget (" + std::to_string(limit) +
                             " bytes) leaves no room above the usage at start (" +
                             std::to_string(start_usage.value_or(0)) +
                             " bytes); give a larger --memory-budget");
  return *start_usage;
}

// The budget's limit, where it came from, how usage is read and the thresholds.
void describe_budget(budget_reading& r, const memory_budget& budget, bool cgroup_usage,
                     const budget_thresholds& thresholds) {
  r.budget_bytes = budget.limit();
  r.budget_source = to_string(budget.source());
  r.budget_reason = budget.reason();
  r.usage_source = cgroup_usage ? budget.usage_path() : std::string("RSS (/proc/self/statm)");
  r.soft_fraction = thresholds.soft;
  r.hard_fraction = thresholds.hard;
}

}  // namespace

double ms_at_or_above(const process::rss_series& s, bool cgroup, double threshold, double from,
                      double to) {
  double total = 0;
  for (std::size_t i = 0; i + 1 < s.points.size(); ++i) {
    const process::rss_point& p = s.points[i];
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
  const std::uint64_t start_usage = usage_with_room(budget);
  const std::uint64_t room = limit - start_usage;

  process::rss_sampler sampler(process::rss_sample_period, process::rss_series_capacity,
                               cgroup_usage ? budget.usage_path() : std::string());
  event_log events(sampler);
  budget_watcher_options options;
  options.period = watcher_period;
  options.thresholds = thresholds;
  options.on_crossing = [&](const alloclab::budget_event& e) {
    events.record({0, "crossing", e.from, e.to, e.usage, 0, e.purged});
  };
  std::optional<budget_watcher> watcher;
  if (trim) watcher.emplace(budget, options);
  const allocator_purge purge = allocator_purge::find();
  // The quiescent point: a trimming service purges while the watcher says it is over.
  const auto purge_when_over = [&] {
    if (!watcher || watcher->level() == budget_level::normal) return;
    const std::uint64_t before = budget.usage().value_or(0);
    const bool ok = purge.run();
    events.record({0, "service_purge", watcher->level(), watcher->level(), before,
                   budget.usage().value_or(0), ok});
  };

  service svc(room, spec.seed);
  const process::fault_counts faults_before = process::read_faults();
  sampler.start();
  if (watcher) watcher->start();
  const service_timing timing = run_repetitions(spec, svc, room, sampler, purge_when_over);
  if (watcher) watcher->stop();
  sampler.stop();
  const process::fault_counts faults_after = process::read_faults();
  const process::rss_series series = sampler.series();

  budget_reading r;
  describe_budget(r, budget, cgroup_usage, thresholds);
  r.usage_at_start_bytes = start_usage;
  r.room_bytes = room;
  r.cycles_per_repetition = cycles_of(spec);
  r.watcher = trim;
  r.watcher_period_ms = watcher_period.count();
  r.purge_method = trim ? to_string(purge.kind()) : "none (no watcher)";
  add_usage_by_repetition(r, series, cgroup_usage, thresholds.soft * static_cast<double>(limit),
                          timing.repetition_ms);
  events.add_to(r, limit);
  r.minor_faults = faults_after.minor - faults_before.minor;
  r.major_faults = faults_after.major - faults_before.major;
  r.checksum = svc.checksum();
  return memory_figures{timing.repetition_seconds, timing.samples,           timing.per_repetition,
                        operations_per_request,    process::to_json(series), model::write_json(r)};
}

}  // namespace alloclab::lab
