#include "measure/address_residues.hpp"

#include <algorithm>
#include <utility>

#include "measure/copy_cliff.hpp"
#include "measure/heap_counter.hpp"

namespace alloclab::lab {

namespace {

constexpr std::size_t table_slots = 2 * address_residue_recorder::growth_table_capacity;

std::size_t slot_of(std::size_t bytes, unsigned src, unsigned dst) noexcept {
  std::uint64_t h = bytes * 0x9E3779B97F4A7C15ULL;
  h ^= (std::uint64_t{src} << 12 | dst) * 0xC2B2AE3D27D4EB4FULL;
  return static_cast<std::size_t>(h >> 32) % table_slots;
}

/// {"distinct": n, "top": [[residue, count] x up to 8, most frequent first]}
nlohmann::json sparse_histogram(const std::vector<std::uint64_t>& counts) {
  std::vector<std::pair<std::size_t, std::uint64_t>> used;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != 0) used.emplace_back(i, counts[i]);
  const std::size_t distinct = used.size();
  std::stable_sort(used.begin(), used.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (used.size() > 8) used.resize(8);
  nlohmann::json top = nlohmann::json::array();
  for (const auto& [residue, count] : used) top.push_back(nlohmann::json::array({residue, count}));
  return nlohmann::json{{"distinct", distinct}, {"top", top}};
}

}  // namespace

address_residue_recorder::address_residue_recorder()
    : mod4096_(4096, 0), delta4096_(4096, 0), table_(table_slots) {
  order_.reserve(growth_table_capacity);
}

void address_residue_recorder::record(const void* p, std::size_t bytes) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  ++blocks_;
  ++mod64_[address % 64];
  ++mod4096_[address % 4096];
  if (have_previous_ && bytes > previous_bytes_) {
    const auto src = static_cast<unsigned>(previous_ % 4096);
    const auto dst = static_cast<unsigned>(address % 4096);
    ++growth_copies_;
    ++delta64_[(address - previous_) % 64];
    ++delta4096_[(address - previous_) % 4096];
    std::size_t i = slot_of(previous_bytes_, src, dst);
    for (;;) {  // linear probing; the table is never more than half full
      growth_copy& g = table_[i];
      if (g.count == 0) {
        if (order_.size() == growth_table_capacity) {
          ++overflow_;
          break;
        }
        g = growth_copy{previous_bytes_, src, dst, 1};
        order_.push_back(static_cast<std::uint32_t>(i));  // capacity reserved: no allocation
        break;
      }
      if (g.bytes == previous_bytes_ && g.src_mod4096 == src && g.dst_mod4096 == dst) {
        ++g.count;
        break;
      }
      i = (i + 1) % table_slots;
    }
  }
  have_previous_ = true;
  previous_ = address;
  previous_bytes_ = bytes;
}

std::vector<growth_copy> address_residue_recorder::growth_placements() const {
  std::vector<growth_copy> out;
  out.reserve(order_.size());
  for (std::uint32_t i : order_) out.push_back(table_[i]);
  return out;
}

std::uint64_t copies_on_cliff(const address_residue_recorder& r, const copy_cliff_result& cliffs) {
  std::uint64_t n = 0;
  for (const growth_copy& g : r.growth_placements())
    if (cliffs.on_cliff(g.bytes, g.delta_mod4096())) n += g.count;
  return n;
}

nlohmann::json to_json(const address_residue_recorder& r, const copy_cliff_result* cliffs) {
  using nlohmann::json;
  json j{{"blocks", r.blocks()},
         {"mod64", r.mod64()},
         {"mod4096", sparse_histogram(r.mod4096())},
         {"growth_copies", r.growth_copies()},
         {"growth_delta_mod64", r.growth_delta_mod64()},
         {"growth_delta_mod4096", sparse_histogram(r.growth_delta_mod4096())},
         {"growth_overflow", r.overflow()},
         {"copies_on_cliff", nullptr},
         {"fraction_on_cliff", nullptr}};
  const std::uint64_t classified = r.growth_copies() - r.overflow();
  if (cliffs != nullptr) {
    const std::uint64_t on = copies_on_cliff(r, *cliffs);
    j["copies_on_cliff"] = on;
    if (classified > 0)
      j["fraction_on_cliff"] = static_cast<double>(on) / static_cast<double>(classified);
  }
  return j;
}

void* residue_recording_resource::do_allocate(std::size_t bytes, std::size_t alignment) {
  void* p = upstream_->allocate(bytes, alignment);
  recorder_->record(p, bytes);
  return p;
}

void residue_recording_resource::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  upstream_->deallocate(p, bytes, alignment);
}

bool residue_recording_resource::do_is_equal(
    const std::pmr::memory_resource& other) const noexcept {
  return this == &other;
}

scoped_malloc_residue_recording::scoped_malloc_residue_recording(
    address_residue_recorder* recorder) noexcept {
  if (recorder == nullptr) return;  // nothing to record (the destructor's reset is harmless)
  set_allocation_observer(
      [](void* context, const void* p, std::size_t bytes) noexcept {
        static_cast<address_residue_recorder*>(context)->record(p, bytes);
      },
      recorder);
}

scoped_malloc_residue_recording::~scoped_malloc_residue_recording() {
  set_allocation_observer(nullptr, nullptr);
}

}  // namespace alloclab::lab
