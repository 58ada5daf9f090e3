#include "encoder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "chunk_writer.hpp"

namespace alloclab::record {

void flush(thread_state& st) noexcept {
  const std::size_t bytes = static_cast<std::size_t>(st.cursor - st.buffer);
  if (bytes == 0) return;
  {
    const inside_recorder unrecorded;  // zstd allocates
    write_chunk(st.index, st.sequence++, st.buffer, bytes);
  }
  st.cursor = st.buffer;
}

void after_publish(thread_state& st) noexcept {
  tick(st);
  if (st.cursor >= st.limit) flush(st);
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

void tick(thread_state& st) noexcept {
  st.clock_countdown = clock_every_events;
  st.ticks += clock_every_events;
  if (!timestamps) return;
  const std::uint64_t now = elapsed_us(CLOCK_MONOTONIC_COARSE);
  if (now < st.last_us + timestamp_every_us) return;
  std::uint8_t* out = put(put_op(st.cursor, fmt::op::timestamp), now - st.last_us);
  st.last_us = now;
  std::uint64_t last = last_rss_us.load(std::memory_order_relaxed);
  if (now >= last + rss_every_us && last_rss_us.compare_exchange_strong(last, now))
    out = put(put_op(out, fmt::op::rss), read_rss_kib());
  std::atomic_signal_fence(std::memory_order_release);
  st.cursor = out;
}

void record_failed(thread_state& st, std::uint64_t kind, size_t size) noexcept {
  commit(st, put(put(put_op(st.cursor, fmt::op::failed), kind), size));
}

void record_new(thread_state& st, fmt::op kind, void* p, size_t size, size_t alignment) noexcept {
  if (p == nullptr) return record_failed(st, static_cast<std::uint64_t>(kind), size);
  st.blocks.insert(reinterpret_cast<std::uintptr_t>(p), next_block(st));
  std::uint8_t* out = put_op(st.cursor, kind);
  if (kind == fmt::op::memalign || kind == fmt::op::posix_memalign ||
      kind == fmt::op::aligned_alloc)
    out = put(out, alignment == 0 ? 0 : static_cast<std::uint64_t>(__builtin_ctzll(alignment)));
  commit(st, put_size(st, out, size));
}

std::uint8_t* put_ref(const thread_state& st, std::uint8_t* out, void* p,
                      block_ref block) noexcept {
  if (p == nullptr) return put(out, fmt::ref_null);
  if (block.owner == nullptr) return put(out, fmt::ref_unknown);
  if (block.owner == &st) return put(out, (age_of(st, block.entry) << 2) | 2);
  return put(put(out, (static_cast<std::uint64_t>(block.owner->index) << 2) | 3), block.entry - 1);
}

std::uint8_t* put_other_free(thread_state& st, std::uint8_t* out, block_ref block) noexcept {
  if (block.owner == nullptr) {
    unknown_frees.fetch_add(1, std::memory_order_relaxed);
    return put_op(out, fmt::op::free_unknown);
  }
  const std::uint32_t owner = block.owner->index;
  const std::uint64_t id = block.entry - 1;
  out = put(put_op(out, fmt::op::free_cross), owner);
  return put(out, fmt::zigzag(id, st.cross_ids.exchange(owner, id)));
}

void end_thread(thread_state& st) noexcept {
  const std::uint64_t now = elapsed_us(CLOCK_MONOTONIC);
  std::uint8_t* out =
      put(put_op(st.cursor, fmt::op::thread_end), now > st.last_us ? now - st.last_us : 0);
  std::atomic_signal_fence(std::memory_order_release);
  st.cursor = out;
  st.last_us = now;
  st.ended = true;
  flush(st);
}

}  // namespace alloclab::record
