#include "http/connections.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>

namespace alloclab::lab::http {
namespace {

// Set while a thread serves a connection over the limit (read by the handlers).
thread_local bool over_capacity = false;

// Set by close_after_response until the connection's loop reads it.
thread_local bool closing = false;

int milliseconds_of(time_t seconds, time_t microseconds) {
  return static_cast<int>(seconds * 1000 + microseconds / 1000);
}

// True when `sock` has `events` within `timeout_ms` (EINTR retried).
bool wait_for(socket_t sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  int ready = 0;
  while ((ready = ::poll(&p, 1, timeout_ms)) < 0 && errno == EINTR) {
  }
  return ready > 0;
}

// One connection's bytes, buffered across its requests (pipelined ones included); reads and
// writes wait at most the server's read and write timeouts.
class connection_stream : public httplib::Stream {
 public:
  connection_stream(socket_t sock, int read_timeout_ms, int write_timeout_ms)
      : sock_(sock), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool has_buffered() const { return begin_ < end_; }

  bool is_readable() const override {
    return has_buffered() || wait_for(sock_, POLLIN, read_timeout_ms_);
  }
  bool is_writable() const override { return wait_for(sock_, POLLOUT, write_timeout_ms_); }

  ssize_t read(char* ptr, size_t size) override {
    if (!has_buffered()) {
      if (!is_readable()) return -1;
      ssize_t n = 0;
      while ((n = ::recv(sock_, buffer_, sizeof buffer_, 0)) < 0 && errno == EINTR) {
      }
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t taken = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, taken);
    begin_ += taken;
    return static_cast<ssize_t>(taken);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n = 0;
    while ((n = ::send(sock_, ptr, size, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(::getsockname, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  template <class Query>
  void address_of(Query query, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t length = sizeof a;
    if (query(sock_, reinterpret_cast<sockaddr*>(&a), &length) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  const socket_t sock_;
  const int read_timeout_ms_;
  const int write_timeout_ms_;
  char buffer_[4096];
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

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

keep_alive_server::keep_alive_server() : stopping_fd_(::eventfd(0, EFD_CLOEXEC)) {
  if (stopping_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

keep_alive_server::~keep_alive_server() {
  ::close(stopping_fd_);
}

void keep_alive_server::widen_backlog() {
  const socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, SOMAXCONN);
}

void keep_alive_server::stop_serving() {
  stop();
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(stopping_fd_, &one, sizeof one);
}

bool keep_alive_server::wait_for_request(socket_t sock) const {
  pollfd waits[2] = {{sock, POLLIN, 0}, {stopping_fd_, POLLIN, 0}};
  const int timeout_ms = milliseconds_of(keep_alive_timeout_sec_, 0);
  int ready = 0;
  while ((ready = ::poll(waits, 2, timeout_ms)) < 0 && errno == EINTR) {
  }
  return ready > 0 && waits[1].revents == 0 && waits[0].revents != 0;
}

bool keep_alive_server::process_and_close_socket(socket_t sock) {
  connection_stream stream(sock, milliseconds_of(read_timeout_sec_, read_timeout_usec_),
                           milliseconds_of(write_timeout_sec_, write_timeout_usec_));
  bool served = false;
  for (std::size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    if (!stream.has_buffered() && !wait_for_request(sock)) break;
    bool connection_closed = false;
    closing = false;
    served = process_request(stream, left == 1, connection_closed, nullptr);
    if (!served || connection_closed || closing) break;
  }
  closing = false;
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return served;
}

}  // namespace alloclab::lab::http
