#include "sizing.hpp"

#include "counting_resource.hpp"

#include <alloclab/synchronized_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include "stats/log2_histogram.hpp"

namespace alloclab::lab {
namespace {

class tracking_source final : public iteration_source {
 public:
  explicit tracking_source(std::pmr::memory_resource* r) : resource_(r) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return resource_; }

 private:
  std::pmr::memory_resource* resource_;
};

// tracking_resource counts by bit width (bucket b: [2^(b-1), 2^b)); results use log2 bands.
log2_histogram to_log2_bands(const alloclab::tracking_resource::histogram_type& by_width) {
  log2_histogram bands{};
  for (std::size_t b = 0; b < by_width.size(); ++b) bands[b == 0 ? 0 : b - 1] += by_width[b];
  return bands;
}

}  // namespace

workload_footprint measure_footprint(const workload_entry& workload, const void* input) {
  counting_resource counter(std::pmr::new_delete_resource());
  alloclab::tracking_resource tracker(&counter);
  // A multithreaded workload's threads share the tracker through one lock.
  alloclab::synchronized_resource<alloclab::tracking_resource> shared(&tracker);
  tracking_source source(workload.threads > 1 ? static_cast<std::pmr::memory_resource*>(&shared)
                                              : &tracker);
  workload.run_batch(input, source, 1);

  workload_footprint f;
  f.allocations = tracker.blocks().total;
  f.bytes_requested = tracker.bytes().total;
  f.peak_bytes = tracker.bytes().peak;
  f.peak_blocks = tracker.blocks().peak;
  f.largest_request = counter.largest_request();
  f.monotonic_footprint = tracker.monotonic_footprint();
  f.suggested_arena_bytes = tracker.suggested_arena_size(arena_margin);
  f.size_histogram_log2 = trimmed_counts(to_log2_bands(tracker.histogram()));
  return f;
}

}  // namespace alloclab::lab
