// The serve frame's connections (http_server.cpp): a thread per open connection, up to a limit
// (the ones beyond run flagged over capacity, answered 503 and closed), and how a response closes
// its connection once it is written.
//
// Example:
//   httplib::Server server;
//   server.new_task_queue = [] { return new alloclab::lab::serve::connection_threads(256, 64); };
//   server.set_logger([](const httplib::Request& req, const httplib::Response&) {
//     alloclab::lab::serve::after_response(req);
//   });
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace alloclab::lab::serve {

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
// because the request now asks for it; once written, the socket's read side is shut
// (after_response), so httplib's next read finds the end and closes it: a refused request's
// unread body is never parsed. (Shut before the write, httplib would find the socket dead.)
void close_after_response(const httplib::Request& req);
// Called when the response to `req` has been written (httplib's logger runs then).
void after_response(const httplib::Request& req);

}  // namespace alloclab::lab::serve
