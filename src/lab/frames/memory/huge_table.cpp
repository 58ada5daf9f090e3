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

#include "frames/memory/figures.hpp"
#include "process/measuring_worker.hpp"
#include "frames/memory/process_figures.hpp"
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
  process::rss_sampler sampler(process::rss_sample_period, process::rss_series_capacity,
                               memory_budget::cgroup_usage_file().value_or(""));
  sampler.start();
  std::string how;
  huge_page_buffer buffer = make_huge_table(spec, how);
  auto* const words = static_cast<std::uint64_t*>(buffer.data());
  const std::size_t count = buffer.size() / sizeof(std::uint64_t);

  const process::fault_counts f0 = process::read_faults();
  const auto fill_start = steady::now();
  for (std::size_t i = 0; i < count; ++i) words[i] = i;
  const double fill_ms =
      std::chrono::duration<double, std::milli>(steady::now() - fill_start).count();
  const process::fault_counts f1 = process::read_faults();
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
  const process::fault_counts f2 = process::read_faults();
  sampler.stop();

  huge_table_reading r;
  r.table_bytes = buffer.size();
  r.backing = how;
  r.thp_mode = to_string(buffer.mode());
  r.advised = buffer.advised();
  r.fell_back = spec.strategy == huge_pages_strategy && !buffer.advised();
  r.huge_backed_bytes = huge_backed;
  r.huge_backed_share = static_cast<double>(huge_backed) / static_cast<double>(buffer.size());
  r.fill_ms = fill_ms;
  r.fill_minor_faults = f1.minor - f0.minor;
  r.fill_major_faults = f1.major - f0.major;
  r.access_minor_faults = f2.minor - f1.minor;
  r.accesses_per_repetition = batches * accesses_per_batch;
  r.dtlb_load_misses = dtlb.total();
  if (!r.dtlb_load_misses) r.dtlb_load_misses_note = dtlb.why_not();
  r.checksum = checksum;
  return memory_figures{repetition_seconds,
                        samples,
                        per_repetition,
                        accesses_per_batch,
                        process::to_json(sampler.series()),
                        model::write_json(r)};
}

}  // namespace alloclab::lab
