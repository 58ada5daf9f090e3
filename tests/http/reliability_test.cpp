// Test plan: `alloclab serve` as a child process on a free loopback port
// (frames/serve/serve_command.cpp, http/server.cpp, http/server_process.cpp), fed over raw sockets.
//   GET /run, /healthz, /stats ............... Serving.RunHealthzAndStatsAnswer
//   unknown workload / strategy -> 400 JSON ... Serving.UnknownNamesGet400WithAJsonError
//   invalid queries -> 400 JSON .............. Serving.InvalidQueriesGet400
//   garbage bytes ............................ Serving.GarbageBytesDoNotHurtIt
//   oversized URL and headers ................ Serving.OversizedUrlAndHeadersAreRefused
//   request body over the limit .............. Serving.OversizedBodyIsRefused
//   Content-Length: -5 -> 400 ................ Serving.MalformedContentLengthIs400
//   a refusal says close and closes, no Keep-Alive
//                                          ... Serving.RefusalsCloseWithoutKeepAlive
//   400 and 414 to keep-alive requests close . Serving.MalformedAndOverlongRequestsClose
//   two pipelined requests both answered ..... Serving.PipelinedRequestsAreBothAnswered
//   slowloris (half-sent, held open) ......... Serving.HalfSentRequestsAreDroppedAfterTheReadTimeout
//   every test above ends with ............... expect_still_serving (healthz + /run checksum)
//   SIGTERM / SIGINT stop it, exit 0 ......... Lifecycle.SigtermAndSigintStopItCleanly
//   a request in flight at SIGTERM finishes .. Lifecycle.RequestInFlightAtSigtermIsAnswered
//   --bind ::1 announces [::1]:PORT ......... Lifecycle.AnIpv6BindIsAnnouncedInBrackets
//   no --workload/--strategy: request_mix/std  Lifecycle.VariantDefaultsToRequestMixWithStd
//   idle connections do not starve /healthz .. Connections.IdleConnectionsDoNotStarveHealthz
//   over --threads connections: 503 + close, /healthz, /stats, /metrics still answered
//                                          ... Connections.OverTheLimitIs503AndMonitoringStillAnswers
//   a burst of connections opened at once: each answered 200 or 503, the 503s counted in /stats
//                                          ... Connections.BurstsAreAnsweredNeverDropped
//   idle keep-alive connections do not wake the server
//                                          ... Connections.IdleKeepAliveConnectionsDoNotWakeIt
//   port in use -> exit 2, one line .......... Lifecycle.PortInUseIsExit2WithOneLine
//   bad arguments (NaN, --seed -1 ...) -> exit 2 ... Lifecycle.BadArgumentsAreExit2
//   --malloc: re-executed under it, proven live, same checksum
//                                          ... Lifecycle.MallocIsPreloadedAndProvenLive
//   --malloc not installed -> exit 2 ......... Lifecycle.MallocNotInstalledIsExit2
//   the suite's server exits 0 (no leak under ASan) ... Serving (TearDownTestSuite)
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "http/answers.hpp"
#include "mallocs/malloc_table.hpp"
#include "support/serve_support.hpp"

