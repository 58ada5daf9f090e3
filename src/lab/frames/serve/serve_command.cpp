#include "serve_command.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <alloclab/budget_watcher.hpp>
#include <alloclab/build_info.hpp>

#include "schedule/executor.hpp"
#include "process/measuring_worker.hpp"
#include "http/server.hpp"
#include "load/generators.hpp"
#include "plan/plan.hpp"
#include "plan/request.hpp"
#include "plan/malloc_choice.hpp"
#include "cli/option_checks.hpp"
#include "measure/build_guard.hpp"
#include "load/pinning.hpp"
#include "process/hooks.hpp"

namespace alloclab::lab::serve {

struct serve_request {
  std::string workload = "request_mix";  // seed 004's
  std::string strategy = "std";
  std::string bind = "127.0.0.1";
  int port = 8080;
  std::string malloc = "glibc";
  std::size_t threads = 256;
  double read_timeout_s = 2.0;
  int keep_alive_s = 5;
  std::uint64_t seed = 42;
  std::optional<int> cpu;
  bool allow_debug = false;
  std::string budget_watch;  // "", "cgroup" or a byte count
};

struct load_request {
  std::string url;
  std::string generator = "hey";
  unsigned connections = 50;
  double duration_s = 10;
  double rate = 0;
  std::optional<int> cpu;
};

namespace {

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  std::string current;
  for (char ch : all) {
    if (ch != '\0') {
      current += ch;
    } else {
      argv.push_back(current);
      current.clear();
    }
  }
  return argv;
}

// Replaces this process with itself under `choice`'s LD_PRELOAD and environment.
[[noreturn]] void reexec_under(const malloc_choice& choice) {
  const alloclab::mallocs::worker_env env = environment_for(choice);
  for (const std::string& name : env.unset) ::unsetenv(name.c_str());
  for (const auto& [name, value] : env.set) ::setenv(name.c_str(), value.c_str(), 1);
  ::setenv(preloaded_marker, "1", 1);
  std::vector<std::string> args = own_command_line();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  throw std::runtime_error(
      fmt::format("cannot re-execute under {}: {}", choice.label, std::strerror(errno)));
}

// The malloc this server must run under, proven live; re-executes itself when it is not yet.
http::served_facts prove_malloc_or_reexec(const std::string& requested) {
  const std::vector<malloc_choice> choices =
      resolve_mallocs({requested}, alloclab::build::sanitized);
  if (choices.size() != 1) throw usage_error("serve runs under exactly one --malloc");
  const malloc_choice& choice = choices.front();
  if (!choice.missing.empty()) throw usage_error(choice.missing);
  const alloclab::mallocs::live_allocator live = prove_choice(choice);
  const bool asan_owns_malloc = alloclab::build::sanitized && choice.plain_glibc();
  if (!live.ok && !asan_owns_malloc) {
    if (std::getenv(preloaded_marker) == nullptr) reexec_under(choice);
    throw std::runtime_error(
        fmt::format("refusing to serve: --malloc {} is not live: {}", choice.label, live.detail));
  }
  http::served_facts facts;
  facts.malloc = choice.label;
  // The proof's one writer is the measuring worker's: read back, it is the results model's proof.
  facts.live_allocator =
      model::read_json<model::liveness_proof>(alloclab::process::to_json(live), "/live_allocator");
  return facts;
}

bool judge_build_or_refuse(bool allow_debug) {
  const build_facts facts = current_build();
  switch (judge_build(facts, allow_debug)) {
    case build_verdict::publish:
      return false;
    case build_verdict::refuse:
      throw usage_error(fmt::format(
          "this binary is not benchmark-ready ({}); rebuild with `cmake --preset release` or "
          "pass --allow-debug",
          facts.describe()));
    case build_verdict::stamp_debug:
      std::cerr << "alloclab serve: WARNING: DEBUG build (" << facts.describe() << ")\n";
      return true;
  }
  return true;
}

// The budget `--budget-watch` names: the cgroup's limit ("cgroup"), or a byte count over RSS.
alloclab::memory_budget watched_budget(const std::string& what) {
  alloclab::memory_budget_options options;
  if (what != "cgroup") {
    options.caller_limit = parse_byte_count(what, "--budget-watch");
    options.prefer_caller_limit = true;
    if (*options.caller_limit == 0) throw usage_error("--budget-watch 0: a budget must be > 0");
  }
  alloclab::memory_budget budget = alloclab::memory_budget::detect(options);
  if (budget.source() == alloclab::budget_source::none)
    throw usage_error("--budget-watch cgroup: no cgroup memory limit is set here (" +
                      budget.reason() + "); give a byte count instead, e.g. 512M");
  return budget;
}

int execute_serve(const serve_request& r) {
  const bool debug = judge_build_or_refuse(r.allow_debug);
  http::served_facts facts = prove_malloc_or_reexec(r.malloc);
  const std::string cell_id = fmt::format("{}/{}@{}", r.workload, r.strategy, facts.malloc);
  before_measuring(cell_id);
  if (aborts_under_load(cell_id))
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      std::fprintf(stderr, "alloclab serve: test fault 'abort_later'\n");
      std::abort();
    }).detach();
  facts.debug_build = debug;
  if (r.cpu) {
    if (!load::pin_current_thread(*r.cpu))
      throw usage_error(fmt::format("--cpu {}: this process may not run there", *r.cpu));
    facts.pinned_cpu = *r.cpu;  // before any server thread exists: they all inherit it
  }
  http::served_variant variant(r.workload, r.strategy, r.seed);
  facts.expected_checksum = fmt::format("{:#018x}", variant.expected_checksum());
  http::server_options options;
  options.bind = r.bind;
  options.port = r.port;
  options.threads = r.threads;
  options.limits.read_timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(r.read_timeout_s * 1000));
  options.limits.keep_alive_timeout = std::chrono::seconds(r.keep_alive_s);
  std::optional<alloclab::budget_watcher> watcher;
  if (!r.budget_watch.empty()) {
    watcher.emplace(watched_budget(r.budget_watch));  // purges the malloc crossing into soft
    facts.budget_watch = watcher->budget().reason();
    // SIGINT and SIGTERM are taken by the server's one waiting thread (http/server.cpp): block
    // them here so that the watcher's thread inherits the block and never takes one itself.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    watcher->start();
    options.budget_watcher = &*watcher;
  }
  options.facts = std::move(facts);
  return http::run_http_server(variant, options, std::cout);
}

