// Reading an alloclab trace (docs/trace-format.md): the header, an index of its chunks, the
// footer, and the events of one chunk or of the whole trace, decoded. Memory stays bounded by one
// chunk plus the index; a trace of any length can be read.
//
// Every defect (not a trace, a newer format version, a bad checksum, a chunk cut short, an event
// that runs past its chunk, a missing chunk of a thread) throws trace_error with one line.
// A trace without footer (the program was killed or crashed) is readable: truncated() says so.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "trace/format.hpp"

namespace alloclab::trace {

class trace_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class event_kind : std::uint8_t {
  malloc,
  calloc,
  realloc,
  memalign,
  posix_memalign,
  aligned_alloc,
  valloc,
  pvalloc,
  free,
  usable_size,
  failed,
  thread_start,
  thread_end,
  timestamp,
  rss,
};
inline constexpr std::size_t event_kind_count = static_cast<std::size_t>(event_kind::rss) + 1;
std::string_view to_string(event_kind k) noexcept;
/// malloc, calloc, realloc, the memalign family: the kinds that create a block.
bool creates_block(event_kind k) noexcept;

/// A block: its allocating thread and that thread's dense id, packed (thread << 44 | id).
using block_key = std::uint64_t;
inline constexpr block_key no_block = ~block_key{0};
inline constexpr unsigned block_id_bits = 44;
inline std::uint32_t block_thread(block_key b) noexcept {
  return static_cast<std::uint32_t>(b >> block_id_bits);
}
inline std::uint64_t block_index(block_key b) noexcept {
  return b & ((block_key{1} << block_id_bits) - 1);
}
inline block_key make_block(std::uint32_t thread, std::uint64_t id) noexcept {
  return (static_cast<block_key>(thread) << block_id_bits) | id;
}

struct event {
  event_kind kind = event_kind::malloc;
  std::uint32_t thread = 0;
  /// The new block (creating kinds), the freed block (free), the queried one (usable_size).
  block_key block = no_block;
  /// realloc: the block it replaced (no_block for a null or unknown pointer).
  block_key old_block = no_block;
  /// free / realloc / usable_size of a pointer the recorder never saw allocated.
  bool unknown_pointer = false;
  /// Requested bytes (creating kinds, failed); RSS bytes (rss); OS thread id (thread_start).
  std::uint64_t value = 0;
  std::uint32_t alignment = 0;  ///< the memalign family
  event_kind failed_kind = event_kind::malloc;
  /// Microseconds since recording started, as of this thread's latest time event.
  std::uint64_t time_us = 0;
};

/// What a rerun of a recorded image needs beside its command (trace format version 4 on).
struct recorded_context {
  std::string working_directory;  ///< "" when it could not be read
  std::string stdin_path;         ///< "" unless stdin was a regular file
  std::vector<std::pair<std::string, std::string>> environment;  ///< the recorded subset
};

struct trace_header {
  std::uint32_t version = 0;
  bool timestamps = false;
  std::uint64_t start_realtime_ns = 0;
  std::uint32_t pid = 0;
  /// How the process image started and its parent process (version 3 on; nullopt before).
  std::optional<trace_format::image_origin> origin;
  std::uint32_t parent_pid = 0;
  std::vector<std::string> command;
  /// Version 4 on: where and how the image ran (nullopt before: not recorded).
  std::optional<recorded_context> context;
};

/// Written at a clean exit; absent when the program was killed or crashed.
struct trace_footer {
  std::uint64_t events = 0;
  std::uint64_t threads = 0;
  std::uint64_t threads_alive_at_exit = 0;  ///< still running at exit, flushed then
  std::uint64_t threads_unflushed = 0;      ///< inside a call at exit: their last chunk is lost
  std::uint64_t unknown_frees = 0;
  std::uint64_t end_us = 0;
  std::uint64_t bootstrap_allocations = 0;  ///< served before dlsym was ready, not recorded
};

struct chunk_ref {
  std::uint64_t offset = 0;  ///< of the chunk header
  trace_format::chunk_header header{};
};

class payload_cursor;

/// Turns one thread's chunk payloads, in sequence, into events.
class thread_decoder {
 public:
  thread_decoder(std::uint32_t thread, std::uint32_t version)
      : thread_(thread), cross_deltas_(version >= trace_format::first_version_with_cross_deltas) {}
  /// Appends the events of `raw` to `out`. Throws trace_error (the message names no chunk).
  void decode(const std::uint8_t* raw, std::size_t bytes, std::vector<event>& out);

 private:
  block_key own_block(std::uint64_t age) const;
  void new_block(event& e, std::uint64_t size_delta);
  block_key other_block(std::uint64_t thread, std::uint64_t id) const;
  /// A block reference: null, unknown, this thread's (by age) or another's (thread, id).
  void reference(payload_cursor& in, event& e, block_key& target) const;
  void cross_thread_free(payload_cursor& in, event& e);
  /// The event of an opcode other than the short malloc and free.
  void operation(payload_cursor& in, event& e, trace_format::op o);

  std::uint32_t thread_;
  bool cross_deltas_;
  trace_format::cross_free_ids cross_ids_;
  std::uint64_t next_id_ = 0;
  std::uint64_t previous_size_ = 0;
  std::uint64_t time_us_ = 0;
};

class trace_file {
 public:
  /// Reads the header and indexes every chunk. Throws trace_error.
  explicit trace_file(const std::string& path);

  const std::string& path() const noexcept { return path_; }
  const trace_header& header() const noexcept { return header_; }
  const std::optional<trace_footer>& footer() const noexcept { return footer_; }
  bool truncated() const noexcept { return !footer_.has_value(); }
  std::uint64_t file_bytes() const noexcept { return file_bytes_; }
  /// Event chunks in file order (the footer is not one of them).
  const std::vector<chunk_ref>& chunks() const noexcept { return chunks_; }
  /// Thread indices seen, ascending.
  const std::vector<std::uint32_t>& threads() const noexcept { return threads_; }

  /// The verified, decompressed payload of `c`, read through `in` (a stream of this file).
  std::vector<std::uint8_t> payload(std::ifstream& in, const chunk_ref& c) const;
  /// Every event in file order (threads interleaved chunk by chunk).
  void for_each_event(const std::function<void(const event&)>& visit) const;
  /// The events of one thread, in order, a chunk at a time.
  void for_each_chunk_of(std::uint32_t thread,
                         const std::function<void(const std::vector<event>&)>& visit) const;

 private:
  void read_header(std::ifstream& in);
  void index_chunks(std::ifstream& in);
  std::string where(const chunk_ref& c) const;

  std::string path_;
  trace_header header_;
  std::optional<trace_footer> footer_;
  std::uint64_t file_bytes_ = 0;
  std::vector<chunk_ref> chunks_;
  std::vector<std::uint32_t> threads_;
};

/// The traces of the other process images recorded with `trace` (record --follow-exec): the
/// existing files TRACE.1, TRACE.2... up to the first missing number.
std::vector<std::string> image_traces(const std::string& trace);

}  // namespace alloclab::trace
