#include "process/worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

extern char** environ;

namespace alloclab::process {

namespace {

using clock = std::chrono::steady_clock;

// Process groups of the supervised workers (0: a free slot). Workers run one at a time, except
// the heap frame's retention timelines, which run side by side on threads (none is timed).
constexpr std::size_t worker_slots = 64;
std::array<std::atomic<pid_t>, worker_slots> active_workers{};
std::atomic<bool> stopping{false};  // kill_active_worker() was called: no new worker may live

// The slot `pid` now holds, or worker_slots when every slot is taken (it is then not killable by
// kill_active_worker, which the callers' limit of concurrent workers keeps from happening).
std::size_t register_worker(pid_t pid) {
  for (std::size_t i = 0; i < worker_slots; ++i) {
    pid_t free = 0;
    if (active_workers[i].compare_exchange_strong(free, pid)) return i;
  }
  return worker_slots;
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev
                           : std::string("signal ") + std::to_string(sig);
}

/// Owns a file descriptor.
struct fd_guard {
  int fd = -1;
  fd_guard() = default;
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() { reset(); }
  void reset() noexcept {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

std::vector<std::string> build_environment(const worker_request& req) {
  std::vector<std::string> env;
  auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  auto overridden = [&req](std::string_view name) {
    return std::any_of(req.env_unset.begin(), req.env_unset.end(),
                       [name](const std::string& n) { return n == name; }) ||
           std::any_of(req.env_set.begin(), req.env_set.end(),
                       [name](const auto& kv) { return kv.first == name; });
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!overridden(name_of(entry))) env.emplace_back(entry);
  }
  for (const auto& [name, value] : req.env_set) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// FNV-1a 64 over a stream of bytes.
struct stream_hash {
  std::uint64_t value = 14695981039346656037ULL;
  std::uint64_t bytes = 0;
  void add(const char* data, std::size_t size) noexcept {
    for (std::size_t i = 0; i < size; ++i) {
      value = (value ^ static_cast<unsigned char>(data[i])) * 1099511628211ULL;
    }
    bytes += size;
  }
};

/// Reads what is available; returns false on EOF or a hard error.
bool pump(int fd, std::string& sink, std::size_t limit, bool keep_tail, bool& truncated,
          stream_hash* hash = nullptr) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      const auto got = static_cast<std::size_t>(n);
      if (hash != nullptr) hash->add(buf, got);
      if (keep_tail) {
        sink.append(buf, got);
        if (sink.size() > 2 * limit + sizeof buf) sink.erase(0, sink.size() - limit);
      } else if (sink.size() < limit) {
        const std::size_t room = limit - sink.size();
        sink.append(buf, std::min(room, got));
        if (got > room) truncated = true;
      } else {
        truncated = true;
      }
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    return false;
  }
}

// Closes the parent's copies of the descriptors handed to a child, once (on every path).
struct handed_guard {
  const std::vector<std::pair<int, int>>& fds;
  bool closed = false;
  explicit handed_guard(const std::vector<std::pair<int, int>>& handed) : fds(handed) {}
  handed_guard(const handed_guard&) = delete;
  handed_guard& operator=(const handed_guard&) = delete;
  ~handed_guard() { close_all(); }
  void close_all() noexcept {
    if (closed) return;
    closed = true;
    for (const auto& handed : fds) ::close(handed.first);
  }
};

// The two pipes a worker writes its stdout and stderr into.
struct output_pipes {
  fd_guard out_r, out_w, err_r, err_w;
};

// Opens both pipes, close-on-exec; false, with `error` set, when one cannot be made.
bool open_output_pipes(output_pipes& pipes, std::string& error) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  pipes.out_r.fd = out_pipe[0];
  pipes.out_w.fd = out_pipe[1];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  pipes.err_r.fd = err_pipe[0];
  pipes.err_w.fd = err_pipe[1];
  return true;
}

// The child's descriptors: stdin from a file, the pipes as stdout and stderr, the handed ones;
// and its working directory.
class spawn_actions {
 public:
  spawn_actions(const worker_request& req, const output_pipes& pipes)
      : stdin_path_(req.stdin_path.empty() ? "/dev/null" : req.stdin_path) {
    posix_spawn_file_actions_init(&actions_);
    posix_spawn_file_actions_addopen(&actions_, 0, stdin_path_.c_str(), O_RDONLY, 0);
    if (!req.working_directory.empty())
      posix_spawn_file_actions_addchdir_np(&actions_, req.working_directory.c_str());
    posix_spawn_file_actions_adddup2(&actions_, pipes.out_w.fd, 1);
    posix_spawn_file_actions_adddup2(&actions_, pipes.err_w.fd, 2);
    for (const auto& [from, to] : req.handed_fds)
      posix_spawn_file_actions_adddup2(&actions_, from, to);
  }
  spawn_actions(const spawn_actions&) = delete;
  spawn_actions& operator=(const spawn_actions&) = delete;
  ~spawn_actions() { posix_spawn_file_actions_destroy(&actions_); }
  const posix_spawn_file_actions_t* get() const noexcept { return &actions_; }

