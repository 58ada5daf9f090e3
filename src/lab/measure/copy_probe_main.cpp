// alloclab_copy_probe '<copy_cliff_config json>': measures this process's memmove cost by
// placement and prints the copy_cliff_result JSON. Run under GLIBC_TUNABLES by
// measure_copy_cliff_in_child (glibc reads tunables only at exec).
#include <iostream>

#include "measure/copy_cliff.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: alloclab_copy_probe '<copy_cliff_config json>' (e.g. '{}')\n";
    return 2;
  }
  return alloclab::lab::copy_probe_main(argv[1], std::cout, std::cerr);
}
