#include "frames/memory/huge_table.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <alloclab/huge_page_buffer.hpp>
#include <alloclab/memory_budget.hpp>

#include "process/measuring_worker.hpp"
#include "process/proc_memory.hpp"
#include "process/rss_series.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

constexpr std::size_t accesses_per_batch = 4096;

// dTLB load misses of this thread, when the kernel gives us the hardware cache counter.
class dtlb_counter {
 public:
  dtlb_counter() {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HW_CACHE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    fd_ = static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd_ < 0)
      why_ = std::string("not available: perf_event_open(dTLB-load-misses) failed: ") +
             std::strerror(errno) + " (no hardware counters on this machine?)";
  }
  ~dtlb_counter() {
    if (fd_ >= 0) ::close(fd_);
  }
  dtlb_counter(const dtlb_counter&) = delete;
  dtlb_counter& operator=(const dtlb_counter&) = delete;
  void start() {
    if (fd_ < 0) return;
    ::ioctl(fd_, PERF_EVENT_IOC_RESET, 0);
    ::ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0);
  }
  void stop() {
    if (fd_ < 0) return;
    ::ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
    std::uint64_t count = 0;
    if (::read(fd_, &count, sizeof count) == static_cast<ssize_t>(sizeof count))
      total_ = total_.value_or(0) + count;
  }
  std::optional<std::uint64_t> total() const { return total_; }
  const std::string& why_not() const { return why_; }

 private:
  int fd_ = -1;
  std::optional<std::uint64_t> total_;
  std::string why_;
};

std::uint64_t accesses_per_repetition(const memory_spec& spec) {
  return spec.quick ? std::uint64_t{1} << 18 : std::uint64_t{1} << 22;
}

}  // namespace

huge_page_buffer make_huge_table(const memory_spec& spec, std::string& how,
                                 const huge_page_options& host) {
  if (spec.strategy == huge_pages_strategy) {
    huge_page_buffer buffer(spec.table_bytes, host);
    how = buffer.advised() ? "huge_page_buffer, MADV_HUGEPAGE (THP " +
                                 std::string(to_string(buffer.mode())) + ")"
                           : "FELL BACK to plain pages: " + buffer.fallback_reason();
    return buffer;
  }
  huge_page_options no_thp = host;
  no_thp.thp_enabled_path.clear();  // unreadable: the buffer does not advise MADV_HUGEPAGE
  huge_page_buffer buffer(spec.table_bytes, no_thp);
  how = ::madvise(buffer.data(), buffer.size(), MADV_NOHUGEPAGE) == 0
            ? "plain pages (MADV_NOHUGEPAGE)"
            : std::string("plain pages requested, but madvise(MADV_NOHUGEPAGE) failed: ") +
                  std::strerror(errno);
  return buffer;
}

json run_huge_table(const memory_spec& spec) {
  heap::rss_sampler sampler(heap::rss_sample_period, heap::rss_series_capacity,
                            memory_budget::cgroup_usage_file().value_or(""));
  sampler.start();
  std::string how;
  huge_page_buffer buffer = make_huge_table(spec, how);
  auto* const words = static_cast<std::uint64_t*>(buffer.data());
  const std::size_t count = buffer.size() / sizeof(std::uint64_t);

  const heap::fault_counts f0 = heap::read_faults();
  const auto fill_start = steady::now();
  for (std::size_t i = 0; i < count; ++i) words[i] = i;
  const double fill_ms =
      std::chrono::duration<double, std::milli>(steady::now() - fill_start).count();
  const heap::fault_counts f1 = heap::read_faults();
  const std::size_t huge_backed = buffer.huge_backed_bytes().value_or(0);

  dtlb_counter dtlb;
  std::vector<double> samples, repetition_seconds;
  std::vector<std::size_t> per_repetition;
  std::uint64_t state = spec.seed | 1, checksum = 0;
  const std::uint64_t batches = accesses_per_repetition(spec) / accesses_per_batch;
  for (std::size_t rep = 0; rep < spec.repetitions; ++rep) {
    const auto rep_start = steady::now();
    dtlb.start();
    for (std::uint64_t b = 0; b < batches; ++b) {
      const auto t0 = steady::now();
      for (std::size_t a = 0; a < accesses_per_batch; ++a) {
        state ^= state << 13;  // xorshift64
        state ^= state >> 7;
        state ^= state << 17;
        checksum += ++words[state % count];
      }
      samples.push_back(std::chrono::duration<double, std::nano>(steady::now() - t0).count());
    }
    dtlb.stop();
    repetition_seconds.push_back(std::chrono::duration<double>(steady::now() - rep_start).count());
    per_repetition.push_back(batches);
  }
  const heap::fault_counts f2 = heap::read_faults();
  sampler.stop();

  const std::optional<std::uint64_t> misses = dtlb.total();
  json details = {
      {"table_bytes", buffer.size()},
      {"backing", how},
      {"thp_mode", to_string(buffer.mode())},
      {"advised", buffer.advised()},
      {"fell_back", spec.strategy == huge_pages_strategy && !buffer.advised()},
      {"huge_backed_bytes", huge_backed},
      {"huge_backed_share", static_cast<double>(huge_backed) / static_cast<double>(buffer.size())},
      {"fill_ms", fill_ms},
      {"fill_minor_faults", f1.minor - f0.minor},
      {"fill_major_faults", f1.major - f0.major},
      {"access_minor_faults", f2.minor - f1.minor},
      {"accesses_per_repetition", batches * accesses_per_batch},
      {"dtlb_load_misses", misses ? json(*misses) : json(nullptr)},
      {"dtlb_load_misses_note", misses ? json(nullptr) : json(dtlb.why_not())},
      {"checksum", checksum}};
  return {{"repetition_seconds", repetition_seconds},
          {"samples_ns", samples},
          {"samples_per_repetition", per_repetition},
          {"operations_per_sample", accesses_per_batch},
          {"rss_series", heap::to_json(sampler.series())},
          {"details", std::move(details)}};
}

}  // namespace alloclab::lab
