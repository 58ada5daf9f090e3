// The results model: one results.json as typed structs. The results builder fills it, writes it
// once (to_json) and every reader parses it once (from_json); the JSON Schema and
// docs/results-schema.md are generated from the same field lists (model/schema.hpp). Adding a
// field is one line in its struct's `fields`; a frame's own figures are its own structs in
// frames/<frame>/figures.hpp, registered through its frame-table row (`results_parts`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/cell.hpp"
#include "model/claims.hpp"
#include "model/fields.hpp"
#include "model/frame_part.hpp"
#include "model/paired_builds.hpp"
#include "model/run_account.hpp"
#include "model/values.hpp"

namespace alloclab::lab::model {

inline constexpr const char* schema_name = "alloclab-results";
inline constexpr int schema_version = 7;
// Older versions this alloclab still reads (model/versions.cpp upgrades them when read).
inline constexpr int oldest_readable_version = 6;

struct run_config {
  std::vector<std::string> workloads, strategies, mallocs;
  std::size_t samples_per_repetition = 1, repetitions = 1;
  omittable<std::size_t> processes;
  std::uint64_t seed = 0;
  bool quick = false;
  std::size_t counted_iterations = 1;
  bool skip_missing = false;
  omittable<std::optional<std::string>> placement_twin;
  double cell_timeout_seconds = 0;
  frame_parts frames;  // each frame's own settings (heap sizes, the replayed trace)
  static constexpr const char* about_type = "what was asked for";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.workloads, "workloads",
          "names actually run, in suite order: lab workloads, then heap-study and memory "
          "workloads, then a replayed trace");
    field(s.strategies, "strategies",
          "the in-process strategies, in display order (empty when no lab workload ran; a "
          "replay: its resources)");
    field(s.mallocs, "mallocs",
          "process-wide mallocs, in order: registry names (`glibc`, `glibc_arena2`, "
          "`glibc_trim`, `glibc_nocliff`, `jemalloc`, `mimalloc`, `tcmalloc`, `tbbmalloc`; see "
          "`src/lab/mallocs/malloc_table.cpp`) or `custom:<file name>` for a `--malloc "
          "/path/lib.so`; the first is every workload's baseline malloc. The placement twin is "
          "not listed here (`placement_twin`)");
    field(s.samples_per_repetition, "samples_per_repetition",
          "`--iterations`: timed samples per cell per repetition (a heap-only run: batches per "
          "repetition; a replay or a program run: 1)",
          at_least(1));
    field(s.repetitions, "repetitions",
          "`--repetitions` (a heap-only run: the heap repetitions; a program run: its rounds)",
          at_least(1));
    field(s.processes, "processes",
          "`--processes`: fresh processes per cell; a cell's repetitions are shared out over them",
          at_least(1));
    field(s.seed, "seed", "`--seed`: workload data and run order");
    field(s.quick, "quick", "`--quick` sizes were used");
    field(s.counted_iterations, "counted_iterations",
          "iterations in the untimed heap-counting pass", at_least(1));
    field(s.skip_missing, "skip_missing", "`--skip-missing`");
    field(s.placement_twin, "placement_twin",
          "the glibc variant every glibc lab cell was re-measured under for the placement check "
          "(`glibc_nocliff`), or null: `--placement-check never`, `auto` when this machine's "
          "probe found no cliff, no plain glibc or no lab workload in the run, `glibc_nocliff` "
          "named in `--malloc`, a sanitizer build",
          one_of{"glibc_nocliff"});
    field(s.cell_timeout_seconds, "cell_timeout_seconds",
          "`--cell-timeout`: wall-clock limit of each cell's measuring process", at_least(0));
  }
};

