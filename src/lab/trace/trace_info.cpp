#include "trace/trace_info.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "workloads/size_distribution.hpp"
#include "text/plural.hpp"

namespace alloclab::trace {

namespace {

struct live_block {
  std::uint64_t size = 0;
  std::uint64_t sequence = 0;  ///< allocation number, in file order
};

struct window {
  std::uint64_t allocations = 0;
  std::uint64_t calls = 0;
  bool seen = false;
  std::uint64_t live_first = 0;
  std::uint64_t live_last = 0;
};

// Seed 003's three distributions as log2 histograms of 20000 sizes each (fixed seed).
std::vector<std::pair<std::string, std::vector<double>>> seed_003_shapes() {
  std::vector<std::pair<std::string, std::vector<double>>> shapes;
  for (const heap::size_dist d : heap::all_size_dists()) {
    std::vector<double> h(64, 0.0);
    const auto sizes = heap::make_sizes(d, 20000, 3);
    for (const std::uint32_t s : sizes)
      h[log2_bucket(s)] += 1.0 / static_cast<double>(sizes.size());
    shapes.emplace_back(std::string(heap::to_string(d)), std::move(h));
  }
  return shapes;
}

std::vector<resemblance> resemble(const log2_histogram& sizes) {
  // Clip to seed 003's range (4 .. 0x7FFFF), as its sizes were.
  std::vector<double> mine(64, 0.0);
  double total = 0;
  for (std::size_t k = 0; k < 64; ++k) {
    const std::size_t clipped =
        std::clamp(k, log2_bucket(heap::min_block_size), log2_bucket(heap::max_block_size));
    mine[clipped] += static_cast<double>(sizes[k]);
    total += static_cast<double>(sizes[k]);
  }
  std::vector<resemblance> out;
  if (total == 0) return out;
  for (const auto& [name, shape] : seed_003_shapes()) {
    double distance = 0;
    for (std::size_t k = 0; k < 64; ++k) distance += std::abs(mine[k] / total - shape[k]);
    out.push_back({name, distance / 2});
  }
  std::sort(out.begin(), out.end(), [](const resemblance& a, const resemblance& b) {
    return a.total_variation < b.total_variation;
  });
  return out;
}

std::vector<phase> merge_windows(const std::vector<window>& windows, std::uint64_t width_us,
                                 std::uint64_t peak) {
  std::vector<phase> phases;
  std::uint64_t live_before = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const window& w = windows[i];
    const std::uint64_t live_after = w.seen ? w.live_last : live_before;
    const auto change =
        static_cast<std::int64_t>(live_after) - static_cast<std::int64_t>(live_before);
    const double threshold = 0.2 * static_cast<double>(peak);
    std::string character = w.calls == 0                               ? "idle"
                            : static_cast<double>(change) > threshold  ? "growing"
                            : static_cast<double>(-change) > threshold ? "releasing"
                                                                       : "steady";
    const std::uint64_t begin = i * width_us;
    if (!phases.empty() && phases.back().character == character) {
      phases.back().end_us = begin + width_us;
      phases.back().allocations += w.allocations;
      phases.back().calls += w.calls;
      phases.back().live_change += change;
    } else {
      phases.push_back({begin, begin + width_us, character, w.allocations, change, w.calls});
    }
    live_before = live_after;
  }
  return phases;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? "-"
                    : fmt::format("{:.1f} %",
                                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

template <class... Args>
void add_line(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  out += fmt::format(format, std::forward<Args>(args)...);
  out += '\n';
}

// The interleavings' time windows: the recorder's timestamp resolution (1 ms), wider for long
// runs (at most 20000 windows); 0 for a trace without timestamps.
std::uint64_t interleaving_window_us(const trace_file& trace, std::uint64_t duration_us) {
  if (!trace.header().timestamps || duration_us == 0) return 0;
  return std::max<std::uint64_t>(1000, duration_us / 20000 + 1);
}

std::vector<handoff> sorted_handoffs(
    const std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>& pairs) {
  std::vector<handoff> out;
  for (const auto& [threads, blocks] : pairs)
    out.push_back({threads.first, threads.second, blocks});
  std::stable_sort(out.begin(), out.end(),
                   [](const handoff& a, const handoff& b) { return a.blocks > b.blocks; });
  return out;
}

// Why a trace has no time figures: its recording took none, it was cut before any, or the run
// was too short.
std::string why_untimed(const trace_file& trace) {
  if (!trace.header().timestamps) return "recorded without timestamps";
  if (trace.truncated()) return "the trace is truncated before its first timestamp";
  return "the run was too short to time";
}

}  // namespace

namespace {

// The trace's end in microseconds: its footer's, else (timed traces) the last event's.
std::uint64_t end_time_us(const trace_file& trace) {
  std::uint64_t max_time = trace.footer() ? trace.footer()->end_us : 0;
  if (max_time == 0 && trace.header().timestamps)
    trace.for_each_event([&](const event& e) { max_time = std::max(max_time, e.time_us); });
  return max_time;
}

// One pass over a trace's events in file order, gathering what `summarize` reports.
class summary_pass {
 public:
  summary_pass(const trace_file& trace, const summary_options& options)
      : options_(options),
        max_time_(end_time_us(trace)),
        timed_(trace.header().timestamps && max_time_ > 0 && options.phase_windows > 0),
        width_us_(timed_ ? max_time_ / options.phase_windows + 1 : 0),
        windows_(timed_ ? options.phase_windows : 0),
        interleavings_(interleaving_window_us(trace, max_time_)) {}

