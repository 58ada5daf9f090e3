// The huge-page workload: random read-modify-writes over a large, long-lived table of 64-bit
// words, on plain pages (`plain_pages`: MADV_NOHUGEPAGE) or in an alloclab::huge_page_buffer
// advised MADV_HUGEPAGE (`huge_pages`). Reports the time per batch of accesses, how much of the
// table the kernel backed with huge pages (smaps AnonHugePages), the page faults of filling it,
// and dTLB load misses when the machine has the hardware counter ("not available" and why,
// otherwise). When THP is never or unavailable, huge_pages falls back to plain pages and says so.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <alloclab/huge_page_buffer.hpp>

#include "frames/memory/memory_workloads.hpp"

namespace alloclab::lab {

inline constexpr const char* plain_pages_strategy = "plain_pages";
inline constexpr const char* huge_pages_strategy = "huge_pages";

// The table of `spec`'s strategy and, in `how`, how it is backed. `host` says where the THP mode
// is read from (tests point it at tests/data/thp fixtures to take both branches on any host).
huge_page_buffer make_huge_table(const memory_spec& spec, std::string& how,
                                 const huge_page_options& host = {});

// The memory worker's result document (see memory_figures in frames/memory/process_figures.hpp).
nlohmann::json run_huge_table(const memory_spec& spec);

}  // namespace alloclab::lab
