#include "process/descendants.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <fstream>
#include <string>
#include <vector>

namespace alloclab::process {
namespace {

// This process's children, from every thread's /proc/self/task/<tid>/children.
std::vector<pid_t> children() {
  std::vector<pid_t> pids;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return pids;
  while (const dirent* task = ::readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream in(std::string("/proc/self/task/") + task->d_name + "/children");
    for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  }
  ::closedir(tasks);
  return pids;
}

}  // namespace

bool adopt_orphaned_descendants() noexcept {
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

std::size_t end_leftover_children() noexcept {
  std::size_t ended = 0;
  try {
    // Each pass ends the children there are; the orphans of those that had children of their
    // own are this process's children at the next pass.
    for (std::vector<pid_t> pids = children(); !pids.empty(); pids = children()) {
      for (const pid_t pid : pids) ::kill(pid, SIGKILL);
      for (const pid_t pid : pids) ended += ::waitpid(pid, nullptr, 0) == pid;
    }
  } catch (...) {  // a /proc read that could not allocate: what is left stays
  }
  return ended;
}

}  // namespace alloclab::process
