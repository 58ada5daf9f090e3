#include "trace/record_target.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace alloclab::trace {

namespace fs = std::filesystem;

namespace {

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a fifo";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// `path` with every symlink (of the last component) followed; nullopt on a loop.
std::optional<fs::path> follow_symlinks(fs::path path) {
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) return std::nullopt;
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return std::nullopt;
}

}  // namespace

std::optional<fs::path> find_program(const std::string& name) {
  const auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (usable(name)) return fs::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate =
        fs::path(end == start ? "." : dirs.substr(start, end - start)) / name;
    if (usable(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

bool statically_linked(const fs::path& program) {
  const int fd = ::open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Ehdr eh{};
  bool is_static = false;
  if (::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_phentsize == sizeof(Elf64_Phdr)) {
    is_static = true;
    for (Elf64_Half i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph{};
      const auto offset = static_cast<off_t>(eh.e_phoff + i * sizeof ph);
      if (::pread(fd, &ph, sizeof ph, offset) != static_cast<ssize_t>(sizeof ph)) break;
      if (ph.p_type == PT_INTERP) is_static = false;
    }
  }
  ::close(fd);
  return is_static;
}

std::optional<fs::path> find_lab_library(const std::string& name) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const fs::path& candidate :
       {self.parent_path() / name, self.parent_path() / installed_library_dir / name}) {
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal();
  }
  return std::nullopt;
}

std::optional<fs::path> find_interposer() {
  if (const char* forced = std::getenv("ALLOCLAB_RECORD_LIBRARY"); forced != nullptr)
    return fs::path(forced);
  return find_lab_library(interposer_name);
}

std::variant<output_target, std::string> prepare_output(const std::string& requested,
                                                        const fs::path& program) {
  std::error_code ec;
  const std::optional<fs::path> target = follow_symlinks(fs::absolute(requested, ec));
  if (!target) return "cannot write '" + requested + "': too many levels of symbolic links";
  struct stat st {};
  if (::stat(target->c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return "refusing to write the trace to '" + requested + "': " + file_kind(st.st_mode) +
             ", not a regular file";
    struct stat program_st {};
    if (::stat(program.c_str(), &program_st) == 0 && program_st.st_dev == st.st_dev &&
        program_st.st_ino == st.st_ino)
      return "refusing to write the trace to '" + requested + "': it is the program to record";
  }
  std::string partial = target->string() + ".tmp.XXXXXX";
  const int fd = ::mkstemp(partial.data());
  if (fd < 0) return "cannot write '" + requested + "': " + std::strerror(errno);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0644 & ~mask);
  ::close(fd);
  return output_target{*target, partial};
}

}  // namespace alloclab::trace
