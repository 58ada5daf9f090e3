// alloclab/budget_watcher.hpp: samples memory usage against a memory_budget on
// a thread and acts near the limit (the "LinuxMemoryChecker" pattern).
//
// Every `period` the watcher reads the usage, places usage / limit in a level
// (normal < soft at 90% < hard at 97% by default) and, when the level changes,
// purges the live malloc (allocator_purge.hpp; on crossing up into `purge_at`
// or above) and then calls `on_crossing`, the caller's hook for shedding load.
// Going down needs the fraction to fall `hysteresis` below a threshold, so a
// usage hovering at 90% does not fire on every sample. One sample makes at
// most one event, even when it jumps from normal straight to hard.
//
// Lifecycle:
// - start() takes the first sample at once on a new thread, then one per
//   period (a period too long for the clock waits forever); it returns false
//   if already running, and throws std::logic_error from a callback. Call
//   start() and stop() from one controlling thread.
// - stop() wakes the thread and joins it. From a callback (on the watcher
//   thread, or in sample_once() on any thread) it only asks the thread to
//   finish; the join happens in the next start(), stop() or the destructor.
//   The destructor calls stop().
// - sample_once() takes one sample on the caller's thread (tests drive the
//   levels with it and an injected usage_source); callbacks run under the
//   sampling lock, so they must not call sample_once().
// - fork(): the child has no watcher thread. Its copy of the watcher is inert:
//   running() is false, start() and sample_once() throw std::logic_error, and
//   destruction frees none of the thread, mutexes and condition variable the
//   fork copied (the parent's thread may have held them; destroying them
//   could block forever). A child that wants a watcher constructs a new one.
// - options() returns the options as given: an empty usage_source or purge
//   stays empty (the defaults live in the watcher), so the options can build
//   another watcher that outlives this one.
//
// Example:
//   #include <alloclab/budget_watcher.hpp>
//   #include <cstdio>
//
//   int main() {
//     alloclab::memory_budget_options where;
//     where.caller_limit = std::uint64_t{8} << 30;  // 8 GiB unless a cgroup sets a limit
//     alloclab::budget_watcher_options options;
//     options.period = std::chrono::milliseconds(50);
//     options.on_crossing = [](const alloclab::budget_event& event) {
//       std::printf("%s -> %s at %.1f%% (purged: %d)\n", alloclab::to_string(event.from),
//                   alloclab::to_string(event.to), 100 * event.fraction, event.purged);
//       // Shed load here: refuse new requests, drop caches.
//     };
//     alloclab::budget_watcher watcher{alloclab::memory_budget::detect(where), options};
//     watcher.start();  // samples now, then every 50 ms
//     std::printf("watching: %s\n", watcher.budget().reason().c_str());
//     watcher.stop();
//     return watcher.samples() + watcher.failed_samples() >= 1 ? 0 : 1;
//   }
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "allocator_purge.hpp"
#include "failure.hpp"
#include "memory_budget.hpp"

// Hosted only (a thread, cgroups, fork); it contains its callbacks' exceptions.
#if !ALLOCLAB_EXCEPTIONS
#error "alloclab/budget_watcher.hpp needs exceptions"
#endif

