#include "chunk_writer.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "recorder_state.hpp"

namespace alloclab::record {

int trace_fd = -1;

namespace {

// One zstd context and its output buffer, used by one thread at a time.
struct compressor {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  ZSTD_CCtx* context = nullptr;
  std::uint8_t* out = nullptr;
  std::size_t capacity = 0;
};
constexpr int max_compressors = 16;
compressor compressors[max_compressors];
int compressor_count = 1;

// A free compressor (the thread's own first, then the others), or the thread's own once free.
compressor& take_compressor(std::uint32_t thread) noexcept {
  for (int i = 0; i < compressor_count; ++i) {
    compressor& c = compressors[(thread + static_cast<std::uint32_t>(i)) % compressor_count];
    if (pthread_mutex_trylock(&c.lock) == 0) return c;
  }
  compressor& own = compressors[thread % static_cast<std::uint32_t>(compressor_count)];
  pthread_mutex_lock(&own.lock);
  return own;
}

// The chunk's stored payload: compressed into `c` when that is smaller, else `raw` itself.
const std::uint8_t* compress(compressor& c, fmt::chunk_header& h, const std::uint8_t* raw,
                             std::size_t raw_bytes) noexcept {
  h.codec = static_cast<std::uint8_t>(fmt::codec::raw);
  h.stored_bytes = static_cast<std::uint32_t>(raw_bytes);
  if (zstd_level <= 0) return raw;
  if (c.context == nullptr) c.context = ZSTD_createCCtx();
  if (c.out == nullptr) {
    c.capacity = ZSTD_compressBound(fmt::max_chunk_raw_bytes);
    c.out = static_cast<std::uint8_t*>(map_memory(c.capacity));
  }
  if (c.context == nullptr || c.out == nullptr) return raw;
  const std::size_t n = ZSTD_compressCCtx(c.context, c.out, c.capacity, raw, raw_bytes, zstd_level);
  if (ZSTD_isError(n) || n >= raw_bytes) return raw;
  h.codec = static_cast<std::uint8_t>(fmt::codec::zstd);
  h.stored_bytes = static_cast<std::uint32_t>(n);
  return c.out;
}

// Header and payload in one writev, under write_lock.
void write_stored(fmt::chunk_header& h, const std::uint8_t* stored, bool close_after) noexcept {
  h.magic = fmt::chunk_magic;
  h.checksum = fmt::checksum(stored, h.stored_bytes);
  const iovec parts[2] = {{&h, sizeof h}, {const_cast<std::uint8_t*>(stored), h.stored_bytes}};
  pthread_mutex_lock(&write_lock);
  if (trace_fd >= 0 && !write_all(parts, 2)) {
    report("write-failed", errno);
    close(trace_fd);  // a half-written chunk ends the trace; the reader reports it
    trace_fd = -1;
  }
  if (close_after && trace_fd >= 0) {
    close(trace_fd);
    trace_fd = -1;
  }
  pthread_mutex_unlock(&write_lock);
}

}  // namespace

void size_compressors() noexcept {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  compressor_count = cpus < 1                 ? 1
                     : cpus > max_compressors ? max_compressors
                                              : static_cast<int>(cpus);
}

// SIGXFSZ is blocked and taken back, so that the write fails with EFBIG.
bool write_all(const iovec* parts, int count) noexcept {
  sigset_t file_size, previous;
  sigemptyset(&file_size);
  sigaddset(&file_size, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &file_size, &previous);
  iovec v[max_write_parts];
  if (count > max_write_parts) count = max_write_parts;
  std::memcpy(v, parts, sizeof(iovec) * static_cast<std::size_t>(count));
  int first = 0;
  while (first < count) {
    const ssize_t n = writev(trace_fd, v + first, count - first);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n == 0 ? EIO : errno;
      if (error == EFBIG && !sigismember(&previous, SIGXFSZ)) {
        const timespec now{};
        sigtimedwait(&file_size, nullptr, &now);
      }
      pthread_sigmask(SIG_SETMASK, &previous, nullptr);
      errno = error;
      return false;
    }
    std::size_t left = static_cast<std::size_t>(n);
    while (first < count && left >= v[first].iov_len) left -= v[first++].iov_len;
    if (first < count) {
      v[first].iov_base = static_cast<char*>(v[first].iov_base) + left;
      v[first].iov_len -= left;
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return true;
}

void write_chunk(std::uint32_t thread, std::uint32_t sequence, const std::uint8_t* raw,
                 std::size_t raw_bytes) noexcept {
  fmt::chunk_header h{};
  h.thread = thread;
  h.sequence = sequence;
  h.raw_bytes = static_cast<std::uint32_t>(raw_bytes);
  h.kind = static_cast<std::uint8_t>(fmt::chunk_kind::events);
  compressor& c = take_compressor(thread);
  write_stored(h, compress(c, h, raw, raw_bytes), false);
  pthread_mutex_unlock(&c.lock);
}

void write_footer_and_close(const std::uint8_t* raw, std::size_t raw_bytes) noexcept {
  fmt::chunk_header h{};
  h.raw_bytes = h.stored_bytes = static_cast<std::uint32_t>(raw_bytes);
  h.kind = static_cast<std::uint8_t>(fmt::chunk_kind::footer);
  h.codec = static_cast<std::uint8_t>(fmt::codec::raw);
  write_stored(h, raw, true);
}

void restart_writer_in_child() noexcept {
  const auto restart = [](pthread_mutex_t& lock) {
    if (pthread_mutex_trylock(&lock) == 0) {
      pthread_mutex_unlock(&lock);
      return true;
    }
    const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    std::memcpy(&lock, &fresh, sizeof fresh);
    return false;
  };
  restart(write_lock);
  for (compressor& c : compressors) {
    if (restart(c.lock)) continue;
    c.context = nullptr;  // a parent thread's, mid-compression
    c.out = nullptr;
  }
}

int open_trace(const char* path) noexcept {
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_size != 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

int open_image_trace(const char* path) noexcept {
  char name[4096];
  std::size_t length = std::strlen(path);
  if (length + 12 > sizeof name) return -1;
  std::memcpy(name, path, length);
  name[length++] = '.';
  for (unsigned n = 1; n < 1000000; ++n) {
    char digits[12];
    std::size_t d = 0;
    for (unsigned v = n; v != 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
    std::size_t end = length;
    while (d > 0) name[end++] = digits[--d];
    name[end] = '\0';
    const int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace alloclab::record
