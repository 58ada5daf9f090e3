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

/// The interposer next to this binary (the build and install layouts both put it there), or
/// $ALLOCLAB_RECORD_LIBRARY.
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
