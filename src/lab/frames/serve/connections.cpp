#include "connections.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>
#include <system_error>

namespace alloclab::lab::serve {
namespace {

// Set while a thread serves a connection over the limit (read by the handlers).
thread_local bool over_capacity = false;

// Set by close_after_response until the response is written (the logger runs then).
thread_local bool closing = false;

// The socket of `req`'s connection (httplib does not hand it to handlers): the one whose local
// and peer addresses are the request's. -1 when not found.
int connection_socket(const httplib::Request& req) {
  const auto same = [](const sockaddr_storage& a, const std::string& address, int port) {
    char text[INET6_ADDRSTRLEN] = {};
    int actual_port = -1;
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      actual_port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      actual_port = ntohs(v6->sin6_port);
    }
    return actual_port == port && address == text;
  };
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  const int last = static_cast<int>(std::min<rlim_t>(files.rlim_cur, 65536));
  for (int fd = 3; fd < last; ++fd) {
    sockaddr_storage local{}, peer{};
    socklen_t local_length = sizeof local, peer_length = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0) continue;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) != 0) continue;
    if (same(peer, req.remote_addr, req.remote_port) && same(local, req.local_addr, req.local_port))
      return fd;
  }
  return -1;
}

}  // namespace

void connection_threads::enqueue(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mutex_);
  tasks_.push_back({std::move(fn), open_ >= limit_});
  ++open_;
  if (tasks_.size() > idle_ && threads_.size() < max_threads_) {
    try {
      threads_.emplace_back([this] { work(); });
      return;
    } catch (const std::system_error&) {  // no thread to be had: it waits for one
    }
  }
  ready_.notify_one();
}

void connection_threads::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void connection_threads::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ++idle_;
    ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
    --idle_;
    if (tasks_.empty()) return;
    task t = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    over_capacity = t.over_limit;
    t.serve();
    over_capacity = false;
    lock.lock();
    --open_;
  }
}

bool connection_over_capacity() {
  return over_capacity;
}

void close_after_response(const httplib::Request& req) {
  // httplib's Request object is not const (it is a local of the connection's loop).
  auto& headers = const_cast<httplib::Headers&>(req.headers);
  headers.erase("Connection");
  headers.emplace("Connection", "close");
  closing = true;
}

void after_response(const httplib::Request& req) {
  if (!closing) return;
  closing = false;
  if (const int fd = connection_socket(req); fd >= 0) ::shutdown(fd, SHUT_RD);
}

}  // namespace alloclab::lab::serve
