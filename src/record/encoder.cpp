#include "encoder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "chunk_writer.hpp"

namespace alloclab::record {

void flush(thread_state& st) noexcept {
  const std::size_t bytes = static_cast<std::size_t>(st.cursor - st.buffer);
  if (bytes == 0) return;
  const bool was_inside = inside;
  inside = true;
  pthread_mutex_lock(&write_lock);
  write_chunk(st.index, st.sequence++, fmt::chunk_kind::events, st.buffer, bytes);
  pthread_mutex_unlock(&write_lock);
  inside = was_inside;
  st.cursor = st.committed = st.buffer;
}
namespace {

std::uint64_t read_rss_kib() noexcept {
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* p = text;
  while (*p != ' ' && *p != '\0') ++p;  // skip the size field; the second is resident pages
  std::uint64_t pages = 0;
  for (++p; *p >= '0' && *p <= '9'; ++p) pages = pages * 10 + static_cast<std::uint64_t>(*p - '0');
  return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

}  // namespace

// Every `clock_every_events` events: a timestamp when a millisecond passed, an RSS sample when
// 100 ms passed since any thread's last one.
void take_timestamp(thread_state& st) noexcept {
  st.clock_countdown = clock_every_events;
  if (!timestamps) return;
  const std::uint64_t now = elapsed_us(CLOCK_MONOTONIC_COARSE);
  if (now < st.last_us + timestamp_every_us) return;
  put_op(st, fmt::op::timestamp);
  put(st, now - st.last_us);
  st.last_us = now;
  std::uint64_t last = last_rss_us.load(std::memory_order_relaxed);
  if (now >= last + rss_every_us && last_rss_us.compare_exchange_strong(last, now)) {
    put_op(st, fmt::op::rss);
    put(st, read_rss_kib());
  }
}
void record_new(thread_state& st, fmt::op kind, void* p, size_t size, size_t alignment) noexcept {
  if (p == nullptr) {
    put_op(st, fmt::op::failed);
    put(st, static_cast<std::uint64_t>(kind));
    put(st, size);
  } else {
    new_block(st, p);
    put_op(st, kind);
    if (kind == fmt::op::memalign || kind == fmt::op::posix_memalign ||
        kind == fmt::op::aligned_alloc)
      put(st, alignment == 0 ? 0 : static_cast<std::uint64_t>(__builtin_ctzll(alignment)));
    put_size(st, size);
  }
  event_done(st);
}
// A block reference (realloc, malloc_usable_size) of `p` whose table entry is `key` when `known`.
void put_ref(thread_state& st, void* p, bool known, std::uint64_t key) noexcept {
  if (p == nullptr) {
    put(st, fmt::ref_null);
  } else if (!known) {
    put(st, fmt::ref_unknown);
  } else if ((key >> id_bits) == st.index) {
    put(st, ((st.next_id - 1 - (key & id_mask)) << 2) | 2);
  } else {
    put(st, ((key >> id_bits) << 2) | 3);
    put(st, key & id_mask);
  }
}
void end_thread(thread_state& st) noexcept {
  put_op(st, fmt::op::thread_end);
  const std::uint64_t now = elapsed_us(CLOCK_MONOTONIC);
  put(st, now > st.last_us ? now - st.last_us : 0);
  st.last_us = now;
  st.ended = true;
  flush(st);
}

}  // namespace alloclab::record
