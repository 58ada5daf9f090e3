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

ZSTD_CCtx* zstd_context = nullptr;
std::uint8_t* compressed = nullptr;
std::size_t compressed_capacity = 0;

}  // namespace

// SIGXFSZ is blocked and taken back, so that the write fails with EFBIG.
bool write_all(const iovec* parts, int count) noexcept {
  sigset_t file_size, previous;
  sigemptyset(&file_size);
  sigaddset(&file_size, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &file_size, &previous);
  iovec v[2];
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

void write_chunk(std::uint32_t thread, std::uint32_t sequence, fmt::chunk_kind kind,
                 const std::uint8_t* raw, std::size_t raw_bytes) noexcept {
  if (trace_fd < 0) return;
  fmt::chunk_header h{};
  h.magic = fmt::chunk_magic;
  h.thread = thread;
  h.sequence = sequence;
  h.raw_bytes = static_cast<std::uint32_t>(raw_bytes);
  h.kind = static_cast<std::uint8_t>(kind);
  const std::uint8_t* stored = raw;
  std::size_t stored_bytes = raw_bytes;
  h.codec = static_cast<std::uint8_t>(fmt::codec::raw);
  if (zstd_level > 0) {
    if (zstd_context == nullptr) zstd_context = ZSTD_createCCtx();
    if (compressed == nullptr) {
      compressed_capacity = ZSTD_compressBound(fmt::max_chunk_raw_bytes);
      compressed = static_cast<std::uint8_t*>(map_memory(compressed_capacity));
    }
    if (zstd_context != nullptr && compressed != nullptr) {
      const std::size_t n = ZSTD_compressCCtx(zstd_context, compressed, compressed_capacity, raw,
                                              raw_bytes, zstd_level);
      if (!ZSTD_isError(n) && n < raw_bytes) {
        stored = compressed;
        stored_bytes = n;
        h.codec = static_cast<std::uint8_t>(fmt::codec::zstd);
      }
    }
  }
  h.stored_bytes = static_cast<std::uint32_t>(stored_bytes);
  h.checksum = fmt::checksum(stored, stored_bytes);
  const iovec parts[2] = {{&h, sizeof h}, {const_cast<std::uint8_t*>(stored), stored_bytes}};
  if (!write_all(parts, 2)) {
    report("write-failed", errno);
    close(trace_fd);  // a half-written chunk ends the trace; the reader reports it
    trace_fd = -1;
  }
}

void restart_writer_in_child() noexcept {
  if (pthread_mutex_trylock(&write_lock) == 0) {
    pthread_mutex_unlock(&write_lock);
    return;
  }
  zstd_context = nullptr;
  compressed = nullptr;
  const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  std::memcpy(&write_lock, &fresh, sizeof fresh);
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
