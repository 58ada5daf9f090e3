#include "load/generators.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "process/worker.hpp"
#include "http/answers.hpp"
#include "http/latency_histogram.hpp"
#include "load/pinning.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab::load {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

std::optional<std::string> find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return std::nullopt;
}

load_result failed(std::string generator, std::string error) {
  load_result r;
  r.generator = std::move(generator);
  r.error = std::move(error);
  return r;
}

std::string describe_pinning(const std::optional<int>& cpu) {
  return cpu ? fmt::format("load generator on cpu {}", *cpu) : "load generator not pinned";
}

// Server-side time of the run: the /stats histograms' difference.
std::optional<server_side> server_delta(const std::optional<json>& before,
                                        const std::optional<json>& after,
                                        const latency_percentiles& client) {
  if (!before || !after) return std::nullopt;
  try {
    const auto first = model::read_json<http::stats_document>(*before, "/stats");
    const auto last = model::read_json<http::stats_document>(*after, "/stats");
    const http::histogram_snapshot delta =
        http::snapshot_of(last.run.workload_time).since(http::snapshot_of(first.run.workload_time));
    server_side s;
    s.run_requests = delta.count;
    s.workload_mean_us = delta.mean_ns() / 1e3;
    s.workload_p50_us = delta.percentile_ns(0.5) / 1e3;
    s.workload_p99_us = delta.percentile_ns(0.99) / 1e3;
    if (client.mean_ms && *client.mean_ms > 0)
      s.share_of_latency = s.workload_mean_us / (*client.mean_ms * 1e3);
    const double cpu_s = last.cpu_s - first.cpu_s;
    if (delta.count > 0) s.cpu_us_per_request = cpu_s * 1e6 / static_cast<double>(delta.count);
    if (s.cpu_us_per_request > 0) s.share_of_cpu = s.workload_mean_us / s.cpu_us_per_request;
    return s;
  } catch (const model::model_error&) {  // not alloclab's /stats
    return std::nullopt;
  }
}

// Runs an external generator (pinned with taskset when asked) and parses what it printed.
load_result run_external(const std::string& generator, std::vector<std::string> arguments,
                         const closed_loop_options& options,
                         load_result (*parse)(const std::string&)) {
  const std::optional<std::string> program = find_program(generator);
  if (!program)
    return failed(generator,
                  fmt::format("{} is not installed (apt install {})", generator, generator));
  alloclab::process::worker_request request;
  if (options.cpu) {
    const std::optional<std::string> taskset = find_program("taskset");
    if (!taskset) return failed(generator, "taskset is not installed (apt install util-linux)");
    request.argv = {*taskset, "-c", std::to_string(*options.cpu)};
  }
  request.argv.push_back(*program);
  request.argv.insert(request.argv.end(), arguments.begin(), arguments.end());
  request.timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>((options.duration_s + 30) * 1000));
  const std::optional<json> before = fetch_stats(options.url);
  const alloclab::process::worker_outcome out = alloclab::process::run_worker(request);
  // Requests in flight when the generator stopped are still answered: let them land first.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::optional<json> after = fetch_stats(options.url);
  load_result r = out.succeeded() ? parse(out.stdout_text)
                                  : failed(generator, fmt::format("{} failed: {}: {}", generator,
                                                                  out.describe(), out.stderr_tail));
  r.generator = generator;
  r.command = request.argv;
  r.pinning = describe_pinning(options.cpu);
  if (r.ok) r.server = server_delta(before, after, r.latency);
  return r;
}

std::string seconds_argument(double seconds) {
  return fmt::format("{}s", std::max<long>(1, std::lround(seconds)));
}

std::optional<double> number_after(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return std::nullopt;
  return std::stod(m[1].str());
}

}  // namespace