struct probe_config {
  std::vector<std::uint64_t> sizes;
  unsigned step = 8, src_offset = 0, trials = 5, copies_per_trial = 4, rechecks = 0;
  double cliff_ratio = 3;
  static constexpr const char* about_type = "how the memmove placement probe measured";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.sizes, "sizes", "bytes per copy");
    field(s.step, "step", "distances dst − src measured: 0, step, 2 step, … < 4096", at_least(1),
          at_most(4096));
    field(s.src_offset, "src_offset", "the source's offset in its page", at_most(4095));
    field(s.trials, "trials", "timings per placement (their median is its cost)", at_least(1));
    field(s.copies_per_trial, "copies_per_trial", "memmoves per timing", at_least(1));
    field(s.cliff_ratio, "cliff_ratio",
          "a placement costing more than this × its size's median is a cliff");
    field(s.rechecks, "rechecks",
          "a placement first read above the ratio is timed this many more times and costs the "
          "least of its timings (absent, as 0, in results written before)",
          at_most(100), may_be_absent);
  }
};

struct copy_cost {
  std::uint64_t bytes = 0;
  unsigned delta_mod4096 = 0;
  double ns = 0;
  static constexpr const char* about_type = "one measured placement";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.bytes, "bytes", "bytes copied", at_most(67108864));
    field(s.delta_mod4096, "delta_mod4096", "dst − src modulo a page", at_most(4095));
    field(s.ns, "ns", "ns per copy");
  }
};

struct copy_cliff {
  std::uint64_t bytes = 0;
  unsigned delta_mod4096 = 0, delta_mod64 = 0;
  double ns = 0, median_ns = 0, ratio = 0;
  static constexpr const char* about_type = "a placement above the cliff ratio";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.bytes, "bytes", "bytes copied", at_most(67108864));
    field(s.delta_mod4096, "delta_mod4096", "dst − src modulo a page", at_most(4095));
    field(s.delta_mod64, "delta_mod64", "the same modulo a cache line", at_most(63));
    field(s.ns, "ns", "ns per copy");
    field(s.median_ns, "median_ns", "median over every placement of that size");
    field(s.ratio, "ratio", "ns ÷ median_ns");
  }
};

struct copy_probe {
  probe_config config;
  std::string glibc_tunables;
  double elapsed_ms = 0;
  bool has_cliff = false;
  double worst_ratio = 1;
  unsigned rechecked = 0;
  std::vector<copy_cliff> cliffs;
  std::vector<copy_cost> costs;
  static constexpr const char* about_type = "one run of the memmove placement probe";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.config, "config", "sizes, step, trials, cliff ratio");
    field(s.glibc_tunables, "glibc_tunables",
          "`GLIBC_TUNABLES` of the measuring process (`\"\"` if unset)");
    field(s.elapsed_ms, "elapsed_ms", "how long the probe took", may_be_absent);
    field(s.has_cliff, "has_cliff", "some placement is above the cliff ratio");
    field(s.worst_ratio, "worst_ratio", "the worst placement's cost ÷ its size's median");
    field(s.rechecked, "rechecked", "placements re-timed because they first read above the ratio",
          may_be_absent);
    field(s.cliffs, "cliffs", "each placement above the cliff ratio, worst first");
    field(s.costs, "costs", "every placement measured", may_be_absent);
  }
};

struct placement_facts {
  copy_probe probe;
  std::optional<copy_probe> with_tunable;
  std::string tunable;
  std::optional<std::string> tunable_probe_error;
  std::string check = "auto";
  static constexpr const char* about_type =
      "this machine's memmove placement probe, run at the start of every `run` "
      "(docs/placement.md §5)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.probe, "probe", "the probe in the run's own process");
    field(s.with_tunable, "with_tunable",
          "the same probe re-run in a child process under `GLIBC_TUNABLES` = `tunable`; null "
          "when that child failed",
          may_be_absent);
    field(s.tunable, "tunable", "the tunable behind `glibc_nocliff`", may_be_absent);
    field(s.tunable_probe_error, "tunable_probe_error", "why the child probe failed, or null",
          may_be_absent);
    field(s.check, "check", "`--placement-check`", one_of{"auto", "always", "never"});
  }
};

