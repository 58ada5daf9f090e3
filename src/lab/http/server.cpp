#include "http/server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>

#include "http/connections.hpp"
#include "http/answers.hpp"
#include "http/latency_histogram.hpp"
#include "http/metrics.hpp"
#include "http/server_counters.hpp"
#include "io/usage_error.hpp"
#include "text/plural.hpp"
#include "measure/clock.hpp"

namespace alloclab::lab::http {
namespace {

using json = nlohmann::json;

using counters = server_counters;

// When the request this thread is answering was read (set before routing, read once its
// response is written): one connection is served by one thread, one request at a time.
thread_local lab_clock::time_point request_read_at;

bool is_name(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

void reply_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  reply_json(res, status, model::write_json(error_answer{message}));
}

httplib::Server::HandlerResponse refuse(const httplib::Request& req, httplib::Response& res,
                                        int status, const std::string& message) {
  reply_error(res, status, message);
  close_after_response(req);
  return httplib::Server::HandlerResponse::Handled;
}

// What a request's Content-Length and Transfer-Encoding say: empty when it has no body, else
// the refusal's status and message.
std::pair<int, std::string> body_refusal(const httplib::Request& req, std::size_t max_bytes) {
  if (req.has_header("Transfer-Encoding")) return {413, "this server's requests take no body"};
  if (!req.has_header("Content-Length")) return {0, {}};
  const std::string length = req.get_header_value("Content-Length");
  std::uint64_t bytes = 0;
  const auto [end, error] = std::from_chars(length.data(), length.data() + length.size(), bytes);
  if (length.empty() || error != std::errc() || end != length.data() + length.size())
    return {400, fmt::format("malformed Content-Length '{}'", length)};
  if (bytes > max_bytes) return {413, "request body too large"};
  if (bytes > 0) return {413, "this server's requests take no body"};
  return {0, {}};
}

// "127.0.0.1:8080", "[::1]:8080": an IPv6 address in brackets, as in a URL.
std::string host_and_port(const std::string& host, int port) {
  return host.find(':') == std::string::npos ? fmt::format("{}:{}", host, port)
                                             : fmt::format("[{}]:{}", host, port);
}

// Why `bind` cannot listen on `port`, from the kernel's own answer.
std::string bind_failure(const std::string& bind, int port) {
  sockaddr_storage address{};
  socklen_t length = 0;
  int family = AF_INET;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
  if (::inet_pton(AF_INET, bind.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    length = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, bind.c_str(), &v6->sin6_addr) == 1) {
    family = AF_INET6;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    length = sizeof(sockaddr_in6);
  } else {
    return fmt::format("--bind {}: not an IPv4 or IPv6 address", bind);
  }
  const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int reuse = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
  std::string why = "the server could not start listening";
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || ::listen(fd, 1) != 0)
    why = errno == EADDRINUSE ? "the port is in use" : std::strerror(errno);
  ::close(fd);
  return fmt::format("cannot listen on {}: {}", host_and_port(bind, port), why);
}

double cpu_seconds_of_process() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

stats_document stats_of(const served_variant& variant, const server_options& options,
                        const counters& c, lab_clock::time_point started) {
  stats_document doc;
  doc.facts = options.facts;
  doc.workload = variant.workload();
  doc.strategy = variant.strategy();
  doc.threads = options.threads;
  doc.uptime_s = static_cast<double>(elapsed_ns(started, lab_clock::now())) / 1e9;
  doc.cpu_s = cpu_seconds_of_process();
  doc.requests = c.responses.load();
  doc.errors = c.errors.load();
  doc.busy_refusals = c.busy.load();
  doc.run.ok = c.run_ok.load();
  doc.run.failed = c.run_failed.load();
  doc.run.workload_time = counts_of(c.workload_time.snapshot());
  doc.run.request_time = counts_of(c.request_time.snapshot());
  return doc;
}

// Answered even over the --threads limit (then closed): an overloaded server is when they are read.
bool is_monitoring(const std::string& path) {
  return path == "/healthz" || path == "/stats" || path == "/metrics";
}

void add_routes(keep_alive_server& server, served_variant& variant, const server_options& options,
                counters& c, const metrics_source& metrics) {
  const auto started = lab_clock::now();
  server.Get("/healthz", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
    if (connection_over_capacity()) close_after_response(req);
  });
  server.Get("/stats", [&, started](const httplib::Request& req, httplib::Response& res) {
    reply_json(res, 200, model::write_json(stats_of(variant, options, c, started)));
    if (connection_over_capacity()) close_after_response(req);
  });
  server.Get("/run", [&](const httplib::Request& req, httplib::Response& res) {
    const std::size_t mark = req.target.find('?');
    const std::string_view query = mark == std::string::npos
                                       ? std::string_view()
                                       : std::string_view(req.target).substr(mark + 1);
    if (std::string error = check_run_query(query, variant); !error.empty())
      return reply_error(res, 400, error);
    const iteration_result r = variant.run_one();
    if (!r.ok) {
      c.run_failed.fetch_add(1, std::memory_order_relaxed);
      return reply_error(res, 500, r.error);
    }
    c.workload_time.record(r.workload_ns);
    c.run_ok.fetch_add(1, std::memory_order_relaxed);
    reply_json(res, 200,
               model::write_json(run_answer{fmt::format("{:#018x}", r.checksum), r.workload_ns}));
  });
  const variant_labels labels{variant.workload(), variant.strategy(), options.facts.malloc};
  // After /run: httplib tries the routes in order, one regex each, and /run is the hot one.
  server.Get("/metrics", [&metrics, labels](const httplib::Request& req, httplib::Response& res) {
    res.set_content(exposition_text(metric_families(metrics.read(), labels)),
                    exposition_content_type);
    if (connection_over_capacity()) close_after_response(req);
  });
  // The routes take no body, and httplib 0.11 leaves a GET's body unread (it would be parsed
  // as the next request): refuse and close. Header lines are limited in size by httplib, their
  // number here.
  server.set_pre_routing_handler(
      [&options, &c](const httplib::Request& req, httplib::Response& res) {
        request_read_at = lab_clock::now();
        if (const auto [status, message] = body_refusal(req, options.limits.payload_max_bytes);
            status != 0)
          return refuse(req, res, status, message);
        if (req.headers.size() > options.limits.max_header_count)
          return refuse(req, res, 431,
                        fmt::format("more than {} header fields", options.limits.max_header_count));
        if (connection_over_capacity() && !is_monitoring(req.path)) {
          c.busy.fetch_add(1, std::memory_order_relaxed);
          res.set_header("Retry-After", "1");
          return refuse(req, res, 503,
                        fmt::format("server busy: {} connections open (--threads); retry later",
                                    options.threads));
        }
        return httplib::Server::HandlerResponse::Unhandled;
      });
  // Every refusal closes its connection, httplib's own 400 and 414 included.
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (res.status / 100 == 4 || res.status == 503) close_after_response(req);
        return httplib::Server::HandlerResponse::Unhandled;
      }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                  std::exception_ptr) { reply_error(res, 500, "internal error"); });
  // httplib calls the logger once the response is written.
  server.set_logger([&c](const httplib::Request& req, const httplib::Response& res) {
    if (res.status == 200 && req.path == "/run")
      c.request_time.record(
          static_cast<std::uint64_t>(elapsed_ns(request_read_at, lab_clock::now())));
    c.responses.fetch_add(1, std::memory_order_relaxed);
    if (res.status >= 400) c.errors.fetch_add(1, std::memory_order_relaxed);
  });
}

