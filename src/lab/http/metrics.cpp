#include "http/metrics.hpp"

#include <sys/resource.h>

#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <prometheus/text_serializer.h>

#include <alloclab/budget_watcher.hpp>
#include <alloclab/memory_budget.hpp>

#include "process/proc_memory.hpp"
#include "http/server_counters.hpp"

namespace alloclab::lab::http {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Prometheus bucket edges: every 4th edge of the server's histogram (16 per octave), from
// 2^10 ns to 2^30 ns.
constexpr int edge_step = latency_histogram::buckets_per_octave / 4;
constexpr int first_edge = 10 * latency_histogram::buckets_per_octave;
constexpr int last_edge = 30 * latency_histogram::buckets_per_octave;

class family_builder {
 public:
  explicit family_builder(const variant_labels& labels)
      : common_{{"workload", labels.workload},
                {"strategy", labels.strategy},
                {"malloc", labels.malloc}} {}

  MetricFamily& add(std::string name, std::string help, MetricType type) {
    families_.push_back({std::move(name), std::move(help), type, {}});
    return families_.back();
  }
  ClientMetric& sample(MetricFamily& family, const std::vector<ClientMetric::Label>& extra = {}) {
    ClientMetric m;
    m.label = common_;
    m.label.insert(m.label.end(), extra.begin(), extra.end());
    family.metric.push_back(std::move(m));
    return family.metric.back();
  }
  void counter(const char* name, const char* help, double value) {
    sample(add(name, help, MetricType::Counter)).counter.value = value;
  }
  void gauge(const char* name, const char* help, double value) {
    sample(add(name, help, MetricType::Gauge)).gauge.value = value;
  }
  static double bucket_bound_seconds(int edge) {
    return std::exp2(static_cast<double>(edge) / latency_histogram::buckets_per_octave) / 1e9;
  }
  void histogram(const char* name, const char* help, const histogram_snapshot& s) {
    ClientMetric::Histogram& h = sample(add(name, help, MetricType::Histogram)).histogram;
    h.sample_count = s.count;
    h.sample_sum = static_cast<double>(s.sum_ns) / 1e9;
    auto next = s.buckets.begin();
    std::uint64_t below = 0;
    for (int edge = first_edge; edge <= last_edge; edge += edge_step) {
      for (; next != s.buckets.end() && next->first < static_cast<std::uint32_t>(edge); ++next)
        below += next->second;
      h.bucket.push_back({below, bucket_bound_seconds(edge)});
    }
    h.bucket.push_back({s.count, std::numeric_limits<double>::infinity()});
  }
  std::vector<MetricFamily> take() { return std::move(families_); }

 private:
  std::vector<ClientMetric::Label> common_;
  std::vector<MetricFamily> families_;
};

void add_serving(family_builder& b, const metrics_readings& r) {
  b.counter("alloclab_serve_requests_total", "Responses written, every route",
            static_cast<double>(r.responses));
  b.counter("alloclab_serve_errors_total", "Responses with status >= 400",
            static_cast<double>(r.errors));
  b.counter("alloclab_serve_busy_refusals_total",
            "503 answers to connections over the --threads limit", static_cast<double>(r.busy));
  MetricFamily& runs =
      b.add("alloclab_serve_runs_total", "/run iterations by outcome", MetricType::Counter);
  b.sample(runs, {{"outcome", "ok"}}).counter.value = static_cast<double>(r.run_ok);
  b.sample(runs, {{"outcome", "failed"}}).counter.value = static_cast<double>(r.run_failed);
  b.histogram("alloclab_serve_request_duration_seconds",
              "/run requests: from the request read to its response written (server side)",
              r.request_time);
  b.histogram("alloclab_serve_workload_duration_seconds",
              "/run requests: time inside the workload's iteration", r.workload_time);
}

void add_process(family_builder& b, const metrics_readings& r) {
  b.counter("process_cpu_seconds_total", "User and system CPU time of the server process",
            r.cpu_seconds);
  if (r.rss_bytes)
    b.gauge("process_resident_memory_bytes", "VmRSS", static_cast<double>(*r.rss_bytes));
  if (r.peak_rss_bytes)
    b.gauge("alloclab_process_peak_resident_memory_bytes", "VmHWM",
            static_cast<double>(*r.peak_rss_bytes));
  MetricFamily& faults =
      b.add("alloclab_process_page_faults_total", "Page faults of the server process (getrusage)",
            MetricType::Counter);
  b.sample(faults, {{"kind", "minor"}}).counter.value = static_cast<double>(r.minor_faults);
  b.sample(faults, {{"kind", "major"}}).counter.value = static_cast<double>(r.major_faults);
}

void add_memory(family_builder& b, const metrics_readings& r) {
  if (r.cgroup_current)
    b.gauge("alloclab_cgroup_memory_current_bytes",
            "The server's cgroup usage (v2 memory.current, v1 memory.usage_in_bytes)",
            static_cast<double>(*r.cgroup_current));
  if (!r.cgroup_limits.empty()) {
    MetricFamily& limits =
        b.add("alloclab_cgroup_memory_limit_bytes",
              "Finite cgroup memory limits, tightest up the hierarchy", MetricType::Gauge);
    for (const auto& [file, bytes] : r.cgroup_limits)
      b.sample(limits, {{"file", file}}).gauge.value = static_cast<double>(bytes);
  }
  if (r.watcher) {
    const watcher_reading& w = *r.watcher;
    b.gauge("alloclab_budget_level", "Budget watcher level: 0 normal, 1 soft, 2 hard", w.level);
    b.gauge("alloclab_budget_limit_bytes", "The budget the watcher applies its thresholds to",
            static_cast<double>(w.limit));
    b.gauge("alloclab_budget_usage_bytes", "The watcher's last usage sample",
            static_cast<double>(w.usage));
    b.counter("alloclab_budget_samples_total", "Watcher samples", static_cast<double>(w.samples));
    b.counter("alloclab_budget_failed_samples_total", "Watcher samples that could not be read",
              static_cast<double>(w.failed_samples));
    b.counter("alloclab_budget_crossings_total", "Watcher level changes",
              static_cast<double>(w.crossings));
    b.counter("alloclab_budget_purges_total", "Purges of the live malloc that succeeded",
              static_cast<double>(w.purges));
  }
  if (!r.malloc_stats.empty()) {
    MetricFamily& stats = b.add("alloclab_malloc_stat_bytes",
                                "The live malloc's own statistics (mallinfo2, mallctl, "
                                "mi_process_info, MallocExtension)",
                                MetricType::Gauge);
    for (const auto& s : r.malloc_stats)
      b.sample(stats, {{"allocator", r.allocator}, {"stat", s.name}}).gauge.value = s.bytes;
  }
}

double rusage_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::vector<std::pair<std::string, std::uint64_t>> finite_cgroup_limits(
    const alloclab::memory_budget_options& options) {
  const alloclab::memory_budget budget = alloclab::memory_budget::detect(options);
  const bool v2 = budget.source() == alloclab::budget_source::cgroup_v2;
  if (!v2 && budget.source() != alloclab::budget_source::cgroup_v1) return {};
  std::vector<std::pair<std::string, std::uint64_t>> limits;
  if (budget.hard_limit() != alloclab::memory_budget::unlimited)
    limits.emplace_back(v2 ? "memory.max" : "memory.limit_in_bytes", budget.hard_limit());
  if (v2 && budget.high_limit() != alloclab::memory_budget::unlimited)
    limits.emplace_back("memory.high", budget.high_limit());
  return limits;
}

}  // namespace

