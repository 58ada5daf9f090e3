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

namespace alloclab::heap {

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
    int out_pipe[2];
    int err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
      out.error = std::string("pipe: ") + std::strerror(errno);
      return out;
    }
    fd_guard out_r, out_w, err_r, err_w;
    out_r.fd = out_pipe[0];
    out_w.fd = out_pipe[1];
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
      out.error = std::string("pipe: ") + std::strerror(errno);
      return out;
    }
    err_r.fd = err_pipe[0];
    err_w.fd = err_pipe[1];

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string stdin_path = req.stdin_path.empty() ? "/dev/null" : req.stdin_path;
    posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
    if (!req.working_directory.empty())
      posix_spawn_file_actions_addchdir_np(&actions, req.working_directory.c_str());
    posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
    posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
    for (const auto& [from, to] : req.handed_fds)
      posix_spawn_file_actions_adddup2(&actions, from, to);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t empty_mask;
    sigemptyset(&empty_mask);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGABRT, SIGCHLD, SIGALRM, SIGUSR1,
                    SIGUSR2, SIGSEGV, SIGBUS}) {
      sigaddset(&defaults, sig);
    }
    posix_spawnattr_setsigmask(&attr, &empty_mask);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);  // own process group: a timeout kills the whole tree
    posix_spawnattr_setflags(
        &attr,
        static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));

    std::vector<std::string> args = req.argv;
    std::vector<std::string> env = build_environment(req);
    std::vector<char*> argv = c_array(args);
    std::vector<char*> envp = c_array(env);

    const auto start = clock::now();
    pid_t pid = -1;
    // SIGINT/SIGTERM wait until the worker is registered, so kill_active_worker() from their
    // handler finds it (the child's mask is set by `attr`).
    sigset_t stop_signals, previous;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
    const int rc = req.search_path
                       ? ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data())
                       : ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
    const std::size_t slot = rc == 0 ? register_worker(pid) : worker_slots;
    if (rc == 0 && stopping.load()) ::kill(-pid, SIGKILL);  // the signal came before the spawn
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    handed.close_all();
    if (rc != 0) {
      out.error = req.argv[0] + ": " + std::strerror(rc);
      return out;
    }
    out.started = true;
    out_w.reset();  // the child holds the write ends now
    err_w.reset();
    ::fcntl(out_r.fd, F_SETFL, ::fcntl(out_r.fd, F_GETFL) | O_NONBLOCK);
    ::fcntl(err_r.fd, F_SETFL, ::fcntl(err_r.fd, F_GETFL) | O_NONBLOCK);

    const auto deadline = start + req.timeout;
    int status = 0;
    bool reaped = false;
    clock::time_point reaped_at{};
    bool ignored = false;
    stream_hash stdout_hash;
    for (;;) {
      if (!reaped) {
        const pid_t w = ::wait4(pid, &status, WNOHANG, &out.usage);
        if (w == pid) {
          reaped = true;
          reaped_at = clock::now();
        }
      }
      const bool pipes_open = out_r.fd >= 0 || err_r.fd >= 0;
      if (reaped && !pipes_open) break;
      const auto now = clock::now();
      const bool cancelled = req.cancel != nullptr && req.cancel->load();
      if (!reaped && (now >= deadline || cancelled)) {
        out.timed_out = true;
        ::kill(-pid, SIGKILL);
        ::wait4(pid, &status, 0, &out.usage);
        reaped = true;
        reaped_at = clock::now();
      }
      if (reaped && pipes_open && clock::now() - reaped_at > std::chrono::milliseconds(500)) {
        // A grandchild still holds the pipes: collect what we have and stop it.
        ::kill(-pid, SIGKILL);
        if (out_r.fd >= 0)
          pump(out_r.fd, out.stdout_text, req.stdout_max_bytes, false, out.stdout_truncated,
               &stdout_hash);
        if (err_r.fd >= 0) pump(err_r.fd, out.stderr_tail, req.stderr_tail_bytes, true, ignored);
        break;
      }
      pollfd fds[2];
      nfds_t nfds = 0;
      if (out_r.fd >= 0) fds[nfds++] = pollfd{out_r.fd, POLLIN, 0};
      if (err_r.fd >= 0) fds[nfds++] = pollfd{err_r.fd, POLLIN, 0};
      if (nfds == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      const int pr = ::poll(fds, nfds, 50);
      if (pr < 0 && errno != EINTR) {
        out.error = std::string("poll: ") + std::strerror(errno);
        ::kill(-pid, SIGKILL);
        if (!reaped) ::wait4(pid, &status, 0, &out.usage);
        reaped = true;
        reaped_at = clock::now();
        break;
      }
      for (nfds_t i = 0; i < nfds; ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        if (fds[i].fd == out_r.fd) {
          if (!pump(out_r.fd, out.stdout_text, req.stdout_max_bytes, false, out.stdout_truncated,
                    &stdout_hash)) {
            out_r.reset();
          }
        } else if (fds[i].fd == err_r.fd) {
          if (!pump(err_r.fd, out.stderr_tail, req.stderr_tail_bytes, true, ignored)) err_r.reset();
        }
      }
    }
    if (slot < worker_slots) active_workers[slot].store(0);
    out.has_usage = reaped;
    out.stdout_hash = stdout_hash.value;
    out.stdout_bytes = stdout_hash.bytes;
    out.wall_seconds = std::chrono::duration<double>(reaped_at - start).count();
    if (out.stderr_tail.size() > req.stderr_tail_bytes) {
      out.stderr_tail.erase(0, out.stderr_tail.size() - req.stderr_tail_bytes);
    }
    if (WIFEXITED(status)) {
      out.exited = true;
      out.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      out.term_signal = WTERMSIG(status);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  } catch (...) {
    out.error = "unknown error while supervising the worker";
  }
  return out;
}

}  // namespace alloclab::heap
