// The zstd chunk writer: the trace file of this image, its opening (the first image's file, or
// the next free PATH.N for others), and chunks written whole (header + payload, one writev).
// Threads compress their chunks in parallel, each with one of a few zstd contexts (as many as
// CPUs, at most 16); only the write itself takes write_lock.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "trace/format.hpp"

// The recorder's own symbols are hidden: its hot path reaches them PC-relative, without the GOT.
#pragma GCC visibility push(hidden)

namespace alloclab::record {

extern int trace_fd;  ///< -1: nothing (more) to write

/// The most parts one write_all takes (the file header: header, command line, context).
inline constexpr int max_write_parts = 3;
/// writev of every part (at most max_write_parts). A write past `ulimit -f` fails with EFBIG
/// instead of killing the program. False with errno set.
bool write_all(const iovec* parts, int count) noexcept;
/// How many zstd contexts threads share (from the number of CPUs); call before recording.
void size_compressors() noexcept;
/// Compresses (zstd_level > 0) and writes one chunk of events; a failed write is reported and
/// closes the trace. Caller has set `inside` (zstd allocates through the recorder).
void write_chunk(std::uint32_t thread, std::uint32_t sequence, const std::uint8_t* raw,
                 std::size_t raw_bytes) noexcept;
/// Writes the footer chunk (stored raw) and closes the trace: later chunks are dropped.
void write_footer_and_close(const std::uint8_t* raw, std::size_t raw_bytes) noexcept;
/// In a forked child: the locks free again, and the zstd contexts a thread of the parent was
/// using dropped (left as they were: leaked).
void restart_writer_in_child() noexcept;
/// The trace file at `path`, opened for this image; -1 when another image wrote it already.
int open_trace(const char* path) noexcept;
/// "PATH.N" for the first N from 1 that no other image took (O_EXCL decides races); -1 if none.
int open_image_trace(const char* path) noexcept;

}  // namespace alloclab::record

#pragma GCC visibility pop
