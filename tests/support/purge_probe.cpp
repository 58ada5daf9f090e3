// Run by allocator_purge_test under LD_PRELOAD of each malloc: reports which purge
// allocator_purge::find() picked, then fragments the heap (64 MiB in 4 KiB blocks, one in 256
// kept), frees it and prints RSS after the free (and ALLOCLAB_PROBE_SETTLE_MS of settling) and
// after the purge, one "key=value" a line.
#include <alloclab/allocator_purge.hpp>
#include <alloclab/memory_budget.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

unsigned long long rss_bytes() {
  const std::optional<std::string> statm = alloclab::detail::read_small_file("/proc/self/statm");
  return statm ? alloclab::memory_budget::resident_bytes_from_statm(*statm).value_or(0) : 0;
}

}  // namespace

int main() {
  const alloclab::allocator_purge purge = alloclab::allocator_purge::find();
  constexpr std::size_t block = 4096, blocks = (std::size_t{64} << 20) / block, keep_every = 256;
  std::vector<void*> live(blocks);
  for (void*& p : live) {
    p = std::malloc(block);
    if (!p) return 3;
    static_cast<volatile char*>(p)[0] = 1;
  }
  const unsigned long long rss_full = rss_bytes();
  for (std::size_t i = 0; i < blocks; ++i)
    if (i % keep_every != 0) std::free(live[i]);
  if (const char* settle = std::getenv("ALLOCLAB_PROBE_SETTLE_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(settle)));
  const unsigned long long rss_after_free = rss_bytes();
  const bool ran = purge.run();
  const unsigned long long rss_after_purge = rss_bytes();
  std::printf(
      "kind=%s\nlibrary=%s\nran=%d\nrss_full=%llu\nrss_after_free=%llu\n"
      "rss_after_purge=%llu\n",
      alloclab::to_string(purge.kind()), purge.library().c_str(), ran ? 1 : 0, rss_full,
      rss_after_free, rss_after_purge);
  for (std::size_t i = 0; i < blocks; i += keep_every) std::free(live[i]);
  return 0;
}
