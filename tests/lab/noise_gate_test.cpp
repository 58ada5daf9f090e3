// The noise gate (process/noise_gate.hpp) on fixture trees (tests/data/noise/): a busy machine
// and a quiet one, so both sides of the warning are tested on any host; and the run lock
// (process/run_lock.hpp), in process and through `alloclab run`.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "measure/build_guard.hpp"
#include "process/noise_gate.hpp"
#include "process/run_lock.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::string noise_fixture(const std::string& name) {
  return std::string(ALLOCLAB_TEST_DATA) + "/noise/" + name;
}

json gate_of(const std::string& before, const std::string& after, double own_cpu_seconds) {
  const process::noise_probe first(noise_fixture(before)), second(noise_fixture(after));
  process::noise_watch watch(first.settings(), 200);
  watch.add(first.snapshot(0));
  watch.add(second.snapshot(10));
  return model::write_json(watch.gate(own_cpu_seconds));
}

TEST(NoiseGate, ReadsTheSettingsThatMoveTimings) {
  const process::host_settings s = process::noise_probe(noise_fixture("busy_before")).settings();
  EXPECT_EQ(s.governors, (std::vector<std::string>{"performance", "powersave"}));
  ASSERT_TRUE(s.boost.has_value());
  EXPECT_TRUE(*s.boost);
  EXPECT_EQ(s.thp.value_or(""), "madvise");
  EXPECT_EQ(s.aslr.value_or(-1), 2);
  EXPECT_EQ(s.cpus, 2);
  const process::host_settings none =
      process::noise_probe(noise_fixture("quiet_before")).settings();
  EXPECT_TRUE(none.governors.empty());  // a VM without cpufreq: not readable, not guessed
  EXPECT_FALSE(none.boost.has_value());
  EXPECT_FALSE(none.thp.has_value());
  EXPECT_EQ(none.cpus, 1);
}

TEST(NoiseGate, ABusyMachineIsWarnedAboutWithItsBusiestProcesses) {
  // 15 CPU-seconds busy in 10 s, 7 of them this run's: 0.8 CPUs of others; steal 40 of 1940.
  const json g = gate_of("busy_before", "busy_after", 7);
  EXPECT_NEAR(g["during"]["other_cpus"].get<double>(), 0.8, 1e-9);
  EXPECT_NEAR(g["during"]["own_cpus"].get<double>(), 0.7, 1e-9);
  EXPECT_NEAR(g["during"]["steal_share"].get<double>(), 40.0 / 1940, 1e-9);
  EXPECT_NEAR(g["before"]["load_1min"].get<double>(), 2.5, 1e-9);
  EXPECT_TRUE(g["busy"].get<bool>());
  ASSERT_TRUE(g["warning"].is_string());
  EXPECT_NE(g["warning"].get<std::string>().find("0.80 of its 2 CPUs"), std::string::npos)
      << g["warning"];
  // cc1plus 560 ticks; the new process (named with parentheses) all of its 60; this run (pid 200)
  // and its worker (parent 200) are not others.
  ASSERT_EQ(g["busy_processes"].size(), 2u) << g["busy_processes"];
  EXPECT_EQ(g["busy_processes"][0]["name"], "cc1plus");
  EXPECT_NEAR(g["busy_processes"][0]["cpus"].get<double>(), 0.56, 1e-9);
  EXPECT_EQ(g["busy_processes"][1]["name"], "my (odd) name");
}

TEST(NoiseGate, AQuietMachinePassesWithoutAWarning) {
  const json g = gate_of("quiet_before", "quiet_after", 9.8);
  EXPECT_NEAR(g["during"]["other_cpus"].get<double>(), 0.02, 1e-9);
  EXPECT_FALSE(g["busy"].get<bool>());
  EXPECT_TRUE(g["warning"].is_null());
  EXPECT_TRUE(g["busy_processes"].empty());
}

