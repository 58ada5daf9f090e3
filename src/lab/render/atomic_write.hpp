// Crash-safe file output: a killed run never leaves a half-written results file.
#pragma once

#include <filesystem>
#include <string_view>

namespace alloclab::lab {

// Writes `content` to a temporary file beside `path`, flushes it to disk, then renames it
// over `path`. Throws std::system_error on failure; the temporary is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Points the symlink `link` at `target` (relative), replacing any previous link atomically.
void replace_symlink_atomically(const std::filesystem::path& link,
                                const std::filesystem::path& target);

// Creates `directory` if needed and proves a file can be created in it; throws otherwise.
void ensure_writable_directory(const std::filesystem::path& directory);

}  // namespace alloclab::lab
