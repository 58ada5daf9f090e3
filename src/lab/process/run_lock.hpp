// One lab run per machine: two runs measuring at once would each time the other. A run takes an
// exclusive flock(2) on a lock file (ALLOCLAB_LOCK_FILE, else /tmp/alloclab-lab.lock) and writes
// who holds it; the kernel drops the lock when the process ends, however it ends. A second run
// exits with one line naming the holder, or waits for it (`--wait`). ALLOCLAB_LOCK_FILE=none
// takes no lock: for a test suite whose small runs overlap on purpose (tests/*/CMakeLists.txt).
#pragma once

#include <stdexcept>
#include <string>

namespace alloclab::process {

inline constexpr const char* default_lock_path = "/tmp/alloclab-lab.lock";

// Another run holds the lock; what() names it in one line.
class lock_busy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class run_lock {
 public:
  // Takes the lock at `path`, writing `holder` (pid, time, command) into it. Throws lock_busy
  // when another process holds it and `wait` is false; when waiting, calls `waiting` once first
  // with the holder's line. Throws std::runtime_error when the file cannot be opened.
  run_lock(const std::string& path, const std::string& holder, bool wait,
           void (*waiting)(const std::string& holder_line) = nullptr);
  run_lock(const run_lock&) = delete;
  run_lock& operator=(const run_lock&) = delete;
  ~run_lock();

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what);  // closes the file, throws with errno
  std::string path_;
  int fd_ = -1;
};

// ALLOCLAB_LOCK_FILE, else default_lock_path; empty for "none" (no lock).
std::string lock_path_from_environment();

}  // namespace alloclab::process
