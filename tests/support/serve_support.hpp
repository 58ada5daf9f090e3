// Shared by the serve tests: start `alloclab serve` (ALLOCLAB_BINARY) on a free loopback port,
// and talk to it over raw sockets, byte for byte, so that malformed requests reach it intact.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/server_process.hpp"

namespace serve_test {

using alloclab::lab::http::server_launch;
using alloclab::lab::http::server_process;

inline constexpr const char* workload = "request_mix";
inline constexpr const char* strategy = "pmr_monotonic_over_pool";

// The binary under test: ALLOCLAB_TEST_BINARY overrides the one built with the tests, so a
// defect test can be shown failing against an older build.
inline std::string binary() {
  const char* other = std::getenv("ALLOCLAB_TEST_BINARY");
  return other != nullptr ? other : ALLOCLAB_BINARY;
}

// `alloclab serve --port 0 --allow-debug ARGS` (no variant named when `args` names none).
inline std::unique_ptr<server_process> start_serve(const std::vector<std::string>& args) {
  server_launch launch;
  launch.argv = {binary(), "serve", "--port", "0", "--allow-debug"};
  launch.argv.insert(launch.argv.end(), args.begin(), args.end());
  return std::make_unique<server_process>(launch);
}

inline std::unique_ptr<server_process> start_server(std::vector<std::string> extra = {},
                                                    const std::string& served_strategy = strategy) {
  std::vector<std::string> args = {"--workload", workload, "--strategy", served_strategy};
  args.insert(args.end(), extra.begin(), extra.end());
  return start_serve(args);
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
  int local_port() const {
    sockaddr_in a{};
    socklen_t length = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &length);
    return ntohs(a.sin_port);
  }
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

// Bytes the server has received on its end of the loopback connection from `client_port` but not
// yet read (the rx_queue of /proc/net/tcp); -1 when that socket is not listed.
inline long unread_by_server(int server_port, int client_port) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  char local[64], remote[64], queues[64];
  const auto endpoint = [](int port) {
    char text[32];
    std::snprintf(text, sizeof text, "0100007F:%04X", port);
    return std::string(text);
  };
  while (std::getline(table, line)) {
    int slot = 0;
    unsigned state = 0;
    if (std::sscanf(line.c_str(), "%d: %63s %63s %x %63s", &slot, local, remote, &state, queues) !=
        5)
      continue;
    if (local == endpoint(server_port) && remote == endpoint(client_port))
      return std::strtol(std::strchr(queues, ':') + 1, nullptr, 16);
  }
  return -1;
}

inline std::string run_target(const std::string& w = workload, const std::string& s = strategy) {
  return "/run?workload=" + w + "&strategy=" + s;
}

}  // namespace serve_test