std::optional<json> fetch_stats(const std::string& url) {
  const std::optional<split_url> parts = parse_http_url(url);
  if (!parts) return std::nullopt;
  httplib::Client client(parts->origin);
  client.set_connection_timeout(std::chrono::seconds(2));
  client.set_read_timeout(std::chrono::seconds(5));
  const httplib::Result res = client.Get("/stats");
  if (!res || res->status != 200) return std::nullopt;
  try {
    return json::parse(res->body);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<split_url> parse_http_url(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0 || url.size() == scheme.size()) return std::nullopt;
  const std::size_t slash = url.find('/', scheme.size());
  if (slash == std::string::npos) return split_url{url, "/"};
  return split_url{url.substr(0, slash), url.substr(slash)};
}

load_result parse_hey_summary(const std::string& text) {
  load_result r;
  r.generator = "hey";
  const auto total = number_after(text, R"(Total:\s+([0-9.]+) secs)");
  const auto rps = number_after(text, R"(Requests/sec:\s+([0-9.]+))");
  if (!total || !rps) {
    r.error = "hey printed no summary (no 'Total:' and 'Requests/sec:' lines)";
    return r;
  }
  r.duration_s = *total;
  r.throughput_rps = *rps;
  const auto ms = [&](const std::string& pattern) -> std::optional<double> {
    const auto s = number_after(text, pattern);
    return s ? std::optional<double>(*s * 1e3) : std::nullopt;
  };
  r.latency.mean_ms = ms(R"(Average:\s+([0-9.]+) secs)");
  r.latency.p50_ms = ms(R"(\n\s*50%+ in ([0-9.]+) secs)");
  r.latency.p90_ms = ms(R"(\n\s*90%+ in ([0-9.]+) secs)");
  r.latency.p99_ms = ms(R"(\n\s*99%+ in ([0-9.]+) secs)");
  // "[200]\t1234 responses" per status code; "[17]\tGet ...: error" per transport error.
  const std::regex status(R"(\[(\d{3})\]\s+(\d+) responses)");
  for (std::sregex_iterator it(text.begin(), text.end(), status), end; it != end; ++it) {
    const std::uint64_t n = std::stoull((*it)[2].str());
    r.requests += n;
    if ((*it)[1].str()[0] == '2') r.succeeded += n;
  }
  std::uint64_t transport_errors = 0;
  const std::size_t errors_at = text.find("Error distribution:");
  if (errors_at != std::string::npos) {
    const std::string tail = text.substr(errors_at);
    const std::regex error_line(R"(\n\s*\[(\d+)\]\s)");
    for (std::sregex_iterator it(tail.begin(), tail.end(), error_line), end; it != end; ++it)
      transport_errors += std::stoull((*it)[1].str());
  }
  r.errors = r.requests - r.succeeded + transport_errors;
  // hey's Requests/sec counts every attempt, errors included: keep the successful share.
  const std::uint64_t attempts = r.requests + transport_errors;
  r.throughput_rps = attempts == 0 ? 0
                                   : r.throughput_rps * static_cast<double>(r.succeeded) /
                                         static_cast<double>(attempts);
  r.ok = true;
  judge_success(r);
  return r;
}

const char* wrk_report_script() {
  return R"lua(-- alloclab: print wrk's results on one machine-readable line (microseconds).
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "alloclab-wrk requests=%d duration_us=%d errors=%d status_errors=%d mean_us=%.3f " ..
    "p50_us=%.3f p90_us=%.3f p99_us=%.3f p999_us=%.3f\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9)))
end
)lua";
}

load_result parse_wrk_report(const std::string& text) {
  load_result r;
  r.generator = "wrk";
  const std::size_t at = text.find("alloclab-wrk ");
  if (at == std::string::npos) {
    r.error = "wrk printed no alloclab-wrk line (was the report script loaded?)";
    return r;
  }
  const std::string line = text.substr(at, text.find('\n', at) - at);
  const auto field = [&](const std::string& name) {
    return number_after(line, " " + name + "=([0-9.]+)");
  };
  const auto requests = field("requests"), duration = field("duration_us");
  const auto errors = field("errors"), status_errors = field("status_errors");
  if (!requests || !duration || !errors || !status_errors || *duration <= 0) {
    r.error = "malformed alloclab-wrk line: " + line;
    return r;
  }
  r.requests = static_cast<std::uint64_t>(*requests);
  r.succeeded = static_cast<std::uint64_t>(std::max(0.0, *requests - *status_errors));
  r.errors = static_cast<std::uint64_t>(*errors + *status_errors);
  r.duration_s = *duration / 1e6;
  r.throughput_rps = static_cast<double>(r.succeeded) / r.duration_s;
  const auto ms = [&](const std::string& name) -> std::optional<double> {
    const auto us = field(name);
    return us ? std::optional<double>(*us / 1e3) : std::nullopt;
  };
  r.latency = {ms("p50_us"), ms("p90_us"), ms("p99_us"), ms("p999_us"), ms("mean_us")};
  r.ok = true;
  judge_success(r);
  return r;
}

load_result run_hey(const closed_loop_options& o) {
  std::vector<std::string> args = {"-c", std::to_string(o.connections), "-z",
                                   seconds_argument(o.duration_s)};
  if (o.cpu) args.insert(args.end(), {"-cpus", "1"});
  args.push_back(o.url);
  return run_external("hey", std::move(args), o, &parse_hey_summary);
}

load_result run_wrk(const closed_loop_options& o) {
  const fs::path script =
      fs::temp_directory_path() / fmt::format("alloclab-wrk-{}.lua", ::getpid());
  std::ofstream(script) << wrk_report_script();
  const unsigned threads = o.cpu ? 1 : std::min(2u, o.connections);
  load_result r = run_external("wrk",
                               {"-t", std::to_string(threads), "-c", std::to_string(o.connections),
                                "-d", seconds_argument(o.duration_s), "-s", script.string(), o.url},
                               o, &parse_wrk_report);
  std::error_code ignored;
  fs::remove(script, ignored);
  return r;
}

namespace {

// An open-loop run: requests at fixed intended times, shared out over the connections (one
// thread each); latency is counted from the intended time, so a stalled server cannot hide its
// queue (coordinated omission).
class open_loop_schedule {
 public:
  open_loop_schedule(const open_loop_options& o, const split_url& parts)
      : o_(o),
        parts_(parts),
        total_(static_cast<std::uint64_t>(o.rate_rps * o.duration_s)),
        interval_(1.0 / o.rate_rps),
        latencies_(o.connections),
        last_done_(o.connections),
        started_(start_.get_future().share()) {}

