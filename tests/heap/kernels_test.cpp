#include "frames/heap/kernels.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <numeric>

#include "workloads/size_distribution.hpp"

using namespace alloclab::heap;

namespace {

const std::vector<kernel_kind> kinds{kernel_kind::fifo, kernel_kind::lifo, kernel_kind::xthread};

kernel_config with_touch(touch_mode t) {
  kernel_config cfg;
  cfg.touch = t;
  return cfg;
}

/// Counts the writes a policy-wrapped allocation received: allocate() hands out zeroed memory,
/// deallocate() counts the non-zero bytes before freeing.
struct write_counting_policy {
  [[maybe_unused]] static constexpr const char* name = "write_counting";
  static constexpr bool touches = true;
  static inline std::uint64_t nonzero_bytes = 0;
  static void* allocate(std::size_t bytes) {
    void* p = std::calloc(1, bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void deallocate(void* p, std::size_t bytes) noexcept {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < bytes; ++i) nonzero_bytes += b[i] != 0;
    std::free(p);
  }
};

}  // namespace

TEST(Kernels, ChecksumsAgreeBetweenRealAllocators) {
  for (size_dist d : all_size_dists()) {
    const auto sizes = make_sizes(d, 3000, 99);
    for (kernel_kind k : kinds) {
      const auto a = run_kernel<malloc_policy>(k, sizes, 30);
      const auto b = run_kernel<new_delete_policy>(k, sizes, 30);
      EXPECT_EQ(a.checksum, b.checksum) << to_string(k) << '/' << to_string(d);
      const auto pa = run_kernel<malloc_policy>(k, sizes, 30, with_touch(touch_mode::every_page));
      const auto pb =
          run_kernel<new_delete_policy>(k, sizes, 30, with_touch(touch_mode::every_page));
      EXPECT_EQ(pa.checksum, pb.checksum) << to_string(k) << '/' << to_string(d) << "/every_page";
      EXPECT_NE(pa.checksum, a.checksum) << "the two touch modes read different bytes";
      EXPECT_EQ(a.pairs, 3000u);
      EXPECT_EQ(a.batch_ns.size(), 30u);
      if (k != kernel_kind::xthread) {
        EXPECT_EQ(a.peak_live_bytes, b.peak_live_bytes);  // xthread's depends on scheduling
      } else {
        EXPECT_GT(a.peak_live_bytes, 0u);
      }
      EXPECT_EQ(a.total_bytes, std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0}));
      // The NOOP baseline does the same bookkeeping.
      const auto n = run_kernel<noop_policy>(k, sizes, 30);
      EXPECT_EQ(n.pairs, a.pairs);
      EXPECT_EQ(n.batch_ns.size(), a.batch_ns.size());
      EXPECT_EQ(n.total_bytes, a.total_bytes);
      if (k != kernel_kind::xthread) {
        EXPECT_EQ(n.peak_live_bytes, a.peak_live_bytes);
      }
    }
  }
}

TEST(Kernels, ChecksumDependsOnTheData) {
  const auto s1 = make_sizes(size_dist::lognormal, 1000, 1);
  const auto s2 = make_sizes(size_dist::lognormal, 1000, 2);
  EXPECT_NE(run_fifo<malloc_policy>(s1, 10).checksum, run_fifo<malloc_policy>(s2, 10).checksum);
  // fifo and lifo free in different orders, so their checksums differ.
  EXPECT_NE(run_fifo<malloc_policy>(s1, 20).checksum, run_lifo<malloc_policy>(s1, 20).checksum);
}

TEST(Kernels, FifoPeakLiveBytesIsTheFullestRingWindow) {
  // 25 batches of 4 into a ring of 12: live = the last 3 batches once full.
  std::vector<std::uint32_t> sizes(100);
  std::iota(sizes.begin(), sizes.end(), 10u);  // 10, 11, ..., 109
  kernel_config cfg;
  cfg.batch = 4;
  cfg.capacity = 12;
  const auto r = run_fifo<malloc_policy>(sizes, 25, cfg);
  // The window of 12 consecutive sizes with the largest sum is the last one: 98..109.
  std::uint64_t expect = 0;
  for (std::uint32_t s = 98; s <= 109; ++s) expect += s;
  EXPECT_EQ(r.peak_live_bytes, expect);
  EXPECT_EQ(r.pairs, 100u);
}

TEST(Kernels, LifoKeepsTheBottomOfTheStack) {
  // Sizes: the first 8 are big, everything after is 4 bytes. With batch 4 and capacity 12 the
  // bottom 8 stay alive for the whole run and only the top batch churns.
  std::vector<std::uint32_t> sizes(100, 4);
  for (int i = 0; i < 8; ++i) sizes[static_cast<std::size_t>(i)] = 1000;
  kernel_config cfg;
  cfg.batch = 4;
  cfg.capacity = 12;
  const auto r = run_lifo<malloc_policy>(sizes, 25, cfg);
  EXPECT_EQ(r.peak_live_bytes, 8u * 1000u + 4u * 4u);
  const auto f = run_fifo<malloc_policy>(sizes, 25, cfg);
  EXPECT_EQ(f.peak_live_bytes, 8u * 1000u + 4u * 4u);  // same peak, reached at iteration 3
}

