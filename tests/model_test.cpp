// Randomised operation sequences against the model, for every subject. The
// same harness runs under libFuzzer (fuzz/model_fuzzer.cpp).
//
// Test plan (harness function -> test case):
//   run_model, every subject (arena growing/throwing, pool growing/fixed,
//   tracking, limit, checked), scope loops included -> model.random_sequences_keep_every_invariant
//   run_model_on_sabotaged_resource (the harness can fail)
//     -> model_harness.notices_a_resource_that_hands_out_overlapping_blocks
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "model_harness.hpp"

namespace {

class model : public ::testing::TestWithParam<std::size_t> {};

TEST_P(model, random_sequences_keep_every_invariant) {
  std::mt19937_64 random{0xA110C + GetParam()};
  for (int sequence = 0; sequence < 60; ++sequence) {
    std::vector<std::uint8_t> ops(static_cast<std::size_t>(1 + random() % 3000));
    for (auto& b : ops) b = static_cast<std::uint8_t>(random());
    ops[0] = static_cast<std::uint8_t>(GetParam());
    const std::string error = alloclab::testing::run_model(ops.data(), ops.size());
    ASSERT_EQ(error, "") << "subject " << GetParam() << ", sequence " << sequence;
  }
}

INSTANTIATE_TEST_SUITE_P(every_subject, model,
                         ::testing::Range(std::size_t{0},
                                          alloclab::testing::model_subject_count()));

TEST(model_harness, notices_a_resource_that_hands_out_overlapping_blocks) {
  std::vector<std::uint8_t> ops;
  for (int i = 0; i < 64; ++i) ops.insert(ops.end(), {0, 32, 3});  // allocate 32 bytes, alignment 8
  const std::string error =
      alloclab::testing::run_model_on_sabotaged_resource(ops.data(), ops.size());
  EXPECT_NE(error.find("overlaps"), std::string::npos) << error;
}

}  // namespace
