// libFuzzer entry point: the fuzzer's bytes become an operation sequence run
// against the model; any violated invariant aborts with its description.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string error = alloclab::testing::run_model(data, size);
  if (!error.empty()) {
    std::fprintf(stderr, "model violation: %s\n", error.c_str());
    std::abort();
  }
  return 0;
}
