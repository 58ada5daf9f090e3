// Crash-safe file output: a killed run never leaves a half-written results file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace alloclab::lab {

// Where a write to `path` lands: symlinks are followed to their final target, and that target
// must be a regular file or not exist yet, in an existing writable directory. Anything else (a
// device such as /dev/full, a fifo, a directory, a socket) would be destroyed by the rename that
// makes a write atomic, so it is refused: std::system_error naming the path and the reason.
std::filesystem::path checked_output_file(const std::filesystem::path& path);

// Writes `content` to a temporary file beside checked_output_file(path), flushes it to disk,
// then renames it over that file. Throws std::system_error on failure; the temporary is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Points the symlink `link` at `target` (relative), replacing any previous link atomically.
// Refuses (std::system_error) when something other than a symlink is at `link`.
void replace_symlink_atomically(const std::filesystem::path& link,
                                const std::filesystem::path& target);

// Creates `directory` if needed and proves a file can be created in it; throws otherwise.
void ensure_writable_directory(const std::filesystem::path& directory);

// The time now in UTC, formatted by strftime `pattern`: stamps that name run directories.
std::string utc_now(const char* pattern);

}  // namespace alloclab::lab
