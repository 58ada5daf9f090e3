// What a frame gives the simulation stage (simulate/frame_simulation.hpp's `simulation`): the
// arguments of the cell's own worker in its simulation mode, which sets up as for a measurement,
// proves its malloc, then runs a warm-up and a fixed number of units inside the regions of
// simulate/region.hpp, and prints the regions' result as its "result".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace alloclab::lab::simulate {

struct simulation_worker {
  std::vector<std::string> args;  // argv[1..] of the worker: its command and its spec
  std::string not_simulated;      // non-empty: why this cell has no simulation (args unused)
};

// Batch cells: iterations counted after the warm-up; a multithreaded workload's iteration (its
// threads hand work over and wait, which Valgrind runs one thread at a time) takes ~100 times a
// single-threaded one's, so it runs fewer. Heap cells: batches of 100 malloc/free pairs, counted
// after the warm-up (the NOOP kernel runs as many, and is subtracted).
inline constexpr std::size_t batch_iterations = 64, batch_warmup_iterations = 16;
inline constexpr std::size_t threaded_batch_iterations = 8, threaded_batch_warmup_iterations = 2;
inline constexpr std::size_t heap_batches = 100, heap_warmup_batches = 20;

}  // namespace alloclab::lab::simulate