 private:
  std::string stdin_path_;
  posix_spawn_file_actions_t actions_;
};

// The child's signals (none blocked, the usual ones at their defaults) and its own process group.
class spawn_attributes {
 public:
  spawn_attributes() {
    posix_spawnattr_init(&attr_);
    sigset_t empty_mask;
    sigemptyset(&empty_mask);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGABRT, SIGCHLD, SIGALRM, SIGUSR1,
                    SIGUSR2, SIGSEGV, SIGBUS}) {
      sigaddset(&defaults, sig);
    }
    posix_spawnattr_setsigmask(&attr_, &empty_mask);
    posix_spawnattr_setsigdefault(&attr_, &defaults);
    posix_spawnattr_setpgroup(&attr_, 0);  // own process group: a timeout kills the whole tree
    posix_spawnattr_setflags(
        &attr_,
        static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  }
  spawn_attributes(const spawn_attributes&) = delete;
  spawn_attributes& operator=(const spawn_attributes&) = delete;
  ~spawn_attributes() { posix_spawnattr_destroy(&attr_); }
  const posix_spawnattr_t* get() const noexcept { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

struct spawned {
  int rc = 0;  ///< posix_spawn's result: 0 or an errno value
  pid_t pid = -1;
  std::size_t slot = worker_slots;  ///< its slot in active_workers
  clock::time_point start;
};

// Starts the worker and registers it in active_workers.
spawned spawn_registered(const worker_request& req, const output_pipes& pipes) {
  const spawn_actions actions(req, pipes);
  const spawn_attributes attributes;
  std::vector<std::string> args = req.argv;
  std::vector<std::string> env = build_environment(req);
  std::vector<char*> argv = c_array(args);
  std::vector<char*> envp = c_array(env);

  spawned child;
  child.start = clock::now();
  // SIGINT/SIGTERM wait until the worker is registered, so kill_active_worker() from their
  // handler finds it (the child's mask is set by `attributes`).
  sigset_t stop_signals, previous;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
  child.rc = req.search_path ? ::posix_spawnp(&child.pid, argv[0], actions.get(), attributes.get(),
                                              argv.data(), envp.data())
                             : ::posix_spawn(&child.pid, argv[0], actions.get(), attributes.get(),
                                             argv.data(), envp.data());
  if (child.rc == 0) child.slot = register_worker(child.pid);
  if (child.rc == 0 && stopping.load()) ::kill(-child.pid, SIGKILL);  // the signal came first
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return child;
}

// Reads a started worker's stdout and stderr until it has exited and closed them, killing its
// process group at the deadline, on cancel, or when a grandchild keeps the pipes open.
class supervision {
 public:
  supervision(const worker_request& req, pid_t pid, output_pipes& pipes, worker_outcome& out)
      : req_(req), pid_(pid), pipes_(pipes), out_(out) {}

  void run(clock::time_point deadline) {
    while (turn(deadline)) {
    }
  }

  // The outcome's exit, usage, output hash and wall time, from `start`.
  void finish(clock::time_point start) {
    out_.has_usage = reaped_;
    out_.stdout_hash = stdout_hash_.value;
    out_.stdout_bytes = stdout_hash_.bytes;
    out_.wall_seconds = std::chrono::duration<double>(reaped_at_ - start).count();
    if (out_.stderr_tail.size() > req_.stderr_tail_bytes) {
      out_.stderr_tail.erase(0, out_.stderr_tail.size() - req_.stderr_tail_bytes);
    }
    if (WIFEXITED(status_)) {
      out_.exited = true;
      out_.exit_code = WEXITSTATUS(status_);
    } else if (WIFSIGNALED(status_)) {
      out_.term_signal = WTERMSIG(status_);
    }
  }

 private:
  void mark_reaped() {
    reaped_ = true;
    reaped_at_ = clock::now();
  }
  bool pump_stdout() {
    return pump(pipes_.out_r.fd, out_.stdout_text, req_.stdout_max_bytes, false,
                out_.stdout_truncated, &stdout_hash_);
  }
  bool pump_stderr() {
    return pump(pipes_.err_r.fd, out_.stderr_tail, req_.stderr_tail_bytes, true, ignored_);
  }

  // One look at the worker and its pipes; false when supervision is over.
  bool turn(clock::time_point deadline) {
    if (!reaped_ && ::wait4(pid_, &status_, WNOHANG, &out_.usage) == pid_) mark_reaped();
    const bool pipes_open = pipes_.out_r.fd >= 0 || pipes_.err_r.fd >= 0;
    if (reaped_ && !pipes_open) return false;
    const bool cancelled = req_.cancel != nullptr && req_.cancel->load();
    if (!reaped_ && (clock::now() >= deadline || cancelled)) {
      out_.timed_out = true;
      ::kill(-pid_, SIGKILL);
      ::wait4(pid_, &status_, 0, &out_.usage);
      mark_reaped();
    }
    if (reaped_ && pipes_open && clock::now() - reaped_at_ > std::chrono::milliseconds(500)) {
      // A grandchild still holds the pipes: collect what we have and stop it.
      ::kill(-pid_, SIGKILL);
      if (pipes_.out_r.fd >= 0) pump_stdout();
      if (pipes_.err_r.fd >= 0) pump_stderr();
      return false;
    }
    return read_pipes();
  }

  // Waits up to 50 ms for output and reads it; false when poll fails (the worker is killed).
  bool read_pipes() {
    pollfd fds[2];
    nfds_t nfds = 0;
    if (pipes_.out_r.fd >= 0) fds[nfds++] = pollfd{pipes_.out_r.fd, POLLIN, 0};
    if (pipes_.err_r.fd >= 0) fds[nfds++] = pollfd{pipes_.err_r.fd, POLLIN, 0};
    if (nfds == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return true;
    }
    const int pr = ::poll(fds, nfds, 50);
    if (pr < 0 && errno != EINTR) {
      out_.error = std::string("poll: ") + std::strerror(errno);
      ::kill(-pid_, SIGKILL);
      if (!reaped_) ::wait4(pid_, &status_, 0, &out_.usage);
      mark_reaped();
      return false;
    }
    for (nfds_t i = 0; i < nfds; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (fds[i].fd == pipes_.out_r.fd) {
        if (!pump_stdout()) pipes_.out_r.reset();
      } else if (fds[i].fd == pipes_.err_r.fd) {
        if (!pump_stderr()) pipes_.err_r.reset();
      }
    }
    return true;
  }

  const worker_request& req_;
  pid_t pid_;
  output_pipes& pipes_;
  worker_outcome& out_;
  int status_ = 0;
  bool reaped_ = false;
  clock::time_point reaped_at_{};
  bool ignored_ = false;  // stderr keeps its tail: never truncated
  stream_hash stdout_hash_;
};

}  // namespace

std::string worker_outcome::describe() const {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", wall_seconds);
  if (!started) return "failed to start: " + error;
  if (timed_out) return std::string("timed out after ") + secs + " s (process group killed)";
  if (term_signal != 0) {
    return "killed by signal " + std::to_string(term_signal) + " (" + signal_name(term_signal) +
           ")";
  }
  if (exited) return "exit status " + std::to_string(exit_code);
  return error.empty() ? std::string("unknown termination") : error;
}

void kill_active_worker() noexcept {
  stopping.store(true);
  for (const auto& slot : active_workers) {
    const pid_t pid = slot.load();
    if (pid > 0) ::kill(-pid, SIGKILL);
  }
}

worker_outcome run_worker(const worker_request& req) noexcept {
  worker_outcome out;
  handed_guard handed{req.handed_fds};
  try {
    if (req.argv.empty()) {
      out.error = "no program given";
      return out;
    }
    output_pipes pipes;
    if (!open_output_pipes(pipes, out.error)) return out;
    const spawned child = spawn_registered(req, pipes);
    handed.close_all();
    if (child.rc != 0) {
      out.error = req.argv[0] + ": " + std::strerror(child.rc);
      return out;
    }
    out.started = true;
    pipes.out_w.reset();  // the child holds the write ends now
    pipes.err_w.reset();
    ::fcntl(pipes.out_r.fd, F_SETFL, ::fcntl(pipes.out_r.fd, F_GETFL) | O_NONBLOCK);
    ::fcntl(pipes.err_r.fd, F_SETFL, ::fcntl(pipes.err_r.fd, F_GETFL) | O_NONBLOCK);
    supervision watch(req, child.pid, pipes, out);
    if (req.on_group) req.on_group(child.pid);
    watch.run(child.start + req.timeout);
    if (req.on_group) req.on_group(0);
    if (child.slot < worker_slots) active_workers[child.slot].store(0);
    watch.finish(child.start);
  } catch (const std::exception& e) {
    out.error = e.what();
  } catch (...) {
    out.error = "unknown error while supervising the worker";
  }
  return out;
}

}  // namespace alloclab::process
