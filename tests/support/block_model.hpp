// A randomised allocate/deallocate sequence checked against a model of the
// live blocks: every block is aligned as asked, overlaps no other live block,
// and keeps the pattern written into it until it is freed. For the adaptor
// tests (segregator, allocator_resource, scratch scopes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <string>

namespace alloclab::testing {

struct block_model_options {
  std::size_t operations = 4000;
  std::size_t largest_size = 2048;
  unsigned largest_alignment_log2 = 7;  // alignments 1 .. 128
  bool free_blocks = true;              // false: allocate only (an arena scope)
  std::uint32_t seed = 1;
};

// Runs the sequence on `resource` (allocate(bytes, alignment) and
// deallocate(p, bytes, alignment)), frees what is left, and returns an empty
// string or the first violation.
template <class Resource>
std::string run_block_model(Resource& resource, const block_model_options& options = {}) {
  struct live_block {
    std::size_t bytes;
    std::size_t alignment;
    unsigned char pattern;
  };
  using live_map = std::map<std::uintptr_t, live_block>;
  live_map live;
  std::uint32_t state = options.seed;
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  auto intact = [](std::uintptr_t at, const live_block& b) {
    const auto* p = reinterpret_cast<const unsigned char*>(at);
    for (std::size_t i = 0; i < b.bytes; ++i)
      if (p[i] != b.pattern) return false;
    return true;
  };
  auto free_one = [&](typename live_map::iterator it) {
    if (!intact(it->first, it->second)) return false;
    resource.deallocate(reinterpret_cast<void*>(it->first), it->second.bytes, it->second.alignment);
    live.erase(it);
    return true;
  };
  for (std::size_t op = 0; op < options.operations; ++op) {
    if (options.free_blocks && !live.empty() && next() % 3 == 0) {
      auto it = std::next(live.begin(), static_cast<std::ptrdiff_t>(next() % live.size()));
      if (!free_one(it)) return "block overwritten while live (op " + std::to_string(op) + ")";
      continue;
    }
    const std::size_t bytes = next() % (options.largest_size + 1);  // 0 included
    const std::size_t alignment = std::size_t{1} << (next() % (options.largest_alignment_log2 + 1));
    const auto at = reinterpret_cast<std::uintptr_t>(resource.allocate(bytes, alignment));
    if (at % alignment != 0) return "misaligned block (op " + std::to_string(op) + ")";
    const std::size_t extent = bytes == 0 ? 1 : bytes;
    auto after = live.lower_bound(at);
    if (after != live.end() && after->first < at + extent)
      return "block overlaps a live block (op " + std::to_string(op) + ")";
    if (after != live.begin()) {
      auto before = std::prev(after);
      const std::size_t before_extent = before->second.bytes == 0 ? 1 : before->second.bytes;
      if (before->first + before_extent > at)
        return "block overlaps a live block (op " + std::to_string(op) + ")";
    }
    const auto pattern = static_cast<unsigned char>(next() >> 24);
    std::memset(reinterpret_cast<void*>(at), pattern, bytes);
    live.emplace(at, live_block{bytes, alignment, pattern});
  }
  while (!live.empty())
    if (!free_one(live.begin())) return "block overwritten while live (at the end)";
  return {};
}

}  // namespace alloclab::testing
