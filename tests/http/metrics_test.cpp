// Test plan: GET /metrics of `alloclab serve`, read by the official Prometheus Python client's
// parser (python3-prometheus-client, tests/http/parse_exposition.py), never by our own.
//   exposition (no server): every family of metrics.hpp's table parses with its type, every
//     sample carries the variant's labels, counters and gauges read back the values given, the
//     histograms' buckets are cumulative, end in +Inf = count, sit on the server histogram's
//     edges (a value just under 2^20 ns is counted at le = 2^20 ns, one just over is not) and sum
//     in seconds; families whose source is unreadable are left out (Exposition.*).
//   cgroup (fixture tests/data/cgroup/v2): memory.current and the tightest memory.max and
//     memory.high are read from the files (MetricsSource.ReadsTheCgroupFixture).
//   server: after N /run requests the runs counter and both histograms count N, RSS and faults
//     are there, the malloc's own statistics name the live malloc (glibc, jemalloc, mimalloc when
//     installed), the Content-Type is the exposition format's (ServeMetrics.*); under
//     --budget-watch 1M the watcher's level is hard and it purged; a bad --budget-watch is exit 2.
//   dashboard: every metric name in deploy/grafana/alloclab-serve.json's queries and variables is
//     a sample name of the full exposition (GrafanaDashboard.EveryQueryNamesARealMetric).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>
#include <alloclab/memory_budget.hpp>

#include "http/metrics.hpp"
#include "http/server_counters.hpp"
#include "mallocs/malloc_table.hpp"
#include "support/serve_support.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace alloclab::lab::http;
using namespace serve_test;

// The Python client's reading of `text`; fails the test when it does not parse.
json parsed(const std::string& text) {
  const fs::path dir =
      fs::temp_directory_path() / ("alloclab_metrics_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "exposition.txt") << text;
  const std::string command =
      std::string("'") + ALLOCLAB_PYTHON + "' '" + ALLOCLAB_EXPOSITION_PARSER + "' '" +
      (dir / "exposition.txt").string() + "' >'" + (dir / "parsed.json").string() + "'";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the Prometheus parser refused:\n" << text;
  std::ifstream in(dir / "parsed.json");
  json doc = json::parse(in, nullptr, false);
  fs::remove_all(dir);
  return doc.is_discarded() ? json{{"families", json::array()}} : doc;
}

const json* family(const json& doc, const std::string& name) {
  for (const auto& f : doc.at("families"))
    if (f.at("name") == name) return &f;
  return nullptr;
}

double sample_value(const json& doc, const std::string& family_name, const std::string& sample,
                    const json& labels = json::object()) {
  const json* f = family(doc, family_name);
  if (f == nullptr) return NAN;
  for (const auto& s : f->at("samples")) {
    if (s.at("name") != sample) continue;
    bool match = true;
    for (const auto& [k, v] : labels.items()) match = match && s.at("labels").value(k, "") == v;
    if (match && s.at("value").is_number()) return s.at("value").get<double>();
  }
  return NAN;
}

const variant_labels labels{"request_mix", "std", "glibc"};

metrics_readings full_readings() {
  metrics_readings r;
  r.responses = 12;
  r.errors = 2;
  r.busy = 1;
  r.run_ok = 9;
  r.run_failed = 1;
  latency_histogram h;
  h.record((1u << 20) - 100);        // just under 2^20 ns
  h.record((1u << 20) + 100);        // just over
  h.record(50);                      // under the first edge (2^10 ns)
  h.record(std::uint64_t{1} << 40);  // past the last edge (2^30 ns)
  r.request_time = h.snapshot();
  r.workload_time = h.snapshot();
  r.cpu_seconds = 1.5;
  r.rss_bytes = 40u << 20;
  r.peak_rss_bytes = 50u << 20;
  r.minor_faults = 1000;
  r.major_faults = 3;
  r.cgroup_current = 300000000;
  r.cgroup_limits = {{"memory.max", 1073741824}, {"memory.high", 536870912}};
  r.watcher = watcher_reading{1, 1000, 950, 40, 2, 3, 1};
  r.allocator = "glibc";
  r.malloc_stats = {{"in_use", 1234}, {"free", 99}};
  return r;
}

TEST(Exposition, EveryFamilyParsesWithItsTypeAndLabels) {
  const json doc = parsed(exposition_text(metric_families(full_readings(), labels)));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"alloclab_serve_requests", "counter"},
      {"alloclab_serve_errors", "counter"},
      {"alloclab_serve_busy_refusals", "counter"},
      {"alloclab_serve_runs", "counter"},
      {"alloclab_serve_request_duration_seconds", "histogram"},
      {"alloclab_serve_workload_duration_seconds", "histogram"},
      {"process_cpu_seconds", "counter"},
      {"process_resident_memory_bytes", "gauge"},
      {"alloclab_process_peak_resident_memory_bytes", "gauge"},
      {"alloclab_process_page_faults", "counter"},
      {"alloclab_cgroup_memory_current_bytes", "gauge"},
      {"alloclab_cgroup_memory_limit_bytes", "gauge"},
      {"alloclab_budget_level", "gauge"},
      {"alloclab_budget_limit_bytes", "gauge"},
      {"alloclab_budget_usage_bytes", "gauge"},
      {"alloclab_budget_samples", "counter"},
      {"alloclab_budget_failed_samples", "counter"},
      {"alloclab_budget_crossings", "counter"},
      {"alloclab_budget_purges", "counter"},
      {"alloclab_malloc_stat_bytes", "gauge"}};
  ASSERT_EQ(doc.at("families").size(), expected.size()) << doc.dump(1);
  for (const auto& [name, type] : expected) {
    const json* f = family(doc, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->at("type"), type) << name;
    for (const auto& s : f->at("samples")) {
      EXPECT_EQ(s.at("labels").value("workload", ""), "request_mix") << name;
      EXPECT_EQ(s.at("labels").value("strategy", ""), "std") << name;
      EXPECT_EQ(s.at("labels").value("malloc", ""), "glibc") << name;
    }
  }
  EXPECT_EQ(sample_value(doc, "alloclab_serve_requests", "alloclab_serve_requests_total"), 12);
  EXPECT_EQ(sample_value(doc, "alloclab_serve_runs", "alloclab_serve_runs_total",
                         {{"outcome", "failed"}}),
            1);
  EXPECT_EQ(sample_value(doc, "alloclab_process_page_faults", "alloclab_process_page_faults_total",
                         {{"kind", "major"}}),
            3);
  EXPECT_EQ(sample_value(doc, "alloclab_cgroup_memory_limit_bytes",
                         "alloclab_cgroup_memory_limit_bytes", {{"file", "memory.high"}}),
            536870912);
  EXPECT_EQ(sample_value(doc, "alloclab_budget_level", "alloclab_budget_level"), 1);
  EXPECT_EQ(sample_value(doc, "alloclab_malloc_stat_bytes", "alloclab_malloc_stat_bytes",
                         {{"allocator", "glibc"}, {"stat", "in_use"}}),
            1234);
}

