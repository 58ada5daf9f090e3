// Test plan for measure/contention_reference.hpp: the reference walk visits every cache line of
// its buffer once per chase and ends where it began (so a chase is the same work every time),
// whatever the seed; a reading is a positive time and allocates nothing. No timing is asserted
// beyond "positive": the machine decides how long a chase takes.
#include <gtest/gtest.h>

#include "measure/contention_reference.hpp"

namespace alloclab::lab {
namespace {

TEST(ContentionReference, EachChaseVisitsEveryLineOnceAndEndsWhereItBegan) {
  for (const std::uint64_t seed : {1u, 42u, 7777u}) {
    const contention_reference reference(seed);
    EXPECT_EQ(reference.cycle_length(),
              contention_reference::buffer_bytes / contention_reference::line_bytes)
        << seed;
  }
}

TEST(ContentionReference, AReadingIsAPositiveTimeAndTheWalkReturnsToItsStart) {
  contention_reference reference;
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(reference.reading(), 0.0);
    EXPECT_EQ(reference.last_stop(), 0u);
    EXPECT_GT(reference.memory_reading(), 0.0);
  }
}

}  // namespace
}  // namespace alloclab::lab
