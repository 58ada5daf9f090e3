// concurrent_tls_bench.cpp: what the concurrent pool's thread-local hot path
// costs where the code lives (issue 18, defect 11), side by side in one run:
//
//   concurrent_tls/one_pool/<where>             allocate + deallocate 64 B on one pool
//   concurrent_tls/two_pools_alternating/<where> the same, switching pools after every pair
//                                               (two pools made one after another: two hot slots)
//   concurrent_tls/two_pools_one_slot/<where>   the same with two pools that share a hot slot
//                                               (made 4 apart): every switch looks the cache up
//
// <where> is in_executable (concurrent_pool_loops.cpp linked into alloclab_bench) or
// in_shared_library (the same file in a -fPIC, hidden-visibility shared library). Upstream:
// new_delete_resource (segments only; every measured pair is served by the hot path).
#include <alloclab/concurrent_multipool_resource.hpp>

#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include "concurrent_pool_loops.hpp"

#include <deque>
#include <memory_resource>
#include <string>

namespace alloclab_bench {
namespace {

using alloclab::concurrent_multipool_resource;
constexpr std::size_t batch = 1024;

struct pool_loops {
  const char* where;
  void (*one_pool)(concurrent_multipool_resource&, std::size_t);
  void (*alternating)(concurrent_multipool_resource&, concurrent_multipool_resource&, std::size_t);
};
constexpr pool_loops executable{"in_executable", in_executable::pairs_on_one_pool,
                                in_executable::pairs_alternating};
constexpr pool_loops shared_library{"in_shared_library", in_shared_library::pairs_on_one_pool,
                                    in_shared_library::pairs_alternating};

// `count` pools made one after another (so hot slots are handed out in turn).
std::deque<concurrent_multipool_resource> pools(std::size_t count) {
  std::deque<concurrent_multipool_resource> made;
  for (std::size_t i = 0; i < count; ++i) made.emplace_back(std::pmr::new_delete_resource());
  return made;
}

void register_for(const pool_loops& loops) {
  const std::string where = loops.where;
  benchmark::RegisterBenchmark(
      ("concurrent_tls/one_pool/" + where).c_str(), [loops](benchmark::State& state) {
        auto made = pools(1);
        run_batches(state, batch, [&] { loops.one_pool(made.front(), batch); });
      });
  benchmark::RegisterBenchmark(
      ("concurrent_tls/two_pools_alternating/" + where).c_str(), [loops](benchmark::State& state) {
        auto made = pools(2);
        run_batches(state, batch, [&] { loops.alternating(made[0], made[1], batch); });
      });
  benchmark::RegisterBenchmark(
      ("concurrent_tls/two_pools_one_slot/" + where).c_str(), [loops](benchmark::State& state) {
        auto made = pools(alloclab::detail::hot_slot_count + 1);
        run_batches(state, batch, [&] { loops.alternating(made.front(), made.back(), batch); });
      });
}

[[maybe_unused]] const bool registered = [] {
  register_for(executable);
  register_for(shared_library);
  return true;
}();

}  // namespace
}  // namespace alloclab_bench