// The significant digits of a number's text ("8.192e-06": 4), leading zeros not counted.
std::size_t significant_digits(const std::string& number) {
  const std::string mantissa = number.substr(0, number.find_first_of("eE"));
  std::size_t digits = 0;
  bool leading = true;
  for (const char c : mantissa) {
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits;
}

TEST(Exposition, HistogramBucketsSitOnTheServerHistogramsEdges) {
  const json doc = parsed(exposition_text(metric_families(full_readings(), labels)));
  const json* f = family(doc, "alloclab_serve_request_duration_seconds");
  ASSERT_NE(f, nullptr);
  double last_bound = 0, last_count = 0, count = NAN, sum = NAN;
  std::map<double, double> cumulative;  // finite bound -> count
  for (const auto& s : f->at("samples")) {
    if (s.at("name") == "alloclab_serve_request_duration_seconds_count") count = s.at("value");
    if (s.at("name") == "alloclab_serve_request_duration_seconds_sum") sum = s.at("value");
    if (s.at("name") != "alloclab_serve_request_duration_seconds_bucket") continue;
    const std::string le = s.at("labels").at("le");
    const double n = s.at("value");
    EXPECT_GE(n, last_count) << "buckets must be cumulative";
    last_count = n;
    if (le == "+Inf") continue;
    EXPECT_LE(significant_digits(le), 10u) << "float noise in le=\"" << le << "\"";
    const double bound = std::stod(le);
    EXPECT_GT(bound, last_bound);
    last_bound = bound;
    cumulative[bound] = n;
  }
  // The count at the bound nearest 2^k ns (the text rounds it), which must be within 1e-5.
  const auto at_edge = [&](int k) {
    const double edge = std::ldexp(1.0, k) / 1e9;
    const auto it = cumulative.lower_bound(edge * (1 - 1e-5));
    EXPECT_TRUE(it != cumulative.end() && it->first < edge * (1 + 1e-5)) << "no bucket at 2^" << k;
    return it == cumulative.end() ? NAN : it->second;
  };
  EXPECT_EQ(at_edge(10), 1);  // the 50 ns
  EXPECT_EQ(at_edge(20), 2);  // and 2^20 - 100 ns, not 2^20 + 100 ns
  EXPECT_EQ(at_edge(30), 3);
  EXPECT_EQ(cumulative.size(), 81u);  // 4 per octave from 2^10 to 2^30 ns, then +Inf
  EXPECT_EQ(last_count, 4);
  EXPECT_EQ(count, 4);
  EXPECT_NEAR(sum, (2.0 * (1u << 20) + 50 + std::ldexp(1.0, 40)) / 1e9, 1e-6);
  EXPECT_NEAR(last_bound, std::ldexp(1.0, 30) / 1e9, 1e-9);
}

TEST(Exposition, UnreadableSourcesAreLeftOut) {
  metrics_readings r;  // no RSS, no cgroup, no watcher, no malloc statistics
  const json doc = parsed(exposition_text(metric_families(r, labels)));
  for (const char* absent :
       {"process_resident_memory_bytes", "alloclab_cgroup_memory_current_bytes",
        "alloclab_cgroup_memory_limit_bytes", "alloclab_budget_level",
        "alloclab_malloc_stat_bytes"})
    EXPECT_EQ(family(doc, absent), nullptr) << absent;
  EXPECT_NE(family(doc, "alloclab_serve_requests"), nullptr);
}

TEST(MetricsSource, ReadsTheCgroupFixture) {
  server_counters counters;
  alloclab::memory_budget_options fixture;
  fixture.proc_self = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/v2/proc_self";
  fixture.cgroup_root = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/v2/sys_fs_cgroup";
  const metrics_readings r = metrics_source(counters, nullptr, fixture).read();
  EXPECT_EQ(r.cgroup_current, std::optional<std::uint64_t>(268435456));
  const std::vector<std::pair<std::string, std::uint64_t>> limits = {{"memory.max", 1073741824},
                                                                     {"memory.high", 536870912}};
  EXPECT_EQ(r.cgroup_limits, limits);
  EXPECT_FALSE(r.watcher.has_value());
}

// /metrics of a running server, parsed.
json scrape(int port, std::string* content_type = nullptr) {
  const reply r = get(port, "/metrics");
  EXPECT_EQ(r.status, 200) << r.text;
  if (content_type != nullptr) {
    const std::size_t at = r.text.find("Content-Type: ");
    *content_type =
        at == std::string::npos ? "" : r.text.substr(at + 14, r.text.find("\r\n", at) - at - 14);
  }
  return parsed(r.body());
}

TEST(ServeMetrics, CountsTheRequestsAndNamesTheLiveMalloc) {
  auto server = start_server();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(get(server->port(), run_target()).status, 200);
  std::string type;
  const json doc = scrape(server->port(), &type);
  EXPECT_EQ(type, exposition_content_type);
  const json ok = {{"outcome", "ok"}, {"strategy", strategy}, {"workload", workload}};
  EXPECT_EQ(sample_value(doc, "alloclab_serve_runs", "alloclab_serve_runs_total", ok), 5);
  EXPECT_EQ(sample_value(doc, "alloclab_serve_request_duration_seconds",
                         "alloclab_serve_request_duration_seconds_count"),
            5);
  EXPECT_EQ(sample_value(doc, "alloclab_serve_workload_duration_seconds",
                         "alloclab_serve_workload_duration_seconds_count"),
            5);
  EXPECT_GT(sample_value(doc, "alloclab_serve_request_duration_seconds",
                         "alloclab_serve_request_duration_seconds_sum"),
            sample_value(doc, "alloclab_serve_workload_duration_seconds",
                         "alloclab_serve_workload_duration_seconds_sum"));
  EXPECT_GT(sample_value(doc, "process_resident_memory_bytes", "process_resident_memory_bytes"), 0);
  EXPECT_GT(sample_value(doc, "alloclab_process_page_faults", "alloclab_process_page_faults_total",
                         {{"kind", "minor"}}),
            0);
  if (alloclab::build::sanitized) return;  // AddressSanitizer's malloc has no statistics here
  EXPECT_GT(sample_value(doc, "alloclab_malloc_stat_bytes", "alloclab_malloc_stat_bytes",
                         {{"allocator", "glibc"}, {"stat", "in_use"}}),
            0);
}

TEST(ServeMetrics, PreloadedMallocsReportTheirOwnStatistics) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "AddressSanitizer owns malloc in this build";
  const std::vector<std::pair<std::string, std::string>> mallocs = {{"jemalloc", "allocated"},
                                                                    {"mimalloc", "current_commit"}};
  for (const auto& [name, stat] : mallocs) {
    const auto* entry = alloclab::mallocs::find_malloc(name);
    ASSERT_NE(entry, nullptr);
    ASSERT_TRUE(alloclab::mallocs::installed(*entry)) << name << " (scripts/deps.sh installs it)";
    auto server = start_server({"--malloc", name});
    ASSERT_EQ(get(server->port(), run_target()).status, 200);
    const json doc = scrape(server->port());
    EXPECT_GT(sample_value(doc, "alloclab_malloc_stat_bytes", "alloclab_malloc_stat_bytes",
                           {{"allocator", name}, {"stat", stat}, {"malloc", name}}),
              0)
        << name;
  }
}

