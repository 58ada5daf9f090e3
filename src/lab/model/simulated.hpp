// The results model's simulated cost (docs/simulated-cost.md): a cell's instructions and
// simulated cache events per unit of work under Callgrind, their one cost figure, and what the
// simulation leaves out, counted in a normal run of the same region. Never mixed into the time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab::model {

struct simulated_events {
  double instructions = 0, data_reads = 0, data_writes = 0;
  double l1_misses = 0, d1_misses = 0, ll_misses = 0, cost = 0;
  static constexpr const char* about_type =
      "Callgrind's events of the measured region per unit, net of its baseline region (heap: the "
      "NOOP kernel), and the simulated cost they make (`simulation.formula`)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.instructions, "instructions", "instructions executed (Ir)");
    field(s.data_reads, "data_reads", "data reads (Dr)");
    field(s.data_writes, "data_writes", "data writes (Dw)");
    field(s.l1_misses, "l1_misses", "first-level misses, instructions and data (I1mr+D1mr+D1mw)");
    field(s.d1_misses, "d1_misses", "first-level data misses (D1mr+D1mw)");
    field(s.ll_misses, "ll_misses",
          "last-level misses: accesses served by memory (ILmr+DLmr+DLmw)");
    field(s.cost, "cost", "the simulated cost, in L1-hit equivalents");
  }
};

struct left_out_counts {
  double minor_faults = 0, major_faults = 0;
  double voluntary_switches = 0, involuntary_switches = 0;
  std::optional<std::map<std::string, double>> syscalls;
  static constexpr const char* about_type =
      "what the simulation does not see, per 1000 units of the same region run normally (not "
      "under Valgrind): page faults and context switches (`getrusage`), and memory syscalls "
      "(`strace -f`; null when strace is missing or failed)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.minor_faults, "minor_faults", "minor page faults per 1000 units", at_least(0));
    field(s.major_faults, "major_faults", "major page faults per 1000 units", at_least(0));
    field(s.voluntary_switches, "voluntary_switches", "voluntary context switches per 1000 units",
          at_least(0));
    field(s.involuntary_switches, "involuntary_switches",
          "involuntary context switches per 1000 units", at_least(0));
    field(s.syscalls, "syscalls", "mmap, munmap, mremap, madvise, brk calls per 1000 units");
  }
};

struct simulated_cost {
  std::string status;
  std::optional<std::string> reason;
  std::string unit;
  std::uint64_t units = 0;
  std::optional<simulated_events> per_unit;
  std::optional<double> ratio_vs_baseline;
  std::optional<left_out_counts> left_out;
  bool malloc_proven = false;
  double seconds = 0;
  static constexpr const char* about_type =
      "the cell's simulated cost: its own worker run once under Callgrind for a fixed number of "
      "units after a warm-up; absent when the run simulated nothing";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.status, "status",
          "`ok`; `not_simulated` (the run ended first, or Valgrind is missing); `refused` (the "
          "worker could not prove its malloc live under Valgrind); `failed`",
          one_of{"ok", "not_simulated", "refused", "failed"});
    field(s.reason, "reason", "why there is no figure");
    field(s.unit, "unit", "what one unit is: `iteration` (batch), `pair` (heap: malloc + free)");
    field(s.units, "units", "units in the counted region");
    field(s.per_unit, "per_unit", "events and cost per unit (null unless `ok`)");
    field(s.ratio_vs_baseline, "ratio_vs_baseline",
          "the baseline cell's simulated cost ÷ this cell's (> 1: this cell is cheaper), the "
          "simulated counterpart of `vs_std`; null for the baseline or without both costs");
    field(s.left_out, "left_out", "what the simulation leaves out (null unless measured)");
    field(s.malloc_proven, "malloc_proven",
          "the worker proved its malloc live under Valgrind (the lab's liveness proof)");
    field(s.seconds, "seconds", "wall time of the cell's simulation, all its runs", at_least(0));
  }
};

struct rank_agreement {
  std::optional<double> rho;
  std::size_t cells = 0;
  std::string timed_ratio;
  static constexpr const char* about_type =
      "Spearman's rank correlation between the simulated and the timed ratios of the same cells";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.rho, "rho", "Spearman's rho (null with fewer than 3 cells)", at_least(-1), at_most(1));
    field(s.cells, "cells", "cells with both ratios");
    field(s.timed_ratio, "timed_ratio", "the `vs_std` ratio compared with (per frame)");
  }
};

struct simulation_facts {
  std::string tool, caches, formula;
  double l1_hit_weight = 1, ll_hit_weight = 5, memory_weight = 35;
  std::optional<int> cpu;
  std::size_t cells_planned = 0, cells_simulated = 0;
  std::vector<std::string> not_simulated;
  rank_agreement agreement;
  double seconds = 0;
  std::optional<std::size_t> pauses;  // null: the file was written before it was counted
  std::optional<double> paused_seconds;
  static constexpr const char* about_type =
      "the simulated cost's method and account (docs/simulated-cost.md); absent when the run "
      "simulated nothing";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.tool, "tool", "the simulator and its options");
    field(s.caches, "caches", "the simulated cache hierarchy (fixed: the same on every host)");
    field(s.formula, "formula", "the simulated cost's formula");
    field(s.l1_hit_weight, "l1_hit_weight", "weight of an L1 hit", at_least(0));
    field(s.ll_hit_weight, "ll_hit_weight", "weight of a last-level hit", at_least(0));
    field(s.memory_weight, "memory_weight", "weight of a last-level miss", at_least(0));
    field(s.cpu, "cpu", "the CPU the simulations were pinned to (null: not pinned)");
    field(s.cells_planned, "cells_planned", "batch and heap cells of the plan");
    field(s.cells_simulated, "cells_simulated", "cells with a simulated cost");
    field(s.not_simulated, "not_simulated", "every other cell, with why");
    field(s.agreement, "agreement", "rank agreement with the timed ratios");
    field(s.seconds, "seconds", "wall time of the simulation queue", at_least(0));
    field(s.pauses, "pauses",
          "times the simulation was stopped so that a task needing every CPU (a multi-threaded "
          "workload, a server) measured without it",
          may_be_absent);
    field(s.paused_seconds, "paused_seconds", "wall time the simulation spent stopped", at_least(0),
          may_be_absent);
  }
};

}  // namespace alloclab::lab::model
