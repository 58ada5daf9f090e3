#include <string_view>

#include "cli.hpp"
#include "mallocs/isolated_cells.hpp"
#include "measure/split_run.hpp"

int main(int argc, char** argv) {
  // A heap-study worker child: no argument parsing, no CLI set-up (VmHWM is measured in here).
  if (argc == 3 && std::string_view(argv[1]) == alloclab::lab::heap_worker_command)
    return alloclab::lab::run_heap_worker(argv[2]);
  // One process of a split lab run: prints its raw measurement as JSON.
  if (argc == 3 && std::string_view(argv[1]) == alloclab::lab::lab_part_command)
    return alloclab::lab::run_lab_part(argv[2]);
  return alloclab::lab::run_cli(argc, argv);
}