  void on_event(const event& e) {
    ++s_.by_kind[static_cast<std::size_t>(e.kind)];
    thread_summary& t = threads_[e.thread];
    t.thread = e.thread;
    if (e.kind == event_kind::thread_start) t.os_tid = e.value;
    if (e.kind == event_kind::rss) s_.peak_rss_bytes = std::max(s_.peak_rss_bytes, e.value);
    if (e.kind >= event_kind::thread_start) return;
    ++t.events;
    if (timed_) {
      window& w = window_of(e);
      ++w.calls;
      if (creates_block(e.kind)) ++w.allocations;
    }
    if (e.unknown_pointer) ++s_.unknown_pointer_calls;
    if (e.kind == event_kind::free && !e.unknown_pointer) release(e, e.block, t);
    if (e.kind == event_kind::realloc && e.old_block != no_block) release(e, e.old_block, t);
    if (creates_block(e.kind)) allocate(e, t);
  }

  trace_summary finish() && {
    for (auto& [index, t] : threads_) s_.threads.push_back(t);
    s_.final_live_bytes = live_bytes_;
    s_.final_live_blocks = live_.size();
    s_.duration_us = max_time_;
    s_.interleavings = interleavings_.finish();
    s_.peak_live_bytes = s_.interleavings.time_order();
    s_.handoffs = sorted_handoffs(handoffs_);
    s_.resemblances = resemble(s_.sizes);
    if (timed_) s_.phases = merge_windows(windows_, width_us_, s_.peak_live_bytes);
    return std::move(s_);
  }

 private:
  window& window_of(const event& e) {
    return windows_[std::min<std::size_t>(e.time_us / width_us_, windows_.size() - 1)];
  }

  void note_live(const event& e) {
    if (options_.curve_stride != 0 && ++curve_counter_ % options_.curve_stride == 0)
      s_.live_curve.push_back(live_bytes_);
    if (timed_) {
      window& w = window_of(e);
      if (!w.seen) w.live_first = live_bytes_;
      w.seen = true;
      w.live_last = live_bytes_;
    }
  }

  void allocate(const event& e, thread_summary& t) {
    ++s_.allocations;
    ++t.allocations;
    s_.bytes_allocated += e.value;
    t.bytes_allocated += e.value;
    s_.monotonic_footprint += (e.value + 15) & ~std::uint64_t{15};
    ++s_.sizes[log2_bucket(e.value)];
    ++sequence_;
    interleavings_.change(e.thread, e.time_us, static_cast<std::int64_t>(e.value));
    if (const auto early = freed_early_.find(e.block); early != freed_early_.end()) {
      interleavings_.amend(early->second.first, early->second.second,
                           -static_cast<std::int64_t>(e.value));
      freed_early_.erase(early);
      ++s_.lifetimes[0];
      return;
    }
    live_[e.block] = {e.value, sequence_};
    live_sequences_.insert(sequence_);
    live_bytes_ += e.value;
    note_live(e);
  }

