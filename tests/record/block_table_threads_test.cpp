// The recorder's pointer table (src/record/block_table.hpp) shared by threads, as the recorder
// uses it once a second thread records: each thread inserts keys, hands some to the next thread,
// which removes them (a cross-thread free), and reuses freed keys as a heap reuses addresses.
// Run under TSan by the tsan preset (BlockTableThreads.*).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "record/block_table.hpp"

namespace {

using alloclab::record::block_table;

constexpr int thread_count = 4;
constexpr int slots_per_inbox = 64;
constexpr int rounds = 20000;

struct handed_key {
  std::uintptr_t key = 0;
  std::uint64_t value = 0;
};

struct worker_state {
  std::atomic<handed_key*> inbox[slots_per_inbox] = {};
  std::vector<handed_key> records = std::vector<handed_key>(rounds);
  std::uint64_t mismatches = 0;
  std::uint64_t missing = 0;
};

std::uint64_t next_random(std::uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// Keys like a glibc arena's: 16-byte aligned inside a 64 MiB heap of the thread's own, plus one
// region all threads share (the main arena), so that some shards are contended.
std::uintptr_t key_of(int thread, std::uint64_t n, bool shared_region) {
  const std::uintptr_t base =
      shared_region ? 0x5000'0000'0000u
                    : 0x7f00'0000'0000u + (std::uintptr_t{1} << 26) * static_cast<unsigned>(thread);
  return base + 16 * (n % (std::uint64_t{1} << 21));
}

void run_worker(block_table& table, std::vector<worker_state>& workers, int self) {
  worker_state& me = workers[static_cast<std::size_t>(self)];
  worker_state& next = workers[static_cast<std::size_t>((self + 1) % thread_count)];
  std::uint64_t random = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(self + 1);
  std::vector<handed_key> own(64);
  std::uint64_t serial = 0;
  const auto take = [&](const handed_key& k) {
    std::uint64_t value = 0;
    if (!table.remove(k.key, value)) {
      ++me.missing;
    } else if (value != k.value) {
      ++me.mismatches;
    }
  };
  for (int round = 0; round < rounds; ++round) {
    const std::uint64_t r = next_random(random);
    // Keys of the shared region carry the thread in their low bits: unique among live keys.
    const bool shared_region = (r & 7) == 0;
    const std::uintptr_t key = key_of(self,
                                      serial++ * (shared_region ? thread_count : 1) +
                                          static_cast<std::uint64_t>(shared_region ? self : 0),
                                      shared_region);
    const std::uint64_t value = (static_cast<std::uint64_t>(self) << 44) | serial;
    handed_key& slot = own[(r >> 8) % own.size()];
    if (((r >> 16) & 1) == 0) {
      // A freed key comes back at once half of the time, as a freed block does from malloc.
      const std::uintptr_t reused = slot.key != 0 && ((r >> 17) & 1) != 0 ? slot.key : key;
      if (slot.key != 0) take(slot);
      slot = {reused, value};
      ASSERT_TRUE(table.insert(reused, value));
    } else {
      handed_key& h = me.records[static_cast<std::size_t>(round)];
      h = {key, value};
      ASSERT_TRUE(table.insert(key, value));
      if (handed_key* old = next.inbox[(r >> 24) % slots_per_inbox].exchange(&h)) take(*old);
      if (handed_key* in = me.inbox[(r >> 32) % slots_per_inbox].exchange(nullptr)) take(*in);
    }
  }
  for (const handed_key& k : own)
    if (k.key != 0) take(k);
}

TEST(BlockTableThreads, CrossThreadRemovalsFindWhatTheOwnerInserted) {
  auto table = std::make_unique<block_table>();
  table->set_shared();
  std::vector<worker_state> workers(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back(run_worker, std::ref(*table), std::ref(workers), t);
  for (std::thread& t : threads) t.join();
  for (worker_state& w : workers) {
    EXPECT_EQ(w.missing, 0u);
    EXPECT_EQ(w.mismatches, 0u);
    for (auto& in : w.inbox) {
      handed_key* k = in.load();
      std::uint64_t value = 0;
      if (k != nullptr) {
        ASSERT_TRUE(table->remove(k->key, value));
        EXPECT_EQ(value, k->value);
      }
    }
  }
  // Every key was removed once: none is left.
  std::uint64_t value = 0, left = 0;
  for (const worker_state& w : workers)
    for (const handed_key& k : w.records) left += k.key != 0 && table->find(k.key, value);
  EXPECT_EQ(left, 0u);
}

}  // namespace
