// Where blocks land: histograms of block addresses mod 64 and mod 4096, and of the placements of
// growth copies (a block followed by a larger one, as std::vector growth does: the old block's
// bytes are copied to the new one), so a report can say what fraction of a workload's copies
// fell on this machine's memmove cliff (copy_cliff.hpp). The growth rule is a heuristic: any
// allocation larger than the one before it counts, whether or not its owner copied anything.
//
// Recording never allocates (fixed tables, sized at construction), so it can run inside the
// global operator new hook.
//
// Usage:
//   address_residue_recorder rec;
//   residue_recording_resource res(&rec, std::pmr::new_delete_resource());  // pmr strategies
//   std::pmr::vector<int> v(&res);
//   for (int i = 0; i < 1000; ++i) v.push_back(i);
//   {
//     scoped_malloc_residue_recording malloc_side(&rec2);  // std strategy: operator new's blocks,
//     heap_counting_begin();                                // recorded while counting
//     run_workload();
//     heap_counting_end();
//   }
//   json j = to_json(rec, &copy_cliff_result);  // with copies_on_cliff / fraction_on_cliff
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

struct copy_cliff_result;

/// A growth copy's placement: `bytes` (the smaller block's size) copied from an address
/// ≡ src_mod4096 to one ≡ dst_mod4096, seen `count` times.
struct growth_copy {
  std::size_t bytes = 0;
  unsigned src_mod4096 = 0;
  unsigned dst_mod4096 = 0;
  std::uint64_t count = 0;
  unsigned delta_mod4096() const { return (dst_mod4096 + 4096u - src_mod4096) % 4096u; }
  unsigned delta_mod64() const { return delta_mod4096() % 64u; }
};

class address_residue_recorder {
 public:
  /// Distinct (bytes, src, dst) growth placements kept; more are counted in overflow().
  static constexpr std::size_t growth_table_capacity = 1024;

  address_residue_recorder();

  /// Records one allocation. If it is larger than the previous allocation recorded, it is taken
  /// as the destination of a growth copy of the previous block (the vector-growth pattern).
  void record(const void* p, std::size_t bytes) noexcept;
  /// Forgets the previous allocation, so the next one does not count as a growth copy of it.
  void break_sequence() noexcept { have_previous_ = false; }

  std::uint64_t blocks() const noexcept { return blocks_; }
  const std::array<std::uint64_t, 64>& mod64() const noexcept { return mod64_; }
  const std::vector<std::uint64_t>& mod4096() const noexcept { return mod4096_; }
  std::uint64_t growth_copies() const noexcept { return growth_copies_; }
  /// (new - old) mod 64 and mod 4096 of every growth copy.
  const std::array<std::uint64_t, 64>& growth_delta_mod64() const noexcept { return delta64_; }
  const std::vector<std::uint64_t>& growth_delta_mod4096() const noexcept { return delta4096_; }
  /// The distinct growth placements, in first-seen order.
  std::vector<growth_copy> growth_placements() const;
  /// Growth copies not kept in the placement table (it was full).
  std::uint64_t overflow() const noexcept { return overflow_; }

 private:
  std::uint64_t blocks_ = 0;
  std::array<std::uint64_t, 64> mod64_{};
  std::vector<std::uint64_t> mod4096_;
  std::uint64_t growth_copies_ = 0;
  std::array<std::uint64_t, 64> delta64_{};
  std::vector<std::uint64_t> delta4096_;
  std::vector<growth_copy> table_;  // open addressing; count == 0 is an empty slot
  std::vector<std::uint32_t> order_;
  std::uint64_t overflow_ = 0;
  bool have_previous_ = false;
  std::uintptr_t previous_ = 0;
  std::size_t previous_bytes_ = 0;
};

/// Growth copies that land on a cliff of `cliffs` (copy_cliff_result::on_cliff).
std::uint64_t copies_on_cliff(const address_residue_recorder& r, const copy_cliff_result& cliffs);

/// {"blocks", "mod64": [64 counts], "mod4096": {"distinct", "top": [[residue, count], ...]},
///  "growth_copies", "growth_delta_mod64": [64 counts],
///  "growth_delta_mod4096": {"distinct", "top": [[delta, count], ...]}, "growth_overflow",
///  "copies_on_cliff" and "fraction_on_cliff" (null without `cliffs` or without copies)}.
/// "top" lists the 8 most frequent residues, most frequent first.
nlohmann::json to_json(const address_residue_recorder& r,
                       const copy_cliff_result* cliffs = nullptr);

/// Forwards to an upstream resource and records each allocation's address. One concern: it
/// changes nothing about what the upstream does.
class residue_recording_resource : public std::pmr::memory_resource {
 public:
  residue_recording_resource(address_residue_recorder* recorder,
                             std::pmr::memory_resource* upstream) noexcept
      : recorder_(recorder), upstream_(upstream) {}
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override;

  address_residue_recorder* recorder_;
  std::pmr::memory_resource* upstream_;
};

/// While alive, every allocation that the global operator new makes during a heap counting pass
/// (heap_counter.hpp) is recorded in `recorder`. Not nestable.
class scoped_malloc_residue_recording {
 public:
  explicit scoped_malloc_residue_recording(address_residue_recorder* recorder) noexcept;
  ~scoped_malloc_residue_recording();
  scoped_malloc_residue_recording(const scoped_malloc_residue_recording&) = delete;
  scoped_malloc_residue_recording& operator=(const scoped_malloc_residue_recording&) = delete;
};

}  // namespace alloclab::lab
