#include "recorder_state.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace alloclab::record {

std::atomic<bool> recording{false};
std::atomic<bool> threads_share{false};
bool timestamps = true;
int zstd_level = 1;
int status_fd = -1;
long recorded_pid = 0;
std::uint64_t start_monotonic_ns = 0;
pthread_key_t thread_key;
pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
std::atomic<thread_state*> all_states{nullptr};
std::atomic<std::uint32_t> thread_count{0};
std::atomic<std::uint64_t> unknown_frees{0};
std::atomic<std::uint64_t> last_rss_us{0};
bool membarrier_ready = false;
__thread thread_state* current __attribute__((tls_model("initial-exec"))) = nullptr;
__thread thread_state* own_state __attribute__((tls_model("initial-exec"))) = nullptr;
__thread bool inside __attribute__((tls_model("initial-exec"))) = false;

std::uint64_t monotonic_ns(clockid_t clock) noexcept {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}
std::uint64_t elapsed_us(clockid_t clock) noexcept {
  const std::uint64_t now = monotonic_ns(clock);
  return now > start_monotonic_ns ? (now - start_monotonic_ns) / 1000 : 0;
}

void* map_memory(std::size_t bytes) noexcept {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void report(const char* word, long number) noexcept {
  if (status_fd < 0) return;
  char line[64];
  std::size_t n = 0;
  while (*word != '\0' && n < 40) line[n++] = *word++;
  line[n++] = ' ';
  char digits[24];
  std::size_t d = 0;
  unsigned long value =
      number < 0 ? 0ul - static_cast<unsigned long>(number) : static_cast<unsigned long>(number);
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  if (number < 0) line[n++] = '-';
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  const int saved = errno;
  [[maybe_unused]] const ssize_t ignored = write(status_fd, line, n);
  errno = saved;
}

bool is_recorded_process() noexcept {
  return recorded_pid != 0 && syscall(SYS_getpid) == recorded_pid;
}

}  // namespace alloclab::record
