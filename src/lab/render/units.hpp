// The one way the lab writes a duration or a size for a reader, used by every report, the
// terminal, `compare` and `advise`:
//
// | value        | below 10 000 units   | below 10 000 000 units  | above                 |
// |--------------|----------------------|-------------------------|-----------------------|
// | format_ns    | "812 ns"             | "10.7 µs"               | "12.5 ms"             |
// | format_bytes | "4096 B" (< 10 KiB)  | "32 KiB" (< 10 MiB)     | "186.9 MiB"           |
//
// Example:
//   format_ns(10740.2);      // "10.7 µs"
//   format_bytes(32768);     // "32 KiB"
#pragma once

#include <string>

namespace alloclab::lab {

std::string format_ns(double ns);
std::string format_bytes(double bytes);

}  // namespace alloclab::lab
