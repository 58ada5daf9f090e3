// The recorder's pointer tables (src/record/block_table.hpp) as the recorder uses them with
// several threads: each thread owns a table and inserts and takes its own keys without a lock;
// it hands some keys to the next thread, which frees them (a cross-thread free: its own table
// misses, another thread's table has the key, take_foreign removes it); and a freed address comes
// back from the freeing thread's next "malloc", as a heap's does, into that thread's table, while
// its owner keeps rebuilding (growing, shrinking) its table under the foreign threads.
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
  block_table table;
  std::atomic<handed_key*> inbox[slots_per_inbox] = {};
  std::vector<handed_key> records = std::vector<handed_key>(rounds);
  std::vector<std::uintptr_t> freed;  ///< addresses this thread freed, reused first
  std::uint64_t mismatches = 0;
  std::uint64_t missing = 0;
  std::uint64_t found_in_wrong_table = 0;
};

std::uint64_t next_random(std::uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// Fresh addresses like a glibc arena's: 16-byte aligned inside a 64 MiB heap of the thread's own.
std::uintptr_t fresh_key(int thread, std::uint64_t n) {
  return 0x7f00'0000'0000u + (std::uintptr_t{1} << 26) * static_cast<unsigned>(thread) +
         16 * (n % (std::uint64_t{1} << 21));
}

// A free as the recorder does it: this thread's table first, then every other thread's.
void take(std::vector<std::unique_ptr<worker_state>>& workers, int self, const handed_key& k,
          int owner) {
  worker_state& me = *workers[static_cast<std::size_t>(self)];
  std::uint64_t value = me.table.take(k.key);
  int found_in = self;
  for (int t = 0; t < thread_count && value == block_table::absent; ++t) {
    if (t == self) continue;
    value = workers[static_cast<std::size_t>(t)]->table.take_foreign(k.key);
    found_in = t;
  }
  if (value == block_table::absent) {
    ++me.missing;
    return;
  }
  me.mismatches += value != k.value;
  me.found_in_wrong_table += found_in != owner;
  me.freed.push_back(k.key);
}

void run_worker(std::vector<std::unique_ptr<worker_state>>& workers, int self) {
  worker_state& me = *workers[static_cast<std::size_t>(self)];
  worker_state& next = *workers[static_cast<std::size_t>((self + 1) % thread_count)];
  std::uint64_t random = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(self + 1);
  std::vector<handed_key> own(64);
  std::uint64_t serial = 0;
  const auto allocate = [&] {
    std::uintptr_t key = fresh_key(self, serial);
    if (!me.freed.empty() && (next_random(random) & 1) != 0) {
      key = me.freed.back();
      me.freed.pop_back();
    }
    const handed_key k{key, (static_cast<std::uint64_t>(self) << 44) | ++serial};
    EXPECT_TRUE(me.table.insert(k.key, k.value));
    return k;
  };
  for (int round = 0; round < rounds; ++round) {
    const std::uint64_t r = next_random(random);
    // Bursts of kept blocks, then of freed ones: the tables grow and shrink.
    const std::size_t live = (round / 2000) % 2 == 0 ? own.size() : 8;
    handed_key& slot = own[(r >> 8) % live];
    if (((r >> 16) & 1) == 0) {
      if (slot.key != 0) take(workers, self, slot, self);
      slot = allocate();
    } else {
      handed_key& h = me.records[static_cast<std::size_t>(round)];
      h = allocate();
      if (handed_key* old = next.inbox[(r >> 24) % slots_per_inbox].exchange(&h))
        take(workers, self, *old, self);
      if (handed_key* in = me.inbox[(r >> 32) % slots_per_inbox].exchange(nullptr))
        take(workers, self, *in, (self + thread_count - 1) % thread_count);
    }
  }
  for (handed_key& k : own)
    if (k.key != 0) take(workers, self, k, self);
}

TEST(BlockTableThreads, CrossThreadFreesFindTheBlockInItsOwnersTable) {
  std::vector<std::unique_ptr<worker_state>> workers;
  for (int t = 0; t < thread_count; ++t) workers.push_back(std::make_unique<worker_state>());
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) threads.emplace_back(run_worker, std::ref(workers), t);
  for (std::thread& t : threads) t.join();
  std::size_t still_handed = 0;
  for (int t = 0; t < thread_count; ++t) {
    worker_state& w = *workers[static_cast<std::size_t>(t)];
    EXPECT_EQ(w.missing, 0u) << "thread " << t;
    EXPECT_EQ(w.mismatches, 0u) << "thread " << t;
    EXPECT_EQ(w.found_in_wrong_table, 0u) << "thread " << t;
    for (auto& in : w.inbox) {
      if (handed_key* k = in.load(); k != nullptr) {
        // Handed to thread t by its predecessor, never taken: still in the predecessor's table.
        const int owner = (t + thread_count - 1) % thread_count;
        EXPECT_EQ(workers[static_cast<std::size_t>(owner)]->table.find(k->key), k->value);
        ++still_handed;
      }
    }
  }
  // Every block was freed but those still handed over: nothing else is left in any table.
  std::size_t left = 0;
  for (const auto& w : workers) left += w->table.size();
  EXPECT_EQ(left, still_handed);
}

}  // namespace
