#include <algorithm>
#include <iterator>

#include "catalogue.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {
std::vector<workload_entry>& mutable_registry() {
  static std::vector<workload_entry> entries;
  return entries;
}
}  // namespace

const std::vector<workload_entry>& workload_registry() {
  return mutable_registry();
}

// The default suite runs in the seeds' order; anything else (e.g. test workloads) sorts after it.
static constexpr const char* suite_order[] = {
    "vector_push", "vector_push_reserve", "strings_sso",      "strings_heap",  "string_concat",
    "map_int",     "map_string",          "sensor_frame",     "message_queue", "trade_batch",
    "log_lines",   "request_mix",         "message_queue_mt", "request_mix_mt"};

static std::size_t rank_of(const std::string& name) {
  auto it = std::find(std::begin(suite_order), std::end(suite_order), name);
  return static_cast<std::size_t>(it - std::begin(suite_order));
}

void register_workload(workload_entry entry) {
  auto& all = mutable_registry();
  all.push_back(std::move(entry));
  std::stable_sort(all.begin(), all.end(), [](const workload_entry& a, const workload_entry& b) {
    auto ra = rank_of(a.name), rb = rank_of(b.name);
    return ra != rb ? ra < rb : a.name < b.name;
  });
}

const workload_entry* find_workload(const std::string& name) {
  const auto& all = workload_registry();
  auto it =
      std::find_if(all.begin(), all.end(), [&](const workload_entry& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

const workload_catalogue& lab_workload_catalogue() {
  static const workload_catalogue catalogue{
      "workloads (lab: any in-process strategy x any malloc):",
      [] { return collect(workload_registry(), listing_of<workload_entry>); }, nullptr, ""};
  return catalogue;
}

}  // namespace alloclab::lab
