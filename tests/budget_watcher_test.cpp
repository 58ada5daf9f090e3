// Test plan for alloclab/budget_watcher.hpp. Levels are driven deterministically through
// sample_once() and an injected usage_source; the thread tests wait on events, never on time.
//
// | public member | test |
// |---|---|
// | next_budget_level() | next_level_applies_thresholds_and_hysteresis |
// | sample_once(), level(), crossings(), samples(), last_usage(), on_crossing, budget_event | crossings_up_and_down_with_hysteresis |
// | purge_at, purge, purges() | purges_on_upward_crossings_at_or_above_purge_at, purge_at_nullopt_never_purges |
// | default purge (allocator_purge::find()) | default_purge_is_the_live_allocators |
// | failed_samples() | an_unreadable_sample_changes_nothing |
// | callback_errors() | throwing_callbacks_are_counted_not_propagated |
// | constructor validation | rejects_budgets_without_a_limit_and_bad_thresholds |
// | start(), running(), stop() | thread_samples_until_stopped |
// | stop() from a callback, start() again | stop_from_a_callback_then_restart |
// | start() from a callback | start_from_a_callback_throws |
// | stop() from a callback of sample_once() | stop_from_a_callback_of_sample_once_does_not_deadlock |
// | huge periods | huge_periods_wait_instead_of_overflowing |
// | options() reused for another watcher | options_build_an_independent_watcher |
// | destructor | destructor_stops_a_running_watcher |
// | fork() behaviour | forked_child_has_no_watcher_thread_and_builds_its_own |
// | budget(), options(), to_string(budget_level) | accessors_and_names |
#include <alloclab/budget_watcher.hpp>
#include <alloclab/build_info.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using alloclab::budget_event;
using alloclab::budget_level;
using alloclab::budget_thresholds;
using alloclab::budget_watcher;
using alloclab::budget_watcher_options;
using alloclab::memory_budget;
using alloclab::next_budget_level;

constexpr std::uint64_t limit = 1000000;

// A budget with a caller limit of `limit` bytes (the "none" fixture has no cgroup).
memory_budget fixed_budget(std::uint64_t bytes = limit) {
  alloclab::memory_budget_options options;
  options.proc_self = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/none/proc_self";
  options.cgroup_root = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/none/sys_fs_cgroup";
  options.caller_limit = bytes;
  return memory_budget::detect(options);
}

// The same, with the usage file of another fixture.
memory_budget fixture_budget(const char* fixture, std::uint64_t bytes = limit) {
  alloclab::memory_budget_options options;
  options.proc_self = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/" + fixture + "/proc_self";
  options.cgroup_root = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/" + fixture + "/sys_fs_cgroup";
  options.caller_limit = bytes;
  return memory_budget::detect(options);
}

// Counts the exits of the threads that called note_this_thread(): a
// thread_local's destructor runs before join() returns, so after a join the
// count says the thread is gone, and without one it (very likely) does not.
struct thread_exits {
  std::shared_ptr<std::atomic<int>> count = std::make_shared<std::atomic<int>>(0);
  void note_this_thread() const {
    struct marker {
      std::shared_ptr<std::atomic<int>> count;
      ~marker() {
        if (count) count->fetch_add(1);
      }
    };
    thread_local marker m;
    if (!m.count) m.count = count;
  }
  int load() const { return count->load(); }
};

// Usage scripted by the test, read by the watcher (possibly from its thread).
struct scripted_usage {
  std::mutex mutex;
  std::optional<std::uint64_t> value = 0;
  void set(std::optional<std::uint64_t> v) {
    std::lock_guard<std::mutex> lock(mutex);
    value = v;
  }
  std::optional<std::uint64_t> get() {
    std::lock_guard<std::mutex> lock(mutex);
    return value;
  }
};

// Collects events; a test can wait for the n-th one.
struct event_log {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<budget_event> events;
  void add(const budget_event& e) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      events.push_back(e);
    }
    changed.notify_all();
  }
  // Waits for `count` events; the deadline only keeps a broken watcher from hanging the suite.
  bool wait_for(std::size_t count) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(60), [&] { return events.size() >= count; });
  }
  std::vector<budget_event> snapshot() {
    std::lock_guard<std::mutex> lock(mutex);
    return events;
  }
};

