#include "measure/copy_cliff.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "process/worker.hpp"

namespace alloclab::lab {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(copy_cliff_config, sizes, step, src_offset, trials,
                                                copies_per_trial, cliff_ratio, rechecks)

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

/// Every placement with its ratio to the median of its size (sizes whose median is 0 skipped).
std::vector<copy_cliff> ratios_to_median(const copy_cliff_config& config,
                                         const std::vector<copy_cost>& costs) {
  std::vector<copy_cliff> rows;
  for (std::size_t bytes : config.sizes) {
    std::vector<double> ns;
    for (const copy_cost& c : costs)
      if (c.bytes == bytes) ns.push_back(c.ns);
    const double median = median_of(ns);
    if (!(median > 0)) continue;
    for (const copy_cost& c : costs)
      if (c.bytes == bytes) rows.push_back(copy_cliff{c, median, c.ns / median});
  }
  return rows;
}

/// The cliffs of a complete cost table: per size, placements above cliff_ratio x the median.
std::vector<copy_cliff> cliffs_in(const copy_cliff_config& config,
                                  const std::vector<copy_cost>& costs) {
  std::vector<copy_cliff> cliffs = ratios_to_median(config, costs);
  cliffs.erase(std::remove_if(cliffs.begin(), cliffs.end(),
                              [&](const copy_cliff& c) { return !(c.ratio > config.cliff_ratio); }),
               cliffs.end());
  std::stable_sort(cliffs.begin(), cliffs.end(),
                   [](const copy_cliff& a, const copy_cliff& b) { return a.ratio > b.ratio; });
  return cliffs;
}

/// Times each placement above the cliff ratio config.rechecks more times and keeps its least
/// timing: a cliff is slow every time, an interrupt or a neighbour's burst once. Returns how many
/// placements were re-timed.
unsigned retime_slow_placements(const copy_cliff_config& config, const copy_timer& timer,
                                std::vector<copy_cost>& costs) {
  unsigned retimed = 0;
  for (const copy_cliff& slow : cliffs_in(config, costs)) {
    const auto at = std::find_if(costs.begin(), costs.end(), [&](const copy_cost& c) {
      return c.bytes == slow.cost.bytes && c.delta_mod4096 == slow.cost.delta_mod4096;
    });
    for (unsigned i = 0; i < config.rechecks; ++i)
      at->ns = std::min(at->ns, timer(at->bytes, at->delta_mod4096));
    ++retimed;
  }
  return retimed;
}

/// Two page-aligned buffers, touched, for copies of up to `max_bytes` starting anywhere in
/// their first page.
class copy_buffers {
 public:
  explicit copy_buffers(std::size_t max_bytes)
      : bytes_((max_bytes + 4096 + 4095) / 4096 * 4096),
        src_(static_cast<unsigned char*>(std::aligned_alloc(4096, bytes_))),
        dst_(static_cast<unsigned char*>(std::aligned_alloc(4096, bytes_))) {
    if (!src_ || !dst_) throw std::bad_alloc();
    std::memset(src_.get(), 0x5A, bytes_);
    std::memset(dst_.get(), 0, bytes_);
  }
  double median_ns(std::size_t bytes, unsigned dst_offset, unsigned src_offset, unsigned trials,
                   unsigned copies) {
    unsigned char* dst = dst_.get() + dst_offset;
    const unsigned char* src = src_.get() + src_offset;
    std::memmove(dst, src, bytes);  // warm the caches and the TLB
    std::vector<double> ns;
    ns.reserve(trials);
    for (unsigned t = 0; t < trials; ++t) {
      const auto t0 = steady::now();
      for (unsigned c = 0; c < copies; ++c) {
        std::memmove(dst, src, bytes);
        asm volatile("" : : "r"(dst) : "memory");
      }
      const auto t1 = steady::now();
      ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / copies);
    }
    return median_of(std::move(ns));
  }

 private:
  struct free_deleter {
    void operator()(unsigned char* p) const noexcept { std::free(p); }
  };
  std::size_t bytes_;
  std::unique_ptr<unsigned char, free_deleter> src_;
  std::unique_ptr<unsigned char, free_deleter> dst_;
};

}  // namespace

void validate(const copy_cliff_config& config) {
  if (config.sizes.empty()) throw std::invalid_argument("copy cliff: no sizes");
  for (std::size_t s : config.sizes) {
    if (s == 0 || s > (std::size_t{64} << 20))
      throw std::invalid_argument("copy cliff: sizes must be in 1..64 MiB");
  }
  if (config.step == 0 || 4096 % config.step != 0)
    throw std::invalid_argument("copy cliff: step must divide 4096");
  if (config.src_offset >= 4096)
    throw std::invalid_argument("copy cliff: src_offset must be < 4096");
  if (config.trials == 0 || config.copies_per_trial == 0)
    throw std::invalid_argument("copy cliff: trials and copies_per_trial must be >= 1");
  if (!(config.cliff_ratio > 1.0))
    throw std::invalid_argument("copy cliff: cliff_ratio must be > 1");
  if (config.rechecks > 100) throw std::invalid_argument("copy cliff: at most 100 rechecks");
}

bool copy_cliff_result::on_cliff(std::size_t bytes, unsigned delta_mod4096) const {
  std::size_t judged_at = 0;
  for (std::size_t s : config.sizes)
    if (s <= bytes && s > judged_at) judged_at = s;
  if (judged_at == 0 || config.step == 0) return false;
  const unsigned delta = delta_mod4096 % 4096 / config.step * config.step;
  return std::any_of(cliffs.begin(), cliffs.end(), [&](const copy_cliff& c) {
    return c.cost.bytes == judged_at && c.cost.delta_mod4096 == delta;
  });
}

