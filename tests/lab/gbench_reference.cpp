// A Google Benchmark program whose JSON output is the reference for `alloclab export --format
// gbench` (tests/lab/export_test.cpp): the format of the Google Benchmark installed here.
#include <vector>

#include <benchmark/benchmark.h>

static void reference_push(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<int> v;
    v.push_back(1);
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(reference_push);

BENCHMARK_MAIN();
