// One run of the user's program under one combination (a malloc and its knobs): spawned in its
// own process group with the malloc and the liveness probe preloaded, measured from wait4's
// rusage, its malloc proven live by the probe's line and its knobs read back by the probe from the
// malloc itself: a knob the malloc reports a different value for fails the run (it would measure
// the defaults under the variant's name); a knob the malloc cannot report (glibc's tunables) is
// kept, with its reading saying so.
//
// CPU time and page faults are the program's own plus those of every descendant it waited for
// (wait4 reports both). Peak RSS is the largest VmHWM the probe reads in a process at exit(), not
// their sum; ru_maxrss only when no process reports one (it keeps the high-water mark of the
// image exec replaced: the `alloclab` parent's, which posix_spawn shares until exec).
//
// Example:
//   alloclab::program::run_setup setup;
//   setup.argv = {"true"};
//   setup.probe_path = alloclab::program::default_probe_path();
//   const auto record = alloclab::program::run_once(setup, {"glibc", {}}, "/tmp/proof");
//   // record.ok: exited 0 and glibc's malloc proven live in it
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "frames/program/program_model.hpp"
#include "mallocs/knobs.hpp"
#include "mallocs/knob_readback.hpp"

namespace alloclab::program {

// The knob variants are the process folder's (mallocs/knobs.hpp), shared with the replay.
using mallocs::environment;
using mallocs::knob_environment;
using mallocs::knob_setting;
using mallocs::knob_summary;
using mallocs::knob_variables;
using mallocs::knobs_of;
using mallocs::parse_variants;
using mallocs::same_knob_value;
using mallocs::variant;
using mallocs::variant_error;

struct run_setup {
  std::vector<std::string> argv;  ///< argv[0] looked up in PATH when it has no '/'
  std::string stdin_path;         ///< empty: /dev/null
  std::string working_directory;  ///< empty: alloclab's
  /// Set in every run (a recorded trace's environment) unless the malloc's own environment sets
  /// or removes the same variable.
  std::vector<std::pair<std::string, std::string>> environment;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::string probe_path;  ///< liballoclab_program_probe.so
};

/// What one run measured (the results model's figures of a run); meaningful only when `ok`.
using run_figures = lab::program_run_figures;

struct run_record {
  bool ok = false;
  std::string
      reason;  ///< why not ok: exit status, timeout, malloc not proven live, knob not applied
  bool live = false;  ///< every process that loaded the probe proved the malloc
  /// Every knob of the malloc as the first probed process read it back (knobs_of(malloc) order).
  std::vector<mallocs::knob_reading> knobs;
  int exit_code = -1;
  run_figures figures;
  std::uint64_t stdout_hash = 0;
  std::uint64_t stdout_bytes = 0;
  // The record's JSON (its transport, program_plan.hpp): the figures flat beside the rest.
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.ok, "ok", "the run succeeded");
    field(s.reason, "reason", "why not, empty when ok");
    field(s.live, "live", "every probed process proved the malloc");
    field(s.knobs, "knobs", "the malloc's knobs as read back");
    field(s.exit_code, "exit_code", "its exit status");
    run_figures::fields(s.figures, field);
    field(s.stdout_hash, "stdout_hash", "FNV-1a 64 of its stdout");
    field(s.stdout_bytes, "stdout_bytes", "bytes it printed");
  }
};

/// The probe next to the running binary, "" when it is not there.
std::string default_probe_path();

/// Never throws for a program that fails: that is a record with a reason. Throws
/// std::runtime_error when the malloc is not installed.
run_record run_once(const run_setup& setup, const variant& combination,
                    const std::string& proof_file);

}  // namespace alloclab::program
