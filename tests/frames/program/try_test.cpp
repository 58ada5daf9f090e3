// `alloclab try` end to end on tests/support/try_subject.cpp under glibc and jemalloc (and
// mimalloc, tcmalloc for the knob read-back): a row for every run, each run's malloc proven live
// and its knobs read back, the output check, timeouts, stdin and cwd, SIGINT, and exit 2 on bad
// arguments. No test asserts a timing.
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "mallocs/malloc_table.hpp"
#include "model_agreement.hpp"
#include "process/run_lock.hpp"

namespace alloclab::program {
namespace {

using json = nlohmann::json;
using lab::cli_support::read_file;
namespace fs = std::filesystem;

const std::string subject = ALLOCLAB_TRY_SUBJECT;

std::string fnv1a(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

class TryCommand : public lab::cli_support::binary_test {
 protected:
  // `alloclab try ARGS -o DIR/out -- SUBJECT MODE`, and results.json when it was written.
  lab::cli_support::outcome run_try(const std::string& options, const std::string& mode) {
    return run("try " + options + " -o '" + (dir_ / "out").string() + "' -- '" + subject + "' " +
               mode);
  }
  json results() const { return json::parse(read_file(dir_ / "out" / "results.json")); }
};

TEST_F(TryCommand, EveryCombinationRunsEveryRoundWithItsMallocProvenLive) {
  const auto o = run_try("--malloc glibc,jemalloc --variants glibc:arena_max=1 --rounds 2", "fork");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  lab::model_agreement::expect_model_agrees(results(), "the try run's results");
  const json p = results().at("program");
  ASSERT_EQ(p.at("combinations").size(), 3u);
  EXPECT_EQ(p.at("combinations")[2].at("name"), "glibc arena_max=1");
  EXPECT_EQ(p.at("combinations")[2].at("knob_environment").at("GLIBC_TUNABLES"),
            "glibc.malloc.arena_max=1");
  ASSERT_EQ(p.at("runs").size(), 6u);
  for (const json& r : p.at("runs")) {
    EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
    EXPECT_TRUE(r.at("malloc_live").get<bool>()) << r.dump();
    EXPECT_GT(r.at("peak_rss_bytes").get<double>(), 0) << r.dump();
  }
  for (std::size_t round = 0; round < 2; ++round) {
    std::set<std::string> seen;
    for (const json& r : p.at("runs"))
      if (r.at("round") == round) seen.insert(r.at("combination").get<std::string>());
    EXPECT_EQ(seen.size(), 3u) << "round " << round;
  }
  EXPECT_EQ(p.at("baseline"), "glibc");
  EXPECT_TRUE(p.at("combinations")[0].at("cpu_vs_baseline").is_null());
  EXPECT_FALSE(p.at("combinations")[1].at("cpu_vs_baseline").is_null());
  EXPECT_NE(read_file(dir_ / "out" / "report.md").find("## Your program under each malloc"),
            std::string::npos);
  EXPECT_NE(read_file(dir_ / "out" / "report.html").find("\"program\""), std::string::npos);
  EXPECT_NE(o.out.find("jemalloc"), std::string::npos) << o.out;
}

TEST_F(TryCommand, ResultsGoThroughTheLabsPipelineAndCompare) {
  ASSERT_EQ(run_try("--malloc glibc,jemalloc --rounds 3", "alloc").exit_code, 0);
  const fs::path first = dir_ / "first";
  fs::rename(dir_ / "out", first);
  ASSERT_EQ(run_try("--malloc glibc,jemalloc --rounds 3", "alloc").exit_code, 0);
  const std::string a = (first / "results.json").string();
  const std::string b = (dir_ / "out" / "results.json").string();
  const auto valid = run("validate " + a);
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  const auto report = run("report " + a);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.out, read_file(first / "report.md"));
  const auto compared = run("compare " + a + " " + b);
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_NE(compared.out.find("program `"), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("jemalloc @ jemalloc"), std::string::npos) << compared.out;
}

TEST_F(TryCommand, OutputThatDependsOnTheMallocIsAFindingNotACrash) {
  const auto o = run_try("--malloc glibc,jemalloc --rounds 2 --output check", "which-malloc");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json p = results().at("program");
  EXPECT_FALSE(p.at("output").at("consistent").get<bool>());
  EXPECT_NE(p.at("output").at("finding").get<std::string>().find("differs by malloc"),
            std::string::npos);
  EXPECT_NE(o.out.find("FINDING"), std::string::npos) << o.out;
  EXPECT_NE(read_file(dir_ / "out" / "report.md").find("output differs"), std::string::npos);
}

TEST_F(TryCommand, IdenticalOutputPassesTheCheck) {
  const auto o = run_try("--malloc glibc,jemalloc --rounds 2 --output check", "alloc");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(results().at("program").at("output").at("consistent").get<bool>());
}

TEST_F(TryCommand, ARunOverItsTimeoutIsAFailedRow) {
  const auto o = run_try("--malloc glibc --rounds 2 --timeout 0.3", "sleep 30");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const json p = results().at("program");
  ASSERT_EQ(p.at("runs").size(), 2u);
  for (const json& r : p.at("runs")) {
    EXPECT_FALSE(r.at("ok").get<bool>());
    EXPECT_NE(r.at("reason").get<std::string>().find("timed out"), std::string::npos) << r.dump();
  }
  EXPECT_EQ(p.at("combinations")[0].at("runs_ok"), 0);
}

// -o naming a file: refused before any run (exit 2, one line) and the file left as it was.
TEST_F(TryCommand, AnOutputThatIsAFileIsRefusedAndKept) {
  const fs::path file = dir_ / "notes.txt";
  std::ofstream(file) << "keep me\n";
  const auto o =
      run("try --malloc glibc --rounds 2 -o '" + file.string() + "' -- '" + subject + "' alloc");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("-o"), std::string::npos) << o.err;
  EXPECT_EQ(read_file(file), "keep me\n");
}

// The default, adaptive, end to end (kept small: 2 combinations, at most 4 rounds): the rounds
// stop at the first look or at --max-rounds, every round runs every combination, and the
// document says how it stopped.
TEST_F(TryCommand, AdaptiveRoundsSayHowTheyStopped) {
  const auto o = run_try("--malloc glibc,jemalloc --budget 1m --max-rounds 4", "alloc");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json program = results()["program"];
  const json& s = program["stopping"];
  EXPECT_EQ(s["mode"], "adaptive");
  EXPECT_EQ(s["rounds"], 4);
  EXPECT_EQ(s["looks_taken"], 1);
  EXPECT_EQ(s["look_rounds"], json::array({4}));
  EXPECT_EQ(s["comparisons"], 1);
  EXPECT_GT(s["confidence"].get<double>(), 0.95 - 1e-12) << "one look spends all of alpha";
  EXPECT_TRUE(s["stopped_because"] == "every comparison decided" ||
              s["stopped_because"] == "the maximum number of rounds")
      << s;
  EXPECT_EQ(program["runs"].size(), 8u);
  EXPECT_FALSE(program["combinations"][1]["cpu_vs_baseline"]["decided"].is_null());
  EXPECT_NE(o.out.find("rounds: stopped after 4 rounds"), std::string::npos) << o.out;
}

TEST_F(TryCommand, StdinAndWorkingDirectoryAreThePrograms) {
  std::ofstream(dir_ / "input.txt") << "hello from stdin\n";
  fs::create_directories(dir_ / "work");
  auto o =
      run_try("--malloc glibc --rounds 2 --stdin '" + (dir_ / "input.txt").string() + "'", "cat");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(results().at("program").at("runs")[0].at("stdout_hash"), fnv1a("hello from stdin\n"));
  o = run_try("--malloc glibc --rounds 2 --cwd '" + (dir_ / "work").string() + "'", "pwd");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(results().at("program").at("runs")[0].at("stdout_hash"),
            fnv1a(fs::canonical(dir_ / "work").string() + "\n"));
}

TEST_F(TryCommand, AProgramThatIgnoresThePreloadIsNotProvenLive) {
  const auto o = run("try --malloc jemalloc --rounds 2 -o '" + (dir_ / "out").string() + "' -- '" +
                     std::string(ALLOCLAB_TRY_STATIC_SUBJECT) + "'");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const json document = results();
  for (const json& r : document.at("program").at("runs")) {
    EXPECT_FALSE(r.at("malloc_live").get<bool>());
    EXPECT_NE(r.at("reason").get<std::string>().find("not proven live"), std::string::npos)
        << r.dump();
  }
}

// Debian's python3.11 and cc1plus are not PIE and take malloc's address: dlsym(RTLD_DEFAULT)
// finds the executable's canonical PLT entry, not the malloc that serves it.
TEST_F(TryCommand, ANonPieProgramThatTakesMallocsAddressIsProvenLive) {
  const auto o = run("try --malloc glibc,jemalloc --rounds 2 -o '" + (dir_ / "out").string() +
                     "' -- '" + std::string(ALLOCLAB_TRY_NOPIE_SUBJECT) + "' which-malloc");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  const json document = results();
  for (const json& r : document.at("program").at("runs"))
    EXPECT_TRUE(r.at("malloc_live").get<bool>()) << r.dump();
}

const json& combination_named(const json& program, const std::string& name) {
  for (const json& c : program.at("combinations"))
    if (c.at("name") == name) return c;
  throw std::out_of_range("no combination " + name);
}

// jemalloc refuses a decay beyond its range (it prints "Invalid conf value" and keeps its
// default): the variant's runs would measure the defaults under the variant's name.
TEST_F(TryCommand, AKnobTheMallocDidNotTakeFailsItsRunsWithTheValueReadBack) {
  const auto o = run_try(
      "--malloc jemalloc --variants jemalloc:dirty_decay_ms=99999999999999 --rounds 2", "alloc");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const json document = results();
  const json& p = document.at("program");
  for (const json& r : p.at("runs")) {
    if (r.at("combination") == "jemalloc") {
      EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
      continue;
    }
    EXPECT_FALSE(r.at("ok").get<bool>()) << r.dump();
    EXPECT_TRUE(r.at("malloc_live").get<bool>()) << r.dump();
    EXPECT_NE(r.at("reason").get<std::string>().find(
                  "knob dirty_decay_ms not applied: set 99999999999999, jemalloc uses "),
              std::string::npos)
        << r.dump();
    EXPECT_EQ(r.at("knobs_read_back").at("dirty_decay_ms").at("applied"), false) << r.dump();
  }
  const json& variant = combination_named(p, "jemalloc dirty_decay_ms=99999999999999");
  EXPECT_EQ(variant.at("runs_ok"), 0);
  EXPECT_EQ(variant.at("knob_check").at("status"), "not applied");
  const std::string report = read_file(dir_ / "out" / "report.md");
  EXPECT_NE(report.find("not applied — dirty_decay_ms = "), std::string::npos) << report;
  EXPECT_EQ(run("validate '" + (dir_ / "out" / "results.json").string() + "'").exit_code, 0);
}

// Each knob as the malloc itself reports it inside the program; glibc's tunables have no
// read-back: mmap_threshold is observed through mallinfo2, arena_max is said to be unverifiable.
TEST_F(TryCommand, KnobsThatTookShowTheValuesTheMallocReadsBack) {
  const auto o = run_try(
      "--malloc glibc,jemalloc,mimalloc,tcmalloc --rounds 2 --variants "
      "'jemalloc:dirty_decay_ms=0+background_thread=true,mimalloc:purge_delay=7,"
      "tcmalloc:release_rate=3.5,glibc:mmap_threshold=1048576+arena_max=1'",
      "alloc");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const json document = results();
  const json& p = document.at("program");
  const auto read_back = [&p](const std::string& combination, const std::string& knob) {
    return combination_named(p, combination).at("knob_check").at("read_back").at(knob);
  };
  const auto status = [&p](const std::string& combination) {
    return combination_named(p, combination).at("knob_check").at("status").get<std::string>();
  };
  EXPECT_EQ(status("jemalloc dirty_decay_ms=0 background_thread=true"), "applied");
  EXPECT_EQ(
      read_back("jemalloc dirty_decay_ms=0 background_thread=true", "dirty_decay_ms").at("value"),
      "0");
  EXPECT_EQ(read_back("jemalloc dirty_decay_ms=0 background_thread=true", "background_thread")
                .at("value"),
            "true");
  EXPECT_EQ(status("mimalloc purge_delay=7"), "applied");
  EXPECT_EQ(read_back("mimalloc purge_delay=7", "purge_delay").at("value"), "7");
  EXPECT_EQ(status("tcmalloc release_rate=3.5"), "applied");
  EXPECT_EQ(read_back("tcmalloc release_rate=3.5", "release_rate").at("value"), "3.5");
  EXPECT_EQ(status("jemalloc"), "no knobs set");
  EXPECT_FALSE(read_back("jemalloc", "dirty_decay_ms").at("value").is_null());
  const std::string glibc = "glibc mmap_threshold=1048576 arena_max=1";
  EXPECT_EQ(status(glibc), "unverifiable");
  EXPECT_EQ(read_back(glibc, "mmap_threshold").at("value"), "1048576");
  EXPECT_NE(read_back(glibc, "mmap_threshold").at("how").get<std::string>().find("observed"),
            std::string::npos);
  EXPECT_TRUE(read_back(glibc, "arena_max").at("value").is_null());
  EXPECT_NE(read_back(glibc, "arena_max")
                .at("how")
                .get<std::string>()
                .find("set via GLIBC_TUNABLES (glibc.malloc.arena_max=1 in this process's "
                      "environment), glibc offers no read-back"),
            std::string::npos);
  for (const json& r : p.at("runs")) EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
  const std::string report = read_file(dir_ / "out" / "report.md");
  EXPECT_NE(report.find("**Knobs read back**"), std::string::npos) << report;
  EXPECT_NE(report.find("⚠ unverifiable — arena_max not readable (set 1)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("mmap_threshold = 1048576 (set 1048576): observed"), std::string::npos)
      << report;
  EXPECT_NE(report.find("release_rate = 3.5 (set 3.5)"), std::string::npos) << report;
  EXPECT_EQ(run("validate '" + (dir_ / "out" / "results.json").string() + "'").exit_code, 0);
}

// Seed 003's dlmalloc, the lab's own preload: its knobs go in through the preload's environment
// variables and come back from dlmalloc's own parameters (dlmallopt only sets them).
TEST_F(TryCommand, DlmallocRunsLiveAndReadsItsKnobsBack) {
  const alloclab::mallocs::malloc_entry* dl = alloclab::mallocs::find_malloc("dlmalloc");
  ASSERT_NE(dl, nullptr);
  if (!alloclab::mallocs::installed(*dl))
    GTEST_SKIP() << alloclab::mallocs::not_installed_reason(*dl);
  const auto o = run_try(
      "--malloc dlmalloc --rounds 2 --variants "
      "'dlmalloc:trim_threshold=65536+mmap_threshold=131072'",
      "alloc");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const json all = results();  // held: a reference into a temporary would dangle
  const json& p = all.at("program");
  const std::string tuned = "dlmalloc trim_threshold=65536 mmap_threshold=131072";
  const json& check = combination_named(p, tuned).at("knob_check");
  EXPECT_EQ(check.at("status"), "applied") << check.dump();
  EXPECT_EQ(check.at("read_back").at("trim_threshold").at("value"), "65536");
  EXPECT_EQ(check.at("read_back").at("mmap_threshold").at("value"), "131072");
  // Untuned, dlmalloc 2.8.6's defaults: 2 MiB and 256 KiB.
  const json& plain = combination_named(p, "dlmalloc").at("knob_check").at("read_back");
  EXPECT_EQ(plain.at("trim_threshold").at("value"), "2097152");
  EXPECT_EQ(plain.at("mmap_threshold").at("value"), "262144");
  for (const json& r : p.at("runs")) EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
}

// A malloc this machine lacks (here: hidden by the hooked binary) is refused before any run.
TEST_F(TryCommand, AMissingMallocIsRefusedWithOneLine) {
  const auto o = run("try --malloc glibc,dlmalloc --rounds 2 -o '" + (dir_ / "out").string() +
                         "' -- '" + subject + "' alloc",
                     "ALLOCLAB_TEST_HIDE_MALLOC=dlmalloc");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("dlmalloc: not installed"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
}

bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  return paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z';
}

TEST_F(TryCommand, InterruptLeavesNoProcessBehind) {
  const fs::path pids = dir_ / "pids.txt";
  const std::string binary = lab::cli_support::binary();
  const std::string out = (dir_ / "out").string();
  const pid_t lab = ::fork();
  if (lab == 0) {
    ::unsetenv("LD_PRELOAD");
    ::execl(binary.c_str(), binary.c_str(), "try", "--malloc", "glibc", "--rounds", "2", "-o",
            out.c_str(), "--", subject.c_str(), "linger", pids.c_str(),
            static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 200 && read_file(pids).find('\n') == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::istringstream in(read_file(pids));
  pid_t program = 0, grandchild = 0;
  in >> program >> grandchild;
  ASSERT_GT(program, 0);
  ASSERT_GT(grandchild, 0);
  ::kill(lab, SIGINT);
  int status = 0;
  ::waitpid(lab, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  for (int i = 0; i < 100 && !(gone(program) && gone(grandchild)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(gone(program));
  EXPECT_TRUE(gone(grandchild));
}

// A `try` stopped with Ctrl-C keeps the runs it finished: results.json, report.md and report.html
// are written (atomically) for the rounds so far, say they were interrupted, and the exit status
// still says so. Before this, an interrupted 5-minute try lost every run.
TEST_F(TryCommand, AnInterruptedTryKeepsTheRunsItFinished) {
  const fs::path err = dir_ / "stderr.txt";
  const std::string binary = lab::cli_support::binary();
  const std::string out = (dir_ / "out").string();
  const pid_t lab = ::fork();
  if (lab == 0) {
    ::unsetenv("LD_PRELOAD");
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    ::execl(binary.c_str(), binary.c_str(), "try", "--malloc", "glibc,jemalloc", "--rounds", "400",
            "-o", out.c_str(), "--", subject.c_str(), "alloc", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 600 && read_file(err).find("round 3 of") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(lab, SIGINT);
  int status = 0;
  ::waitpid(lab, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << read_file(err);
  ASSERT_TRUE(fs::exists(dir_ / "out" / "results.json")) << read_file(err);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));
  const json program = results()["program"];
  const json& s = program["stopping"];
  EXPECT_EQ(s["stopped_because"].get<std::string>().rfind("interrupted by signal 2", 0), 0u) << s;
  EXPECT_GE(s["rounds"].get<std::size_t>(), 2u);
  EXPECT_LT(s["rounds"].get<std::size_t>(), 400u);
  EXPECT_GE(program["runs"].size(), 2 * s["rounds"].get<std::size_t>());
  EXPECT_NE(read_file(err).find("the results of the runs so far"), std::string::npos)
      << read_file(err);
  lab::model_agreement::expect_model_agrees(results(), "the interrupted try's results");
}

// A program whose child leaves its session and lives on: `try` ends it with the run. Before,
// every run left one such process behind, after `try` had exited 0.
TEST_F(TryCommand, ADaemonizedGrandchildIsEndedWithItsRun) {
  const fs::path pids = dir_ / "daemons.txt";
  const auto o =
      run_try("--malloc glibc --rounds 2 --timeout 20", "daemonize '" + pids.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream in(read_file(pids));
  std::vector<pid_t> daemons;
  for (pid_t pid = 0; in >> pid;) daemons.push_back(pid);
  ASSERT_EQ(daemons.size(), 2u) << read_file(pids);
  for (const pid_t pid : daemons) EXPECT_TRUE(gone(pid)) << pid;
}

// The peak RSS is the program's own: /bin/true's is a few MiB at most (its libraries and the
// probe's), far under the `alloclab` process that started it. wait4's ru_maxrss kept that
// parent's high-water mark from before exec (11.9 MiB for every malloc).
TEST_F(TryCommand, PeakRssIsTheProgramsOwnNotTheParents) {
  const auto o = run("try --malloc glibc,jemalloc --rounds 2 -o '" + (dir_ / "out").string() +
                     "' -- /bin/true");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json p = results().at("program");
  ASSERT_EQ(p.at("runs").size(), 4u);
  for (const json& r : p.at("runs")) {
    EXPECT_GT(r.at("peak_rss_bytes").get<double>(), 0) << r.dump();
    EXPECT_LT(r.at("peak_rss_bytes").get<double>(), 6.0 * 1024 * 1024) << r.dump();
  }
}

// `try` measures like `run`: it takes the machine's lab lock (exit 2 naming the holder while
// another run holds it, queued with --wait) and records the noise gate in its results.
TEST_F(TryCommand, TakesTheLabLockAndRecordsTheNoiseGate) {
  const std::string lock_file = "ALLOCLAB_LOCK_FILE=" + (dir_ / "lab.lock").string();
  {
    const process::run_lock held((dir_ / "lab.lock").string(), "pid 1, a test holding the lock",
                                 false);
    const auto busy =
        run("try --malloc glibc --rounds 2 -o '" + (dir_ / "out").string() + "' -- /bin/true",
            lock_file);
    EXPECT_EQ(busy.exit_code, 2) << busy.err;
    EXPECT_EQ(lab::cli_support::line_count(busy.err), 1u) << busy.err;
    EXPECT_NE(busy.err.find("a test holding the lock"), std::string::npos) << busy.err;
    EXPECT_NE(busy.err.find("--wait"), std::string::npos) << busy.err;
  }
  const auto o =
      run("try --wait --malloc glibc --rounds 2 -o '" + (dir_ / "out").string() + "' -- /bin/true",
          lock_file);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(results().at("noise").is_object()) << results().dump();
}

// A --cwd the file system cannot look at (a name longer than NAME_MAX) is bad input: exit 2 and
// one line, not the file system's exception.
TEST_F(TryCommand, ACwdTheFileSystemCannotLookAtIsRefusedWithOneLine) {
  const auto o = run_try("--malloc glibc --rounds 2 --cwd " + std::string(300, 'a'), "pwd");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--cwd"), std::string::npos) << o.err;
}

struct bad_arguments {
  const char* arguments;
  const char* says;
};

class TryRefuses : public lab::cli_support::binary_test,
                   public ::testing::WithParamInterface<bad_arguments> {};

TEST_P(TryRefuses, WithExitTwoAndOneLine) {
  std::string args = GetParam().arguments;
  for (std::size_t at = args.find("SUBJECT"); at != std::string::npos; at = args.find("SUBJECT"))
    args.replace(at, 7, subject);
  const auto o = run("try -o '" + (dir_ / "out").string() + "' " + args);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find(GetParam().says), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, TryRefuses,
    ::testing::Values(
        bad_arguments{"--malloc nosuch -- SUBJECT alloc", "unknown --malloc 'nosuch'"},
        bad_arguments{"--variants glibc:arena=1 -- SUBJECT alloc", "glibc has no knob 'arena'"},
        bad_arguments{"--variants glibc:arena_max=zero -- SUBJECT alloc", "expected an integer"},
        bad_arguments{"--malloc jemalloc --variants glibc:arena_max=1 -- SUBJECT alloc",
                      "which --malloc does not include"},
        bad_arguments{"--", "no program given"},
        bad_arguments{"-- no-such-program-here", "not found in PATH"},
        bad_arguments{"--stdin /no/such/file -- SUBJECT cat", "--stdin"},
        bad_arguments{"--stdin /tmp -- SUBJECT cat", "--stdin '/tmp' is not a readable file"},
        bad_arguments{"--wait -- no-such-program-here", "not found in PATH"},
        bad_arguments{"--cwd /no/such/dir -- SUBJECT pwd", "--cwd"},
        bad_arguments{"--rounds 1 -- SUBJECT alloc", "--rounds"},
        bad_arguments{"--rounds 3 --budget 1m -- SUBJECT alloc", "exclude each other"},
        bad_arguments{"--budget soon -- SUBJECT alloc", "--budget"},
        bad_arguments{"--min-rounds 9 --max-rounds 4 -- SUBJECT alloc", "--min-rounds"},
        bad_arguments{"--min-rounds 3 -- SUBJECT alloc", "--min-rounds"},
        bad_arguments{"--timeout -1 -- SUBJECT alloc", "--timeout"},
        bad_arguments{"--output keep -- SUBJECT alloc", "--output"}));

}  // namespace
}  // namespace alloclab::program

namespace alloclab::program {
namespace {

// report.html in headless Chromium: the CPU-versus-RSS scatter is drawn, without script errors
// and without a request.
TEST_F(TryCommand, ReportHtmlDrawsTheTradeOffInChromium) {
  ASSERT_TRUE(fs::exists(ALLOCLAB_CHROMIUM)) << "apt-get install chromium (scripts/deps.sh does)";
  ASSERT_EQ(run_try("--malloc glibc,jemalloc --rounds 2", "alloc").exit_code, 0);
  const fs::path dom = dir_ / "dom.html";
  const std::string command = std::string("timeout 120 '") + ALLOCLAB_CHROMIUM +
                              "' --headless --no-sandbox --disable-gpu --no-first-run "
                              "--disable-extensions --user-data-dir='" +
                              (dir_ / "profile").string() + "' --dump-dom 'file://" +
                              (dir_ / "out" / "report.html").string() + "' >'" + dom.string() +
                              "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string page = read_file(dom);
  EXPECT_NE(page.find("id=\"chart-program-trade-off\""), std::string::npos);
  EXPECT_NE(page.find("data-script-errors=\"0\""), std::string::npos);
  EXPECT_NE(page.find("data-charts-rendered=\"1\""), std::string::npos);
  EXPECT_NE(page.find("data-resource-requests=\"0\""), std::string::npos);
}

}  // namespace
}  // namespace alloclab::program