  // Sends the whole schedule; returns its start, t0.
  steady::time_point run() {
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < o_.connections; ++w)
      workers.emplace_back([this, w] { connection(w); });
    const auto connect_deadline = steady::now() + std::chrono::seconds(15);
    while (connected_.load() < o_.connections && steady::now() < connect_deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const steady::time_point t0 = steady::now() + std::chrono::milliseconds(10);
    start_.set_value(t0);
    for (std::thread& t : workers) t.join();
    return t0;
  }

  load_result result(steady::time_point t0, const std::optional<json>& before,
                     const std::optional<json>& after) {
    load_result r;
    r.generator = "open_loop";
    r.pinning = describe_pinning(o_.cpu);
    r.target_rate_rps = o_.rate_rps;
    std::vector<double> all;
    for (auto& l : latencies_) all.insert(all.end(), l.begin(), l.end());
    const steady::time_point end = *std::max_element(last_done_.begin(), last_done_.end());
    r.requests = all.size();
    r.succeeded = succeeded_.load();
    r.errors = errors_.load();
    if (reachable_.load() == 0)
      return failed("open_loop", fmt::format("{} does not answer (GET /healthz failed on every "
                                             "connection)",
                                             parts_.origin));
    if (all.empty())
      return failed("open_loop", fmt::format("no request was answered ({} sent, {} failed)",
                                             std::min(next_.load(), total_), r.errors));
    r.duration_s = std::chrono::duration<double>(end - t0).count();
    r.throughput_rps = static_cast<double>(r.succeeded) / r.duration_s;
    const summary s = summarize(std::move(all));
    r.latency = {s.p50, s.p90, s.p99, s.p999, s.mean};
    r.server = server_delta(before, after, r.latency);
    r.ok = true;
    judge_success(r);
    return r;
  }

 private:
  // Every connection is opened (one untimed GET /healthz) before the schedule starts at t0:
  // connecting 50 sockets at once overflows a small listen backlog, and a dropped SYN is
  // retried after 1 s, which would be charged to the first requests.
  void connection(unsigned w) {
    if (o_.cpu) pin_current_thread(*o_.cpu);
    httplib::Client client(parts_.origin);
    client.set_keep_alive(true);
    client.set_connection_timeout(std::chrono::seconds(5));
    client.set_read_timeout(std::chrono::seconds(10));
    latencies_[w].reserve(std::min<std::uint64_t>(total_ / o_.connections + 1, 1 << 20));
    if (client.Get("/healthz")) reachable_.fetch_add(1);
    connected_.fetch_add(1);
    const steady::time_point t0 = started_.get();
    if (reachable_.load() == 0) return;  // nothing answers: failed, without the schedule
    for (std::uint64_t i = next_++; i < total_; i = next_++) send(client, w, i, t0);
  }

  // Request `i` of the schedule, at its intended time.
  void send(httplib::Client& client, unsigned w, std::uint64_t i, steady::time_point t0) {
    const auto intended =
        t0 + std::chrono::duration_cast<steady::duration>(interval_ * static_cast<double>(i));
    std::this_thread::sleep_until(intended);
    const httplib::Result res = client.Get(parts_.target);
    const steady::time_point done = steady::now();
    if (!res) {  // no answer: an error, but not a latency
      errors_.fetch_add(1);
      return;
    }
    if (res->status < 200 || res->status > 299) {
      errors_.fetch_add(1);
    } else {
      succeeded_.fetch_add(1);
    }
    latencies_[w].push_back(std::chrono::duration<double, std::milli>(done - intended).count());
    last_done_[w] = std::max(last_done_[w], done);
  }

  const open_loop_options& o_;
  const split_url& parts_;
  const std::uint64_t total_;
  const std::chrono::duration<double> interval_;
  std::atomic<std::uint64_t> next_{0}, errors_{0}, succeeded_{0};
  std::vector<std::vector<double>> latencies_;
  std::vector<steady::time_point> last_done_;
  std::atomic<unsigned> connected_{0}, reachable_{0};
  std::promise<steady::time_point> start_;
  const std::shared_future<steady::time_point> started_;
};

}  // namespace

load_result run_open_loop(const open_loop_options& o) {
  const std::optional<split_url> parts = parse_http_url(o.url);
  if (!parts) return failed("open_loop", "not an http:// URL: " + o.url);
  open_loop_schedule schedule(o, *parts);
  const std::optional<json> before = fetch_stats(o.url);
  const steady::time_point t0 = schedule.run();
  const std::optional<json> after = fetch_stats(o.url);
  return schedule.result(t0, before, after);
}

void judge_success(load_result& r) {
  if (!r.ok) return;
  if (r.succeeded == 0) {
    r.ok = false;
    r.error = fmt::format("no request succeeded ({} answered, {} errors)", r.requests, r.errors);
  } else if (r.errors > r.succeeded) {
    r.ok = false;
    r.error = fmt::format("errors dominate: {} errors against {} successful requests", r.errors,
                          r.succeeded);
  }
}

}  // namespace alloclab::lab::load
