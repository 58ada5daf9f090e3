// RSS over time inside a heap worker: a thread samples VmRSS (from /proc/self/statm) and, where
// readable, the cgroup's memory usage file, every `period`, into storage allocated up front, so
// sampling allocates nothing under the malloc being measured. When the storage fills, every
// other point is dropped and the period doubles: a long cell keeps an even, coarser series.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace alloclab::process {

struct rss_point {
  double t_ms = 0;                 ///< since the sampler was constructed
  std::uint64_t rss_bytes = 0;     ///< VmRSS
  std::int64_t cgroup_bytes = -1;  ///< cgroup usage file; -1 when unreadable
};

struct rss_series {
  double period_ms = 0;     ///< final sampling period (doubles each time the storage fills)
  std::string cgroup_file;  ///< the usage file sampled; empty when none is readable
  std::vector<rss_point> points;
};

/// Reads VmRSS from an open /proc/self/statm descriptor with pread (no allocation).
std::optional<std::uint64_t> read_statm_rss(int statm_fd) noexcept;

class rss_sampler {
 public:
  /// Opens the files and reserves `capacity` points (at least 2). `cgroup_file` empty: none.
  rss_sampler(std::chrono::milliseconds period, std::size_t capacity,
              const std::string& cgroup_file);
  ~rss_sampler();
  rss_sampler(const rss_sampler&) = delete;
  rss_sampler& operator=(const rss_sampler&) = delete;

  void start();  ///< returns once the first sample is taken; then one every period
  void stop();   ///< takes a last sample and joins the thread
  double now_ms() const noexcept;
  /// The series so far (call after stop()).
  rss_series series() const;

 private:
  void run();
  void sample() noexcept;

  std::chrono::steady_clock::time_point origin_;
  std::chrono::milliseconds period_;
  int statm_fd_ = -1;
  int cgroup_fd_ = -1;
  std::string cgroup_file_;
  std::vector<rss_point> points_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable started_;
  bool stopping_ = false;
  std::thread thread_;
};

/// RSS sampling period through a cell, and the points kept before the series thins out.
inline constexpr std::chrono::milliseconds rss_sample_period{10};
inline constexpr std::size_t rss_series_capacity = 2048;

}  // namespace alloclab::process
