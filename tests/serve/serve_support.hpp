// Shared by the serve tests: start `alloclab serve` (ALLOCLAB_BINARY) on a free loopback port,
// and talk to it over raw sockets, byte for byte, so that malformed requests reach it intact.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "serve/server_process.hpp"

namespace serve_test {

using alloclab::lab::serve::server_launch;
using alloclab::lab::serve::server_process;

inline constexpr const char* workload = "request_mix";
inline constexpr const char* strategy = "pmr_monotonic_over_pool";

inline std::unique_ptr<server_process> start_server(std::vector<std::string> extra = {},
                                                    const std::string& served_strategy = strategy) {
  server_launch launch;
  launch.argv = {ALLOCLAB_BINARY, "serve",  "--workload", workload,       "--strategy",
                 served_strategy, "--port", "0",          "--allow-debug"};
  launch.argv.insert(launch.argv.end(), extra.begin(), extra.end());
  return std::make_unique<server_process>(launch);
}

// A connected loopback socket, closed on destruction.
class connection {
 public:
  explicit connection(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection() { ::close(fd_); }

  bool connected() const { return connected_; }
  // Sends what the peer accepts; a peer that closed early is not an error here.
  void send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // Reads until the peer closes (true) or `limit` passes without it (false).
  bool read_until_closed(std::string& out, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    char buffer[4096];
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return true;  // orderly close or reset
      out.append(buffer, static_cast<std::size_t>(n));
    }
  }
  // Reads until `marker` appears or `limit` passes.
  bool read_until(std::string& out, std::string_view marker, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    char buffer[4096];
    while (out.find(marker) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
  bool connected_ = false;
};

struct reply {
  bool closed = false;  // the server closed the connection within the limit
  int status = 0;       // 0: no HTTP status line came back
  std::string text;
  std::string body() const {
    const std::size_t at = text.find("\r\n\r\n");
    return at == std::string::npos ? std::string() : text.substr(at + 4);
  }
};

inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::stoi(response.substr(9, 3));
}

// Sends `request` on a fresh connection and reads until the server closes it.
inline reply send_request(int port, std::string_view request,
                          std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  connection c(port);
  reply r;
  if (!c.connected()) return r;
  c.send(request);
  r.closed = c.read_until_closed(r.text, limit);
  r.status = status_of(r.text);
  return r;
}

inline reply get(int port, const std::string& target) {
  return send_request(port,
                      "GET " + target + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
}

inline std::string run_target(const std::string& w = workload, const std::string& s = strategy) {
  return "/run?workload=" + w + "&strategy=" + s;
}

}  // namespace serve_test
