// Lockstep, the worker's side: a measuring worker started as a member of a lockstep ring
// (lockstep/ring.hpp) times its repetitions ("slices") only when the ring's coordinator hands it
// the token, so the members of a ring never run at the same moment and each slice of one member
// sits right beside a slice of every other: the machine's state (a neighbour's load, the host's
// slow level) is shared by every side of a comparison.
//
// Protocol, over two pipes the worker inherits as descriptors 3 and 4 (named in the environment
// variable ALLOCLAB_LOCKSTEP, "<go fd>,<done fd>,<cpu>"):
//   worker -> coordinator  'R'  ready: set up, warm, waiting for its first slice
//   coordinator -> worker  'G'  go: time one slice
//   worker -> coordinator  'D'  done: the slice is over
//   worker -> coordinator  'E'  end: no more slices (what it does next is untimed)
// A worker that exits closes its pipes; a coordinator that is gone (EOF) lets the worker go on
// alone. Without the variable every call is a no-op: a worker outside a ring runs as before.
#pragma once

#include <string>

namespace alloclab::lab::lockstep {

inline constexpr const char* environment_variable = "ALLOCLAB_LOCKSTEP";
// The protocol above; a ring may hold workers of two builds only when theirs agree.
inline constexpr int protocol_version = 1;
inline constexpr int go_descriptor = 3;
inline constexpr int done_descriptor = 4;

class slice_gate {
 public:
  // Reads the ring from `setting` (the variable's value; empty: not in a ring).
  explicit slice_gate(const std::string& setting);

  // Waits for the token. The first call announces the worker ready and, when `may_pin` (a
  // single-threaded workload) and the ring names a CPU, pins the process to it.
  void begin(bool may_pin = true);
  // Hands the token back.
  void end();
  // Leaves the ring after the last slice, so the others need not wait for this worker's exit.
  void finish();

  bool in_ring() const { return go_ >= 0; }

 private:
  void leave();

  int go_ = -1;
  int done_ = -1;
  int cpu_ = -1;
  bool announced_ = false;
};

// The protocol's byte on a pipe, either side: true when written; the byte read, or 0 at end of
// file or on an error (EINTR is retried).
bool write_token(int fd, char c);
char read_token(int fd);

// This process's gate, read from the environment once.
slice_gate& this_process_gate();

// The variable's value for a member pinned to `cpu` (-1: not pinned).
std::string ring_setting(int cpu);

}  // namespace alloclab::lab::lockstep
