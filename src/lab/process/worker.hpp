// Running a measurement in an isolated child process.
//
// The child is started with posix_spawn in its own process group, with stdin from /dev/null (or a
// file), its stdout captured whole (it is expected to print one JSON document) and hashed, and the
// tail of its stderr kept. Its resource usage comes from wait4: its own plus that of every
// descendant it waited for. A child that crashes, is killed or outlives its timeout is reported, never thrown: the
// caller turns it into a "failed" row and keeps every other result.
#pragma once

#include <atomic>
#include <chrono>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace alloclab::process {

struct worker_request {
  /// argv[0] is the program to execute (no PATH search); "/proc/self/exe" re-executes the
  /// calling binary.
  std::vector<std::string> argv;
  /// argv[0] without a '/' is looked up in PATH (posix_spawnp).
  bool search_path = false;
  /// stdin is this file (opened before the chdir below); empty: /dev/null.
  std::string stdin_path;
  /// The child's working directory; empty: the parent's.
  std::string working_directory;
  /// Added to (or replacing in) the parent's environment.
  std::vector<std::pair<std::string, std::string>> env_set;
  /// Removed from the parent's environment.
  std::vector<std::string> env_unset;
  /// Descriptors handed to the child: `from` in the parent becomes `to` in the child. The parent's
  /// `from` is closed as soon as the child has it (or could not be started), so the child's exit
  /// reads as end of file on the other ends. `from` must not be 0-2 nor another entry's `to`.
  std::vector<std::pair<int, int>> handed_fds;
  /// Wall-clock limit; on expiry the whole process group gets SIGKILL.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  /// When set and it turns true, the worker is stopped as on a timeout (a background worker
  /// whose run has ended).
  const std::atomic<bool>* cancel = nullptr;
  /// When set: told the worker's process group once it is started, and 0 once it is reaped (a
  /// caller that stops it for a while: process/pausable_workers.hpp).
  std::function<void(pid_t)> on_group;
  std::size_t stderr_tail_bytes = 4096;
  std::size_t stdout_max_bytes = std::size_t{64} << 20;  ///< beyond this stdout is truncated
};

struct worker_outcome {
  bool started = false;  ///< posix_spawn succeeded
  bool exited = false;   ///< terminated normally; exit_code is valid
  int exit_code = -1;
  int term_signal = 0;     ///< signal that terminated it (0 if none)
  bool timed_out = false;  ///< we killed it after the timeout
  bool stdout_truncated = false;
  std::string stdout_text;  ///< everything printed on stdout (up to stdout_max_bytes)
  std::string stderr_tail;  ///< the last stderr_tail_bytes of stderr
  std::string error;        ///< why it could not be started / supervised
  double wall_seconds = 0;
  std::uint64_t stdout_hash = 0;   ///< FNV-1a 64 of every byte on stdout, truncated or not
  std::uint64_t stdout_bytes = 0;  ///< every byte on stdout
  bool has_usage = false;          ///< `usage` is wait4's (the child was reaped)
  struct rusage usage {};          ///< the child's and its waited-for descendants'

  bool succeeded() const noexcept { return started && exited && exit_code == 0 && !timed_out; }
  /// "exit status 0", "killed by signal 6 (SIGABRT)", "timed out after 2.0 s (killed)",
  /// "failed to start: ..." — for the "failed" row.
  std::string describe() const;
};

/// Never throws (allocation failure aside, which is reported in `error` where possible).
worker_outcome run_worker(const worker_request& request) noexcept;

/// Kills the process group of the worker run_worker is supervising, if any, and every worker
/// run_worker starts afterwards in this process. Async-signal-safe: for a SIGINT/SIGTERM handler,
/// so that an interrupted run leaves no worker behind.
void kill_active_worker() noexcept;

}  // namespace alloclab::process
