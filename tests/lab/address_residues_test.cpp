// Test plan (measure/address_residues.hpp), on known addresses (no real placement is asserted):
//
//   address_residue_recorder::record, blocks, mod64, mod4096
//                                        -> AddressResidues.HistogramsOfKnownAddresses
//   growth copies: growth_copies, growth_delta_mod64, growth_delta_mod4096, growth_placements,
//   break_sequence
//                                        -> AddressResidues.GrowingSizesAreGrowthCopies
//   overflow                             -> AddressResidues.PlacementTableOverflowIsCounted
//   copies_on_cliff                      -> AddressResidues.CopiesOnTheCliffAreCounted
//   to_json                              -> AddressResidues.JsonShape
//   residue_recording_resource           -> AddressResidues.ResourceForwardsAndRecords
//   scoped_malloc_residue_recording      -> AddressResidues.MallocSideRecordsOnlyWhileCounting
#include <gtest/gtest.h>

#include <memory>
#include <memory_resource>
#include <vector>

#include "measure/address_residues.hpp"
#include "measure/copy_cliff.hpp"
#include "measure/heap_counter.hpp"

namespace alloclab::lab {
namespace {

const void* at(std::uintptr_t address) {
  return reinterpret_cast<const void*>(address);
}

TEST(AddressResidues, HistogramsOfKnownAddresses) {
  address_residue_recorder r;
  // Equal sizes: no growth copies.
  r.record(at(0x10000), 32);
  r.record(at(0x10010), 32);
  r.record(at(0x11010), 32);
  r.record(at(0x20040), 32);
  EXPECT_EQ(r.blocks(), 4u);
  EXPECT_EQ(r.mod64()[0], 2u);  // 0x10000, 0x20040
  EXPECT_EQ(r.mod64()[16], 2u);
  EXPECT_EQ(r.mod4096()[0x000], 1u);
  EXPECT_EQ(r.mod4096()[0x010], 2u);  // 0x10010 and 0x11010
  EXPECT_EQ(r.mod4096()[0x040], 1u);
  EXPECT_EQ(r.mod4096().size(), 4096u);
  EXPECT_EQ(r.growth_copies(), 0u);
}

TEST(AddressResidues, GrowingSizesAreGrowthCopies) {
  address_residue_recorder r;
  r.record(at(0x1000), 16);   // first block
  r.record(at(0x2010), 32);   // grows: copy 16 B from 0 to 16 (delta 16)
  r.record(at(0x3030), 64);   // grows: copy 32 B from 16 to 48 (delta 32)
  r.record(at(0x4000), 64);   // same size: not a growth copy
  r.record(at(0x5010), 128);  // grows: copy 64 B from 0 to 16 (delta 16)
  r.break_sequence();
  r.record(at(0x6000), 4096);  // after a break: not a copy of the previous block
  EXPECT_EQ(r.blocks(), 6u);
  EXPECT_EQ(r.growth_copies(), 3u);
  EXPECT_EQ(r.growth_delta_mod64()[16], 2u);
  EXPECT_EQ(r.growth_delta_mod64()[32], 1u);
  EXPECT_EQ(r.growth_delta_mod4096()[0x010], 2u);  // 0x1000 -> 0x2010, 0x4000 -> 0x5010
  EXPECT_EQ(r.growth_delta_mod4096()[0x020], 1u);
  const std::vector<growth_copy> p = r.growth_placements();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].bytes, 16u);
  EXPECT_EQ(p[0].src_mod4096, 0x000u);
  EXPECT_EQ(p[0].dst_mod4096, 0x010u);
  EXPECT_EQ(p[1].bytes, 32u);
  EXPECT_EQ(p[1].delta_mod64(), 32u);
  EXPECT_EQ(p[2].bytes, 64u);
  EXPECT_EQ(r.overflow(), 0u);

  // The same placement again is counted, not listed twice; a downward delta wraps.
  r.record(at(0x7000), 16);
  r.record(at(0x8010), 32);   // same as p[0] (same offsets in the page)
  r.record(at(0x9030), 33);   // 32 B from 0x010 to 0x030 again
  r.record(at(0xA000), 100);  // 33 B from 0x030 to 0x000: 4096 - 48 past the source
  const auto q = r.growth_placements();
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0].count, 2u);
  EXPECT_EQ(q[1].count, 2u);
  EXPECT_EQ(q[3].src_mod4096, 0x030u);
  EXPECT_EQ(q[3].delta_mod4096(), 4096u - 48u);
  EXPECT_EQ(q[3].delta_mod64(), 16u);
}

TEST(AddressResidues, PlacementTableOverflowIsCounted) {
  address_residue_recorder r;
  const std::size_t n = address_residue_recorder::growth_table_capacity + 10;
  for (std::size_t i = 0; i <= n; ++i) r.record(at(0x100000 + i * 64), i + 1);  // n copies
  EXPECT_EQ(r.growth_copies(), n);
  EXPECT_EQ(r.growth_placements().size(), address_residue_recorder::growth_table_capacity);
  EXPECT_EQ(r.overflow(), 10u);
}

copy_cliff_result cliffs_with_one_at_16() {
  copy_cliff_config c;
  c.sizes = {2048};
  c.step = 16;
  return find_copy_cliffs(c,
                          [](std::size_t, unsigned delta) { return delta == 16 ? 1000.0 : 50.0; });
}

