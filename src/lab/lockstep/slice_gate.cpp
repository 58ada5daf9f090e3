#include "lockstep/slice_gate.hpp"

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace alloclab::lab::lockstep {

bool write_token(int fd, char c) {
  for (;;) {
    if (::write(fd, &c, 1) == 1) return true;
    if (errno != EINTR) return false;
  }
}

char read_token(int fd) {
  char c = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n == 1) return c;
    if (n < 0 && errno == EINTR) continue;
    return 0;
  }
}

slice_gate::slice_gate(const std::string& setting) {
  int go = -1, done = -1, cpu = -1;
  if (std::sscanf(setting.c_str(), "%d,%d,%d", &go, &done, &cpu) != 3) return;
  if (go < 0 || done < 0) return;
  go_ = go;
  done_ = done;
  cpu_ = cpu;
}

void slice_gate::begin(bool may_pin) {
  if (!in_ring()) return;
  if (!announced_) {
    announced_ = true;
    if (may_pin && cpu_ >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu_, &set);
      ::sched_setaffinity(0, sizeof set, &set);  // best effort: a refused pin still alternates
    }
    if (!write_token(done_, 'R')) return leave();
  }
  if (read_token(go_) != 'G') leave();
}

void slice_gate::end() {
  if (in_ring() && !write_token(done_, 'D')) leave();
}

void slice_gate::finish() {
  if (!in_ring()) return;
  write_token(done_, 'E');
  leave();
}

void slice_gate::leave() {
  ::close(go_);
  ::close(done_);
  go_ = done_ = -1;
}

slice_gate& this_process_gate() {
  static slice_gate gate([] {
    const char* value = std::getenv(environment_variable);
    return std::string(value != nullptr ? value : "");
  }());
  return gate;
}

std::string ring_setting(int cpu) {
  return std::to_string(go_descriptor) + "," + std::to_string(done_descriptor) + "," +
         std::to_string(cpu);
}

}  // namespace alloclab::lab::lockstep
