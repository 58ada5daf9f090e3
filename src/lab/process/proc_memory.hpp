// Process memory figures for the heap study: RSS and its high-water mark from /proc/self/status,
// page faults from getrusage, and the fragmentation ratio.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace alloclab::process {

/// The fields of /proc/<pid>/status that the study uses, in bytes.
struct proc_status {
  std::optional<std::uint64_t> vm_rss_bytes;  ///< VmRSS: resident now
  std::optional<std::uint64_t> vm_hwm_bytes;  ///< VmHWM: peak resident ("high water mark")
};

/// Parses the text of a /proc/<pid>/status file (lines like "VmRSS:\t  1234 kB"). Pure.
proc_status parse_proc_status(std::string_view text);

/// Reads /proc/self/status. Fields are empty when unreadable (e.g. no procfs).
proc_status read_proc_status();

struct fault_counts {
  std::uint64_t minor = 0;  ///< ru_minflt: faults served without I/O (first touch of a page)
  std::uint64_t major = 0;  ///< ru_majflt: faults that needed I/O
};

/// getrusage(RUSAGE_SELF): whole process, all threads.
fault_counts read_faults() noexcept;

/// Resets VmHWM to the current RSS by writing "5" to /proc/self/clear_refs (Linux >= 4.0).
/// Returns false when that is not permitted; VmHWM is then the peak since process start.
bool reset_peak_rss() noexcept;

/// Fragmentation as the issue defines it: (peak RSS - baseline RSS) / peak live bytes.
/// With baseline_rss = 0 this is exactly "peak RSS / peak live bytes"; pass the RSS measured
/// just before the workload (binary, libraries, precomputed sizes) for the heap-only figure.
/// A baseline above the peak counts as zero heap. Returns NaN when peak_live_bytes == 0.
double fragmentation(std::uint64_t peak_rss_bytes, std::uint64_t peak_live_bytes,
                     std::uint64_t baseline_rss_bytes = 0) noexcept;

}  // namespace alloclab::process