// Connections open at once, served or refused: each is a file descriptor, which httplib's
// select() must see below FD_SETSIZE (and the process's file limit allows).
std::size_t most_connections() {
  constexpr std::size_t reserved = 64;  // the listening socket, stdio, the variant's files
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  const auto limit = static_cast<std::size_t>(std::min<rlim_t>(files.rlim_cur, FD_SETSIZE));
  return limit > 2 * reserved ? limit - reserved : reserved;
}

void configure(keep_alive_server& server, const server_options& options) {
  const std::size_t most = most_connections();
  const std::size_t served = std::min(options.threads, most);
  server.new_task_queue = [served, most] { return new connection_threads(served, most - served); };
  const http_limits& l = options.limits;
  server.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(l.read_timeout));
  server.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(l.write_timeout));
  server.set_keep_alive_timeout(static_cast<time_t>(l.keep_alive_timeout.count()));
  server.set_keep_alive_max_count(std::size_t{1} << 30);  // a load generator's connection lives
  server.set_payload_max_length(l.payload_max_bytes);
  // httplib's default adds SO_REUSEPORT, which lets a second server share a port in use.
  // TCP_NODELAY (inherited by accepted sockets): httplib writes headers and body separately,
  // and Nagle's algorithm with delayed ACKs would hold every response back ~40 ms.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  });
}

