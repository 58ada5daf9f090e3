#include "os_stats.hpp"

#include <sys/resource.h>

namespace alloclab::lab {

os_snapshot take_os_snapshot() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return os_snapshot{usage.ru_minflt, usage.ru_maxrss};
}

}  // namespace alloclab::lab
