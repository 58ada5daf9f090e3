// The HTTP server's connections (server.cpp): a thread per open connection, up to a limit
// (the ones beyond run flagged over capacity, answered 503 and closed), and how a response closes
// its connection once it is written, and the loop that serves each connection.
//
// Example:
//   alloclab::lab::http::keep_alive_server server;
//   server.new_task_queue = [] { return new alloclab::lab::http::connection_threads(256, 64); };
//   server.bind_to_port("127.0.0.1", 8080);
//   server.widen_backlog();
//   server.listen_after_bind();  // until server.stop_serving()
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace alloclab::lab::http {

// httplib's task queue, given one task per accepted connection (it serves the connection until
// it closes). Threads start on demand and stay for later connections. Connections over `limit`
// run flagged over capacity (connection_over_capacity) on up to `overflow` more threads; beyond
// those they wait for a thread.
class connection_threads : public httplib::TaskQueue {
 public:
  connection_threads(std::size_t limit, std::size_t overflow)
      : limit_(limit), max_threads_(limit + overflow) {}
  connection_threads(const connection_threads&) = delete;
  connection_threads& operator=(const connection_threads&) = delete;
  ~connection_threads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override;
  // Runs what is queued (httplib has stopped listening: those connections close at once).
  void shutdown() override;

 private:
  struct task {
    std::function<void()> serve;
    bool over_limit = false;
  };

  void work();

  const std::size_t limit_;
  const std::size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<task> tasks_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  std::size_t open_ = 0;  // connections queued or being served
  bool stopping_ = false;
};

// True while this thread serves a connection over the limit (answered 503 and closed).
bool connection_over_capacity();

// The response to `req` ends its connection: "Connection: close" (and no Keep-Alive) is written
// because the request now asks for it, and the connection's loop (keep_alive_server) closes once
// it is written: a refused request's unread body is never parsed.
void close_after_response(const httplib::Request& req);

// httplib's Server with its own loop per connection (httplib 0.11's, compiled into Debian's
// library, polls every idle keep-alive socket each 10 ms, and reads each request through a
// fresh buffer, dropping a pipelined second request). Here an idle connection sleeps in one
// poll() until a request, its keep-alive timeout or stop(); one buffered stream serves all of a
// connection's requests in order.
class keep_alive_server : public httplib::Server {
 public:
  keep_alive_server();
  keep_alive_server(const keep_alive_server&) = delete;
  keep_alive_server& operator=(const keep_alive_server&) = delete;
  ~keep_alive_server() override;

  // After bind_to_port: the kernel queues up to SOMAXCONN connections not yet accepted (httplib
  // 0.11 listens with a backlog of 5, so a burst of connections overflowed and was dropped).
  void widen_backlog();
  // httplib's stop(), and wakes every connection waiting for a request so that it closes.
  void stop_serving();

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Waits until `sock` has bytes (true), or its keep-alive timeout passes or the server stops.
  bool wait_for_request(socket_t sock) const;

  int stopping_fd_;  // an eventfd, readable once stop_serving ran
};

}  // namespace alloclab::lab::http
