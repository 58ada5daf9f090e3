// How every ratio with an interval is written (reports, claims, advice, compare): with the
// digits its interval supports, and never with an interval one repetition cannot give.
#pragma once

#include <optional>
#include <string>

namespace alloclab::lab {

// "1.07× [1.05–1.10]", "22× [1.5–47]" (a wide interval keeps two significant figures),
// "1.07× (one repetition per side: no interval)" when low == high, "1.07× (no interval)"
// without one. `sign` is the multiplication sign: "×" in reports, "x" on terminals and logs.
std::string ratio_with_interval(double value, std::optional<double> low, std::optional<double> high,
                                const char* sign = "×");

// The decimals a ratio is printed with when its interval is `width` wide: 1 to 3, or -1 for
// two significant figures (width 1 or more).
int ratio_decimals(double width);

}  // namespace alloclab::lab