namespace {

using json = nlohmann::json;
using namespace serve_test;
using namespace std::chrono_literals;
using alloclab::lab::http::stats_document;

// A JSON answer of the server, read as its typed body (http/answers.hpp).
template <class Answer>
Answer answer_of(const reply& r) {
  return alloclab::lab::model::read_json<Answer>(json::parse(r.body()));
}
stats_document stats_of(int port) {
  return answer_of<stats_document>(get(port, "/stats"));
}
std::string checksum_of(const reply& run) {
  return answer_of<alloclab::lab::http::run_answer>(run).checksum;
}

class Serving : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ =
        start_server({"--read-timeout", "1", "--keep-alive", "1", "--threads", "16"}).release();
  }
  static void TearDownTestSuite() {
    const auto exit = server_->stop(SIGTERM);
    const std::string output = server_->output();
    delete server_;
    server_ = nullptr;
    // Under the sanitize preset a leak makes LeakSanitizer fail the exit code and print a report.
    EXPECT_TRUE(exit.exited) << output;
    EXPECT_EQ(exit.exit_code, 0) << output;
    EXPECT_EQ(output.find("Sanitizer"), std::string::npos) << output;
  }
  void TearDown() override { expect_still_serving(); }

  static int port() { return server_->port(); }

  static void expect_still_serving() {
    ASSERT_TRUE(server_->running()) << server_->output();
    const reply health = get(port(), "/healthz");
    EXPECT_EQ(health.status, 200) << health.text;
    EXPECT_EQ(health.body(), "ok\n");
    const reply run = get(port(), run_target());
    ASSERT_EQ(run.status, 200) << run.text;
    const reply stats = get(port(), "/stats");
    ASSERT_EQ(stats.status, 200) << stats.text;
    EXPECT_EQ(checksum_of(run), answer_of<stats_document>(stats).facts.expected_checksum);
  }

  static std::string error_of(const reply& r) {
    return answer_of<alloclab::lab::http::error_answer>(r).error;
  }

  static server_process* server_;
};

server_process* Serving::server_ = nullptr;

TEST_F(Serving, RunHealthzAndStatsAnswer) {
  const stats_document before = stats_of(port());
  const reply first = get(port(), run_target());
  const reply second = get(port(), run_target());
  ASSERT_EQ(first.status, 200) << first.text;
  ASSERT_EQ(second.status, 200) << second.text;
  EXPECT_EQ(checksum_of(first), checksum_of(second));
  const stats_document after = stats_of(port());
  EXPECT_EQ(after.workload, workload);
  EXPECT_EQ(after.strategy, strategy);
  EXPECT_EQ(after.facts.malloc, "glibc");
  EXPECT_EQ(after.run.ok - before.run.ok, 2u);
  EXPECT_EQ(after.run.workload_time.count, after.run.ok);
  EXPECT_GT(after.run.workload_time.sum_ns, 0u);
  EXPECT_GE(after.requests, before.requests + 3);
}

TEST_F(Serving, UnknownNamesGet400WithAJsonError) {
  const reply w = get(port(), run_target("no_such_workload", strategy));
  EXPECT_EQ(w.status, 400);
  EXPECT_EQ(error_of(w), "unknown workload 'no_such_workload'");
  const reply s = get(port(), run_target(workload, "no_such_strategy"));
  EXPECT_EQ(s.status, 400);
  EXPECT_EQ(error_of(s), "unknown strategy 'no_such_strategy'");
  const reply other = get(port(), run_target(workload, "std"));
  EXPECT_EQ(other.status, 400);
  EXPECT_NE(error_of(other).find("one server process per variant"), std::string::npos);
}

TEST_F(Serving, InvalidQueriesGet400) {
  const stats_document before = stats_of(port());
  const std::string both = "workload=" + std::string(workload) + "&strategy=" + strategy;
  for (const std::string& target : std::vector<std::string>{
           "/run", "/run?strategy=" + std::string(strategy),
           "/run?" + both + "&workload=" + workload, "/run?" + both + "&extra=1",
           "/run?workload=&strategy=" + std::string(strategy), "/run?%zz%00=%",
           "/run?" + both + "&&&==="}) {
    const reply r = get(port(), target);
    EXPECT_EQ(r.status, 400) << target << "\n" << r.text;
    EXPECT_FALSE(error_of(r).empty()) << target;
  }
  const stats_document after = stats_of(port());
  EXPECT_GE(after.errors - before.errors, 7u);
  EXPECT_EQ(after.run.ok, before.run.ok);
}