std::vector<MetricFamily> metric_families(const metrics_readings& readings,
                                          const variant_labels& labels) {
  family_builder b(labels);
  add_serving(b, readings);
  add_process(b, readings);
  add_memory(b, readings);
  return b.take();
}

namespace {

// prometheus-cpp 1.0 writes a bucket bound with 16 significant digits, float noise included
// (le="8.192000000000001e-06"): each le label is rewritten with 10 (2^13 ns reads "8.192e-06",
// 2^30 ns "1.073741824", every edge stays distinct and within 1e-9 of its value).
std::string with_plain_bounds(const std::string& text) {
  static const std::regex bound(R"re(le="([0-9.eE+-]+)")re");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), bound), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    out += fmt::format("le=\"{:.10g}\"", std::stod((*it)[1].str()));
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

}  // namespace

std::string exposition_text(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return with_plain_bounds(out.str());
}

metrics_source::metrics_source(const server_counters& counters,
                               const alloclab::budget_watcher* watcher,
                               const alloclab::memory_budget_options& cgroup)
    : counters_(counters),
      watcher_(watcher),
      usage_file_(alloclab::memory_budget::cgroup_usage_file(cgroup)),
      limits_(finite_cgroup_limits(cgroup)) {}

metrics_readings metrics_source::read() const {
  metrics_readings r;
  r.responses = counters_.responses.load(std::memory_order_relaxed);
  r.errors = counters_.errors.load(std::memory_order_relaxed);
  r.busy = counters_.busy.load(std::memory_order_relaxed);
  r.run_ok = counters_.run_ok.load(std::memory_order_relaxed);
  r.run_failed = counters_.run_failed.load(std::memory_order_relaxed);
  r.request_time = counters_.request_time.snapshot();
  r.workload_time = counters_.workload_time.snapshot();
  r.cpu_seconds = rusage_cpu_seconds();
  const process::proc_status status = process::read_proc_status();
  r.rss_bytes = status.vm_rss_bytes;
  r.peak_rss_bytes = status.vm_hwm_bytes;
  const process::fault_counts faults = process::read_faults();
  r.minor_faults = faults.minor;
  r.major_faults = faults.major;
  if (usage_file_)
    if (const auto text = alloclab::detail::read_small_file(*usage_file_))
      r.cgroup_current = alloclab::detail::parse_decimal(*text);
  r.cgroup_limits = limits_;
  if (watcher_ != nullptr)
    r.watcher = watcher_reading{static_cast<int>(watcher_->level()),
                                watcher_->budget().limit(),
                                watcher_->last_usage(),
                                watcher_->samples(),
                                watcher_->failed_samples(),
                                watcher_->crossings(),
                                watcher_->purges()};
  r.allocator = malloc_.allocator();
  r.malloc_stats = malloc_.read().stats;
  return r;
}

}  // namespace alloclab::lab::http
