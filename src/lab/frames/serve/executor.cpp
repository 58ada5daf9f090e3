// The serve frame (seed 004's serve mode): a lab workload served over HTTP, one
// iteration per request. A task starts one fresh `alloclab serve` process per repetition for the
// cell's variant (strategy x malloc, the malloc preloaded and proven live by the server), waits
// for /healthz, warms it up, drives it with hey (-c 50, seed 004's shape), then wrk, then the
// open-loop ladder at fractions of the closed-loop saturation, reads /stats and stops it with
// SIGTERM. A server that does not start, dies, hangs or does not stop cleanly makes the task a
// failed record; the run goes on with the other cells.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "schedule/executor.hpp"
#include "process/interrupt.hpp"
#include "schedule/worker_records.hpp"
#include "http/answers.hpp"
#include "frames/serve/process_figures.hpp"
#include "frames/serve/run_options.hpp"
#include "load/generators.hpp"
#include "load/pinning.hpp"
#include "http/server_process.hpp"
#include "model/cell.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

constexpr double warmup_rate_rps = 500;

struct server_run {
  std::string failure;  // empty when measured
  serve_repetition figures;
  json live_allocator;
  json worker;
};

bool answers_healthz(const std::string& origin, milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  httplib::Client client(origin);
  client.set_connection_timeout(std::chrono::seconds(1));
  client.set_read_timeout(std::chrono::seconds(2));
  do {
    const httplib::Result res = client.Get("/healthz");
    if (res && res->status == 200 && res->body == "ok\n") return true;
    std::this_thread::sleep_for(milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

std::string exit_text(const http::server_exit& e) {
  if (e.exited) return fmt::format("exit {}", e.exit_code);
  if (e.term_signal != 0)
    return fmt::format("killed by signal {} ({})", e.term_signal, ::strsignal(e.term_signal));
  return "still running";
}

json server_facts(http::server_process& server, const http::server_exit& e, double wall_s) {
  model::worker_exit out;
  out.exit = exit_text(e) + (e.killed_after_grace ? ", killed after the grace period" : "");
  if (e.exited) out.exit_code = e.exit_code;
  if (e.term_signal != 0) out.signal = e.term_signal;
  out.timed_out = e.killed_after_grace;
  out.wall_seconds = wall_s;
  const std::string& output = server.output();
  out.stderr_tail = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  return model::write_json(out);
}

std::vector<std::string> server_argv(const cell_spec& cell, const run_plan& plan,
                                     const load::pin_plan& pins) {
  std::vector<std::string> argv = {
      "/proc/self/exe", "serve",       "--workload", cell.workload,
      "--strategy",     cell.strategy, "--malloc",   cell.malloc.argument,
      "--port",         "0",           "--seed",     std::to_string(plan.sizes.seed)};
  if (pins.server_cpu) argv.insert(argv.end(), {"--cpu", std::to_string(*pins.server_cpu)});
  if (plan.allow_debug) argv.push_back("--allow-debug");
  return argv;
}

// One load generator's run; an empty string when it ran, else why the repetition failed.
std::string judge_load(const load::load_result& r, http::server_process& server, const char* step) {
  throw_if_interrupted();
  if (!server.running()) return fmt::format("the server died during {}", step);
  if (!r.ok) return fmt::format("{}: {}", step, r.error.value_or(""));
  return {};
}

// One fresh server, measured from start to stop.
server_run serve_once(const cell_spec& cell, const run_plan& plan, const load::pin_plan& pins) {
  server_run out;
  const auto started = std::chrono::steady_clock::now();
  const auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  http::server_launch launch;
  launch.argv = server_argv(cell, plan, pins);
  launch.startup_timeout = std::min<milliseconds>(plan.cell_timeout, std::chrono::seconds(60));
  std::unique_ptr<http::server_process> server;
  try {
    server = std::make_unique<http::server_process>(launch);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    out.failure = what.substr(0, what.find(';'));
    model::worker_exit never_started;
    never_started.exit = "did not start";
    never_started.wall_seconds = wall();
    never_started.stderr_tail = what;
    out.worker = model::write_json(never_started);
    return out;
  }
  const double duration = serve_sizes_of(plan).duration_s;
  const double step = std::max(0.5, duration / 2);
  const std::string url =
      fmt::format("{}/run?workload={}&strategy={}", server->origin(), cell.workload, cell.strategy);
  serve_repetition& f = out.figures;
  const auto finish_with_stats = [&]() -> std::string {
    const std::optional<json> answer = load::fetch_stats(url);
    if (!answer) return "the server did not answer /stats";
    http::stats_document stats;
    try {
      stats = model::read_json<http::stats_document>(*answer, "/stats");
    } catch (const model::model_error& e) {
      return fmt::format("the server's /stats is not alloclab's: {}", e.what());
    }
    f.stats = {stats.requests, stats.errors, stats.facts.pinned_cpu};
    out.live_allocator = model::write_json(stats.facts.live_allocator);
    return {};
  };
  const auto measure = [&]() -> std::string {
    if (!answers_healthz(server->origin(), std::chrono::seconds(5)))
      return "the server did not answer /healthz";
    const load::closed_loop_options closed{url, serve_connections, duration, pins.load_cpu};
    const double warmup_s = std::min(1.0, step);
    load::load_result r =
        load::run_open_loop({url, warmup_rate_rps, warmup_s, serve_connections, pins.load_cpu});
    if (auto why = judge_load(r, *server, "the warm-up"); !why.empty()) return why;
    r = load::run_hey(closed);
    f.hey = r;
    if (auto why = judge_load(r, *server, "hey"); !why.empty()) return why;
    const double hey_rps = r.throughput_rps;
    if (serve_sizes_of(plan).hey_only) {  // a budgeted run: the serve claim's generator alone
      f.saturation_rps = hey_rps;
      return finish_with_stats();
    }
    r = load::run_wrk(closed);
    f.wrk = r;
    if (auto why = judge_load(r, *server, "wrk"); !why.empty()) return why;
    f.saturation_rps = std::min(hey_rps, r.throughput_rps);
    for (const double fraction : serve_ladder_fractions) {
      const double rate = std::max(10.0, std::round(fraction * f.saturation_rps / 10) * 10);
      r = load::run_open_loop({url, rate, step, serve_connections, pins.load_cpu});
      f.ladder.push_back(r);
      if (auto why = judge_load(r, *server, "the open-loop ladder"); !why.empty()) return why;
    }
    return finish_with_stats();
  };
  out.failure = measure();
  const http::server_exit exit = server->stop(SIGTERM, std::chrono::seconds(10));
  out.worker = server_facts(*server, exit, wall());
  if (out.failure.empty() && (!exit.exited || exit.exit_code != 0 || exit.killed_after_grace))
    out.failure = "the server did not stop cleanly on SIGTERM: " + exit_text(exit);
  return out;
}

class serve_executor final : public executor {
 public:
  void prepare(const run_plan&, const progress_note&) override {
    pins_ = load::plan_pinning(load::allowed_cpus());
  }

  measurement_record execute(const run_plan& plan, const task& t) override {
    const cell_spec& cell = plan.cells.at(t.cell);
    if (!cell.malloc.missing.empty())
      return unmeasured_record(cell, t, "not_installed", cell.malloc.missing);
    measurement_record r = unmeasured_record(cell, t, "ok", "");
    serve_figures figures{pins_.describe(), serve_sizes_of(plan).duration_s, serve_connections, {}};
    for (std::size_t i = 0; i < t.repetitions; ++i) {
      server_run run = serve_once(cell, plan, pins_);
      r.worker = run.worker;
      if (!run.live_allocator.is_null()) r.live_allocator = run.live_allocator;
      if (!run.failure.empty()) {
        r.status = "failed";
        r.reason = run.failure;
        return r;
      }
      figures.repetitions.push_back(std::move(run.figures));
    }
    r.figures = frame_figures(std::move(figures));
    return r;
  }

  json run_facts() const override { return json::object(); }

 private:
  load::pin_plan pins_;
};

}  // namespace

std::unique_ptr<executor> make_serve_executor() {
  return std::make_unique<serve_executor>();
}

}  // namespace alloclab::lab
