#include "process/machine_lock.hpp"

#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "io/atomic_write.hpp"
#include "io/usage_error.hpp"

namespace alloclab::lab {

std::unique_ptr<process::run_lock> take_machine_lock(const std::string& command_line, bool wait) {
  const std::string holder = fmt::format("pid {}, started {}, `{}`", ::getpid(),
                                         utc_now("%Y-%m-%dT%H:%M:%SZ"), command_line);
  const std::string path = process::lock_path_from_environment();
  if (path.empty()) return nullptr;
  try {
    return std::make_unique<process::run_lock>(path, holder, wait, [](const std::string& who) {
      std::cerr << "alloclab: waiting for the lab run already measuring (" << who << ")\n";
    });
  } catch (const std::runtime_error& e) {  // lock_busy too
    throw usage_error(e.what());
  }
}

}  // namespace alloclab::lab
