// A program run as the frame's figures see it, for tests that judge synthetic rounds: no process
// is started.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frames/program/program_plan.hpp"

namespace alloclab::program {

inline run_row synthetic_run(std::size_t round, std::size_t combination, double cpu_seconds,
                             double peak_rss_bytes = 1'000'000, bool ok = true) {
  run_row r;
  r.round = round;
  r.combination = combination;
  r.record.ok = ok;
  r.record.live = true;
  r.record.figures.user_seconds = r.record.figures.cpu_seconds = cpu_seconds;
  r.record.figures.peak_rss_bytes = static_cast<std::uint64_t>(peak_rss_bytes);
  return r;
}

}  // namespace alloclab::program