  void release(const event& e, block_key b, thread_summary& t) {
    ++s_.frees;
    ++t.frees;
    if (block_thread(b) != e.thread) {
      ++s_.cross_thread_frees;
      ++t.cross_thread_frees;
      ++handoffs_[{block_thread(b), e.thread}];
    }
    const auto it = live_.find(b);
    if (it == live_.end()) {
      freed_early_[b] = {e.thread, interleavings_.change(e.thread, e.time_us, 0)};
      ++s_.frees_before_allocation;
      return;
    }
    interleavings_.change(e.thread, e.time_us, -static_cast<std::int64_t>(it->second.size));
    const std::uint64_t seq = it->second.sequence;
    if (seq == *live_sequences_.rbegin()) ++s_.freed_youngest;
    if (seq == *live_sequences_.begin()) ++s_.freed_oldest;
    ++s_.lifetimes[log2_bucket(sequence_ - seq)];
    live_bytes_ -= it->second.size;
    live_sequences_.erase(seq);
    live_.erase(it);
    note_live(e);
  }

  const summary_options& options_;
  trace_summary s_;
  std::map<std::uint32_t, thread_summary> threads_;
  std::unordered_map<block_key, live_block> live_;
  // Cross-thread frees seen before the allocation: where the interleavings placed them.
  std::unordered_map<block_key, std::pair<std::uint32_t, std::size_t>> freed_early_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> handoffs_;
  std::set<std::uint64_t> live_sequences_;
  std::uint64_t live_bytes_ = 0, sequence_ = 0, curve_counter_ = 0;
  std::uint64_t max_time_;
  bool timed_;
  std::uint64_t width_us_;
  std::vector<window> windows_;
  live_interleavings interleavings_;
};

}  // namespace

trace_summary summarize(const trace_file& trace, const summary_options& options) {
  summary_pass pass(trace, options);
  trace.for_each_event([&](const event& e) { pass.on_event(e); });
  return std::move(pass).finish();
}

namespace {

// Where the trace came from and whether it is whole: trace, program, status, size, duration.
void add_provenance(std::string& out, const trace_file& trace, const trace_summary& s) {
  std::string command;
  for (const auto& word : trace.header().command) command += (command.empty() ? "" : " ") + word;
  add_line(out, "trace        {} (format version {}, {} bytes)", trace.path(),
           trace.header().version, trace.file_bytes());
  const trace_header& h = trace.header();
  std::string origin;
  if (h.origin == trace_format::image_origin::exec)
    origin = fmt::format(", exec'd (parent pid {})", h.parent_pid);
  if (h.origin == trace_format::image_origin::fork)
    origin = fmt::format(", forked by pid {}", h.parent_pid);
  add_line(out, "program      {} (pid {}{})", command, h.pid, origin);
  if (trace.truncated()) {
    add_line(
        out,
        "status       TRUNCATED: no footer (the program was killed or crashed, or called _exit);"
        " the events up to its last flushed chunk are below");
  } else {
    const trace_footer& f = *trace.footer();
    add_line(out, "status       complete: {} calls from {}{}{}", f.events,
             lab::counted(f.threads, "thread"),
             f.threads_unflushed == 0
                 ? ""
                 : fmt::format("; {} inside a call at exit, their last chunk is lost",
                               lab::counted(f.threads_unflushed, "thread was", "threads were")),
             f.bootstrap_allocations == 0
                 ? ""
                 : fmt::format("; {} allocations served before the recorder was ready",
                               f.bootstrap_allocations));
  }
  std::uint64_t calls = 0;
  for (const auto& t : s.threads) calls += t.events;
  if (trace.file_bytes() > 0 && calls > 0)
    add_line(out, "size         {:.2f} bytes per call on disk",
             static_cast<double>(trace.file_bytes()) / static_cast<double>(calls));
  if (s.duration_us > 0) {
    add_line(out, "duration     {:.3f} s; {:.0f} allocations per second",
             static_cast<double>(s.duration_us) / 1e6,
             static_cast<double>(s.allocations) / (static_cast<double>(s.duration_us) / 1e6));
  } else {
    add_line(out, "duration     unknown ({})", why_untimed(trace));
  }
}

void add_events(std::string& out, const trace_summary& s) {
  add_line(out, "\nevents by kind");
  for (std::size_t k = 0; k < event_kind_count; ++k)
    if (s.by_kind[k] != 0)
      add_line(out, "  {:<20} {:>12}", to_string(static_cast<event_kind>(k)), s.by_kind[k]);

  add_line(out, "\nevents by thread");
  add_line(out, "  {:>6} {:>8} {:>12} {:>12} {:>12} {:>12} {:>12}", "thread", "tid", "calls",
           "allocs", "frees", "cross-frees", "bytes");
  for (const auto& t : s.threads)
    add_line(out, "  {:>6} {:>8} {:>12} {:>12} {:>12} {:>12} {:>12}", t.thread, t.os_tid, t.events,
             t.allocations, t.frees, t.cross_thread_frees, t.bytes_allocated);
  add_line(out, "  cross-thread frees: {} of {} frees ({})", s.cross_thread_frees, s.frees,
           percent(s.cross_thread_frees, s.frees));
  if (s.unknown_pointer_calls != 0)
    add_line(out, "  calls on pointers allocated before recording started: {}",
             s.unknown_pointer_calls);
}

void add_memory(std::string& out, const trace_summary& s) {
  add_line(out, "\nmemory");
  add_line(out, "  peak live bytes        {} ({} bytes)",
           bytes_text(static_cast<double>(s.peak_live_bytes)), s.peak_live_bytes);
  add_line(out,
           "  monotonic footprint    {} (every allocation rounded up to 16 B, never freed: what a "
           "bump arena would consume)",
           bytes_text(static_cast<double>(s.monotonic_footprint)));
  add_line(out, "  bytes allocated        {}", bytes_text(static_cast<double>(s.bytes_allocated)));
  add_line(out, "  live at exit           {} in {} blocks",
           bytes_text(static_cast<double>(s.final_live_bytes)), s.final_live_blocks);
  if (s.peak_rss_bytes != 0)
    add_line(out, "  peak sampled RSS       {}", bytes_text(static_cast<double>(s.peak_rss_bytes)));
}

void add_sizes(std::string& out, const trace_summary& s) {
  add_line(out, "\nallocation sizes (log2 histogram, seed 003's figure)");
  const std::uint64_t most = *std::max_element(s.sizes.begin(), s.sizes.end());
  for (std::size_t k = 0; k < s.sizes.size(); ++k) {
    if (s.sizes[k] == 0) continue;
    const auto bar = static_cast<std::size_t>(40.0 * static_cast<double>(s.sizes[k]) /
                                              static_cast<double>(most));
    add_line(out, "  [{:>8}, {:>8}) {:>12} {:>7} {}", std::uint64_t{1} << k, std::uint64_t{2} << k,
             s.sizes[k], percent(s.sizes[k], s.allocations),
             std::string(std::max<std::size_t>(bar, 1), '#'));
  }
  if (!s.resemblances.empty()) {
    std::string distances;
    for (const auto& r : s.resemblances)
      distances += fmt::format("{}{} {:.2f}", distances.empty() ? "" : ", ", r.distribution,
                               r.total_variation);
    add_line(out,
             "  nearest of seed 003's distributions: {} (total variation distance: {}; 0 = same "
             "shape, 1 = disjoint){}",
             s.resemblances.front().distribution, distances,
             s.resemblances.front().total_variation > 0.5 ? "; none is close" : "");
  }
}

// The order frees come in, from the shares that release the youngest and the oldest live block.
const char* free_order(double young, double old) {
  return young > 0.5 && young > 2 * old   ? "LIFO (stack-like)"
         : old > 0.5 && old > 2 * young   ? "FIFO (queue-like)"
         : young > old * 2 && young > 0.2 ? "mostly LIFO"
         : old > young * 2 && old > 0.2   ? "mostly FIFO"
                                          : "neither (frees in no stack or queue order)";
}

void add_lifetimes(std::string& out, const trace_summary& s) {
  add_line(out, "\nlifetimes (allocations made while the block lived)");
  std::uint64_t freed = 0;
  for (const auto n : s.lifetimes) freed += n;
  for (std::size_t k = 0; k < s.lifetimes.size(); ++k)
    if (s.lifetimes[k] != 0)
      add_line(out, "  [{:>10}, {:>10}) {:>12} {:>7}", k == 0 ? 0 : std::uint64_t{1} << k,
               std::uint64_t{2} << k, s.lifetimes[k], percent(s.lifetimes[k], freed));
  add_line(out, "  never freed: {}", s.final_live_blocks);
  const double young =
      freed == 0 ? 0 : static_cast<double>(s.freed_youngest) / static_cast<double>(freed);
  const double old =
      freed == 0 ? 0 : static_cast<double>(s.freed_oldest) / static_cast<double>(freed);
  add_line(out, "  order: {} of frees release the youngest live block, {} the oldest: {}",
           percent(s.freed_youngest, freed), percent(s.freed_oldest, freed),
           free_order(young, old));
}

void add_phases(std::string& out, const trace_file& trace, const trace_summary& s) {
  if (s.phases.empty()) {
    add_line(out, "\nphases: {}",
             trace.header().timestamps ? "none (" + why_untimed(trace) + ")"
                                       : "unknown (" + why_untimed(trace) + ")");
    return;
  }
  add_line(out, "\nphases (the run cut into equal windows, neighbours of one character merged)");
  add_line(out, "  {:>10} {:>10}  {:<10} {:>12} {:>14}", "from ms", "to ms", "character", "allocs",
           "live change");
  for (const auto& p : s.phases)
    add_line(
        out, "  {:>10.1f} {:>10.1f}  {:<10} {:>12} {:>14}", static_cast<double>(p.begin_us) / 1e3,
        static_cast<double>(p.end_us) / 1e3, p.character, p.allocations,
        (p.live_change < 0 ? "-" : "+") +
            bytes_text(static_cast<double>(p.live_change < 0 ? -p.live_change : p.live_change)));
}

}  // namespace

std::string render_summary(const trace_file& trace, const trace_summary& s) {
  std::string out;
  add_provenance(out, trace, s);
  add_events(out, s);
  add_memory(out, s);
  add_sizes(out, s);
  add_lifetimes(out, s);
  add_phases(out, trace, s);
  return out;
}

namespace {

std::string origin_of(const trace_header& h) {
  if (h.origin == trace_format::image_origin::started) return "record";
  if (h.origin == trace_format::image_origin::exec) return "exec";
  if (h.origin == trace_format::image_origin::fork) return fmt::format("fork of {}", h.parent_pid);
  return "-";
}

}  // namespace

std::string render_images(const std::string& trace) {
  std::vector<std::string> all = image_traces(trace);
  if (all.empty()) return {};
  all.insert(all.begin(), trace);
  std::string out =
      "\nprocess images (record --follow-exec, --follow-fork: one trace each, in order of start)\n"
      "  trace                         pid  started              calls  command\n";
  for (const std::string& path : all) {
    const std::string name = std::filesystem::path(path).filename().string();
    try {
      const trace_file t(path);
      std::string command;
      for (const std::string& word : t.header().command)
        command += (command.empty() ? "" : " ") + word;
      add_line(out, "  {:<24} {:>8}  {:<14} {:>11}  {}", name, t.header().pid,
               origin_of(t.header()),
               t.footer() ? std::to_string(t.footer()->events) : std::string("truncated"),
               command.substr(0, 60));
    } catch (const trace_error& e) {
      add_line(out, "  {:<24} {:>8}  {:<14} {:>11}  {}", name, "-", "-", "damaged", e.what());
    }
  }
  return out;
}

}  // namespace alloclab::trace