TEST(AddressResidues, CopiesOnTheCliffAreCounted) {
  const copy_cliff_result cliffs = cliffs_with_one_at_16();
  ASSERT_TRUE(cliffs.has_cliff());
  address_residue_recorder r;
  r.record(at(0x10000), 4096);
  r.record(at(0x21010), 8192);   // 4096 B, 16 bytes past the source mod 4096: on the cliff
  r.record(at(0x30000), 16384);  // 8192 B, 4096 - 16 past: not
  r.record(at(0x40010), 16400);  // 16384 B, 16 past: on the cliff
  r.record(at(0x50000), 64);
  r.record(at(0x60010), 128);  // 64 B, below the smallest measured size: not judged a cliff
  EXPECT_EQ(r.growth_copies(), 4u);
  EXPECT_EQ(copies_on_cliff(r, cliffs), 2u);
  const nlohmann::json j = to_json(r, &cliffs);
  EXPECT_EQ(j.at("copies_on_cliff"), 2);
  EXPECT_DOUBLE_EQ(j.at("fraction_on_cliff").get<double>(), 0.5);
}

TEST(AddressResidues, JsonShape) {
  address_residue_recorder r;
  for (std::uintptr_t i = 0; i < 20; ++i) r.record(at(0x10000 + i * 4096 + (i % 10) * 16), 8);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j.at("blocks"), 20);
  ASSERT_EQ(j.at("mod64").size(), 64u);
  EXPECT_EQ(j.at("mod64").at(16), 6);  // (i % 10) * 16 mod 64 == 16 for i % 10 in {1, 5, 9}
  EXPECT_EQ(j.at("mod4096").at("distinct"), 10);
  ASSERT_EQ(j.at("mod4096").at("top").size(), 8u);  // the 8 most frequent residues
  EXPECT_EQ(j.at("mod4096").at("top").at(0).at(1), 2);
  EXPECT_EQ(j.at("growth_copies"), 0);
  EXPECT_EQ(j.at("growth_delta_mod64").size(), 64u);
  EXPECT_EQ(j.at("growth_delta_mod4096").at("distinct"), 0);
  EXPECT_TRUE(j.at("growth_delta_mod4096").at("top").empty());
  EXPECT_EQ(j.at("growth_overflow"), 0);
  EXPECT_TRUE(j.at("copies_on_cliff").is_null());  // no cliff table given
  EXPECT_TRUE(j.at("fraction_on_cliff").is_null());
  const copy_cliff_result cliffs = cliffs_with_one_at_16();
  const nlohmann::json k = to_json(r, &cliffs);
  EXPECT_EQ(k.at("copies_on_cliff"), 0);
  EXPECT_TRUE(k.at("fraction_on_cliff").is_null());  // no copies: no fraction
}

TEST(AddressResidues, ResourceForwardsAndRecords) {
  address_residue_recorder r;
  alignas(64) static unsigned char buffer[1 << 16];
  std::pmr::monotonic_buffer_resource arena(buffer, sizeof buffer,
                                            std::pmr::null_memory_resource());
  residue_recording_resource res(&r, &arena);
  EXPECT_EQ(res.upstream(), &arena);
  std::pmr::vector<std::uint64_t> v(&res);
  for (std::uint64_t i = 0; i < 1000; ++i) v.push_back(i);
  EXPECT_EQ(v[999], 999u);
  // Growth from capacity 1 to 1024 (libstdc++ doubles): 11 blocks, 10 growth copies.
  EXPECT_EQ(r.blocks(), 11u);
  EXPECT_EQ(r.growth_copies(), 10u);
  for (const growth_copy& g : r.growth_placements()) {
    EXPECT_EQ(g.dst_mod4096 % alignof(std::uint64_t), 0u);
    EXPECT_EQ(g.bytes % sizeof(std::uint64_t), 0u);
  }
  EXPECT_TRUE(res.is_equal(res));
  residue_recording_resource other(&r, &arena);
  EXPECT_FALSE(res.is_equal(other));
}

TEST(AddressResidues, MallocSideRecordsOnlyWhileCounting) {
  address_residue_recorder r;
  {
    scoped_malloc_residue_recording recording(&r);
    auto outside = std::make_unique<int>(1);  // not counting: not recorded
    heap_counting_begin();
    auto a = std::make_unique<char[]>(100);
    auto b = std::make_unique<char[]>(200);
    const heap_usage used = heap_counting_end();
    EXPECT_EQ(used.allocations, 2u);
    EXPECT_EQ(r.blocks(), 2u);
    EXPECT_EQ(r.growth_copies(), 1u);
    const auto p = r.growth_placements();
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].bytes, 100u);
    EXPECT_EQ(p[0].src_mod4096, reinterpret_cast<std::uintptr_t>(a.get()) % 4096);
    EXPECT_EQ(p[0].dst_mod4096, reinterpret_cast<std::uintptr_t>(b.get()) % 4096);
  }
  heap_counting_begin();  // the observer is gone with the scope
  auto c = std::make_unique<char[]>(300);
  heap_counting_end();
  EXPECT_EQ(r.blocks(), 2u);
}

}  // namespace
}  // namespace alloclab::lab