TEST(NoiseGate, OneLookHasNoDuringFigures) {
  const process::noise_probe probe(noise_fixture("busy_before"));
  process::noise_watch watch(probe.settings(), 200);
  watch.add(probe.snapshot(0));
  const json g = model::write_json(watch.gate(1));
  EXPECT_TRUE(g["during"].is_null());
  EXPECT_FALSE(g["busy"].get<bool>());
}

TEST(NoiseGate, ParsersRefuseWhatIsNotTheirFile) {
  EXPECT_FALSE(process::parse_proc_stat("intr 1 2 3").has_value());
  EXPECT_FALSE(process::parse_loadavg("busy").has_value());
  EXPECT_FALSE(process::parse_process_stat("12 no parentheses").has_value());
  EXPECT_EQ(process::bracketed_choice("always madvise [never]").value_or(""), "never");
  const auto old_kernel = process::parse_proc_stat("cpu 1 2 3 4\n");  // no iowait..steal columns
  ASSERT_TRUE(old_kernel.has_value());
  EXPECT_EQ(old_kernel->steal, 0u);
  EXPECT_EQ(old_kernel->total(), 10u);
}

TEST(RunLock, ASecondHolderIsRefusedWithTheFirstsLineUntilItLetsGo) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("alloclab_lock_" + std::to_string(::getpid())))
          .string();
  {
    const process::run_lock first(path, "pid 1, the first run", false);
    try {
      const process::run_lock second(path, "pid 2", false);
      FAIL() << "two holders";
    } catch (const process::lock_busy& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("pid 1, the first run"), std::string::npos) << what;
      EXPECT_NE(what.find("--wait"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
  EXPECT_NO_THROW(process::run_lock(path, "pid 3", false));  // released with its holder
  std::filesystem::remove(path);
}

class RunLockCli : public cli_support::binary_test {};

TEST_F(RunLockCli, ASecondLabRunExitsTwoWithOneLine) {
  const std::string path = (dir_ / "lab.lock").string();
  const process::run_lock held(path, "pid 4242, started now, `alloclab run`", false);
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const cli_support::outcome o =
      run("run --workloads trade_batch --strategies std --iterations 5 --repetitions 1 --out " +
              (dir_ / "r").string() + allow,
          "ALLOCLAB_LOCK_FILE=" + path);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  const std::size_t debug_warning = allow.empty() ? 0 : 1;  // a sanitizer build says it first
  EXPECT_EQ(cli_support::line_count(o.err), 1u + debug_warning) << o.err;
  EXPECT_NE(o.err.find("pid 4242"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r" / "latest"));
}

// The budget is the run's own time: waiting for another run's lock (--wait) spends none of it.
// `spent_seconds` is counted inside the run, so it cannot exceed the run's whole wall time less
// the time the lock was held, whatever the machine's load.
TEST_F(RunLockCli, WaitingForTheLockSpendsNoneOfTheBudget) {
  using clock = std::chrono::steady_clock;
  const std::string path = (dir_ / "lab.lock").string();
  std::optional<process::run_lock> held;
  held.emplace(path, "pid 4243, started now, `alloclab run`", false);
  const auto started = clock::now();
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::seconds(4));
    held.reset();
  });
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const cli_support::outcome o =
      run("run --workloads trade_batch --strategies std,pmr_monotonic --budget 3s "
          "--repetition-time 1 --no-placement-check --wait --out " +
              (dir_ / "r").string() + allow,
          "ALLOCLAB_LOCK_FILE=" + path);
  const double wall = std::chrono::duration<double>(clock::now() - started).count();
  releaser.join();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json r =
      nlohmann::json::parse(cli_support::read_file(dir_ / "r" / "latest" / "results.json"));
  EXPECT_LE(r.at("budget").at("spent_seconds").get<double>(), wall - 4.0) << "wall " << wall;
}

}  // namespace
}  // namespace alloclab::lab
