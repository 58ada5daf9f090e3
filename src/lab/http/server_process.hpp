// A running `alloclab serve` child, as load drivers and tests use it: started with --port 0, its
// "listening on HOST:PORT" line read back, stopped with SIGTERM (SIGKILL after a grace period).
// Its stdout and stderr are captured together.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace alloclab::lab::http {

struct server_launch {
  std::vector<std::string> argv;  // argv[0] is a path (no PATH search); must include --port 0
  std::vector<std::pair<std::string, std::string>> env_set;
  std::vector<std::string> env_unset = {"LD_PRELOAD"};
  std::chrono::milliseconds startup_timeout{std::chrono::seconds(60)};
};

struct server_exit {
  bool exited = false;  // normally, with exit_code
  int exit_code = -1;
  int term_signal = 0;
  bool killed_after_grace = false;
};

class server_process {
 public:
  // Throws std::runtime_error (with the child's output) when it exits or stays silent instead
  // of announcing its port.
  explicit server_process(const server_launch& launch);
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;
  ~server_process();

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string origin() const;  // "http://127.0.0.1:PORT"
  bool running();
  // Sends `signal` and waits up to `grace`, then SIGKILL. Idempotent.
  server_exit stop(int signal, std::chrono::milliseconds grace = std::chrono::seconds(15));
  // Everything the child printed so far (reads what is pending).
  const std::string& output();

 private:
  void drain(std::chrono::milliseconds wait);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
  std::string host_;
  std::string output_;
  bool reaped_ = false;
  server_exit exit_;
};

}  // namespace alloclab::lab::http