int execute_load(const load_request& r) {
  load::load_result result;
  if (r.generator == "open") {
    if (r.rate <= 0) throw usage_error("--generator open needs --rate (requests per second)");
    result = load::run_open_loop({r.url, r.rate, r.duration_s, r.connections, r.cpu});
  } else {
    const load::closed_loop_options options{r.url, r.connections, r.duration_s, r.cpu};
    result = r.generator == "hey" ? load::run_hey(options) : load::run_wrk(options);
  }
  std::cout << model::write_json(result).dump(2) << '\n';
  if (!result.ok) {
    std::cerr << "alloclab load: " << result.error.value_or("") << '\n';
    return 1;
  }
  return 0;
}

void add_serve(CLI::App& app, serve_request& r, CLI::App*& command) {
  command = app.add_subcommand(
      "serve",
      "Serve one variant over HTTP/1.1: GET /run?workload=W&strategy=S (one iteration), "
      "/healthz, /stats, /metrics (Prometheus)");
  command->add_option("--workload", r.workload,
                      "The lab workload to serve (default request_mix, seed 004's)");
  command->add_option("--strategy", r.strategy, "The strategy to serve it with (default std)");
  command->add_option("--bind", r.bind, "Address to listen on (default 127.0.0.1)");
  command->add_option("--port", r.port, "Port (default 8080; 0 picks a free one, printed)")
      ->check(CLI::Range(0, 65535));
  command->add_option("--malloc", r.malloc,
                      "Process-wide malloc (registry name or library path); the server "
                      "re-executes itself under it and proves it live");
  command
      ->add_option("--threads", r.threads,
                   "Connections served at once, a thread each, started on demand (256); more "
                   "get 503 (/healthz, /stats and /metrics are still answered)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{768}));
  command
      ->add_option("--read-timeout", r.read_timeout_s,
                   "Seconds a half-sent request may stay silent before it is dropped (2)")
      ->check(finite_in_range(0.05, 600.0));
  command
      ->add_option("--keep-alive", r.keep_alive_s,
                   "Whole seconds an idle keep-alive connection stays open (5)")
      ->check(CLI::Range(1, 600));
  command->add_option("--seed", r.seed, "Seed of the workload's input (42; unsigned 64-bit)")
      ->check(unsigned_64_bit_integer());
  command->add_option("--cpu", r.cpu, "Pin the server to this CPU")->check(CLI::Range(0, 1023));
  command->add_flag("--allow-debug", r.allow_debug, "Serve from an unoptimised build anyway");
  command->add_option("--budget-watch", r.budget_watch,
                      "Run a budget watcher (soft 90 %, hard 97 %, every 100 ms; purges the "
                      "malloc crossing into soft) over LIMIT: 'cgroup' (the cgroup's limit) or "
                      "a byte count over RSS (K/M/G); its level and purges are in /metrics");
}

// --url: http://HOST[:PORT][/PATH], no spaces; anything else would send the generator to
// hammer nothing (hey counted 222 577 errors on "not a url" and exited 1).
CLI::Validator http_url() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<load::split_url> parts = load::parse_http_url(text);
        const bool spaced = std::any_of(text.begin(), text.end(), [](unsigned char c) {
          return std::isspace(c) != 0 || std::iscntrl(c) != 0;
        });
        const std::string host = parts ? parts->origin.substr(7) : "";
        if (!parts || spaced || host.empty() || host.front() == ':')
          return "'" + text + "' is not an http://HOST[:PORT][/PATH] URL";
        return {};
      },
      "URL");
}

