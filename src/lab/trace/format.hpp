// The alloclab trace format, version 4 (docs/trace-format.md): the file and chunk headers and the
// event codec. Shared by the recorder (src/record, which must not allocate) and the reader, so
// this header uses nothing that allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace alloclab::trace_format {

inline constexpr char file_magic[8] = {'A', 'L', 'C', 'T', 'R', 'A', 'C', 'E'};
inline constexpr std::uint32_t current_version = 4;
/// From this version on, a cross-thread free's id is a delta (cross_free_ids below).
inline constexpr std::uint32_t first_version_with_cross_deltas = 2;
/// From this version on, the file header says how the process image started (file_header).
inline constexpr std::uint32_t first_version_with_origin = 3;
/// From this version on, the command line is followed by the image's context (context_bytes).
inline constexpr std::uint32_t first_version_with_context = 4;
/// The context block's limit: NUL-terminated entries "cwd=PATH", "stdin=PATH", "env=NAME=VALUE".
inline constexpr std::uint32_t max_context_bytes = 16384;
inline constexpr std::uint32_t chunk_magic = 0x4b434c41;  // "ALCK" little-endian
/// Raw (uncompressed) event bytes per chunk; a thread flushes its buffer when it is this full.
inline constexpr std::uint32_t chunk_capacity = 64 * 1024;
/// The longest encoding of one event (an opcode and three 64-bit varints).
inline constexpr std::uint32_t max_event_bytes = 40;
/// The recorder checks its buffer against the capacity every this many events (version 3 on;
/// before, after every event).
inline constexpr std::uint32_t events_per_fullness_check = 64;
/// A chunk may overrun the capacity by the events of one check and a timestamp and RSS sample.
inline constexpr std::uint32_t max_chunk_raw_bytes =
    chunk_capacity + (events_per_fullness_check + 2) * max_event_bytes;

inline constexpr std::uint32_t flag_timestamps =
    1;  ///< file_header::flags: timestamp events present

/// How a traced process image started (file_header::origin, version 3 on).
enum class image_origin : std::uint8_t {
  started = 0,  ///< the program `alloclab record` ran
  exec = 1,     ///< an image exec'd by a recorded process or a descendant (--follow-exec)
  fork = 2,     ///< a process forked by a recorded one, without exec (--follow-fork)
};
inline constexpr std::uint8_t last_image_origin = 2;

/// At offset 0, little-endian; the NUL-separated command line (command_bytes) follows, then
/// (version 4 on) the context block (context_bytes).
struct file_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t flags;
  std::uint64_t start_realtime_ns;   ///< CLOCK_REALTIME when recording started
  std::uint64_t start_monotonic_ns;  ///< CLOCK_MONOTONIC at the same moment
  std::uint32_t pid;
  std::uint32_t command_bytes;
  std::uint32_t parent_pid;  ///< version 3 on: the parent process (0 in older versions)
  std::uint8_t origin;       ///< version 3 on: image_origin (0 in older versions)
  std::uint8_t reserved0[3];
  std::uint32_t context_bytes;  ///< version 4 on: bytes of the context block (0 before)
  std::uint8_t reserved[12];
};
static_assert(sizeof(file_header) == 64);

enum class codec : std::uint8_t { raw = 0, zstd = 1 };
enum class chunk_kind : std::uint8_t { events = 0, footer = 1 };

/// Precedes every chunk's stored payload.
struct chunk_header {
  std::uint32_t magic;
  std::uint32_t thread;        ///< thread index (dense, in order of first allocation)
  std::uint32_t sequence;      ///< per-thread chunk number, from 0
  std::uint32_t raw_bytes;     ///< payload bytes after decompression
  std::uint32_t stored_bytes;  ///< payload bytes in the file
  std::uint32_t checksum;      ///< checksum() of the stored payload
  std::uint8_t kind;           ///< chunk_kind
  std::uint8_t codec;          ///< codec
  std::uint16_t reserved16;
  std::uint32_t reserved32;
};
static_assert(sizeof(chunk_header) == 32);

