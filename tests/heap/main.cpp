// heap_tests entry point. With ALLOCLAB_HEAP_TEST_CHILD set, the binary acts as a worker child
// for the tests in worker_test.cpp / liveness_test.cpp / cell_test.cpp instead of running tests.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "child.hpp"
#include "frames/heap/cell.hpp"
#include "mallocs/liveness.hpp"
#include "mallocs/malloc_table.hpp"

namespace {

int child_main(std::string_view mode, int argc, char** argv) {
  using namespace alloclab::heap;
  using namespace alloclab::process;
  using namespace alloclab::mallocs;
  if (mode == "abort") {
    std::fputs("child: about to abort on purpose\n", stderr);
    std::fflush(stderr);
    std::abort();
  }
  if (mode == "sleep") {
    std::fputs("child: sleeping\n", stderr);
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  if (mode == "echo") {  // stdout: the arguments; stderr: 20 KiB ending in a marker
    for (int i = 1; i < argc; ++i) std::cout << argv[i] << (i + 1 < argc ? " " : "");
    std::cout << '\n';
    std::string filler(20 * 1024, 'x');
    std::cerr << filler << "\nEND-OF-STDERR\n";
    return 7;
  }
  if (mode.substr(0, 4) == "env:") {  // stdout: the variable's value or <unset>
    const std::string name(mode.substr(4));
    const char* v = std::getenv(name.c_str());
    std::cout << (v != nullptr ? v : "<unset>") << '\n';
    return 0;
  }
  if (mode.substr(0, 5) == "live:") {  // prove an allocator from the inside, then purge
    const std::string name(mode.substr(5));
    const malloc_entry* e = find_malloc(name);
    if (e == nullptr) return 2;
    void* p = std::malloc(1 << 20);  // give the purge something to do
    std::memset(p, 1, 1 << 20);
    std::free(p);
    nlohmann::json j = to_json(prove_live(*e));
    j["purge"] = to_json(purge_live_malloc());
    std::cout << j.dump() << '\n';
    return 0;
  }
  if (mode == "cell") {
    if (argc < 2) return 2;
    return heap_worker_main(argv[argc - 1], std::cout, std::cerr);
  }
  std::fprintf(stderr, "unknown child mode '%.*s'\n", static_cast<int>(mode.size()), mode.data());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* mode = std::getenv(heap_test::child_env)) {
    return child_main(mode, argc, argv);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
