// The zstd chunk writer: the trace file of this image, its opening (the first image's file, or
// the next free PATH.N for others), and chunks written whole (header + payload, one writev).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "trace/format.hpp"

namespace alloclab::record {

extern int trace_fd;  ///< -1: nothing (more) to write

/// writev of every part (at most 2). A write past `ulimit -f` fails with EFBIG instead of killing
/// the program. False with errno set.
bool write_all(const iovec* parts, int count) noexcept;
/// Compresses (zstd_level > 0) and writes one chunk; a failed write is reported and closes the
/// trace. Caller holds write_lock and has set `inside` (zstd allocates through the recorder).
void write_chunk(std::uint32_t thread, std::uint32_t sequence, trace_format::chunk_kind kind,
                 const std::uint8_t* raw, std::size_t raw_bytes) noexcept;
/// In a forked child: the write lock free again, and the zstd context dropped if a thread of the
/// parent was using it (left as it was: leaked).
void restart_writer_in_child() noexcept;
/// The trace file at `path`, opened for this image; -1 when another image wrote it already.
int open_trace(const char* path) noexcept;
/// "PATH.N" for the first N from 1 that no other image took (O_EXCL decides races); -1 if none.
int open_image_trace(const char* path) noexcept;

}  // namespace alloclab::record
