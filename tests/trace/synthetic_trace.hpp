// Synthetic traces for the replay tests: events written per thread in the trace format
// (docs/trace-format.md), split into chunks, to a temporary file that is removed afterwards.
//
// Example:
//   synthetic_trace w("example");
//   w.thread(0).malloc(32);
//   w.thread(0).free_youngest();
//   const alloclab::trace::trace_file& t = w.finish();
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "trace/format.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::trace {

class synthetic_trace {
 public:
  /// One thread's events, encoded as the recorder encodes them.
  class writer {
   public:
    void malloc(std::uint64_t size) {
      begin((trace_format::zigzag(size, previous_size_) << 2) | 1);
      previous_size_ = size;
      ++next_id_;
    }
    /// Frees this thread's block allocated `age` allocations before the latest one.
    void free_age(std::uint64_t age) { begin(age << 1); }
    void free_youngest() { free_age(0); }
    /// Frees block `id` of thread `owner` (another thread).
    void free_of(std::uint32_t owner, std::uint64_t id) {
      begin((static_cast<std::uint64_t>(trace_format::op::free_cross) << 2) | 3);
      put(owner);
      put(version_ >= trace_format::first_version_with_cross_deltas
              ? trace_format::zigzag(id, cross_ids_.exchange(owner, id))
              : id);
    }
    /// Advances this thread's clock by `us` microseconds.
    void timestamp(std::uint64_t us) {
      begin((static_cast<std::uint64_t>(trace_format::op::timestamp) << 2) | 3);
      put(us);
    }
    const std::vector<std::uint8_t>& bytes() const noexcept { return raw_; }
    const std::vector<std::size_t>& event_starts() const noexcept { return starts_; }

   private:
    friend class synthetic_trace;
    // The opcode of an event: where a chunk may start.
    void begin(std::uint64_t v) {
      starts_.push_back(raw_.size());
      put(v);
    }
    void put(std::uint64_t v) {
      std::uint8_t buffer[16];
      raw_.insert(raw_.end(), buffer, trace_format::put_varint(buffer, v));
    }
    std::vector<std::uint8_t> raw_;
    std::vector<std::size_t> starts_;
    std::uint64_t previous_size_ = 0;
    trace_format::cross_free_ids cross_ids_;
    std::uint32_t version_ = trace_format::current_version;
    std::uint64_t next_id_ = 0;
  };

  /// A trace of format `version` (older versions: as their recorder wrote them).
  explicit synthetic_trace(const std::string& name,
                           std::uint32_t version = trace_format::current_version)
      : version_(version),
        path_(std::filesystem::temp_directory_path() /
              ("alloclab_synthetic_" + name + "_" + std::to_string(::getpid()) + ".trace")) {}
  ~synthetic_trace() {
    file_.reset();
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  synthetic_trace(const synthetic_trace&) = delete;
  synthetic_trace& operator=(const synthetic_trace&) = delete;

  writer& thread(std::uint32_t index) {
    writer& w = threads_[index];
    w.version_ = version_;
    return w;
  }

  /// The header says timestamp events are present (they are the writers' timestamp() calls).
  void timed() { flags_ |= trace_format::flag_timestamps; }

  /// Writes the file (events only, no footer: it reads as truncated) and opens it.
  const trace_file& finish() {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    trace_format::file_header h{};
    std::memcpy(h.magic, trace_format::file_magic, sizeof h.magic);
    h.version = version_;
    h.flags = flags_;
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    for (const auto& [index, w] : threads_) write_chunks(out, index, w);
    out.close();
    file_ = std::make_unique<trace_file>(path_.string());
    return *file_;
  }

 private:
  // Chunks end on event boundaries.
  static void write_chunks(std::ofstream& out, std::uint32_t thread, const writer& w) {
    const std::vector<std::uint8_t>& raw = w.bytes();
    const std::vector<std::size_t>& starts = w.event_starts();
    std::uint32_t sequence = 0;
    std::size_t begin = 0;
    while (begin < raw.size()) {
      const std::size_t limit = begin + trace_format::chunk_capacity;
      std::size_t end = raw.size();
      if (end > limit) end = *std::prev(std::upper_bound(starts.begin(), starts.end(), limit));
      trace_format::chunk_header c{};
      c.magic = trace_format::chunk_magic;
      c.thread = thread;
      c.sequence = sequence++;
      c.raw_bytes = c.stored_bytes = static_cast<std::uint32_t>(end - begin);
      c.checksum = trace_format::checksum(raw.data() + begin, end - begin);
      out.write(reinterpret_cast<const char*>(&c), sizeof c);
      out.write(reinterpret_cast<const char*>(raw.data() + begin),
                static_cast<std::streamsize>(end - begin));
      begin = end;
    }
  }

  std::uint32_t version_;
  std::uint32_t flags_ = 0;
  std::filesystem::path path_;
  std::map<std::uint32_t, writer> threads_;
  std::unique_ptr<trace_file> file_;
};

}  // namespace alloclab::trace