TEST(Kernels, SizesWrapAround) {
  const std::vector<std::uint32_t> sizes{100, 200, 300};
  kernel_config cfg;
  cfg.batch = 2;
  cfg.capacity = 4;
  const auto r = run_fifo<malloc_policy>(sizes, 6, cfg);  // 12 allocations over 3 sizes
  EXPECT_EQ(r.total_bytes, 4u * 600u);
  EXPECT_EQ(r.pairs, 12u);
}

TEST(Kernels, PageStraddlingSizesAgree) {
  // The first and last byte of every block are written and read back into the checksum; sizes
  // around page boundaries and the maximum must behave the same under both real allocators.
  const std::vector<std::uint32_t> sizes{4, 4095, 4096, 4097, 8191, 8193, max_block_size};
  kernel_config cfg;
  cfg.batch = 7;
  cfg.capacity = 7;
  const auto a = run_fifo<malloc_policy>(sizes, 3, cfg);
  const auto b = run_fifo<new_delete_policy>(sizes, 3, cfg);
  EXPECT_EQ(a.checksum, b.checksum);
}

TEST(Kernels, RejectsBadArguments) {
  const std::vector<std::uint32_t> none;
  EXPECT_THROW(run_fifo<malloc_policy>(none, 1), std::invalid_argument);
  kernel_config cfg;
  cfg.batch = 10;
  cfg.capacity = 5;
  const std::vector<std::uint32_t> some{8, 8};
  EXPECT_THROW(run_lifo<malloc_policy>(some, 1, cfg), std::invalid_argument);
  EXPECT_THROW(run_xthread<malloc_policy>(some, 1, cfg), std::invalid_argument);
  cfg.capacity = 10;
  cfg.touch_stride = 0;
  EXPECT_THROW(run_fifo<malloc_policy>(some, 1, cfg), std::invalid_argument);
}

TEST(Kernels, NsPerPairSubtractsTheBaseline) {
  EXPECT_DOUBLE_EQ(ns_per_pair(150'000.0, 50'000.0, 1000), 100.0);
  EXPECT_DOUBLE_EQ(ns_per_pair(1000.0, 1000.0, 10), 0.0);
  EXPECT_DOUBLE_EQ(ns_per_pair(900.0, 1000.0, 10), -10.0);  // reported, not hidden
  EXPECT_THROW(ns_per_pair(1.0, 0.0, 0), std::invalid_argument);
}

TEST(Kernels, DefaultTouchIsSeed003sOneWritePerBlock) {
  EXPECT_EQ(kernel_config{}.touch, touch_mode::once);
  // Blocks get tags 0..7 (their allocation numbers); a write of tag t leaves byte t, so block 0's
  // tag writes are invisible to the counter and every other write leaves one non-zero byte.
  const std::vector<std::uint32_t> sizes{4, 4096, 4097, 20000, 100, 8192, 12289, 70000};
  kernel_config cfg;
  cfg.batch = 8;
  cfg.capacity = 8;
  write_counting_policy::nonzero_bytes = 0;
  run_fifo<write_counting_policy>(sizes, 1, cfg);
  EXPECT_EQ(write_counting_policy::nonzero_bytes, 7u);  // once: one byte per block 1..7

  cfg.touch = touch_mode::every_page;
  write_counting_policy::nonzero_bytes = 0;
  run_fifo<write_counting_policy>(sizes, 1, cfg);
  // every_page: one byte per started 4 KiB page, plus the last byte (tag ^ 0x5A, non-zero for
  // tags 0..7) unless the last byte is itself a page write (size 4097, 12289).
  std::uint64_t expect = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t pages = (sizes[i] + 4095u) / 4096u;
    const bool last_is_a_page_write = (sizes[i] - 1u) % 4096u == 0;
    expect += (i == 0 ? 0 : pages) + (last_is_a_page_write ? 0 : 1);
  }
  EXPECT_EQ(write_counting_policy::nonzero_bytes, expect);
  EXPECT_EQ(expect, 39u);  // 1 + 2 + 2 + 6 + 2 + 3 + 4 + 19
}

TEST(Kernels, TouchModeNamesRoundTrip) {
  for (touch_mode t : all_touch_modes()) {
    const auto parsed = parse_touch_mode(to_string(t));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(all_touch_modes().size(), 2u);
  EXPECT_EQ(to_string(touch_mode::once), "once");
  EXPECT_EQ(to_string(touch_mode::every_page), "every_page");
  EXPECT_FALSE(parse_touch_mode("twice").has_value());
}

TEST(Kernels, NamesRoundTrip) {
  for (kernel_kind k : all_kernel_kinds()) {
    const auto parsed = parse_kernel_kind(to_string(k));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_FALSE(parse_kernel_kind("random").has_value());
}
