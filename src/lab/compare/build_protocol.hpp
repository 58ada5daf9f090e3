// What two lab binaries must agree on for one ring to time workers of both (`compare --paired`):
// the batch worker's task and result documents, and the ring's token protocol. A binary tells
// its own with the hidden command `alloclab-lab __protocol` (one JSON line); a binary built
// before that command exists, or one that is not a lab, cannot say it and is refused.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace alloclab::lab {

// Bump when the batch worker's task JSON (frames/batch/executor.cpp) or its result document
// changes in a way another build would misread.
inline constexpr int worker_protocol_version = 1;

struct build_protocol {
  int worker = 0;
  int lockstep = 0;
  std::optional<std::string> revision;  // null: built outside a git checkout
};

// `alloclab-lab __protocol`: this binary's protocol as one JSON line; 0.
int print_protocol(std::ostream& out);

// This binary's protocol.
build_protocol this_protocol();

// Asks `binary` for its protocol. Throws usage_error, one line naming the binary, when it is not
// an executable file or does not answer `__protocol` with one.
build_protocol ask_protocol(const std::string& binary);

// Empty when `theirs` can share a ring with `ours`; else why not, in words.
std::string protocol_mismatch(const build_protocol& ours, const build_protocol& theirs);

}  // namespace alloclab::lab
