// Linked with -static: `alloclab record` must refuse it (LD_PRELOAD cannot reach it).
#include <cstdlib>

int main() {
  std::free(std::malloc(16));
  return 0;
}
