// Records where blocks land (address residues) during the untimed counted pass, so a report can
// tell a ratio driven by buffer placement (memmove cost by relative alignment) from one driven by
// the allocator's own cost. Two sources: every global operator new while counting (heap_counter),
// and a pmr resource wrapper for strategies that allocate from a memory_resource.
#pragma once

#include <cstdint>
#include <memory_resource>

#include "measure/measurement.hpp"
#include "workloads/iteration_source.hpp"

namespace alloclab::lab {

class address_recorder {
 public:
  address_recorder() { reset(); }
  void reset() {
    residues_.mod64.assign(64, 0);
    residues_.page_line.assign(64, 0);
    residues_.relative_mod64.assign(64, 0);
    previous_ = 0;
  }
  void note(const void* p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    ++residues_.mod64[address % 64];
    ++residues_.page_line[(address % 4096) / 64];
    if (previous_ != 0) ++residues_.relative_mod64[(address - previous_) % 64];
    previous_ = address;
  }
  const address_residues& residues() const { return residues_; }

 private:
  address_residues residues_;
  std::uintptr_t previous_ = 0;
};

// Forwards to a strategy's resource and records each block's address.
class recording_resource final : public std::pmr::memory_resource {
 public:
  recording_resource(std::pmr::memory_resource* upstream, address_recorder& recorder)
      : upstream_(upstream), recorder_(recorder) {}

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    void* p = upstream_->allocate(bytes, alignment);
    recorder_.note(p);
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    upstream_->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::pmr::memory_resource* upstream_;
  address_recorder& recorder_;
};

// A strategy seen through a recording resource (polymorphic kinds); other kinds pass through.
class recording_source final : public iteration_source {
 public:
  recording_source(iteration_source& inner, address_recorder& recorder)
      : inner_(inner), recording_(inner.resource() ? inner.resource() : nullptr, recorder) {}
  allocator_kind kind() const override { return inner_.kind(); }
  std::pmr::memory_resource* resource() override {
    return inner_.resource() ? &recording_ : nullptr;
  }
  alloclab::arena_resource* arena() override { return inner_.arena(); }
  void end_iteration() override { inner_.end_iteration(); }

 private:
  iteration_source& inner_;
  recording_resource recording_;
};

}  // namespace alloclab::lab