struct environment {
  std::optional<std::string> cpu_model;
  unsigned logical_cpus = 0;
  int usable_cpus = 0;
  std::optional<std::string> governor, transparent_hugepages, clocksource;
  std::string kernel, machine, glibc, compiler, cxx_flags, build_type, build;
  bool optimized = false, assertions = false;
  std::optional<std::string> git_revision;
  std::string foonathan_memory, boost_container;
  std::optional<std::string> mimalloc_library;
  std::optional<placement_facts> placement;
  static constexpr const char* about_type = "machine and build";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.cpu_model, "cpu_model", "`/proc/cpuinfo` model name");
    field(s.logical_cpus, "logical_cpus", "`hardware_concurrency()`");
    field(s.usable_cpus, "usable_cpus", "the affinity mask's size");
    field(s.governor, "governor",
          "cpufreq scaling governor of cpu0 (null when not exposed, e.g. in VMs)");
    field(s.transparent_hugepages, "transparent_hugepages",
          "`/sys/kernel/mm/transparent_hugepage/enabled`");
    field(s.clocksource, "clocksource", "kernel clocksource behind `steady_clock`");
    field(s.kernel, "kernel", "`uname`");
    field(s.machine, "machine", "`uname`");
    field(s.glibc, "glibc", "`gnu_get_libc_version()`");
    field(s.compiler, "compiler", "as configured by CMake");
    field(s.cxx_flags, "cxx_flags", "as configured by CMake");
    field(s.build_type, "build_type", "as configured by CMake");
    field(s.build, "build", "one-line verdict, e.g. `optimised, assertions off, no sanitizers`");
    field(s.optimized, "optimized", "a fact behind `debug_build`");
    field(s.assertions, "assertions", "a fact behind `debug_build`");
    field(s.git_revision, "git_revision",
          "the source tree's `git rev-parse` when the lab was built (`-dirty` if the tree "
          "differed from the commit, untracked files included), null without a checkout");
    field(s.foonathan_memory, "foonathan_memory",
          "how the installed foonathan/memory was built, from its generated `config_impl.hpp`: "
          "version and each debug check on or off");
    field(s.boost_container, "boost_container",
          "the Boost version behind the `boost_pmr_*` strategies");
    field(s.mimalloc_library, "mimalloc_library",
          "the `libmimalloc.so.2` the `mimalloc_heap` strategy loads (with "
          "`dlopen(RTLD_LOCAL)`, in its own workers only); null when not installed");
    field(s.placement, "placement",
          "the memmove placement probe (null in a program run, which does not probe)",
          may_be_absent);
  }
};

struct timer_facts {
  std::string clock;
  double overhead_ns = 0, resolution_ns = 0, batch_threshold_ns = 0;
  static constexpr const char* about_type = "the clock and its measured cost";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.clock, "clock",
          "`std::chrono::steady_clock` (a program run: wait4 and the wall clock)");
    field(s.overhead_ns, "overhead_ns", "median cost of two back-to-back `now()` calls",
          at_least(0));
    field(s.resolution_ns, "resolution_ns", "smallest non-zero step observed", at_least(0));
    field(s.batch_threshold_ns, "batch_threshold_ns",
          "50 × overhead: iterations faster than this are timed in batches", at_least(0));
  }
};

struct significance_facts {
  std::string test;
  double alpha = 0.05;
  omittable<double> interval_confidence;
  double smallest_possible_p = 1;
  bool enough_repetitions = false;
  static constexpr const char* about_type = "how the ratio marks were computed";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.test, "test",
          "Mann-Whitney U, two-sided, over the per-repetition medians of the cell and of the "
          "baseline");
    field(s.alpha, "alpha", "0.05");
    field(s.interval_confidence, "interval_confidence", "0.95: the intervals' confidence");
    field(s.smallest_possible_p, "smallest_possible_p",
          "the best p the test can reach with `repetitions` per side");
    field(s.enough_repetitions, "enough_repetitions",
          "`smallest_possible_p < alpha`; when false every mark is `?`");
  }
};

