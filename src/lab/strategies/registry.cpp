#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

std::vector<strategy_entry>& mutable_registry() {
  static std::vector<strategy_entry> entries;
  return entries;
}

// Report order: baseline first, then from least to most specialised.
constexpr const char* display_order[] = {"std",
                                         "pmr_new_delete",
                                         "pmr_monotonic",
                                         "pmr_monotonic_undersized",
                                         "pmr_unsync_pool",
                                         "pmr_sync_pool",
                                         "pmr_monotonic_over_pool",
                                         "alloclab_arena",
                                         "alloclab_arena_static",
                                         "alloclab_pool",
                                         "alloclab_multipool",
                                         "alloclab_multipool_static",
                                         "alloclab_concurrent_multipool"};

std::size_t rank_of(const std::string& name) {
  auto it = std::find(std::begin(display_order), std::end(display_order), name);
  return static_cast<std::size_t>(it - std::begin(display_order));
}

}  // namespace

void register_strategy(strategy_entry entry) {
  auto& all = mutable_registry();
  all.push_back(std::move(entry));
  std::stable_sort(all.begin(), all.end(), [](const strategy_entry& a, const strategy_entry& b) {
    auto ra = rank_of(a.name), rb = rank_of(b.name);
    return ra != rb ? ra < rb : a.name < b.name;
  });
}

const std::vector<strategy_entry>& strategy_registry() {
  return mutable_registry();
}

std::string thread_safety_reason(const strategy_entry& strategy, std::size_t threads) {
  if (threads <= 1 || strategy.thread_safe) return {};
  return fmt::format("not thread-safe: this workload allocates and frees on {} threads at once",
                     threads);
}

const strategy_entry* find_strategy(const std::string& name) {
  const auto& all = strategy_registry();
  auto it =
      std::find_if(all.begin(), all.end(), [&](const strategy_entry& s) { return s.name == name; });
  return it == all.end() ? nullptr : &*it;
}

peer_side side_of(const std::string& strategy) {
  const strategy_entry* entry = find_strategy(strategy);
  return entry == nullptr ? peer_side::neither : entry->side;
}

}  // namespace alloclab::lab
