// multipool_memory: how much memory a pool keeps for seed 003's log-normal workload (issue 9's
// memory target: peak RSS <= 1.2x peak live bytes over a multipool, libstdc++'s and Boost's pools
// beside it).
//
// Workload (seed 003, the heap study's fifo_lognormal): a FIFO ring of 1000 blocks; each step
// allocates a batch of 100 blocks, first freeing the oldest 100 when the ring is full. Sizes are
// log-normal (mode 64 B, sigma 1.5), clipped to 4 .. 0x7FFFF bytes, drawn once up front with a
// fixed seed (the same sizes for every resource). Every block gets one write per 4 KiB page, so
// the pages a resource hands out are resident.
//
// Each resource runs in a fresh process of its own (this program re-executes itself with
// --resource NAME), so one's retained memory cannot lower another's figure. In the child:
// sizes and ring are allocated and touched first, then the peak-RSS mark is reset
// (/proc/self/clear_refs = 5) and RSS read as the baseline; after the run, VmHWM - baseline is
// the resource's peak RSS growth, compared with the peak of the live requested bytes.
//
//   multipool_memory [--allow-debug] [--steps N]   prints a Markdown table, one row per resource
#include <alloclab/build_info.hpp>
#include <alloclab/multipool_resource.hpp>

#include <boost/container/pmr/global_resource.hpp>
#include <boost/container/pmr/memory_resource.hpp>
#include <boost/container/pmr/unsynchronized_pool_resource.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <memory_resource>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::size_t ring_capacity = 1000;  // seed 003
constexpr std::size_t batch = 100;           // seed 003
constexpr std::uint32_t min_size = 0x4, max_size = 0x7FFFF;

std::vector<std::uint32_t> lognormal_sizes(std::size_t count) {
  std::mt19937_64 random(3);
  const double sigma = 1.5, mode = 64.0;
  std::lognormal_distribution<double> size(std::log(mode) + sigma * sigma, sigma);
  std::vector<std::uint32_t> sizes(count);
  for (auto& s : sizes) {
    const double v = std::round(size(random));
    s = v < min_size ? min_size : v > max_size ? max_size : static_cast<std::uint32_t>(v);
  }
  return sizes;
}

long status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::strtol(line.c_str() + std::strlen(key), nullptr, 10);
  return -1;
}

bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

void run_child(const std::string& name, std::size_t steps) {
  const std::vector<std::uint32_t> sizes = lognormal_sizes(steps * batch);
  struct slot {
    void* p;
    std::uint32_t size;
  };
  std::vector<slot> ring(ring_capacity, slot{nullptr, 0});

  alloclab::multipool_options pooled_all;
  pooled_all.max_block_size = 1 << 20;
  std::pmr::pool_options std_all;
  std_all.largest_required_pool_block = 1 << 20;
  boost::container::pmr::pool_options boost_all;
  boost_all.largest_required_pool_block = 1 << 20;

  std::unique_ptr<std::pmr::memory_resource> std_resource;
  std::unique_ptr<boost::container::pmr::memory_resource> boost_resource;
  if (name == "multipool_4KiB")
    std_resource = std::make_unique<alloclab::multipool_resource>(std::pmr::new_delete_resource());
  else if (name == "multipool_1MiB")
    std_resource =
        std::make_unique<alloclab::multipool_resource>(std::pmr::new_delete_resource(), pooled_all);
  else if (name == "std_unsync_pool")
    std_resource =
        std::make_unique<std::pmr::unsynchronized_pool_resource>(std::pmr::new_delete_resource());
  else if (name == "std_unsync_pool_1MiB")
    std_resource = std::make_unique<std::pmr::unsynchronized_pool_resource>(
        std_all, std::pmr::new_delete_resource());
  else if (name == "boost_unsync_pool")
    boost_resource = std::make_unique<boost::container::pmr::unsynchronized_pool_resource>(
        boost::container::pmr::new_delete_resource());
  else if (name == "boost_unsync_pool_1MiB")
    boost_resource = std::make_unique<boost::container::pmr::unsynchronized_pool_resource>(
        boost_all, boost::container::pmr::new_delete_resource());
  else if (name != "glibc_malloc") {
    std::fprintf(stderr, "multipool_memory: unknown resource %s\n", name.c_str());
    std::exit(2);
  }
  auto allocate = [&](std::size_t n) -> void* {
    if (std_resource) return std_resource->allocate(n, 8);
    if (boost_resource) return boost_resource->allocate(n, 8);
    return std::malloc(n);
  };
  auto deallocate = [&](void* p, std::size_t n) {
    if (std_resource)
      std_resource->deallocate(p, n, 8);
    else if (boost_resource)
      boost_resource->deallocate(p, n, 8);
    else
      std::free(p);
  };

  const bool reset = reset_peak_rss();
  const long baseline_kib = status_kib("VmRSS:");
  std::size_t head = 0, count = 0, live = 0, peak_live = 0, next = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    if (count + batch > ring_capacity)
      for (std::size_t k = 0; k < batch; ++k, --count) {
        slot& s = ring[head];
        deallocate(s.p, s.size);
        live -= s.size;
        head = (head + 1) % ring_capacity;
      }
    for (std::size_t k = 0; k < batch; ++k, ++count) {
      const std::uint32_t n = sizes[next++];
      auto* p = static_cast<unsigned char*>(allocate(n));
      for (std::size_t page = 0; page < n; page += 4096) p[page] = 1;  // one write per page
      ring[(head + count) % ring_capacity] = slot{p, n};
      live += n;
      if (live > peak_live) peak_live = live;
    }
  }
  const long peak_kib = status_kib("VmHWM:");
  while (count > 0) {
    slot& s = ring[head];
    deallocate(s.p, s.size);
    head = (head + 1) % ring_capacity;
    --count;
  }
  std::printf("%s %zu %ld %ld %d\n", name.c_str(), peak_live, baseline_kib, peak_kib,
              reset ? 1 : 0);
}

