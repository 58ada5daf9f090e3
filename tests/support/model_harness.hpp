// Randomised operation sequences checked against a simple model, shared by
// the model test (seeded random bytes) and the libFuzzer target (fuzzer bytes).
//
// The first input byte picks the resource under test; the rest is a stream of
// operations: allocate, deallocate, release, mark, rewind, scope loop, verify. Every
// subject draws its upstream memory from a checked_resource, so after the
// subject is destroyed the harness also knows whether it returned everything
// it took, exactly once and with the right sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace alloclab::testing {

// Runs the operations encoded in `data`; returns an empty string when every
// invariant held, otherwise a description of the first violation.
std::string run_model(const std::uint8_t* data, std::size_t size);

// Number of distinct subjects the first byte selects among.
std::size_t model_subject_count();

// Runs the same operations against a deliberately broken resource that hands
// out overlapping blocks; proves the harness can fail.
std::string run_model_on_sabotaged_resource(const std::uint8_t* data, std::size_t size);

}  // namespace alloclab::testing
