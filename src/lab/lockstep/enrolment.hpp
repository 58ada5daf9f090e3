// Which lockstep ring the calling thread's next worker joins: the ring (lockstep/ring.hpp) enrols
// each member's thread, and the launcher (schedule/worker_records.cpp) hands the worker its ends
// of the ring's pipes. A leaf: what the launcher needs, nothing of the ring.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace alloclab::lab::lockstep {

struct enrolment {
  int go_read = -1;     // the worker's end of the coordinator's "go" pipe
  int done_write = -1;  // the worker's end of its "done" pipe
  int cpu = -1;         // the CPU the ring's members share (-1: not pinned)
  // More environment for this member's worker (a validation run injects a known cost this way).
  std::vector<std::pair<std::string, std::string>> extra_env;
  // The lab binary this member's worker runs (empty: this one). `compare --paired` rings hold
  // workers of two builds; slice_gate.hpp's protocol_version must match across them.
  std::string program;
  bool active() const { return go_read >= 0 && done_write >= 0; }
};

// The calling thread's enrolment (inactive unless a ring set it).
inline enrolment& thread_enrolment() {
  thread_local enrolment e;
  return e;
}

}  // namespace alloclab::lab::lockstep
