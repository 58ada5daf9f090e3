// Lockstep, the parent's side: runs the members of a ring (the cells of one comparison group,
// each in its own fresh worker process) at the same time, and lets them time their slices one
// at a time, in a fresh random order each cycle. Slice k of every member lies within one cycle,
// so the ratio of two members' slice-k figures is a paired reading: both sides met the machine
// in the same state (lockstep/slice_gate.hpp has the protocol).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace alloclab::lab::lockstep {

struct ring_options {
  int cpu = -1;            // the CPU the members time on (-1: wherever the kernel puts them)
  std::uint64_t seed = 0;  // of the order within each cycle
};

// What the ring saw: the cycles it ran and, per member, the slices it timed.
struct ring_account {
  std::size_t cycles = 0;
  std::vector<std::size_t> slices;  // per member
};

// Runs `members` (each starts one worker through the launcher, which the ring enrols: see
// enrolment.hpp), each on a thread of its own, and coordinates their slices until every member's
// worker is gone. A member that starts no worker, fails or is killed simply leaves the ring.
// Exceptions of a member (an interrupt) are rethrown here after every member has ended.
ring_account run_ring(const std::vector<std::function<void()>>& members,
                      const ring_options& options);

// The CPU a ring pins to: the first one this process may run on (-1 when unknown); the
// simulation queue (simulate/queue.hpp) takes the highest other one.
int ring_cpu();

}  // namespace alloclab::lab::lockstep