namespace alloclab {

enum class budget_level { normal, soft, hard };

inline const char* to_string(budget_level level) noexcept {
  switch (level) {
    case budget_level::normal:
      return "normal";
    case budget_level::soft:
      return "soft";
    case budget_level::hard:
      return "hard";
  }
  return "unknown";
}

// Fractions of the limit.
struct budget_thresholds {
  double soft = 0.90;
  double hard = 0.97;
  double hysteresis = 0.02;  // going down needs threshold - hysteresis
};

// The level after observing `fraction` at level `current`.
inline budget_level next_budget_level(budget_level current, double fraction,
                                      const budget_thresholds& t) noexcept {
  const auto level_at = [fraction](double soft, double hard) {
    if (fraction >= hard) return budget_level::hard;
    return fraction >= soft ? budget_level::soft : budget_level::normal;
  };
  const budget_level raw = level_at(t.soft, t.hard);
  if (raw >= current) return raw;
  return std::min(current, level_at(t.soft - t.hysteresis, t.hard - t.hysteresis));
}

// One level change, as passed to on_crossing.
struct budget_event {
  budget_level from = budget_level::normal;
  budget_level to = budget_level::normal;
  std::uint64_t usage = 0;
  std::uint64_t limit = 0;
  double fraction = 0;
  std::uint64_t sample = 0;  // 1-based index of the sample that changed the level
  std::chrono::steady_clock::time_point when;
  bool purged = false;  // the purge ran for this crossing and reported success
};

struct budget_watcher_options {
  std::chrono::milliseconds period{100};
  budget_thresholds thresholds;
  // Purge the live malloc when crossing up into this level or above; nullopt: never.
  std::optional<budget_level> purge_at = budget_level::soft;
  std::function<void(const budget_event&)> on_crossing;
  // Bytes in use now; empty: the budget's usage(). nullopt counts a failed sample.
  std::function<std::optional<std::uint64_t>()> usage_source;
  // The purge action; empty: allocator_purge::find().run().
  std::function<bool()> purge;
};

class budget_watcher {
 public:
  // Throws std::invalid_argument for a budget without a finite, non-zero limit
  // or thresholds outside 0 < soft <= hard, 0 <= hysteresis < soft, period > 0.
  explicit budget_watcher(memory_budget budget, budget_watcher_options options = {})
      : budget_(std::move(budget)), options_(std::move(options)) {
    require_valid();
    if (!options_.purge) default_purge_ = allocator_purge::find();
  }

  budget_watcher(const budget_watcher&) = delete;
  budget_watcher& operator=(const budget_watcher&) = delete;

  ~budget_watcher() {
    stop();
    if (in_forked_child()) (void)state_.release();  // see "fork()" above
  }

  // Call start() and stop() from one controlling thread (or stop() from a callback).
  bool start() {
    require_owner("start");
    if (on_watcher_thread())
      throw std::logic_error("alloclab::budget_watcher::start: called from a callback");
    if (running_.load()) return false;
    join_finished_thread();
    {
      std::lock_guard<std::mutex> lock(state_->wake_mutex);
      state_->stop_requested = false;
    }
    running_.store(true);
    try {
      state_->thread = std::thread([this] { run(); });
    } catch (...) {
      running_.store(false);
      throw;
    }
    return true;
  }

  void stop() noexcept {
    if (in_forked_child()) return;
    {
      std::lock_guard<std::mutex> lock(state_->wake_mutex);
      state_->stop_requested = true;
    }
    state_->wake.notify_all();
    if (on_watcher_thread() || in_callback()) return;  // joined later: see "Lifecycle"
    if (state_->thread.joinable()) state_->thread.join();
  }

  // True while the sampling thread runs (false in a forked child).
  bool running() const noexcept { return !in_forked_child() && running_.load(); }

  // Takes one sample now; returns the level after it.
  budget_level sample_once() {
    require_owner("sample_once");
    std::lock_guard<std::mutex> lock(state_->sample_mutex);
    const std::optional<std::uint64_t> usage =
        options_.usage_source ? options_.usage_source() : budget_.usage();
    if (!usage) {
      failed_samples_.fetch_add(1);
      return level_.load();
    }
    const std::uint64_t index = samples_.fetch_add(1) + 1;
    last_usage_.store(*usage);
    const budget_level from = level_.load();
    const double fraction = static_cast<double>(*usage) / static_cast<double>(budget_.limit());
    const budget_level to = next_budget_level(from, fraction, options_.thresholds);
    if (to == from) return to;
    level_.store(to);
    crossings_.fetch_add(1);
    budget_event event{
        from, to, *usage, budget_.limit(), fraction, index, std::chrono::steady_clock::now(),
        false};
    callback_thread_.store(std::this_thread::get_id());
    if (to > from && options_.purge_at && to >= *options_.purge_at) event.purged = run_purge();
    notify(event);
    callback_thread_.store(std::thread::id());
    return to;
  }

  const memory_budget& budget() const noexcept { return budget_; }
  const budget_watcher_options& options() const noexcept { return options_; }
  budget_level level() const noexcept { return level_.load(); }
  std::uint64_t samples() const noexcept { return samples_.load(); }
  std::uint64_t failed_samples() const noexcept { return failed_samples_.load(); }
  std::uint64_t crossings() const noexcept { return crossings_.load(); }
  std::uint64_t purges() const noexcept { return purges_.load(); }  // purges that succeeded
  std::uint64_t callback_errors() const noexcept { return callback_errors_.load(); }
  std::uint64_t last_usage() const noexcept { return last_usage_.load(); }