TEST(ServeMetrics, BudgetWatcherLevelAndPurges) {
  // 1 MiB is below any server's RSS: the first sample is hard, and crossing up purges.
  auto server = start_server({"--budget-watch", "1M"});
  // A sample counts itself and sets the level before its purge has run: wait for the purge (or,
  // where the malloc has none, the crossing), not for the sample.
  const bool purgeable = !alloclab::build::sanitized;  // ASan's malloc has no purge
  json doc;
  for (int tries = 0; tries < 50; ++tries) {
    doc = scrape(server->port());
    const double done =
        purgeable
            ? sample_value(doc, "alloclab_budget_purges", "alloclab_budget_purges_total")
            : sample_value(doc, "alloclab_budget_crossings", "alloclab_budget_crossings_total");
    if (done >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(sample_value(doc, "alloclab_budget_level", "alloclab_budget_level"), 2);
  EXPECT_EQ(sample_value(doc, "alloclab_budget_limit_bytes", "alloclab_budget_limit_bytes"),
            1 << 20);
  EXPECT_GE(sample_value(doc, "alloclab_budget_crossings", "alloclab_budget_crossings_total"), 1);
  if (purgeable) {
    EXPECT_GE(sample_value(doc, "alloclab_budget_purges", "alloclab_budget_purges_total"), 1);
  }
}

TEST(ServeMetrics, BadBudgetWatchIsExit2) {
  for (const char* bad : {"12Q", "0", "cgroupx"}) {
    const std::string command = "env -u LD_PRELOAD '" + binary() +
                                "' serve --allow-debug --port 0 --budget-watch " + bad +
                                " >/dev/null 2>&1";
    EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 2) << bad;
  }
}

TEST(GrafanaDashboard, EveryQueryNamesARealMetric) {
  const json doc = parsed(exposition_text(metric_families(full_readings(), labels)));
  std::set<std::string> samples;
  for (const auto& f : doc.at("families"))
    for (const auto& s : f.at("samples")) samples.insert(s.at("name"));
  std::ifstream in(ALLOCLAB_GRAFANA_DASHBOARD);
  const json dashboard = json::parse(in);
  std::vector<std::string> queries;
  for (const auto& panel : dashboard.at("panels"))
    for (const auto& t : panel.at("targets")) queries.push_back(t.at("expr"));
  for (const auto& v : dashboard.at("templating").at("list"))
    if (v.at("type") == "query") queries.push_back(v.at("definition"));
  ASSERT_GE(queries.size(), 4u);
  const std::regex metric(R"(\b(?:alloclab|process)_[A-Za-z0-9_]+)");
  std::size_t names = 0;
  for (const std::string& q : queries)
    for (auto it = std::sregex_iterator(q.begin(), q.end(), metric); it != std::sregex_iterator();
         ++it, ++names)
      EXPECT_EQ(samples.count(it->str()), 1u) << it->str() << " in " << q;
  EXPECT_GE(names, queries.size());
  // Seed 004's demo: RSS, memory.current, latency and major page faults per combination.
  const std::string all = dashboard.dump();
  for (const char* needed :
       {"process_resident_memory_bytes", "alloclab_cgroup_memory_current_bytes",
        "alloclab_serve_request_duration_seconds_bucket", "kind=\\\"major\\\""})
    EXPECT_NE(all.find(needed), std::string::npos) << needed;
}

}  // namespace
