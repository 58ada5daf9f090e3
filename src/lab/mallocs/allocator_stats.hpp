// The live malloc's own statistics, whichever malloc that is, found at run time: the malloc is
// identified as allocator_purge::find() does (the object that defines `malloc`; its malloc table
// entry is the first with that purge), and its statistics are read through the entry point that
// object exports, the reader its table entry names. Nothing is linked at build
// time.
//
// | malloc   | read through                                    | statistics (bytes)               |
// |----------|-------------------------------------------------|----------------------------------|
// | glibc    | mallinfo2()                                     | arena, mmapped, in_use, free,    |
// |          |                                                 | releasable (keepcost)            |
// | jemalloc | mallctl("epoch") then mallctl("stats.<name>")   | allocated, active, metadata,     |
// |          |                                                 | resident, mapped, retained       |
// | mimalloc | mi_process_info()                               | current_rss, peak_rss,           |
// |          |                                                 | current_commit, peak_commit      |
// | tcmalloc | MallocExtension_GetNumericProperty()            | allocated, heap_size,            |
// |          |                                                 | pageheap_free, pageheap_unmapped |
// | dlmalloc | dlmallinfo(), dlmalloc_footprint(),             | arena, mmapped, in_use, free,    |
// |          | dlmalloc_max_footprint()                        | releasable, footprint,           |
// |          |                                                 | max_footprint                    |
// | newlib   | alloclab_newlib_heap_bytes() (the lab's preload) | heap                             |
// | other    | nothing: `reason` says why                      |                                  |
//
// Cost: each read takes the malloc's own statistics lock(s) once (glibc's mallinfo2 locks each
// arena in turn while it walks its free bins; jemalloc's epoch merges per-arena counters), so a
// reader must not sit on a measured path: `alloclab serve` reads them only when /metrics is
// scraped.
//
// Example:
//   const alloclab::mallocs::allocator_stats_reader reader;      // finds the malloc once
//   for (const auto& s : reader.read().stats) std::printf("%s %s %.0f\n",
//       reader.allocator().c_str(), s.name.c_str(), s.bytes);  // glibc in_use 123456 ...
#pragma once

#include <string>
#include <vector>

#include <alloclab/allocator_purge.hpp>

namespace alloclab::mallocs {

struct allocator_stat {
  std::string name;  // as in the table above
  double bytes = 0;
};

struct allocator_stats {
  std::vector<allocator_stat> stats;  // empty when the malloc has none readable
  std::string reason;                 // empty, or why nothing was read
};

/// Each malloc's statistics, named in its malloc table entry (the table above).
allocator_stats read_glibc_stats();
allocator_stats read_jemalloc_stats();
allocator_stats read_mimalloc_stats();
allocator_stats read_tcmalloc_stats();
allocator_stats read_dlmalloc_stats();
allocator_stats read_newlib_stats();

struct malloc_entry;

class allocator_stats_reader {
 public:
  // Finds the live malloc (dlsym/dladdr) once.
  allocator_stats_reader();
  // "glibc", "jemalloc", "mimalloc", "tcmalloc", "tbbmalloc", "dlmalloc", "newlib" or
  // "unknown" (newlib_nano too: it has no purge, by which the malloc is recognised).
  const std::string& allocator() const { return allocator_; }
  allocator_stats read() const;

 private:
  const malloc_entry* entry_ = nullptr;  // the live malloc's table entry; nullptr: unknown
  std::string allocator_;
  std::string find_reason_;
};

}  // namespace alloclab::mallocs