 private:
  struct shared_state {
    std::mutex sample_mutex;
    std::mutex wake_mutex;
    std::condition_variable wake;
    bool stop_requested = false;  // guarded by wake_mutex
    std::thread thread;
  };

  void require_valid() const {
    const budget_thresholds& t = options_.thresholds;
    if (budget_.limit() == 0 || budget_.limit() == memory_budget::unlimited)
      throw std::invalid_argument("alloclab::budget_watcher: the budget has no finite limit (" +
                                  budget_.reason() + ")");
    if (!(t.soft > 0 && t.soft <= t.hard && t.hysteresis >= 0 && t.hysteresis < t.soft))
      throw std::invalid_argument(
          "alloclab::budget_watcher: thresholds need 0 < soft <= hard and 0 <= hysteresis < soft");
    if (options_.period.count() <= 0)
      throw std::invalid_argument("alloclab::budget_watcher: the period must be positive");
  }

  bool in_forked_child() const noexcept { return ::getpid() != owner_pid_; }

  void require_owner(const char* what) const {
    if (in_forked_child())
      throw std::logic_error(std::string("alloclab::budget_watcher::") + what +
                             ": this watcher was inherited through fork(); construct a new one");
  }

  void join_finished_thread() {
    if (state_->thread.joinable()) state_->thread.join();
  }

  bool on_watcher_thread() const noexcept {
    return watcher_thread_id_.load() == std::this_thread::get_id();
  }
  // True on the thread running a purge or on_crossing (under sample_mutex).
  bool in_callback() const noexcept {
    return callback_thread_.load() == std::this_thread::get_id();
  }

  // now + period, or the clock's last instant when that does not fit.
  static std::chrono::steady_clock::time_point deadline_after(
      std::chrono::milliseconds period) noexcept {
    using clock = std::chrono::steady_clock;
    const clock::time_point now = clock::now();
    const auto room =
        std::chrono::duration_cast<std::chrono::milliseconds>(clock::time_point::max() - now);
    return period < room ? now + period : clock::time_point::max();
  }

  void run() {
    watcher_thread_id_.store(std::this_thread::get_id());
    std::unique_lock<std::mutex> lock(state_->wake_mutex);
    do {
      lock.unlock();
      sample_safely();
      lock.lock();
      state_->wake.wait_until(lock, deadline_after(options_.period),
                              [this] { return state_->stop_requested; });
    } while (!state_->stop_requested);
    watcher_thread_id_.store(std::thread::id());
    running_.store(false);
  }

  void sample_safely() noexcept {
    try {
      (void)sample_once();
    } catch (...) {
      failed_samples_.fetch_add(1);
    }
  }

  bool run_purge() noexcept {
    bool purged = false;
    try {
      purged = options_.purge ? options_.purge() : default_purge_.run();
    } catch (...) {
      callback_errors_.fetch_add(1);
    }
    if (purged) purges_.fetch_add(1);
    return purged;
  }

  void notify(const budget_event& event) noexcept {
    if (!options_.on_crossing) return;
    try {
      options_.on_crossing(event);
    } catch (...) {
      callback_errors_.fetch_add(1);
    }
  }

  memory_budget budget_;
  budget_watcher_options options_;
  allocator_purge default_purge_;  // used when options_.purge is empty
  const pid_t owner_pid_ = ::getpid();
  std::unique_ptr<shared_state> state_ = std::make_unique<shared_state>();
  std::atomic<bool> running_{false};
  std::atomic<std::thread::id> watcher_thread_id_{};
  std::atomic<std::thread::id> callback_thread_{};
  std::atomic<budget_level> level_{budget_level::normal};
  std::atomic<std::uint64_t> samples_{0};
  std::atomic<std::uint64_t> failed_samples_{0};
  std::atomic<std::uint64_t> crossings_{0};
  std::atomic<std::uint64_t> purges_{0};
  std::atomic<std::uint64_t> callback_errors_{0};
  std::atomic<std::uint64_t> last_usage_{0};
};

}  // namespace alloclab
