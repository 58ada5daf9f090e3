// What a budget (`alloclab run --budget`, plan/budget.hpp) buys after the seconds every run keeps
// back for its results, said before the run starts.
#pragma once

#include <string>

namespace alloclab::lab {

// The smallest budget --budget takes, and the seconds of every budget kept back for building and
// writing the results (14 s for 1 270 records on 2 cores that other processes kept 80 % busy):
// a budget within them measures each cell's first process only.
inline constexpr double smallest_budget_seconds = 1;
inline constexpr double results_reserve_seconds = 15;

// "budget 20 s: about 5 s of measuring (15 s of it are kept for writing the results); ...", or
// that only each cell's first process runs.
std::string budget_line(double seconds);

}  // namespace alloclab::lab
