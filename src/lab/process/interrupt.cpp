#include "process/interrupt.hpp"

#include <csignal>
#include <string>

#include "process/worker.hpp"

namespace alloclab::lab {
namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void on_interrupt(int signal) {
  received = signal;
  alloclab::process::kill_active_worker();
}

}  // namespace

run_interrupted::run_interrupted(int signal)
    : std::runtime_error("interrupted by signal " + std::to_string(signal)), signal_(signal) {}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}

void throw_if_interrupted() {
  if (received != 0) throw run_interrupted(received);
}

int interrupting_signal() {
  return received;
}

}  // namespace alloclab::lab
