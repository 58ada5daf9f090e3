#include "process/rss_series.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace alloclab::process {

namespace {

// The first decimal number in an open file, read with pread into a stack buffer.
std::optional<std::uint64_t> read_number(int fd, int skip_fields) noexcept {
  if (fd < 0) return std::nullopt;
  char buf[128];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  const char* p = buf;
  const char* end = buf + n;
  for (int i = 0; i < skip_fields; ++i) {
    p = std::find(p, end, ' ');
    if (p == end) return std::nullopt;
    ++p;
  }
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(p, end, value);
  if (ec != std::errc() || ptr == p) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint64_t> read_statm_rss(int statm_fd) noexcept {
  const std::optional<std::uint64_t> pages = read_number(statm_fd, 1);
  if (!pages) return std::nullopt;
  return *pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

rss_sampler::rss_sampler(std::chrono::milliseconds period, std::size_t capacity,
                         const std::string& cgroup_file)
    : origin_(std::chrono::steady_clock::now()),
      period_(period),
      capacity_(std::max<std::size_t>(capacity, 2)) {
  statm_fd_ = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (!cgroup_file.empty()) {
    cgroup_fd_ = ::open(cgroup_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (cgroup_fd_ >= 0 && read_number(cgroup_fd_, 0)) {
      cgroup_file_ = cgroup_file;
    } else if (cgroup_fd_ >= 0) {
      ::close(cgroup_fd_);
      cgroup_fd_ = -1;
    }
  }
  points_.reserve(capacity_);
}

rss_sampler::~rss_sampler() {
  stop();
  if (statm_fd_ >= 0) ::close(statm_fd_);
  if (cgroup_fd_ >= 0) ::close(cgroup_fd_);
}

double rss_sampler::now_ms() const noexcept {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - origin_)
      .count();
}

void rss_sampler::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  const std::size_t before = points_.size();
  thread_ = std::thread([this] { run(); });
  // Wait for the first sample, so the series starts before whatever the caller measures next.
  std::unique_lock<std::mutex> lock(mutex_);
  started_.wait(lock, [&] { return points_.size() > before; });
}

void rss_sampler::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  sample();
}

void rss_sampler::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    sample();
    started_.notify_all();
    if (wake_.wait_for(lock, period_, [this] { return stopping_; })) return;
  }
}

// Called with mutex_ held.
void rss_sampler::sample() noexcept {
  if (points_.size() == capacity_) {  // thin out: keep every other point, sample half as often
    std::size_t kept = 0;
    for (std::size_t i = 0; i < points_.size(); i += 2) points_[kept++] = points_[i];
    points_.resize(kept);
    period_ *= 2;
  }
  rss_point p;
  p.t_ms = now_ms();
  p.rss_bytes = read_statm_rss(statm_fd_).value_or(0);
  if (const auto c = read_number(cgroup_fd_, 0)) p.cgroup_bytes = static_cast<std::int64_t>(*c);
  points_.push_back(p);
}

rss_series rss_sampler::series() const {
  rss_series s;
  s.period_ms = static_cast<double>(period_.count());
  s.cgroup_file = cgroup_file_;
  s.points = points_;
  return s;
}

}  // namespace alloclab::process