struct document {
  std::string schema = schema_name;
  int schema_version = model::schema_version;
  std::string created_utc, command;
  bool debug_build = false, smoke_test = false;
  run_config config;
  std::map<std::string, std::string> frames;
  model::environment environment;
  timer_facts timer;
  double duration_seconds = 0;
  significance_facts significance;
  std::vector<std::string> warnings;
  std::vector<workload> workloads;
  std::vector<claim_verdict> claims;
  std::vector<published_table> published_tables;
  omittable<std::optional<noise_gate>> noise;
  omittable<std::optional<budget_facts>> budget;
  omittable<shard_facts> shard;
  omittable<merge_facts> merged;
  omittable<simulation_facts> simulation;
  omittable<paired_builds> paired;
  frame_parts parts;  // each frame's own top-level keys (heap_retention, serve, program)
  static constexpr const char* about_type = "";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.schema, "schema", "always `\"alloclab-results\"`", one_of{"alloclab-results"});
    field(s.schema_version, "schema_version",
          "6 as `alloclab run` writes it; 7 as the results model writes it (it reads 6)",
          at_least(6), at_most(7));
    field(s.created_utc, "created_utc",
          "ISO 8601 time the results were assembled, e.g. `2026-04-01T12:00:00Z`");
    field(s.command, "command", "the command line that produced the file");
    field(s.debug_build, "debug_build",
          "the binary was not optimised or had assertions on (`--allow-debug`); every rendering "
          "is then stamped DEBUG");
    field(s.smoke_test, "smoke_test",
          "`--quick`: a smoke test; every rendering says so and its numbers must not be quoted");
    field(s.config, "config", "what was asked for");
    field(s.frames, "frames",
          "frame name → one sentence saying what a number of that frame includes");
    field(s.environment, "environment", "machine and build");
    field(s.timer, "timer", "the clock and its measured cost");
    field(s.duration_seconds, "duration_seconds", "wall time of the whole run", at_least(0));
    field(s.significance, "significance", "how the ratio marks were computed");
    field(s.warnings, "warnings",
          "things a reader must see: DEBUG, too few repetitions, every cell without a number "
          "with its reason, every cell's warning");
    field(s.workloads, "workloads", "one entry per workload, in suite order");
    field(s.claims, "claims",
          "one verdict per seed claim, judged when the results were built; none in a document "
          "without workloads (`try`)");
    field(s.published_tables, "published_tables",
          "the seeds' published tables (`claims/seed_claims.json`'s `published_tables`, copied "
          "when the results were built), rendered beside the run's cells; none in a document "
          "without workloads");
    field(s.noise, "noise",
          "the noise gate (null when the run did not watch the machine); absent in files "
          "written before the time budget");
    field(s.budget, "budget",
          "the stop rule's account of the run ([docs/budget.md](budget.md)); absent in files "
          "written before the time budget, whose claims keep their intervals over repetitions");
    field(s.shard, "shard", "only in a shard's results (`run --shard`; docs/fleet.md)");
    field(s.merged, "merged", "only in results `alloclab merge` built from shards");
    field(s.simulation, "simulation",
          "the simulated cost's method and account, in a run that simulated "
          "([docs/simulated-cost.md](simulated-cost.md))");
    field(s.paired, "paired_builds",
          "only in the results of `alloclab compare --paired`: two builds compared cell by cell "
          "in lockstep ([docs/ci-gate.md](ci-gate.md))");
  }
};

// The config's JSON is its fields and each frame's part (read through the frame table).
template <>
struct codec<run_config> {
  static json write(const run_config& c);
  static void read(const json& j, run_config& c, const std::string& where);
  static json schema();
  static std::string type_text() { return "object"; }
  static std::string describe(doc_sink& sink, const std::string& path);
};

// Writes the document as its schema_version lays it out (version 6: model/versions.hpp).
json to_json(const document& d);
// Throws model_error for a document that is not a results file of a version this alloclab reads.
document from_json(const json& j);

}  // namespace alloclab::lab::model