void add_load(CLI::App& app, load_request& r, CLI::App*& command) {
  command = app.add_subcommand(
      "load", "Drive a URL with hey, wrk or the open-loop client; print the result as JSON");
  command->add_option("--url", r.url, "http://HOST:PORT/PATH")->required()->check(http_url());
  command->add_option("--generator", r.generator, "hey (default), wrk or open")
      ->check(CLI::IsMember({"hey", "wrk", "open"}));
  command->add_option("--connections", r.connections, "Concurrent connections (50)")
      ->check(CLI::Range(1u, 10000u));
  command->add_option("--duration", r.duration_s, "Seconds of load (10)")
      ->check(finite_in_range(0.5, 3600.0));
  command->add_option("--rate", r.rate, "open: target requests per second")
      ->check(finite_in_range(1.0, 10'000'000.0));
  command->add_option("--cpu", r.cpu, "Pin the load generator to this CPU")
      ->check(CLI::Range(0, 1023));
}

}  // namespace

bool serve_commands::parsed() const {
  return serve_->parsed() || load_->parsed();
}

int serve_commands::execute() const {
  return serve_->parsed() ? execute_serve(*serve_request_) : execute_load(*load_request_);
}

serve_commands add_serve_commands(CLI::App& app) {
  serve_commands commands;
  commands.serve_request_ = std::make_shared<serve_request>();
  commands.load_request_ = std::make_shared<load_request>();
  add_serve(app, *commands.serve_request_, commands.serve_);
  add_load(app, *commands.load_request_, commands.load_);
  return commands;
}

}  // namespace alloclab::lab::serve
