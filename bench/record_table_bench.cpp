// record_table_bench.cpp: a recording thread's pointer table (src/record/block_table.hpp) at the
// sizes real programs reach. One iteration is what a recorded free + malloc costs the table: take
// a live block's address out (as its owner, or as another thread freeing it: under the table's
// lock, uncontended here) and insert a new one. Live blocks: 64 (a tight loop), 1 k, 10 k and
// 300 k (a python3 or cc1plus run). Addresses are laid out like a heap's: 16-byte aligned, mostly
// consecutive, freed and reused in random order.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <alloclab/build_info.hpp>

#include "record/block_table.hpp"

namespace {

template <bool foreign>
void table_free_malloc_pair(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  auto table = std::make_unique<alloclab::record::block_table>();
  std::vector<std::uintptr_t> addresses(live);
  const std::uintptr_t base = 0x55d0'0000'0000;
  for (std::size_t i = 0; i < live; ++i) {
    addresses[i] = base + 48 * i;
    table->insert(addresses[i], i + 1);
  }
  std::mt19937_64 random(7);
  std::vector<std::size_t> order(1 << 16);
  for (auto& o : order) o = random() % live;
  std::uintptr_t next = base + 48 * live;
  std::size_t step = 0;
  for (auto _ : state) {
    const std::size_t victim = order[step++ & (order.size() - 1)];
    const std::uint64_t value =
        foreign ? table->take_foreign(addresses[victim]) : table->take(addresses[victim]);
    benchmark::DoNotOptimize(value);
    addresses[victim] = next;
    next += 48;
    benchmark::DoNotOptimize(table->insert(addresses[victim], value));
  }
  state.counters["longest_probe"] = static_cast<double>(table->longest_probe());
}
BENCHMARK_TEMPLATE(table_free_malloc_pair, false)->Arg(64)->Arg(1 << 10)->Arg(10'000)->Arg(300'000);
BENCHMARK_TEMPLATE(table_free_malloc_pair, true)->Arg(64)->Arg(10'000);

}  // namespace

// Refuses an unoptimised build (its numbers would mean nothing) unless --allow-debug.
int main(int argc, char** argv) {
  bool allow_debug = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--allow-debug") == 0)
      allow_debug = true;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  if (!alloclab::build::benchmark_ready && !allow_debug) {
    std::fprintf(stderr, "record_table_bench: not an optimised build (%s); --allow-debug to run\n",
                 alloclab::build::describe());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
