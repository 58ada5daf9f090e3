#include "atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view content) {
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
  write_file_atomically(directory / ".alloclab-write-probe", "probe\n");
  fs::remove(directory / ".alloclab-write-probe", error);
}

}  // namespace alloclab::lab
