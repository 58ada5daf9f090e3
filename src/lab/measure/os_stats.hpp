// Process-level memory figures from the kernel: minor page faults and peak RSS.
#pragma once

#include <cstdint>

namespace alloclab::lab {

struct os_snapshot {
  std::int64_t minor_faults = 0;
  std::int64_t peak_rss_kib = 0;  // the process high-water mark (ru_maxrss)
};

os_snapshot take_os_snapshot();

}  // namespace alloclab::lab