budget_watcher_options scripted(scripted_usage& usage, event_log& log, int* purges = nullptr) {
  budget_watcher_options options;
  options.usage_source = [&usage] { return usage.get(); };
  options.on_crossing = [&log](const budget_event& e) { log.add(e); };
  options.purge = [purges] {
    if (purges) ++*purges;
    return true;
  };
  return options;
}

TEST(budget_watcher, next_level_applies_thresholds_and_hysteresis) {
  const budget_thresholds t{0.90, 0.97, 0.02};
  using L = budget_level;
  EXPECT_EQ(next_budget_level(L::normal, 0.899, t), L::normal);
  EXPECT_EQ(next_budget_level(L::normal, 0.90, t), L::soft) << "the threshold itself crosses";
  EXPECT_EQ(next_budget_level(L::normal, 0.97, t), L::hard) << "straight to hard";
  EXPECT_EQ(next_budget_level(L::soft, 0.885, t), L::soft) << "inside the hysteresis band";
  EXPECT_EQ(next_budget_level(L::soft, 0.879, t), L::normal);
  EXPECT_EQ(next_budget_level(L::hard, 0.955, t), L::hard) << "inside the band below hard";
  EXPECT_EQ(next_budget_level(L::hard, 0.949, t), L::soft);
  EXPECT_EQ(next_budget_level(L::hard, 0.10, t), L::normal) << "straight down";
  EXPECT_EQ(next_budget_level(L::soft, 0.98, t), L::hard);
  EXPECT_EQ(next_budget_level(L::hard, 5.0, t), L::hard) << "over the limit";
  const budget_thresholds no_band{0.5, 0.8, 0.0};
  EXPECT_EQ(next_budget_level(L::soft, 0.4999, no_band), L::normal);
}

TEST(budget_watcher, crossings_up_and_down_with_hysteresis) {
  scripted_usage usage;
  event_log log;
  int purges = 0;
  budget_watcher watcher{fixed_budget(), scripted(usage, log, &purges)};
  struct step {
    std::uint64_t usage;
    budget_level level;
  };
  const step script[] = {
      {500000, budget_level::normal}, {910000, budget_level::soft},  // up: soft
      {895000, budget_level::soft},   {905000, budget_level::soft},  // hovering: no events
      {879000, budget_level::normal},                                // down past 88%
      {900000, budget_level::soft},   {885000, budget_level::soft},  // up again, band holds
      {980000, budget_level::hard},   {960000, budget_level::hard},  // up: hard; band holds
      {940000, budget_level::soft},   {100000, budget_level::normal},
      {990000, budget_level::hard},  // normal -> hard in one sample: one event
  };
  for (const step& s : script) {
    usage.set(s.usage);
    EXPECT_EQ(watcher.sample_once(), s.level) << "usage " << s.usage;
    EXPECT_EQ(watcher.level(), s.level);
    EXPECT_EQ(watcher.last_usage(), s.usage);
  }
  const std::vector<budget_event> events = log.snapshot();
  const std::vector<std::pair<budget_level, budget_level>> expected = {
      {budget_level::normal, budget_level::soft}, {budget_level::soft, budget_level::normal},
      {budget_level::normal, budget_level::soft}, {budget_level::soft, budget_level::hard},
      {budget_level::hard, budget_level::soft},   {budget_level::soft, budget_level::normal},
      {budget_level::normal, budget_level::hard}};
  ASSERT_EQ(events.size(), expected.size());
  const std::uint64_t expected_samples[] = {2, 5, 6, 8, 10, 11, 12};
  for (std::size_t i = 0; i < events.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(events[i].from, expected[i].first);
    EXPECT_EQ(events[i].to, expected[i].second);
    EXPECT_EQ(events[i].sample, expected_samples[i]);
    EXPECT_EQ(events[i].limit, limit);
    EXPECT_DOUBLE_EQ(events[i].fraction, static_cast<double>(events[i].usage) / limit);
    EXPECT_EQ(events[i].purged, events[i].to > events[i].from) << "purge_at soft: every rise";
  }
  EXPECT_EQ(watcher.samples(), std::size(script));
  EXPECT_EQ(watcher.crossings(), expected.size());
  EXPECT_EQ(purges, 4);
  EXPECT_EQ(watcher.purges(), 4u);
  EXPECT_EQ(watcher.failed_samples(), 0u);
  EXPECT_EQ(watcher.callback_errors(), 0u);
}