double copy_cliff_result::worst_ratio() const {
  double worst = 1.0;
  for (const copy_cliff& c : ratios_to_median(config, costs)) worst = std::max(worst, c.ratio);
  return worst;
}

model::copy_probe copy_cliff_result::facts() const {
  model::copy_probe p;
  p.config.sizes.assign(config.sizes.begin(), config.sizes.end());
  p.config.step = config.step;
  p.config.src_offset = config.src_offset;
  p.config.trials = config.trials;
  p.config.copies_per_trial = config.copies_per_trial;
  p.config.cliff_ratio = config.cliff_ratio;
  p.config.rechecks = config.rechecks;
  p.glibc_tunables = glibc_tunables;
  p.elapsed_ms = elapsed_ms;
  p.has_cliff = has_cliff();
  p.worst_ratio = worst_ratio();
  p.rechecked = rechecked;
  for (const copy_cliff& c : cliffs)
    p.cliffs.push_back({c.cost.bytes, c.cost.delta_mod4096, c.cost.delta_mod64(), c.cost.ns,
                        c.median_ns, c.ratio});
  for (const copy_cost& c : costs) p.costs.push_back({c.bytes, c.delta_mod4096, c.ns});
  return p;
}

json copy_cliff_result::to_json() const {
  return model::write_json(facts());
}

copy_cliff_result copy_cliff_result::from_json(const json& j) {
  copy_cliff_result r;
  r.config = j.at("config").get<copy_cliff_config>();
  validate(r.config);
  r.glibc_tunables = j.at("glibc_tunables").get<std::string>();
  r.elapsed_ms = j.at("elapsed_ms").get<double>();
  r.rechecked = j.value("rechecked", 0u);  // absent in results written before rechecks
  for (const json& c : j.at("costs"))
    r.costs.push_back(copy_cost{c.at("bytes").get<std::size_t>(),
                                c.at("delta_mod4096").get<unsigned>(), c.at("ns").get<double>()});
  r.cliffs = cliffs_in(r.config, r.costs);
  return r;
}

copy_cliff_result find_copy_cliffs(const copy_cliff_config& config, const copy_timer& timer) {
  validate(config);
  const auto t0 = steady::now();
  copy_cliff_result r;
  r.config = config;
  for (std::size_t bytes : config.sizes)
    for (unsigned delta = 0; delta < 4096; delta += config.step)
      r.costs.push_back(copy_cost{bytes, delta, timer(bytes, delta)});
  if (config.rechecks > 0) r.rechecked = retime_slow_placements(config, timer, r.costs);
  r.cliffs = cliffs_in(config, r.costs);
  r.elapsed_ms = std::chrono::duration<double, std::milli>(steady::now() - t0).count();
  return r;
}

copy_cliff_result measure_copy_cliff(const copy_cliff_config& config) {
  validate(config);
  copy_buffers buffers(*std::max_element(config.sizes.begin(), config.sizes.end()));
  copy_cliff_result r = find_copy_cliffs(config, [&](std::size_t bytes, unsigned delta) {
    const unsigned dst = (config.src_offset + delta) % 4096;
    return buffers.median_ns(bytes, dst, config.src_offset, config.trials, config.copies_per_trial);
  });
  if (const char* t = std::getenv("GLIBC_TUNABLES")) r.glibc_tunables = t;
  return r;
}

int copy_probe_main(std::string_view config_json, std::ostream& out, std::ostream& err) {
  copy_cliff_config config;
  try {
    config = json::parse(config_json).get<copy_cliff_config>();
    validate(config);
  } catch (const std::exception& e) {
    err << "copy probe: bad config: " << e.what() << '\n';
    return 2;
  }
  out << measure_copy_cliff(config).to_json().dump() << '\n';
  out.flush();
  return out ? 0 : 1;
}

std::optional<copy_cliff_result> measure_copy_cliff_in_child(
    const std::vector<std::string>& argv_prefix, const std::string& glibc_tunables,
    const copy_cliff_config& config, std::chrono::milliseconds timeout, std::string* why) {
  process::worker_request request;
  request.argv = argv_prefix;
  request.argv.push_back(json(config).dump());
  request.env_set = {{"GLIBC_TUNABLES", glibc_tunables}};
  request.env_unset = {"LD_PRELOAD"};
  request.timeout = timeout;
  const process::worker_outcome o = process::run_worker(request);
  if (!o.succeeded()) {
    if (why)
      *why =
          "copy probe child: " + o.describe() + (o.stderr_tail.empty() ? "" : ": ") + o.stderr_tail;
    return std::nullopt;
  }
  try {
    return copy_cliff_result::from_json(json::parse(o.stdout_text));
  } catch (const std::exception& e) {
    if (why) *why = std::string("copy probe child printed no result: ") + e.what();
    return std::nullopt;
  }
}

placement_probe probe_placement(const std::string& self) {
  placement_probe p;
  p.plain = measure_copy_cliff();
  p.with_tunable =
      measure_copy_cliff_in_child({self, "__copy-probe"}, rep_movsb_off_tunables, p.plain.config,
                                  std::chrono::seconds(30), &p.tunable_error);
  return p;
}

model::placement_facts placement_probe::facts() const {
  model::placement_facts p;
  p.probe = plain.facts();
  if (with_tunable) p.with_tunable = with_tunable->facts();
  p.tunable = rep_movsb_off_tunables;
  if (!tunable_error.empty()) p.tunable_probe_error = tunable_error;
  return p;
}

}  // namespace alloclab::lab