/// Extended events: the first varint is (opcode << 2) | 3, operands follow as varints.
/// Plain malloc is (zigzag(size - previous size) << 2) | 1; a free of a block this thread
/// allocated is (age << 1), age = (next id - 1) - id.
enum class op : std::uint8_t {
  calloc = 0,          ///< zigzag size delta (size = count * element size)
  realloc = 1,         ///< block ref of the old block, zigzag size delta
  memalign = 2,        ///< log2 alignment, zigzag size delta
  posix_memalign = 3,  ///< same
  aligned_alloc = 4,   ///< same
  valloc = 5,          ///< zigzag size delta
  pvalloc = 6,         ///< zigzag size delta
  free_cross = 7,      ///< allocating thread, zigzag id delta (v1: id): another thread's block
  free_unknown = 8,    ///< a free of a pointer the recorder never saw allocated
  usable_size = 9,     ///< block ref
  failed = 10,         ///< kind (op or 255 for malloc), size: an allocation returned null
  thread_start = 11,   ///< OS thread id, microseconds since the recording started
  thread_end = 12,     ///< microseconds since this thread's previous time
  timestamp = 13,      ///< microseconds since this thread's previous time
  rss = 14,            ///< resident set size in KiB
  last = rss
};
inline constexpr std::uint8_t malloc_kind = 255;  ///< "failed" kind of a plain malloc

/// Block references (realloc, usable_size): 0 null, 1 unknown pointer, (age << 2) | 2 this
/// thread's block, (thread << 2) | 3 followed by the id: another thread's block.
inline constexpr std::uint64_t ref_null = 0;
inline constexpr std::uint64_t ref_unknown = 1;

inline std::uint8_t* put_varint(std::uint8_t* out, std::uint64_t v) noexcept {
  while (v >= 0x80) {
    *out++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<std::uint8_t>(v);
  return out;
}

/// Decodes one varint; false when it runs past `end` or is longer than 10 bytes.
inline bool get_varint(const std::uint8_t*& in, const std::uint8_t* end,
                       std::uint64_t& v) noexcept {
  v = 0;
  for (unsigned shift = 0; shift < 70 && in != end; shift += 7) {
    const std::uint8_t byte = *in++;
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

inline std::uint64_t zigzag(std::uint64_t value, std::uint64_t previous) noexcept {
  const auto d = static_cast<std::int64_t>(value - previous);
  return (static_cast<std::uint64_t>(d) << 1) ^ static_cast<std::uint64_t>(d >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z, std::uint64_t previous) noexcept {
  return previous + ((z >> 1) ^ (~(z & 1) + 1));
}

/// Version 2: a free_cross event codes its id as zigzag(id - base), base = the id of the previous
/// free_cross this thread wrote for the same allocating thread, remembered in a direct-mapped
/// table of `slots` (slot = allocating thread mod slots); an empty slot or one holding another
/// thread gives base 0. Writer and reader keep one each per thread, updated by every free_cross.
class cross_free_ids {
 public:
  static constexpr std::uint32_t slots = 64;
  /// The base for `owner`'s next id, which becomes `id`.
  std::uint64_t exchange(std::uint32_t owner, std::uint64_t id) noexcept {
    entry& e = entries_[owner % slots];
    const std::uint64_t base = e.owner_plus_one == owner + std::uint64_t{1} ? e.id : 0;
    e = {owner + std::uint64_t{1}, id};
    return base;
  }
  /// The id whose delta from this owner's base is `zigzagged` (a reader's side of exchange).
  std::uint64_t decode(std::uint32_t owner, std::uint64_t zigzagged) noexcept {
    entry& e = entries_[owner % slots];
    const std::uint64_t base = e.owner_plus_one == owner + std::uint64_t{1} ? e.id : 0;
    e = {owner + std::uint64_t{1}, unzigzag(zigzagged, base)};
    return e.id;
  }

 private:
  struct entry {
    std::uint64_t owner_plus_one;  ///< 0: empty
    std::uint64_t id;
  };
  entry entries_[slots] = {};
};

/// The chunk checksum: a multiply-xorshift hash over 8-byte words, then the tail bytes.
inline std::uint32_t checksum(const std::uint8_t* data, std::size_t n) noexcept {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, data + i, sizeof word);
    h = (h ^ word) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < n; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

}  // namespace alloclab::trace_format