TEST(budget_watcher, purges_on_upward_crossings_at_or_above_purge_at) {
  scripted_usage usage;
  event_log log;
  int purges = 0;
  budget_watcher_options options = scripted(usage, log, &purges);
  options.purge_at = budget_level::hard;
  budget_watcher watcher{fixed_budget(), options};
  for (std::uint64_t u : {920000u, 980000u, 800000u, 990000u}) {
    usage.set(u);
    watcher.sample_once();
  }
  const std::vector<budget_event> events = log.snapshot();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_FALSE(events[0].purged) << "soft is below purge_at";
  EXPECT_TRUE(events[1].purged);
  EXPECT_FALSE(events[2].purged) << "never on the way down";
  EXPECT_TRUE(events[3].purged);
  EXPECT_EQ(purges, 2);
}

TEST(budget_watcher, purge_at_nullopt_never_purges) {
  scripted_usage usage;
  event_log log;
  int purges = 0;
  budget_watcher_options options = scripted(usage, log, &purges);
  options.purge_at.reset();
  budget_watcher watcher{fixed_budget(), options};
  usage.set(999999);
  EXPECT_EQ(watcher.sample_once(), budget_level::hard);
  EXPECT_EQ(purges, 0);
  EXPECT_EQ(watcher.purges(), 0u);
}

TEST(budget_watcher, a_purge_reporting_failure_is_not_counted) {
  scripted_usage usage;
  event_log log;
  budget_watcher_options options = scripted(usage, log);
  options.purge = [] { return false; };
  budget_watcher watcher{fixed_budget(), options};
  usage.set(950000);
  watcher.sample_once();
  EXPECT_EQ(watcher.purges(), 0u);
  ASSERT_EQ(log.snapshot().size(), 1u);
  EXPECT_FALSE(log.snapshot()[0].purged);
}

TEST(budget_watcher, default_purge_is_the_live_allocators) {
  scripted_usage usage;
  event_log log;
  budget_watcher_options options;
  options.usage_source = [&usage] { return usage.get(); };
  options.on_crossing = [&log](const budget_event& e) { log.add(e); };
  budget_watcher watcher{fixed_budget(), options};
  usage.set(950000);
  watcher.sample_once();
  const bool purge_exists = alloclab::allocator_purge::find().kind() != alloclab::purge_kind::none;
  ASSERT_EQ(log.snapshot().size(), 1u);
  EXPECT_EQ(log.snapshot()[0].purged, purge_exists) << alloclab::allocator_purge::find().reason();
  EXPECT_EQ(watcher.purges(), purge_exists ? 1u : 0u);
}

TEST(budget_watcher, an_unreadable_sample_changes_nothing) {
  scripted_usage usage;
  event_log log;
  budget_watcher watcher{fixed_budget(), scripted(usage, log)};
  usage.set(950000);
  EXPECT_EQ(watcher.sample_once(), budget_level::soft);
  usage.set(std::nullopt);
  EXPECT_EQ(watcher.sample_once(), budget_level::soft);
  EXPECT_EQ(watcher.failed_samples(), 1u);
  EXPECT_EQ(watcher.samples(), 1u);
  EXPECT_EQ(log.snapshot().size(), 1u);
}

TEST(budget_watcher, reads_the_budgets_usage_by_default) {
  budget_watcher_options options;
  options.purge = [] { return true; };
  // The fixture's statm says 512 pages resident; a limit of 513 pages puts that at 99.8%.
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  budget_watcher watcher{fixed_budget(513 * page), options};
  EXPECT_EQ(watcher.sample_once(), budget_level::hard);
  EXPECT_EQ(watcher.last_usage(), 512 * page);
}

TEST(budget_watcher, throwing_callbacks_are_counted_not_propagated) {
  scripted_usage usage;
  budget_watcher_options options;
  options.usage_source = [&usage] { return usage.get(); };
  options.on_crossing = [](const budget_event&) { throw std::runtime_error("shed failed"); };
  options.purge = []() -> bool { throw std::runtime_error("purge failed"); };
  budget_watcher watcher{fixed_budget(), options};
  usage.set(950000);
  EXPECT_EQ(watcher.sample_once(), budget_level::soft);
  EXPECT_EQ(watcher.callback_errors(), 2u) << "the purge and the callback";
  EXPECT_EQ(watcher.purges(), 0u);
  usage.set(100);
  EXPECT_EQ(watcher.sample_once(), budget_level::normal) << "still watching";
}