// Waits for SIGINT or SIGTERM (blocked in every thread made after it) and stops the server once
// it runs. finished() must be called when listen returns.
class stop_on_signal {
 public:
  explicit stop_on_signal(keep_alive_server& server) : server_(server) {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    waiter_ = std::thread([this] { wait(); });
  }
  stop_on_signal(const stop_on_signal&) = delete;
  stop_on_signal& operator=(const stop_on_signal&) = delete;
  ~stop_on_signal() {
    finished_.store(true);
    if (!signalled_.load()) ::kill(::getpid(), SIGTERM);  // wakes the waiter
    waiter_.join();
  }
  void finished() { finished_.store(true); }

 private:
  void wait() {
    int received = 0;
    sigwait(&signals_, &received);
    signalled_.store(true);
    // stop() is ignored until listen() runs: wait for it (or for its end).
    while (!finished_.load() && !server_.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!finished_.load()) server_.stop_serving();
  }

  keep_alive_server& server_;
  sigset_t signals_{};
  std::atomic<bool> signalled_{false};
  std::atomic<bool> finished_{false};
  std::thread waiter_;
};

}  // namespace

std::string check_run_query(std::string_view query, const served_variant& variant) {
  std::map<std::string, std::string> params;
  while (!query.empty()) {
    const std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    const std::size_t equals = pair.find('=');
    const std::string key(pair.substr(0, equals));
    if (equals == std::string_view::npos || key.empty() || !is_name(key) ||
        !is_name(pair.substr(equals + 1)))
      return fmt::format(
          "malformed query parameter '{}'; expected name=value with letters, "
          "digits and _ . -",
          pair);
    if (key != "workload" && key != "strategy")
      return fmt::format("unknown query parameter '{}'; /run takes workload and strategy", key);
    if (params.count(key) != 0) return fmt::format("query parameter '{}' given twice", key);
    params[key] = std::string(pair.substr(equals + 1));
  }
  for (const char* key : {"workload", "strategy"}) {
    if (params.count(key) == 0) return fmt::format("missing query parameter '{}'", key);
    if (params[key].empty()) return fmt::format("empty query parameter '{}'", key);
  }
  const std::string& workload = params["workload"];
  const std::string& strategy = params["strategy"];
  if (find_workload(workload) == nullptr) return fmt::format("unknown workload '{}'", workload);
  if (find_strategy(strategy) == nullptr) return fmt::format("unknown strategy '{}'", strategy);
  if (workload != variant.workload() || strategy != variant.strategy())
    return fmt::format(
        "this server serves workload {} with strategy {} (one server process per variant)",
        variant.workload(), variant.strategy());
  return {};
}

int run_http_server(served_variant& variant, const server_options& options,
                    std::ostream& announce) {
  keep_alive_server server;
  counters c;
  const metrics_source metrics(c, options.budget_watcher, options.cgroup);
  configure(server, options);
  add_routes(server, variant, options, c, metrics);
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.bind);
    if (port < 0) throw usage_error(bind_failure(options.bind, 0));
  } else if (!server.bind_to_port(options.bind, port)) {
    throw usage_error(bind_failure(options.bind, port));
  }
  server.widen_backlog();
  stop_on_signal stopper(server);
  announce << fmt::format("listening on {}", host_and_port(options.bind, port)) << std::endl;
  server.listen_after_bind();
  stopper.finished();
  announce << fmt::format("stopped after {} ({})", counted(c.responses.load(), "request"),
                          counted(c.errors.load(), "error"))
           << std::endl;
  return 0;
}

}  // namespace alloclab::lab::http
