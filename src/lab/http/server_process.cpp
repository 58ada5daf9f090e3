#include "http/server_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace alloclab::lab::http {
namespace {

std::vector<std::string> child_environment(const server_launch& launch) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool drop = false;
    for (const auto& u : launch.env_unset) drop = drop || u == name;
    for (const auto& s : launch.env_set) drop = drop || s.first == name;
    if (!drop) env.push_back(entry);
  }
  for (const auto& [name, value] : launch.env_set) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (std::string& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

}  // namespace

server_process::server_process(const server_launch& launch) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<std::string> argv = launch.argv, env = child_environment(launch);
  const int rc = ::posix_spawn(&pid_, argv.at(0).c_str(), &actions, nullptr, pointers(argv).data(),
                               pointers(env).data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  out_fd_ = fds[0];
  if (rc != 0) {
    ::close(out_fd_);
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(rc)));
  }
  const std::regex listening(R"(listening on (\S+):(\d+)\n)");
  const auto deadline = std::chrono::steady_clock::now() + launch.startup_timeout;
  std::smatch m;
  while (!std::regex_search(output_, m, listening)) {
    if (!running() || std::chrono::steady_clock::now() > deadline) {
      stop(SIGKILL, std::chrono::seconds(5));
      throw std::runtime_error("the server did not announce its port; it printed: " + output_);
    }
    drain(std::chrono::milliseconds(50));
  }
  host_ = m[1].str();
  port_ = std::stoi(m[2].str());
}

server_process::~server_process() {
  stop(SIGTERM);
  if (out_fd_ >= 0) ::close(out_fd_);
}

std::string server_process::origin() const {
  return fmt::format("http://{}:{}", host_, port_);
}

void server_process::drain(std::chrono::milliseconds wait) {
  if (out_fd_ < 0) return;
  pollfd p{out_fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return;
  char buffer[4096];
  const ssize_t n = ::read(out_fd_, buffer, sizeof buffer);
  if (n > 0) {
    output_.append(buffer, static_cast<std::size_t>(n));
  } else if (n == 0) {
    ::close(out_fd_);
    out_fd_ = -1;
  }
}

const std::string& server_process::output() {
  drain(std::chrono::milliseconds(0));
  return output_;
}

bool server_process::running() {
  if (reaped_) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
  reaped_ = true;
  exit_.exited = WIFEXITED(status);
  exit_.exit_code = exit_.exited ? WEXITSTATUS(status) : -1;
  exit_.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return false;
}

server_exit server_process::stop(int signal, std::chrono::milliseconds grace) {
  if (pid_ <= 0 || !running()) return exit_;
  ::kill(pid_, signal);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (running() && std::chrono::steady_clock::now() < deadline)
    drain(std::chrono::milliseconds(20));  // a child blocked writing to the pipe must not hang
  if (running()) {
    ::kill(pid_, SIGKILL);
    while (running()) drain(std::chrono::milliseconds(20));
    exit_.killed_after_grace = true;
  }
  const auto drained = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (out_fd_ >= 0 && std::chrono::steady_clock::now() < drained)
    drain(std::chrono::milliseconds(100));
  return exit_;
}

}  // namespace alloclab::lab::http
