#include "trace/trace_reader.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "text/enum_names.hpp"

namespace alloclab::trace {

namespace fmt = alloclab::trace_format;

namespace {

constexpr lab::enum_names<event_kind, event_kind_count> event_kind_names{{
    {event_kind::malloc, "malloc"},
    {event_kind::calloc, "calloc"},
    {event_kind::realloc, "realloc"},
    {event_kind::memalign, "memalign"},
    {event_kind::posix_memalign, "posix_memalign"},
    {event_kind::aligned_alloc, "aligned_alloc"},
    {event_kind::valloc, "valloc"},
    {event_kind::pvalloc, "pvalloc"},
    {event_kind::free, "free"},
    {event_kind::usable_size, "malloc_usable_size"},
    {event_kind::failed, "failed"},
    {event_kind::thread_start, "thread_start"},
    {event_kind::thread_end, "thread_end"},
    {event_kind::timestamp, "timestamp"},
    {event_kind::rss, "rss"},
}};

/// The event kind of a creating opcode (calloc .. pvalloc map one to one).
event_kind kind_of(fmt::op o) noexcept {
  return static_cast<event_kind>(static_cast<int>(event_kind::calloc) + static_cast<int>(o));
}

}  // namespace

// The varints of one chunk's payload, in order.
class payload_cursor {
 public:
  payload_cursor(const std::uint8_t* p, const std::uint8_t* end) : p_(p), end_(end) {}
  bool done() const noexcept { return p_ == end_; }
  std::uint64_t next() {
    std::uint64_t v = 0;
    if (!fmt::get_varint(p_, end_, v)) throw trace_error("an event runs past the end of its chunk");
    return v;
  }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

std::string_view to_string(event_kind k) noexcept {
  return lab::name_in(event_kind_names, k);
}

bool creates_block(event_kind k) noexcept {
  return k == event_kind::malloc || k == event_kind::calloc || k == event_kind::realloc ||
         k == event_kind::memalign || k == event_kind::posix_memalign ||
         k == event_kind::aligned_alloc || k == event_kind::valloc || k == event_kind::pvalloc;
}

// ---- thread_decoder ----

block_key thread_decoder::own_block(std::uint64_t age) const {
  if (age >= next_id_) throw trace_error("a free refers to a block not yet allocated");
  return make_block(thread_, next_id_ - 1 - age);
}

void thread_decoder::new_block(event& e, std::uint64_t size_delta) {
  e.value = previous_size_ = fmt::unzigzag(size_delta, previous_size_);
  e.block = make_block(thread_, next_id_++);
}

block_key thread_decoder::other_block(std::uint64_t thread, std::uint64_t id) const {
  if (thread >= (1u << 20) || thread == thread_ || id >= (block_key{1} << block_id_bits))
    throw trace_error("a cross-thread reference is out of range");
  return make_block(static_cast<std::uint32_t>(thread), id);
}

void thread_decoder::reference(payload_cursor& in, event& e, block_key& target) const {
  const std::uint64_t ref = in.next();
  if (ref == fmt::ref_null) {
    target = no_block;
  } else if (ref == fmt::ref_unknown) {
    e.unknown_pointer = true;
  } else if ((ref & 3) == 2) {
    target = own_block(ref >> 2);
  } else if ((ref & 3) == 3) {
    target = other_block(ref >> 2, in.next());
  } else {
    throw trace_error("a block reference has an invalid tag");
  }
}

void thread_decoder::cross_thread_free(payload_cursor& in, event& e) {
  e.kind = event_kind::free;
  const std::uint64_t owner = in.next();
  if (owner >= (1u << 20)) throw trace_error("a cross-thread reference is out of range");
  const std::uint64_t id = in.next();
  e.block = other_block(
      owner, cross_deltas_ ? cross_ids_.decode(static_cast<std::uint32_t>(owner), id) : id);
}

void thread_decoder::operation(payload_cursor& in, event& e, fmt::op o) {
  switch (o) {
    case fmt::op::calloc:
    case fmt::op::valloc:
    case fmt::op::pvalloc:
      e.kind = kind_of(o);
      new_block(e, in.next());
      break;
    case fmt::op::memalign:
    case fmt::op::posix_memalign:
    case fmt::op::aligned_alloc: {
      e.kind = kind_of(o);
      const std::uint64_t log2 = in.next();
      if (log2 > 40) throw trace_error("an alignment above 2^40");
      e.alignment = static_cast<std::uint32_t>(std::uint64_t{1} << log2);
      new_block(e, in.next());
      break;
    }
    case fmt::op::realloc:
      e.kind = event_kind::realloc;
      reference(in, e, e.old_block);
      new_block(e, in.next());
      break;
    case fmt::op::free_cross:
      cross_thread_free(in, e);
      break;
    case fmt::op::free_unknown:
      e.kind = event_kind::free;
      e.unknown_pointer = true;
      break;
    case fmt::op::usable_size:
      e.kind = event_kind::usable_size;
      reference(in, e, e.block);
      break;
    case fmt::op::failed: {
      e.kind = event_kind::failed;
      const std::uint64_t k = in.next();
      if (k != fmt::malloc_kind && k > static_cast<std::uint64_t>(fmt::op::pvalloc))
        throw trace_error("a failed allocation of an unknown kind");
      e.failed_kind = k == fmt::malloc_kind ? event_kind::malloc : kind_of(static_cast<fmt::op>(k));
      e.value = in.next();
      break;
    }
    case fmt::op::thread_start:
      e.kind = event_kind::thread_start;
      e.value = in.next();
      time_us_ = in.next();
      break;
    case fmt::op::thread_end:
    case fmt::op::timestamp:
      e.kind = o == fmt::op::thread_end ? event_kind::thread_end : event_kind::timestamp;
      time_us_ += in.next();
      break;
    case fmt::op::rss:
      e.kind = event_kind::rss;
      e.value = in.next() * 1024;
      break;
  }
}

void thread_decoder::decode(const std::uint8_t* raw, std::size_t bytes, std::vector<event>& out) {
  payload_cursor in(raw, raw + bytes);
  while (!in.done()) {
    event e;
    e.thread = thread_;
    const std::uint64_t first = in.next();
    if ((first & 1) == 0) {
      e.kind = event_kind::free;
      e.block = own_block(first >> 1);
    } else if ((first & 3) == 1) {
      e.kind = event_kind::malloc;
      new_block(e, first >> 2);
    } else {
      const std::uint64_t code = first >> 2;
      if (code > static_cast<std::uint64_t>(fmt::op::last))
        throw trace_error("unknown event opcode " + std::to_string(code));
      operation(in, e, static_cast<fmt::op>(code));
    }
    e.time_us = time_us_;
    out.push_back(e);
  }
}

// ---- trace_file ----

namespace {

template <class T>
bool read_exactly(std::ifstream& in, T& value) {
  in.read(reinterpret_cast<char*>(&value), sizeof value);
  return in.gcount() == static_cast<std::streamsize>(sizeof value);
}

}  // namespace

trace_file::trace_file(const std::string& path) : path_(path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw trace_error("cannot open '" + path + "': " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  file_bytes_ = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  read_header(in);
  index_chunks(in);
}

namespace {

std::vector<std::string> split_at_nul(const std::string& bytes) {
  std::vector<std::string> parts;
  for (std::size_t start = 0; start < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\0', start), bytes.size());
    parts.push_back(bytes.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// The context block: "cwd=", "stdin=", "env=NAME=VALUE" entries; unknown keys are skipped.
recorded_context read_context(std::ifstream& in, const fmt::file_header& h) {
  if (h.context_bytes > fmt::max_context_bytes)
    throw trace_error("corrupt trace: context block over " +
                      std::to_string(fmt::max_context_bytes) + " bytes");
  std::string bytes(h.context_bytes, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.gcount() != static_cast<std::streamsize>(bytes.size()))
    throw trace_error("truncated trace: the header is cut short");
  recorded_context c;
  for (const std::string& entry : split_at_nul(bytes)) {
    const auto value = [&](const char* key) -> std::optional<std::string> {
      const std::size_t n = std::strlen(key);
      if (entry.compare(0, n, key) != 0) return std::nullopt;
      return entry.substr(n);
    };
    if (auto cwd = value("cwd=")) c.working_directory = *cwd;
    if (auto in_path = value("stdin=")) c.stdin_path = *in_path;
    if (auto env = value("env="); env && env->find('=') != std::string::npos)
      c.environment.emplace_back(env->substr(0, env->find('=')), env->substr(env->find('=') + 1));
  }
  return c;
}

}  // namespace

void trace_file::read_header(std::ifstream& in) {
  fmt::file_header h{};
  if (!read_exactly(in, h) || std::memcmp(h.magic, fmt::file_magic, sizeof h.magic) != 0) {
    throw trace_error("'" + path_ + "' is not an alloclab trace (no ALCTRACE header)");
  }
  if (h.version > fmt::current_version) {
    throw trace_error("'" + path_ + "' has trace format version " + std::to_string(h.version) +
                      ", newer than this alloclab reads (" + std::to_string(fmt::current_version) +
                      "); use a newer alloclab");
  }
  if (h.version == 0) throw trace_error("'" + path_ + "' has trace format version 0 (corrupt)");
  if (h.command_bytes > 4096) throw trace_error("corrupt trace: command line over 4096 bytes");
  header_.version = h.version;
  header_.timestamps = (h.flags & fmt::flag_timestamps) != 0;
  header_.start_realtime_ns = h.start_realtime_ns;
  header_.pid = h.pid;
  if (h.version >= fmt::first_version_with_origin) {
    if (h.origin > fmt::last_image_origin)
      throw trace_error("corrupt trace: unknown image origin " + std::to_string(h.origin));
    header_.origin = static_cast<fmt::image_origin>(h.origin);
    header_.parent_pid = h.parent_pid;
  }
  std::string command(h.command_bytes, '\0');
  in.read(command.data(), static_cast<std::streamsize>(command.size()));
  if (in.gcount() != static_cast<std::streamsize>(command.size()))
    throw trace_error("truncated trace: the header is cut short");
  header_.command = split_at_nul(command);
  if (h.version >= fmt::first_version_with_context) header_.context = read_context(in, h);
}

std::string trace_file::where(const chunk_ref& c) const {
  return "chunk at offset " + std::to_string(c.offset) + " (thread " +
         std::to_string(c.header.thread) + ")";
}

void trace_file::index_chunks(std::ifstream& in) {
  std::map<std::uint32_t, std::uint32_t> next_sequence;
  const std::size_t max_stored = ZSTD_compressBound(fmt::max_chunk_raw_bytes);
  for (;;) {
    chunk_ref c;
    c.offset = static_cast<std::uint64_t>(in.tellg());
    if (c.offset == file_bytes_) break;
    if (footer_) throw trace_error("corrupt trace: data after the footer");
    if (!read_exactly(in, c.header)) {
      throw trace_error("truncated trace: the chunk header at offset " + std::to_string(c.offset) +
                        " is cut short");
    }
    const auto& h = c.header;
    if (h.magic != fmt::chunk_magic)
      throw trace_error("corrupt trace: no chunk marker at offset " + std::to_string(c.offset));
    if (h.kind > static_cast<std::uint8_t>(fmt::chunk_kind::footer) ||
        h.codec > static_cast<std::uint8_t>(fmt::codec::zstd) ||
        h.raw_bytes > fmt::max_chunk_raw_bytes || h.stored_bytes > max_stored ||
        (h.codec == static_cast<std::uint8_t>(fmt::codec::raw) && h.stored_bytes != h.raw_bytes) ||
        h.thread >= (1u << 20)) {
      throw trace_error("corrupt trace: invalid header of the " + where(c));
    }
    if (c.offset + sizeof h + h.stored_bytes > file_bytes_) {
      throw trace_error("truncated trace: the " + where(c) + " is cut short (" +
                        std::to_string(file_bytes_ - c.offset - sizeof h) + " of " +
                        std::to_string(h.stored_bytes) + " bytes)");
    }
    if (h.kind == static_cast<std::uint8_t>(fmt::chunk_kind::footer)) {
      const std::vector<std::uint8_t> raw = payload(in, c);
      payload_cursor p(raw.data(), raw.data() + raw.size());
      trace_footer f;
      try {
        for (std::uint64_t* field :
             {&f.events, &f.threads, &f.threads_alive_at_exit, &f.threads_unflushed,
              &f.unknown_frees, &f.end_us, &f.bootstrap_allocations})
          *field = p.next();
      } catch (const trace_error&) {
        throw trace_error("corrupt trace: the footer is too short");
      }
      footer_ = f;
      continue;
    }
    std::uint32_t& expected = next_sequence[h.thread];
    if (h.sequence != expected) {
      throw trace_error("corrupt trace: thread " + std::to_string(h.thread) + " chunk " +
                        std::to_string(h.sequence) + " where chunk " + std::to_string(expected) +
                        " was expected (a chunk is missing)");
    }
    ++expected;
    chunks_.push_back(c);
    in.seekg(static_cast<std::streamoff>(c.offset + sizeof h + h.stored_bytes));
  }
  for (const auto& [thread, count] : next_sequence) threads_.push_back(thread);
}

std::vector<std::uint8_t> trace_file::payload(std::ifstream& in, const chunk_ref& c) const {
  const auto& h = c.header;
  std::vector<std::uint8_t> stored(h.stored_bytes);
  in.seekg(static_cast<std::streamoff>(c.offset + sizeof h));
  in.read(reinterpret_cast<char*>(stored.data()), static_cast<std::streamsize>(stored.size()));
  if (in.gcount() != static_cast<std::streamsize>(stored.size()))
    throw trace_error("truncated trace: the " + where(c) + " is cut short");
  if (fmt::checksum(stored.data(), stored.size()) != h.checksum)
    throw trace_error("corrupt trace: checksum mismatch in the " + where(c));
  if (h.codec == static_cast<std::uint8_t>(fmt::codec::raw)) return stored;
  std::vector<std::uint8_t> raw(h.raw_bytes);
  const std::size_t n = ZSTD_decompress(raw.data(), raw.size(), stored.data(), stored.size());
  if (ZSTD_isError(n) || n != h.raw_bytes)
    throw trace_error("corrupt trace: the " + where(c) + " does not decompress");
  return raw;
}

void trace_file::for_each_event(const std::function<void(const event&)>& visit) const {
  std::ifstream in(path_, std::ios::binary);
  std::map<std::uint32_t, thread_decoder> decoders;
  std::vector<event> events;
  for (const chunk_ref& c : chunks_) {
    const std::vector<std::uint8_t> raw = payload(in, c);
    events.clear();
    auto& decoder =
        decoders.try_emplace(c.header.thread, c.header.thread, header_.version).first->second;
    try {
      decoder.decode(raw.data(), raw.size(), events);
    } catch (const trace_error& e) {
      throw trace_error("corrupt trace: " + std::string(e.what()) + " in the " + where(c));
    }
    for (const event& e : events) visit(e);
  }
}

void trace_file::for_each_chunk_of(
    std::uint32_t thread, const std::function<void(const std::vector<event>&)>& visit) const {
  std::ifstream in(path_, std::ios::binary);
  thread_decoder decoder(thread, header_.version);
  std::vector<event> events;
  for (const chunk_ref& c : chunks_) {
    if (c.header.thread != thread) continue;
    const std::vector<std::uint8_t> raw = payload(in, c);
    events.clear();
    try {
      decoder.decode(raw.data(), raw.size(), events);
    } catch (const trace_error& e) {
      throw trace_error("corrupt trace: " + std::string(e.what()) + " in the " + where(c));
    }
    visit(events);
  }
}

std::vector<std::string> image_traces(const std::string& trace) {
  std::vector<std::string> images;
  std::error_code ec;
  for (std::size_t n = 1;; ++n) {
    std::string image = trace + "." + std::to_string(n);
    if (!std::filesystem::is_regular_file(image, ec)) return images;
    images.push_back(std::move(image));
  }
}

}  // namespace alloclab::trace
