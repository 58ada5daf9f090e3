// Container policies: how a workload obtains allocators for its containers.
// A workload is written once as a template over one of these policies.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/multipool_resource.hpp>

namespace alloclab::lab {

// Shared container vocabulary: every alias is parameterised by the policy's allocator template.
template <class Policy>
struct containers {
  template <class T>
  using allocator = typename Policy::template allocator<T>;
  template <class T>
  using vector = std::vector<T, allocator<T>>;
  using string = std::basic_string<char, std::char_traits<char>, allocator<char>>;
  template <class K, class V>
  using map = std::map<K, V, std::less<K>, allocator<std::pair<const K, V>>>;
  template <class T>
  using deque = std::deque<T, allocator<T>>;
};

// Helpers every policy gets, so workloads never spell out allocator construction.
template <class Derived>
struct policy_helpers {
  template <class T>
  auto make_vector() const {
    return typename containers<Derived>::template vector<T>(self().template alloc<T>());
  }
  auto make_string() const {
    return typename containers<Derived>::string(self().template alloc<char>());
  }
  auto make_string(std::string_view text) const {
    return typename containers<Derived>::string(text.data(), text.size(),
                                                self().template alloc<char>());
  }
  template <class K, class V>
  auto make_map() const {
    return typename containers<Derived>::template map<K, V>(
        self().template alloc<std::pair<const K, V>>());
  }
  template <class T>
  auto make_deque() const {
    return typename containers<Derived>::template deque<T>(self().template alloc<T>());
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// std::allocator: the global heap.
struct std_policy : policy_helpers<std_policy> {
  template <class T>
  using allocator = std::allocator<T>;
  template <class T>
  allocator<T> alloc() const {
    return {};
  }
};

// std::pmr::polymorphic_allocator: a virtual call into whatever resource the strategy chose.
struct pmr_policy : policy_helpers<pmr_policy> {
  std::pmr::memory_resource* resource;
  explicit pmr_policy(std::pmr::memory_resource* r) : resource(r) {}
  template <class T>
  using allocator = std::pmr::polymorphic_allocator<T>;
  template <class T>
  allocator<T> alloc() const {
    return allocator<T>(resource);
  }
};

// alloclab::allocator over a concrete resource: no virtual call, so the arena's bump or the
// multipool's size-class lookup inlines into the workload.
template <class Resource>
struct static_policy : policy_helpers<static_policy<Resource>> {
  Resource* resource;
  explicit static_policy(Resource* r) : resource(r) {}
  template <class T>
  using allocator = alloclab::allocator<T, Resource>;
  template <class T>
  allocator<T> alloc() const {
    return allocator<T>(resource);
  }
};

using arena_static_policy = static_policy<alloclab::arena_resource>;
using multipool_static_policy = static_policy<alloclab::multipool_resource>;

}  // namespace alloclab::lab
