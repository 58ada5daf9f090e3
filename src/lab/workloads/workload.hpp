// Workload registry. A workload is a type with
//   static constexpr const char* name, description;
//   struct input;                                        // generated once per run from the seed
//   static input make_input(std::uint64_t seed);
//   template <class Policy> static std::uint64_t run(const Policy&, const input&);  // one iteration -> checksum
//   static constexpr std::size_t threads = N;            // optional: threads that allocate at once
// and one line `LAB_REGISTER_WORKLOAD(type);` in its own .cpp file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "iteration_source.hpp"
#include "policy.hpp"

namespace alloclab::lab {

using prepared_input = std::shared_ptr<const void>;
// Runs `iterations` iterations back to back and returns the sum of their checksums.
using batch_function = std::uint64_t (*)(const void* input, iteration_source& source,
                                         std::size_t iterations);

struct workload_entry {
  std::string name;
  std::string description;
  prepared_input (*prepare)(std::uint64_t seed);
  batch_function run_batch;
  // Threads that allocate and free at the same time in one iteration (1: the calling thread only).
  std::size_t threads = 1;
};

const std::vector<workload_entry>& workload_registry();
const workload_entry* find_workload(const std::string& name);
void register_workload(workload_entry entry);

namespace detail {

template <class W, class Policy>
std::uint64_t loop(const Policy& policy, const typename W::input& in, iteration_source& source,
                   std::size_t n) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += W::run(policy, in);
    source.end_iteration();
  }
  return sum;
}

template <class W>
std::uint64_t run_batch(const void* input, iteration_source& source, std::size_t n) {
  const auto& in = *static_cast<const typename W::input*>(input);
  switch (source.kind()) {
    case allocator_kind::standard:
      return loop<W>(std_policy{}, in, source, n);
    case allocator_kind::polymorphic:
      return loop<W>(pmr_policy{source.resource()}, in, source, n);
    case allocator_kind::arena_static:
      return loop<W>(arena_static_policy{source.arena()}, in, source, n);
    case allocator_kind::multipool_static:
      return loop<W>(multipool_static_policy{source.multipool()}, in, source, n);
  }
  throw std::logic_error("allocator kind not available in this build");
}

template <class W, class = void>
struct threads_of {
  static constexpr std::size_t value = 1;
};
template <class W>
struct threads_of<W, std::void_t<decltype(W::threads)>> {
  static constexpr std::size_t value = W::threads;
};

template <class W>
prepared_input prepare(std::uint64_t seed) {
  return std::make_shared<const typename W::input>(W::make_input(seed));
}

struct workload_registrar {
  explicit workload_registrar(workload_entry entry) { register_workload(std::move(entry)); }
};

}  // namespace detail
}  // namespace alloclab::lab

#define LAB_REGISTER_WORKLOAD(type)                                               \
  static const ::alloclab::lab::detail::workload_registrar lab_registrar_##type { \
    ::alloclab::lab::workload_entry {                                             \
      type::name, type::description, &::alloclab::lab::detail::prepare<type>,     \
          &::alloclab::lab::detail::run_batch<type>,                              \
          ::alloclab::lab::detail::threads_of<type>::value                        \
    }                                                                             \
  }