TEST(budget_watcher, rejects_budgets_without_a_limit_and_bad_thresholds) {
  alloclab::memory_budget_options nothing;
  nothing.proc_self = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/none/proc_self";
  nothing.cgroup_root = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/none/sys_fs_cgroup";
  EXPECT_THROW(budget_watcher(memory_budget::detect(nothing)), std::invalid_argument);
  EXPECT_THROW(budget_watcher(fixed_budget(0)), std::invalid_argument);
  const budget_thresholds bad[] = {
      {0.97, 0.90, 0.02}, {0.0, 0.5, 0.0}, {0.5, 0.9, 0.5}, {0.5, 0.9, -0.1}};
  for (const budget_thresholds& t : bad) {
    budget_watcher_options options;
    options.thresholds = t;
    EXPECT_THROW(budget_watcher(fixed_budget(), options), std::invalid_argument)
        << t.soft << " " << t.hard << " " << t.hysteresis;
  }
  budget_watcher_options zero_period;
  zero_period.period = std::chrono::milliseconds(0);
  EXPECT_THROW(budget_watcher(fixed_budget(), zero_period), std::invalid_argument);
}

// Regression: the end of this test read samples() twice back to back, so a
// thread still sampling after stop() went unseen. Now stop() must have joined
// the thread, and no sample may start after it returned.
TEST(budget_watcher, thread_samples_until_stopped) {
  scripted_usage usage;
  event_log log;
  thread_exits exits;
  std::atomic<bool> stopped{false};
  std::atomic<int> samples_after_stop{0};
  budget_watcher_options options = scripted(usage, log);
  options.usage_source = [&] {
    exits.note_this_thread();
    if (stopped.load()) samples_after_stop.fetch_add(1);
    return usage.get();
  };
  options.period = std::chrono::milliseconds(1);
  budget_watcher watcher{fixed_budget(), options};
  EXPECT_FALSE(watcher.running());
  usage.set(950000);
  ASSERT_TRUE(watcher.start());
  EXPECT_TRUE(watcher.running());
  EXPECT_FALSE(watcher.start()) << "already running";
  ASSERT_TRUE(log.wait_for(1)) << "the thread never sampled";
  usage.set(100);
  ASSERT_TRUE(log.wait_for(2)) << "the thread stopped sampling";
  watcher.stop();
  stopped.store(true);
  EXPECT_FALSE(watcher.running());
  EXPECT_EQ(exits.load(), 1) << "stop() returned before the thread ended";
  EXPECT_GE(watcher.samples(), 2u);
  watcher.stop();  // idempotent
  EXPECT_EQ(samples_after_stop.load(), 0);
  const std::vector<budget_event> events = log.snapshot();
  EXPECT_EQ(events[0].to, budget_level::soft);
  EXPECT_EQ(events[1].to, budget_level::normal);
}

TEST(budget_watcher, first_sample_is_taken_even_when_stopped_at_once) {
  scripted_usage usage;
  event_log log;
  budget_watcher_options options = scripted(usage, log);
  options.period = std::chrono::hours(1);
  budget_watcher watcher{fixed_budget(), options};
  watcher.start();
  watcher.stop();
  EXPECT_EQ(watcher.samples(), 1u) << "one sample at start, none for the next hour";
}

TEST(budget_watcher, stop_from_a_callback_then_restart) {
  scripted_usage usage;
  event_log log;
  budget_watcher* self = nullptr;
  budget_watcher_options options = scripted(usage, log);
  options.period = std::chrono::milliseconds(1);
  options.on_crossing = [&](const budget_event& e) {
    self->stop();  // only asks: no self-join
    log.add(e);
  };
  budget_watcher watcher{fixed_budget(), options};
  self = &watcher;
  usage.set(950000);
  ASSERT_TRUE(watcher.start());
  ASSERT_TRUE(log.wait_for(1));
  while (watcher.running()) std::this_thread::yield();  // the thread ends after the callback
  usage.set(100);
  ASSERT_TRUE(watcher.start()) << "start() joins the finished thread and starts a new one";
  ASSERT_TRUE(log.wait_for(2));
  watcher.stop();
  EXPECT_EQ(log.snapshot()[1].to, budget_level::normal);
}

