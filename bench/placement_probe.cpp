// placement_probe: how much of std::vector's growth cost is the copy, and how that depends on
// where malloc put the old and new buffers (issue 7, docs/placement.md).
//
// Measures the lab's vector_push shape: build a std::vector of 1000 elements with push_back and
// no reserve, read it back, destroy it; one sample = one build. Before measuring, optionally
// "pollutes" the heap with a seeded mix of allocations, some of which stay alive, the way earlier
// workloads in the same process leave it. Prints one JSON line: the median and quartiles of the
// build time, and where each growth copy went (src/dst mod 64) in an untimed build made with the
// same heap state.
//
//   placement_probe --elem 64                 # fresh process
//   placement_probe --elem 64 --pollute 3     # after heap history with seed 3
//   GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4000000 placement_probe --elem 64
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "alloclab/build_info.hpp"

namespace {

template <std::size_t Bytes>
struct element {
  std::uint64_t id;
  unsigned char payload[Bytes - sizeof(std::uint64_t)];
};

struct growth {
  std::uintptr_t src;
  std::uintptr_t dst;
  std::size_t bytes;
};

/// The heap history: `rounds` rounds of 500 allocations of 16 B .. 8 KiB (log-uniform), freeing
/// 70 % of them at random; what is left stays alive until exit.
std::vector<void*> pollute(unsigned seed, int rounds) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_size(4.0, 13.0);
  std::vector<void*> kept;
  for (int r = 0; r < rounds; ++r) {
    std::vector<void*> blocks;
    for (int i = 0; i < 500; ++i) {
      const auto n = static_cast<std::size_t>(std::exp2(log_size(rng)));
      void* p = std::malloc(n);
      std::memset(p, 1, n);
      blocks.push_back(p);
    }
    std::shuffle(blocks.begin(), blocks.end(), rng);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (i % 10 < 7) {
        std::free(blocks[i]);
      } else {
        kept.push_back(blocks[i]);
      }
    }
  }
  return kept;
}

template <class T>
std::uint64_t build(std::size_t count, std::vector<growth>* growths) {
  std::vector<T> v;
  const T* last = nullptr;
  std::size_t last_cap = 0;
  for (std::size_t i = 0; i < count; ++i) {
    T e{};
    e.id = i;
    v.push_back(e);
    if (growths != nullptr && v.data() != last) {
      if (last != nullptr)
        growths->push_back(growth{reinterpret_cast<std::uintptr_t>(last),
                                  reinterpret_cast<std::uintptr_t>(v.data()),
                                  last_cap * sizeof(T)});
      last = v.data();
      last_cap = v.capacity();
    }
  }
  std::uint64_t acc = v.size();
  for (const T& e : v) acc = acc * 31 + e.id;
  return acc;
}

template <class T>
int run(int samples, std::size_t count) {
  std::vector<growth> growths;
  std::uint64_t sink = build<T>(count, &growths);  // untimed: where the copies go
  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    sink += build<T>(count, nullptr);
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  std::sort(ns.begin(), ns.end());
  auto q = [&](double f) {
    return ns[static_cast<std::size_t>(f * static_cast<double>(ns.size() - 1))];
  };
  std::string copies;
  for (const growth& g : growths) {
    if (g.bytes < 2048) continue;  // below rep movsb's threshold
    copies += (copies.empty() ? "" : ",") + std::string("{\"bytes\":") + std::to_string(g.bytes) +
              ",\"src_mod64\":" + std::to_string(g.src % 64) +
              ",\"dst_mod64\":" + std::to_string(g.dst % 64) +
              ",\"delta_mod64\":" + std::to_string((g.dst - g.src) % 64) +
              ",\"delta_mod4096\":" + std::to_string((g.dst - g.src) % 4096) + "}";
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::printf(
      "{\"elem_bytes\":%zu,\"count\":%zu,\"samples\":%d,\"p25_ns\":%.0f,\"p50_ns\":%.0f,"
      "\"p75_ns\":%.0f,\"glibc_tunables\":\"%s\",\"copies_over_2KiB\":[%s],\"sink\":%llu}\n",
      sizeof(T), count, samples, q(0.25), q(0.5), q(0.75), tunables ? tunables : "", copies.c_str(),
      static_cast<unsigned long long>(sink % 1000));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int elem = 64;
  int pollute_seed = 0;
  int rounds = 20;
  int samples = 3000;
  bool allow_debug = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--elem" && has_value) {
      elem = std::atoi(argv[++i]);
    } else if (a == "--pollute" && has_value) {
      pollute_seed = std::atoi(argv[++i]);
    } else if (a == "--rounds" && has_value) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--samples" && has_value) {
      samples = std::atoi(argv[++i]);
    } else if (a == "--allow-debug") {  // smoke tests only: the numbers mean nothing
      allow_debug = true;
    } else {
      std::fprintf(stderr,
                   "usage: placement_probe [--elem 16|64] [--pollute SEED] [--rounds N] "
                   "[--samples N] [--allow-debug]\n");
      return 2;
    }
  }
  if ((elem != 16 && elem != 64) || samples < 1 || rounds < 0) {
    std::fputs("placement_probe: --elem is 16 or 64, --samples >= 1, --rounds >= 0\n", stderr);
    return 2;
  }
  if (!alloclab::build::benchmark_ready && !allow_debug) {
    std::fputs(
        "placement_probe: refusing to run: not an optimised build without assertions or "
        "sanitizers (--allow-debug overrides)\n",
        stderr);
    return 2;
  }
  std::vector<void*> kept;
  if (pollute_seed != 0) kept = pollute(static_cast<unsigned>(pollute_seed), rounds);
  const int rc = elem == 16 ? run<element<16>>(samples, 1000) : run<element<64>>(samples, 1000);
  for (void* p : kept) std::free(p);
  return rc;
}