TEST_F(Serving, GarbageBytesDoNotHurtIt) {
  std::mt19937 random(11);
  std::string garbage(64 * 1024, '\0');
  for (char& c : garbage) c = static_cast<char>(random());
  const reply binary = send_request(port(), garbage + "\r\n\r\n");
  EXPECT_TRUE(binary.closed);
  if (binary.status != 0) {
    EXPECT_EQ(binary.status / 100, 4) << binary.text.substr(0, 200);
  }
  for (const std::string& request : std::vector<std::string>{
           "\r\n\r\n", std::string("GET\r\n\r\n"), std::string("GET / HTTP/9.9\r\n\r\n"),
           std::string("BREW /run HTTP/1.1\r\nHost: x\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
           std::string("GET /healthz HTTP/1.1\r\nno colon here\r\n\r\n"), std::string(1, '\0')}) {
    const reply r = send_request(port(), request);
    EXPECT_TRUE(r.closed) << request;
    EXPECT_NE(r.status / 100, 5) << request << "\n" << r.text;
  }
  // Garbage without any line end, then the client goes away.
  { connection(port()).send(garbage); }
}

TEST_F(Serving, OversizedUrlAndHeadersAreRefused) {
  const std::string long_value(64 * 1024, 'a');
  const reply url = get(port(), run_target() + "&pad=" + long_value);
  EXPECT_TRUE(url.closed);
  EXPECT_EQ(url.status, 414) << url.text.substr(0, 200);

  std::string headers;  // 2000 small fields: over the count limit, under the size limits
  for (int i = 0; i < 2000; ++i) headers += "X-Pad-" + std::to_string(i) + ": " + "b" + "\r\n";
  const reply many = send_request(
      port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + "Connection: close\r\n\r\n");
  EXPECT_TRUE(many.closed);
  EXPECT_EQ(many.status, 431) << many.text.substr(0, 200);

  const reply huge =
      send_request(port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Huge: " + long_value +
                               "\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(huge.closed);
  EXPECT_EQ(huge.status, 400) << huge.text.substr(0, 200);
}

TEST_F(Serving, OversizedBodyIsRefused) {
  const reply r = send_request(port(),
                               "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n"
                               "Connection: close\r\n\r\n" +
                                   std::string(4096, 'x'));
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.status, 413) << r.text.substr(0, 200);
}

TEST_F(Serving, MalformedContentLengthIs400) {
  for (const char* length : {"-5", "12abc"}) {
    const reply r = send_request(port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                                             std::string(length) + "\r\n\r\n");
    EXPECT_TRUE(r.closed) << length;
    EXPECT_EQ(r.status, 400) << length << "\n" << r.text;
    EXPECT_NE(r.body().find("malformed Content-Length"), std::string::npos) << r.text;
  }
}

TEST_F(Serving, RefusalsCloseWithoutKeepAlive) {
  // A keep-alive request (no "Connection: close") with a body: refused, and the connection ends.
  const reply r =
      send_request(port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 20s);
  EXPECT_EQ(r.status, 413) << r.text;
  EXPECT_TRUE(r.closed) << "the refused connection stayed open";
  const std::string head = r.text.substr(0, r.text.find("\r\n\r\n"));
  EXPECT_NE(head.find("Connection: close"), std::string::npos) << head;
  EXPECT_EQ(head.find("Keep-Alive"), std::string::npos) << head;
}

// The head of the first response in `text`.
std::string head_of(const std::string& text) {
  return text.substr(0, text.find("\r\n\r\n"));
}

TEST_F(Serving, MalformedAndOverlongRequestsClose) {
  // Keep-alive requests (no "Connection: close") that httplib itself refuses.
  for (const std::string& request : {std::string("NONSENSE\r\nHost: x\r\n\r\n"),
                                     "GET " + run_target() + "&pad=" + std::string(16 * 1024, 'a') +
                                         " HTTP/1.1\r\nHost: x\r\n\r\n"}) {
    const reply r = send_request(port(), request, 20s);
    EXPECT_TRUE(r.status == 400 || r.status == 414) << r.text.substr(0, 200);
    EXPECT_TRUE(r.closed) << "the refused connection stayed open";
    EXPECT_NE(head_of(r.text).find("Connection: close"), std::string::npos) << head_of(r.text);
    EXPECT_EQ(head_of(r.text).find("Keep-Alive"), std::string::npos) << head_of(r.text);
  }
}

TEST_F(Serving, PipelinedRequestsAreBothAnswered) {
  const std::string first = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string second =
      "GET " + run_target() + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  const reply r = send_request(port(), first + second, 20s);
  EXPECT_TRUE(r.closed);
  const std::size_t answer_two = r.text.find("HTTP/1.1 ", 1);
  ASSERT_NE(answer_two, std::string::npos) << "only one answer:\n" << r.text;
  EXPECT_EQ(status_of(r.text), 200) << r.text;
  EXPECT_EQ(status_of(r.text.substr(answer_two)), 200) << r.text;
  EXPECT_NE(r.text.find("checksum"), std::string::npos) << r.text;
}

TEST_F(Serving, HalfSentRequestsAreDroppedAfterTheReadTimeout) {
  // Fewer held connections than server threads: the others keep serving meanwhile.
  std::vector<std::unique_ptr<connection>> held;
  for (int i = 0; i < 8; ++i) {
    held.push_back(std::make_unique<connection>(port()));
    ASSERT_TRUE(held.back()->connected());
    held.back()->send(i % 2 == 0 ? "GET /run?workload=req"
                                 : "GET /healthz HTTP/1.1\r\nHost: x\r\n");
  }
  EXPECT_EQ(get(port(), "/healthz").status, 200);
  for (auto& c : held) {
    std::string got;
    // --read-timeout 1: dropped after about a second; the bound only stops a hung test.
    EXPECT_TRUE(c->read_until_closed(got, 30s)) << "a half-sent request was never dropped";
    EXPECT_NE(status_of(got), 200) << got;
  }
}

TEST(Lifecycle, SigtermAndSigintStopItCleanly) {
  for (int signal : {SIGTERM, SIGINT}) {
    auto server = start_server();
    EXPECT_EQ(get(server->port(), run_target()).status, 200);
    const auto exit = server->stop(signal);
    EXPECT_TRUE(exit.exited) << server->output();
    EXPECT_EQ(exit.exit_code, 0) << server->output();
    EXPECT_FALSE(exit.killed_after_grace);
    EXPECT_NE(server->output().find("stopped after"), std::string::npos) << server->output();
  }
}

TEST(Lifecycle, AnIpv6BindIsAnnouncedInBrackets) {
  std::unique_ptr<server_process> server;
  try {
    server = start_serve({"--bind", "::1"});
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  EXPECT_NE(server->output().find("listening on [::1]:" + std::to_string(server->port())),
            std::string::npos)
      << server->output();
  server->stop(SIGTERM);
  EXPECT_NE(server->output().find("stopped after 0 requests (0 errors)"), std::string::npos)
      << server->output();
}

TEST(Lifecycle, RequestInFlightAtSigtermIsAnswered) {
  auto server = start_server({"--read-timeout", "60"});
  connection c(server->port());
  ASSERT_TRUE(c.connected());
  // A first request makes the connection the server's own (accepted, on a thread)...
  c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string first;
  ASSERT_TRUE(c.read_until(first, "ok\n", 20s)) << first;
  // ...the second is half sent, and read by the server (its end of the connection holds no
  // unread byte) when SIGTERM arrives; it is completed once the server is stopping: its
  // listening socket is closed (a new connection is refused).
  c.send("GET " + run_target() + " HTTP/1.1\r\nHost: x\r\n");
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (unread_by_server(server->port(), c.local_port()) != 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(unread_by_server(server->port(), c.local_port()), 0) << "the server never read it";
  ::kill(server->pid(), SIGTERM);
  bool stopping = false;
  while (!stopping && std::chrono::steady_clock::now() < deadline) {
    stopping = !connection(server->port()).connected();
    if (!stopping) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(stopping) << "the server never stopped listening after SIGTERM";
  ASSERT_TRUE(server->running()) << server->output();
  c.send("\r\n");
  std::string second;
  EXPECT_TRUE(c.read_until(second, "checksum", 20s)) << second;
  EXPECT_EQ(status_of(second), 200) << second;
  const auto exit = server->stop(SIGTERM);
  EXPECT_EQ(exit.exit_code, 0) << server->output();
}

TEST(Lifecycle, VariantDefaultsToRequestMixWithStd) {
  const auto server = start_serve({});
  const stats_document stats = stats_of(server->port());
  EXPECT_EQ(stats.workload, "request_mix");
  EXPECT_EQ(stats.strategy, "std");
  EXPECT_EQ(get(server->port(), run_target("request_mix", "std")).status, 200);
}

// ---- many connections (loopback, a bounded number of sockets) ----

TEST(Connections, IdleConnectionsDoNotStarveHealthz) {
  // Idle connections, more than the server serves at once, stay open as long as the keep-alive
  // allows (60 s here): none may hold up the health check. The 20 s bound only stops a hung test.
  auto server = start_server({"--keep-alive", "60", "--threads", "16"});
  std::vector<std::unique_ptr<connection>> idle;
  for (int i = 0; i < 100; ++i) {
    idle.push_back(std::make_unique<connection>(server->port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  const reply health = send_request(
      server->port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 20s);
  EXPECT_EQ(health.status, 200) << "GET /healthz waited behind idle connections";
}

TEST(Connections, OverTheLimitIs503AndMonitoringStillAnswers) {
  auto server = start_server({"--keep-alive", "60", "--threads", "4"});
  // Four keep-alive clients hold every connection the server serves.
  std::vector<std::unique_ptr<connection>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<connection>(server->port()));
    held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string answer;
    ASSERT_TRUE(held.back()->read_until(answer, "ok\n", 20s)) << answer;
  }
  const reply busy = get(server->port(), run_target());
  EXPECT_TRUE(busy.closed);
  EXPECT_EQ(busy.status, 503) << busy.text;
  // The monitoring endpoints answer too: an overloaded server is when they are read.
  for (const char* monitoring : {"/healthz", "/stats", "/metrics"}) {
    const reply answer = get(server->port(), monitoring);
    EXPECT_EQ(answer.status, 200) << monitoring << ": " << answer.text;
    EXPECT_TRUE(answer.closed) << monitoring << ": an extra connection is still closed";
  }
  held.clear();  // the held clients leave: the server serves /run again
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  int status = 0;
  while ((status = get(server->port(), run_target()).status) != 200 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  EXPECT_EQ(status, 200);
  EXPECT_GE(stats_of(server->port()).busy_refusals, 1u);
}

// Opens `count` connections at once, then sends a /run on each and reads every answer: the
// statuses seen, 0 for a connection closed with no answer.
std::vector<int> burst_of_runs(int port, int count) {
  std::vector<std::unique_ptr<connection>> burst;
  for (int i = 0; i < count; ++i) burst.push_back(std::make_unique<connection>(port));
  const std::string request =
      "GET " + run_target() + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  for (auto& c : burst) c->send(request);
  std::vector<int> statuses;
  for (auto& c : burst) {
    std::string answer;
    c->read_until_closed(answer, 60s);
    statuses.push_back(status_of(answer));
  }
  return statuses;
}

TEST(Connections, BurstsAreAnsweredNeverDropped) {
  // Below --threads every connection is served; above it the extra ones get 503, counted.
  for (const char* threads : {"256", "8"}) {
    auto server = start_server({"--threads", threads});
    const std::vector<int> statuses = burst_of_runs(server->port(), 200);
    const auto busy = static_cast<std::uint64_t>(std::count(statuses.begin(), statuses.end(), 503));
    for (const int status : statuses)
      EXPECT_TRUE(status == 200 || status == 503)
          << "--threads " << threads << ": status " << status;
    if (std::string(threads) == "256") {
      EXPECT_EQ(busy, 0u);
    }
    EXPECT_EQ(stats_of(server->port()).busy_refusals, busy) << "--threads " << threads;
  }
}

// Voluntary context switches of every thread of `pid` so far (its wake-ups).
long wakeups_of(pid_t pid) {
  long total = 0;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) total += std::stol(line.substr(24));
  }
  return total;
}

TEST(Connections, IdleKeepAliveConnectionsDoNotWakeIt) {
  auto server = start_server({"--keep-alive", "60"});
  std::vector<std::unique_ptr<connection>> idle;
  for (int i = 0; i < 50; ++i) {
    idle.push_back(std::make_unique<connection>(server->port()));
    idle.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string answer;
    ASSERT_TRUE(idle.back()->read_until(answer, "ok\n", 20s)) << answer;
  }
  const long before = wakeups_of(server->pid());
  std::this_thread::sleep_for(1s);
  // Polling each socket every 10 ms would be about 5 000 wake-ups; waiting for data, none.
  EXPECT_LT(wakeups_of(server->pid()) - before, 200) << "idle connections are polled";
}

TEST(Lifecycle, PortInUseIsExit2WithOneLine) {
  auto first = start_server();
  const std::string command = std::string("env -u LD_PRELOAD '") + binary() +
                              "' serve --allow-debug --workload request_mix --strategy std "
                              "--port " +
                              std::to_string(first->port()) + " >/dev/null 2>serve_err.txt";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::string err;
  {
    FILE* f = std::fopen("serve_err.txt", "r");
    ASSERT_NE(f, nullptr);
    char line[512];
    while (std::fgets(line, sizeof line, f) != nullptr)
      if (std::string(line).rfind("alloclab serve: WARNING: DEBUG build", 0) != 0) err += line;
    std::fclose(f);
    std::remove("serve_err.txt");
  }
  EXPECT_EQ(err, "alloclab: error: cannot listen on 127.0.0.1:" + std::to_string(first->port()) +
                     ": the port is in use\n");
  EXPECT_EQ(get(first->port(), "/healthz").status, 200);  // the first server is untouched
}

TEST(Lifecycle, BadArgumentsAreExit2) {
  for (const std::string& args : std::vector<std::string>{
           "--workload nope --strategy std", "--workload request_mix --strategy nope",
           "--workload request_mix --strategy std --bind not-an-address --port 0",
           "--workload request_mix --strategy std --port 70000",
           "--workload request_mix --strategy std --malloc no_such_malloc",
           "--workload request_mix --strategy std --port 0 --seed -1",
           "--workload request_mix --strategy std --port 0 --seed 1.5",
           "--workload request_mix --strategy std --port 0 --read-timeout nan",
           "--workload request_mix --strategy std --port 0 --read-timeout inf"}) {
    // An option wrongly accepted starts a server: `timeout` ends it (a failure, not a hang).
    const std::string command = std::string("env -u LD_PRELOAD timeout -s KILL 60 '") + binary() +
                                "' serve --allow-debug " + args + " >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 2) << args;
  }
}

TEST(Lifecycle, MallocIsPreloadedAndProvenLive) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "AddressSanitizer owns malloc in this build";
  const stats_document reference = stats_of(start_server()->port());
  int tried = 0;  // mallocs that come in by LD_PRELOAD (glibc_arena2 and glibc_trim do not)
  for (const auto& entry : alloclab::mallocs::malloc_registry()) {
    if (entry.preload.empty() || !alloclab::mallocs::installed(entry)) continue;
    ++tried;
    const std::string name(entry.name);
    auto server = start_server({"--malloc", name});
    const stats_document stats = stats_of(server->port());
    EXPECT_EQ(stats.facts.malloc, name);
    EXPECT_TRUE(stats.facts.live_allocator.ok) << stats.facts.live_allocator.detail;
    const reply run = get(server->port(), run_target());
    ASSERT_EQ(run.status, 200) << run.text;
    EXPECT_EQ(checksum_of(run), reference.facts.expected_checksum);
  }
  EXPECT_GT(tried, 0) << "no preloadable malloc installed (scripts/deps.sh installs them)";
}

TEST(Lifecycle, MallocNotInstalledIsExit2) {
  const std::string command =
      std::string("env -u LD_PRELOAD ALLOCLAB_TEST_HIDE_MALLOC=mimalloc '") +
      ALLOCLAB_HOOKED_BINARY +
      "' serve --allow-debug --workload request_mix --strategy std "
      "--port 0 --malloc mimalloc >/dev/null 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 2);
}

}  // namespace