TEST(budget_watcher, start_from_a_callback_throws) {
  scripted_usage usage;
  event_log log;
  budget_watcher* self = nullptr;
  std::atomic<int> logic_errors{0};
  budget_watcher_options options = scripted(usage, log);
  options.period = std::chrono::milliseconds(1);
  options.on_crossing = [&](const budget_event& e) {
    try {
      self->start();
    } catch (const std::logic_error&) {
      logic_errors.fetch_add(1);
    }
    log.add(e);
  };
  budget_watcher watcher{fixed_budget(), options};
  self = &watcher;
  usage.set(950000);
  ASSERT_TRUE(watcher.start());
  ASSERT_TRUE(log.wait_for(1));
  watcher.stop();
  EXPECT_EQ(logic_errors.load(), 1);
  EXPECT_EQ(watcher.callback_errors(), 0u);
}

// This test ended with `seen >= 3` right after looping until
// `seen >= 3`. Now it checks what the destructor promises: the thread ended.
TEST(budget_watcher, destructor_stops_a_running_watcher) {
  scripted_usage usage;
  thread_exits exits;
  auto samples_seen = std::make_shared<std::atomic<int>>(0);
  {
    budget_watcher_options options;
    options.period = std::chrono::milliseconds(1);
    options.usage_source = [&usage, &exits, samples_seen] {
      exits.note_this_thread();
      samples_seen->fetch_add(1);
      return usage.get();
    };
    budget_watcher watcher{fixed_budget(), options};
    watcher.start();
    while (samples_seen->load() < 3) std::this_thread::yield();
  }  // joins here; ASan/TSan would see a sample taken after destruction
  EXPECT_EQ(exits.load(), 1) << "the destructor returned before the thread ended";
  EXPECT_EQ(samples_seen.use_count(), 1) << "the watcher's copy of the source is gone";
}

// Regression: options() handed out the default usage source, a lambda
// capturing the watcher; a second watcher built from it sampled the first
// (and read freed memory once the first was gone).
TEST(budget_watcher, options_build_an_independent_watcher) {
  budget_watcher_options defaults;
  defaults.purge = [] { return true; };
  auto first = std::make_unique<budget_watcher>(fixed_budget(), defaults);
  EXPECT_FALSE(first->options().usage_source) << "the default is not an option the caller set";
  // The v2 fixture's cgroup holds 268435456 bytes; the first watcher's budget reads 512 pages.
  budget_watcher second{fixture_budget("v2"), first->options()};
  (void)second.sample_once();
  EXPECT_EQ(second.last_usage(), 268435456u) << "sampled the first watcher's budget";
  first.reset();
  (void)second.sample_once();  // ASan: heap-use-after-free when it samples through `first`
  EXPECT_EQ(second.last_usage(), 268435456u);
  EXPECT_EQ(second.samples(), 2u);
}

// Regression: stop() from a callback of sample_once() on the
// controlling thread joined the watcher thread while holding the sampling
// lock that thread was waiting for.
TEST(budget_watcher, stop_from_a_callback_of_sample_once_does_not_deadlock) {
  std::atomic<std::thread::id> controller{};
  budget_watcher* self = nullptr;
  budget_watcher_options options;
  options.period = std::chrono::milliseconds(1);
  options.purge = [] { return true; };
  // Only the controlling thread sees usage above the threshold, so the crossing is its.
  options.usage_source = [&controller]() -> std::optional<std::uint64_t> {
    return std::this_thread::get_id() == controller.load() ? 950000 : 0;
  };
  options.on_crossing = [&self](const budget_event&) {
    // The watcher thread samples every millisecond: let it block on the lock held here.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    self->stop();
  };
  budget_watcher watcher{fixed_budget(), options};
  self = &watcher;
  ASSERT_TRUE(watcher.start());
  std::promise<budget_level> sampled;
  std::future<budget_level> level = sampled.get_future();
  std::thread controlling{[&] {
    controller.store(std::this_thread::get_id());
    sampled.set_value(watcher.sample_once());
  }};
  if (level.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::fprintf(stderr, "deadlock: stop() from a callback of sample_once() never returned\n");
    std::_Exit(1);  // the deadlocked threads cannot be joined
  }
  controlling.join();
  EXPECT_EQ(level.get(), budget_level::soft);
  watcher.stop();
  EXPECT_FALSE(watcher.running());
}

