// What `alloclab record` checks before the program runs: the program as execvp would find it
// (and whether LD_PRELOAD can reach it), the interposer beside this binary, and where the trace
// may be written (symlinks followed; only a regular file, or nothing, is replaced, never the
// program itself).
//
// Example:
//   const auto program = alloclab::trace::find_program("true");
//   if (program && !alloclab::trace::statically_linked(*program)) {
//     auto target = alloclab::trace::prepare_output("/tmp/example.trace", *program);
//     if (auto* out = std::get_if<alloclab::trace::output_target>(&target))
//       std::filesystem::remove(out->partial);
//   }
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <variant>

namespace alloclab::trace {

inline constexpr const char* interposer_name = "liballoclab_record.so";

/// PROGRAM as execvp would find it; nullopt when it does not exist or is not executable.
std::optional<std::filesystem::path> find_program(const std::string& name);

/// An ELF executable with no PT_INTERP has no dynamic loader, so LD_PRELOAD cannot apply.
/// Scripts and other non-ELF files are not judged here (their interpreter is).
bool statically_linked(const std::filesystem::path& program);

/// Where the lab's own libraries install, relative to the directory of the `alloclab` binary.
inline constexpr const char* installed_library_dir = "../lib/alloclab";

/// The lab's library `name` beside this binary (the build tree) or in installed_library_dir
/// (`cmake --install`); nullopt when in neither.
std::optional<std::filesystem::path> find_lab_library(const std::string& name);

/// The interposer (find_lab_library), or $ALLOCLAB_RECORD_LIBRARY.
std::optional<std::filesystem::path> find_interposer();

/// Where `record -o` writes: the path with symlinks followed to their target.
struct output_target {
  std::filesystem::path path;     ///< the final target (symlinks followed)
  std::filesystem::path partial;  ///< the temporary file beside it that the recorder writes
};

/// The checked target and its temporary file (created empty, 0644 under the umask), or the
/// one-line reason why not.
std::variant<output_target, std::string> prepare_output(const std::string& requested,
                                                        const std::filesystem::path& program);

}  // namespace alloclab::trace