// What any pool that keeps each class's freed blocks for that class must hold at least: the sum
// over classes of (most blocks of the class live at once x its block size), plus the peak of the
// bytes forwarded to the upstream. Simulated from the same size stream, nothing allocated.
double per_class_peak_bound(std::size_t max_block_size, std::size_t steps) {
  alloclab::multipool_options options;
  options.max_block_size = max_block_size;
  const alloclab::multipool_resource pool(std::pmr::null_memory_resource(), options);
  const std::vector<std::uint32_t> sizes = lognormal_sizes(steps * batch);
  std::vector<std::size_t> live(pool.class_count()), peak(pool.class_count());
  std::size_t forwarded = 0, forwarded_peak = 0, head = 0, count = 0;
  std::vector<std::uint32_t> ring(ring_capacity);
  auto change = [&](std::uint32_t n, bool add) {
    const std::size_t c = pool.class_of(n, 8);
    if (c == alloclab::multipool_resource::no_class) {
      forwarded = add ? forwarded + n : forwarded - n;
      forwarded_peak = std::max(forwarded_peak, forwarded);
    } else {
      live[c] = add ? live[c] + 1 : live[c] - 1;
      peak[c] = std::max(peak[c], live[c]);
    }
  };
  for (std::size_t step = 0, next = 0; step < steps; ++step) {
    if (count + batch > ring_capacity)
      for (std::size_t k = 0; k < batch; ++k, --count, head = (head + 1) % ring_capacity)
        change(ring[head], false);
    for (std::size_t k = 0; k < batch; ++k, ++count) {
      ring[(head + count) % ring_capacity] = sizes[next];
      change(sizes[next++], true);
    }
  }
  double bound = static_cast<double>(forwarded_peak);
  for (std::size_t c = 0; c < peak.size(); ++c)
    bound += static_cast<double>(peak[c] * pool.class_stats(c).block_size);
  return bound;
}

}  // namespace

int main(int argc, char** argv) {
  bool allow_debug = false;
  std::size_t steps = 20000;
  std::string child;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--allow-debug") {
      allow_debug = true;
    } else if (arg == "--steps" && i + 1 < argc) {
      steps = std::strtoul(argv[++i], nullptr, 10);
    } else if (arg == "--resource" && i + 1 < argc) {
      child = argv[++i];
    } else {
      std::fprintf(stderr, "usage: multipool_memory [--allow-debug] [--steps N]\n");
      return 2;
    }
  }
  if (steps == 0) {
    std::fprintf(stderr, "multipool_memory: --steps must be > 0\n");
    return 2;
  }
  if (!child.empty()) {
    run_child(child, steps);
    return 0;
  }
  if (!alloclab::build::benchmark_ready && !allow_debug) {
    std::fprintf(stderr, "multipool_memory: not an optimised build (%s); --allow-debug to run\n",
                 alloclab::build::describe());
    return 2;
  }
  std::printf(
      "seed 003 fifo, log-normal sizes (mode 64 B, sigma 1.5, 4..0x7FFFF B), ring 1000, batch "
      "100, %zu steps; one fresh process per resource\n\n",
      steps);
  std::printf(
      "| resource | peak live | peak RSS growth | RSS growth / peak live | target <= 1.2x | "
      "per-class peak bound / peak live |\n"
      "|---|---:|---:|---:|---|---:|\n");
  char path[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) {
    std::fprintf(stderr, "multipool_memory: cannot find its own executable\n");
    return 1;
  }
  const std::string self(path, static_cast<std::size_t>(length));
  int failures = 0;
  for (const char* name :
       {"multipool_4KiB", "multipool_1MiB", "std_unsync_pool", "std_unsync_pool_1MiB",
        "boost_unsync_pool", "boost_unsync_pool_1MiB", "glibc_malloc"}) {
    const std::string command =
        "'" + self + "' --resource " + std::string(name) + " --steps " + std::to_string(steps);
    FILE* pipe = popen(command.c_str(), "r");
    char line[256] = {};
    const bool read = pipe != nullptr && std::fgets(line, sizeof line, pipe) != nullptr;
    const int status = pipe != nullptr ? pclose(pipe) : -1;
    char got[64] = {};
    std::size_t peak_live = 0;
    long baseline = 0, peak = 0;
    int reset = 0;
    if (!read || status != 0 ||
        std::sscanf(line, "%63s %zu %ld %ld %d", got, &peak_live, &baseline, &peak, &reset) != 5 ||
        reset != 1) {
      std::printf("| %s | failed (%s) | | | |\n", name,
                  read && reset == 0 ? "could not reset the peak RSS mark" : "no result");
      ++failures;
      continue;
    }
    const double growth = static_cast<double>(peak - baseline) * 1024.0;
    const double ratio = growth / static_cast<double>(peak_live);
    const bool ours = std::string(name).rfind("multipool", 0) == 0;
    std::string bound = "-";
    if (ours) {
      const std::size_t max_block = std::string(name) == "multipool_1MiB" ? 1 << 20 : 4096;
      bound =
          std::to_string(per_class_peak_bound(max_block, steps) / static_cast<double>(peak_live));
      bound = bound.substr(0, bound.find('.') + 3) + "x";
    }
    std::printf("| %s | %.2f MiB | %.2f MiB | %.2fx | %s | %s |\n", name,
                static_cast<double>(peak_live) / 1048576.0, growth / 1048576.0, ratio,
                !ours          ? "(peer)"
                : ratio <= 1.2 ? "met"
                               : "missed",
                bound.c_str());
  }
  return failures == 0 ? 0 : 1;
}
