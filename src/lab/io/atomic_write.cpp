#include "io/atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <string>
#include <system_error>

namespace alloclab::lab {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const std::string& what, int error) {
  throw std::system_error(error, std::generic_category(), what);
}

fs::path temporary_beside(const fs::path& path) {
  return path.parent_path() /
         ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()));
}

void write_all(int fd, std::string_view content, const fs::path& path) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("cannot write " + path.string(), errno);
    }
    content.remove_prefix(static_cast<std::size_t>(written));
  }
}

// The final target of a chain of symlinks (at most 40 links, as the kernel allows).
fs::path follow_symlinks(fs::path path) {
  for (int links = 0; links < 40; ++links) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) fail("cannot read the link " + path.string(), ec.value());
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  fail("too many levels of symbolic links at " + path.string(), ELOOP);
}

const char* kind_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::fifo:
      return "a fifo";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

}  // namespace

fs::path checked_output_file(const fs::path& path) {
  if (path.empty()) fail("an empty output path", ENOENT);
  const fs::path target = follow_symlinks(path);
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    fail(path.string() + " is " + kind_of(status.type()) +
             "; only a regular file (or a new one) can be written atomically",
         fs::is_directory(status) ? EISDIR : EINVAL);
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec))
    fail("directory " + parent.string() + " does not exist", ENOENT);
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    fail("cannot create files in " + parent.string(), errno);
  return target;
}

void write_file_atomically(const fs::path& requested, std::string_view content) {
  const fs::path path = checked_output_file(requested);
  const fs::path temporary = temporary_beside(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create " + temporary.string(), errno);
  try {
    write_all(fd, content, temporary);
    if (::fsync(fd) != 0) fail("cannot flush " + temporary.string(), errno);
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("cannot close " + temporary.string(), error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("cannot rename " + temporary.string() + " to " + path.string(), error);
  }
}

void replace_symlink_atomically(const fs::path& link, const fs::path& target) {
  std::error_code ec;
  const fs::file_status existing = fs::symlink_status(link, ec);
  if (fs::exists(existing) && !fs::is_symlink(existing))
    fail(link.string() + " is " +
             (fs::is_regular_file(existing) ? std::string("a regular file")
                                            : std::string(kind_of(existing.type()))) +
             ", not the link alloclab maintains; move it away first",
         EEXIST);
  const fs::path temporary = temporary_beside(link);
  ::unlink(temporary.c_str());
  if (::symlink(target.c_str(), temporary.c_str()) != 0)
    fail("cannot create symlink " + temporary.string(), errno);
  if (::rename(temporary.c_str(), link.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("cannot replace " + link.string(), error);
  }
}

void ensure_writable_directory(const fs::path& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) fail("cannot create directory " + directory.string(), error.value());
  if (!fs::is_directory(directory)) fail(directory.string() + " is not a directory", ENOTDIR);
  const fs::path probe = directory / ".alloclab-write-probe";
  write_file_atomically(probe, "probe\n");
  ::unlink(probe.c_str());
}

std::string utc_now(const char* pattern) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, pattern, &utc);
  return text;
}

}  // namespace alloclab::lab
