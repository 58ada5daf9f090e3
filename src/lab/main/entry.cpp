// Everything the `alloclab` binary does, in one function: the worker entry points the lab
// re-executes itself for, then the command line.
#include <iostream>
#include <string_view>

#include "compare/build_protocol.hpp"
#include "main/frame_registry.hpp"
#include "main/cli.hpp"
#include "main/pair_check.hpp"
#include "main/replay_commands.hpp"
#include "measure/copy_cliff.hpp"

namespace alloclab::lab {

int alloclab_main(int argc, char** argv) {
  // Measuring workers: no argument parsing, no CLI set-up (VmHWM is measured in here).
  if (argc == 3)
    for (const auto& row : frame_table())
      if (row.worker_command != nullptr && std::string_view(argv[1]) == row.worker_command)
        return row.worker_main(argv[2]);
  if (argc == 3 && std::string_view(argv[1]) == "__malloc-env") return print_malloc_env(argv[2]);
  // The memmove placement probe, re-executed under GLIBC_TUNABLES (read only at exec).
  if (argc == 3 && std::string_view(argv[1]) == "__copy-probe")
    return copy_probe_main(argv[2], std::cout, std::cerr);
  if (argc == 3 && std::string_view(argv[1]) == "__pair-check")
    return pair_check_main(argv[2], std::cout, std::cerr);
  // What a paired comparison of builds asks another build (compare/build_protocol.hpp).
  if (argc == 2 && std::string_view(argv[1]) == "__protocol") return print_protocol(std::cout);
  return run_cli(argc, argv);
}

}  // namespace alloclab::lab