// Regression: a huge period overflowed the wait's deadline (UBSan:
// signed overflow) and the thread then sampled in a busy loop.
TEST(budget_watcher, huge_periods_wait_instead_of_overflowing) {
  using std::chrono::milliseconds;
  const milliseconds three_centuries =
      std::chrono::duration_cast<milliseconds>(std::chrono::hours(24 * 365 * 300));
  for (const milliseconds period : {milliseconds::max(), three_centuries}) {
    scripted_usage usage;
    event_log log;
    budget_watcher_options options = scripted(usage, log);
    options.period = period;
    budget_watcher watcher{fixed_budget(), options};
    usage.set(950000);
    ASSERT_TRUE(watcher.start());
    ASSERT_TRUE(log.wait_for(1));
    // Room for a busy loop to show; a waiting thread takes no sample whatever the time.
    std::this_thread::sleep_for(milliseconds(50));
    watcher.stop();
    EXPECT_EQ(watcher.samples(), 1u) << "period " << period.count() << " ms";
  }
}

// Forks while the watcher thread runs; the child checks the documented behaviour and
// reports through its exit code (gtest assertions do not cross fork).
TEST(budget_watcher, forked_child_has_no_watcher_thread_and_builds_its_own) {
  scripted_usage usage;
  event_log log;
  budget_watcher_options options = scripted(usage, log);
  options.period = std::chrono::milliseconds(1);
  budget_watcher watcher{fixed_budget(), options};
  usage.set(950000);
  ASSERT_TRUE(watcher.start());
  ASSERT_TRUE(log.wait_for(1));
  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    int code = 0;
    {
      budget_watcher& inherited = watcher;
      if (inherited.running()) code |= 1;
      try {
        inherited.start();
        code |= 2;
      } catch (const std::logic_error&) {
      }
      try {
        inherited.sample_once();
        code |= 4;
      } catch (const std::logic_error&) {
      }
      budget_watcher_options fresh;
      fresh.period = std::chrono::milliseconds(1);
      fresh.usage_source = [] { return std::optional<std::uint64_t>(990000); };
      fresh.purge = [] { return true; };
      budget_watcher own{fixed_budget(), fresh};
      if (alloclab::build::thread_sanitizer) {
        own.sample_once();  // TSan cannot start threads in a child of a threaded process
      } else {
        if (!own.start()) code |= 8;
        while (own.samples() == 0) std::this_thread::yield();
        own.stop();
      }
      if (own.level() != budget_level::hard) code |= 16;
      inherited.~budget_watcher();  // must return: it frees nothing the fork copied
    }
    ::_exit(code);  // no unwinding: the destroyed copy is not destroyed again
  }
  int status = 0;
  pid_t waited = 0;
  for (int i = 0; i < 6000 && waited == 0; ++i) {  // a hang is the failure; 60 s bounds it
    waited = ::waitpid(child, &status, WNOHANG);
    if (waited == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (waited == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the child hung (destroying an inherited watcher must not block)";
  }
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "bits: 1 running, 2 start, 4 sample_once, 8 own start, 16 own level";
  EXPECT_TRUE(watcher.running()) << "the parent's watcher is untouched";
  watcher.stop();
}

TEST(budget_watcher, accessors_and_names) {
  scripted_usage usage;
  event_log log;
  budget_watcher_options options = scripted(usage, log);
  options.thresholds = {0.5, 0.75, 0.1};
  budget_watcher watcher{fixed_budget(), options};
  EXPECT_EQ(watcher.budget().limit(), limit);
  EXPECT_EQ(watcher.options().thresholds.soft, 0.5);
  EXPECT_EQ(watcher.level(), budget_level::normal);
  EXPECT_STREQ(alloclab::to_string(budget_level::normal), "normal");
  EXPECT_STREQ(alloclab::to_string(budget_level::soft), "soft");
  EXPECT_STREQ(alloclab::to_string(budget_level::hard), "hard");
}

}  // namespace
