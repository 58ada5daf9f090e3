#include "frames/heap/heap_workloads.hpp"

#include <fmt/format.h>

namespace alloclab::lab {
namespace {

namespace heap = alloclab::heap;

std::string describe(heap::kernel_kind kernel, heap::size_dist dist) {
  const char* how = "";
  switch (kernel) {
    case heap::kernel_kind::fifo:
      how = "seed 003: batches of 100 blocks into a FIFO of 1000, oldest 100 freed when full";
      break;
    case heap::kernel_kind::lifo:
      how = "like fifo but the newest 100 are freed (stack-like, the benign case)";
      break;
    case heap::kernel_kind::xthread:
      how = "one thread allocates batches of 100, another frees them (bounded queue, CPU time)";
      break;
  }
  const char* sizes = "";
  switch (dist) {
    case heap::size_dist::uniform:
      sizes = "uniform sizes 4..0x7FFFF";
      break;
    case heap::size_dist::exponential:
      sizes = "exponential sizes (mean 8 KiB)";
      break;
    case heap::size_dist::lognormal:
      sizes = "log-normal sizes (mode 64 B)";
      break;
  }
  return fmt::format("{}; {}", how, sizes);
}

std::string describe(heap::kernel_kind kernel, heap::size_dist dist, heap::touch_mode touch) {
  return describe(kernel, dist) + (touch == heap::touch_mode::once
                                       ? "; one write per block (seed 003's method)"
                                       : "; every page of every block written (page-touching)");
}

}  // namespace

const std::vector<heap_workload>& heap_workload_registry() {
  static const std::vector<heap_workload> all = [] {
    std::vector<heap_workload> list;
    for (heap::touch_mode t : {heap::touch_mode::once, heap::touch_mode::every_page})
      for (heap::kernel_kind k : heap::all_kernel_kinds())
        for (heap::size_dist d : heap::all_size_dists())
          list.push_back({fmt::format("{}_{}{}", heap::to_string(k), heap::to_string(d),
                                      t == heap::touch_mode::once ? "" : "_pages"),
                          describe(k, d, t), k, d, t});
    return list;
  }();
  return all;
}

const heap_workload* find_heap_workload(const std::string& name) {
  for (const auto& w : heap_workload_registry())
    if (w.name == name) return &w;
  return nullptr;
}

std::vector<std::string> heap_workload_family(const std::string& name) {
  std::vector<std::string> members;
  const std::string suffix = "_pages";
  const bool pages = name.size() > suffix.size() &&
                     name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string kernel = pages ? name.substr(0, name.size() - suffix.size()) : name;
  if (!heap::parse_kernel_kind(kernel)) return members;
  const heap::touch_mode touch = pages ? heap::touch_mode::every_page : heap::touch_mode::once;
  for (const auto& w : heap_workload_registry())
    if (heap::to_string(w.kernel) == kernel && w.touch == touch) members.push_back(w.name);
  return members;
}

const workload_catalogue& heap_workload_catalogue() {
  static const workload_catalogue catalogue{
      "heap-study workloads (malloc-level kernels, one isolated worker per cell; the strategy "
      "axis is n/a: they run with strategy 'malloc' only; the default suite has the cells a seed "
      "claim needs):",
      [] { return collect(heap_workload_registry(), listing_of<heap_workload>); },
      heap_workload_family,
      "a heap family: fifo, lifo, xthread; add _pages for the page-touching variants"};
  return catalogue;
}

}  // namespace alloclab::lab
