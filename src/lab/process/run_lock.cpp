#include "process/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace alloclab::process {
namespace {

std::string holder_of(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string line = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : std::string();
  const std::size_t end = line.find('\n');
  if (end != std::string::npos) line.resize(end);
  return line.empty() ? "a process that did not say who it is" : line;
}

}  // namespace

void run_lock::fail(const std::string& what) {
  const int error = errno;
  ::close(fd_);
  fd_ = -1;
  throw std::runtime_error(what + ": " + std::strerror(error));
}

std::string lock_path_from_environment() {
  const char* path = std::getenv("ALLOCLAB_LOCK_FILE");
  if (path != nullptr && std::strcmp(path, "none") == 0) return {};
  return path != nullptr && *path != '\0' ? path : default_lock_path;
}

run_lock::run_lock(const std::string& path, const std::string& holder, bool wait,
                   void (*waiting)(const std::string&))
    : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // another user's file
  if (fd_ < 0)
    throw std::runtime_error("cannot open the lab's lock file " + path + ": " +
                             std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) fail("cannot lock the lab's lock file " + path);
    const std::string who = holder_of(fd_);
    if (!wait) {
      ::close(fd_);
      fd_ = -1;
      throw lock_busy("another lab run is measuring on this machine (" + who + "; lock " + path +
                      "): wait for it, or pass --wait to queue behind it");
    }
    if (waiting != nullptr) waiting(who);
    int locked = 0;
    while ((locked = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (locked != 0) fail("cannot lock the lab's lock file " + path);
  }
  ::fchmod(fd_, 0666);  // the next run may be another user's (fails harmlessly if not ours)
  if (::ftruncate(fd_, 0) == 0) {
    const std::string line = holder + "\n";
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, line.data(), line.size(), 0);
  }
}

run_lock::~run_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

}  // namespace alloclab::process
