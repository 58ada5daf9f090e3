// What the simulation leaves out, counted in a normal run of the same region: the kernel's work
// for the process. Syscalls come from `strace -f -o FILE -e trace=<syscalls>,write` of the worker
// (the region's ends are its markers, region.hpp); faults and context switches from getrusage.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace alloclab::lab::simulate {

// The memory syscalls counted: what an allocator asks the kernel for.
const std::vector<std::string>& counted_syscalls();

// The `-e trace=` list for strace: counted_syscalls() and write (for the markers).
std::string strace_filter();

// Each counted syscall made between the markers of `region` in strace's output (-f: any
// thread), by name; every counted name is present. Throws std::runtime_error when the region's
// markers are not both there.
std::map<std::string, std::int64_t> syscalls_in_region(std::string_view strace_output,
                                                       const std::string& region);

}  // namespace alloclab::lab::simulate
