#include "lockstep/ring.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "lockstep/enrolment.hpp"
#include "lockstep/slice_gate.hpp"

namespace alloclab::lab::lockstep {
namespace {

// A pipe whose ends sit at 10 or above (so handing them to 3 and 4 never clobbers one another),
// close-on-exec.
struct pipe_ends {
  int read = -1;
  int write = -1;
};
pipe_ends make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("lockstep: pipe failed");
  pipe_ends p;
  p.read = ::fcntl(fds[0], F_DUPFD_CLOEXEC, 10);
  p.write = ::fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
  ::close(fds[0]);
  ::close(fds[1]);
  if (p.read < 0 || p.write < 0) throw std::runtime_error("lockstep: fcntl failed");
  return p;
}

enum class member_state { starting, ready, gone };

struct member_channel {
  int go_write = -1;   // the coordinator's end of "go"
  int done_read = -1;  // the coordinator's end of "done"
  member_state state = member_state::starting;
  std::size_t slices = 0;
};

void close_channel(member_channel& m) {
  if (m.go_write >= 0) ::close(m.go_write);
  if (m.done_read >= 0) ::close(m.done_read);
  m.go_write = m.done_read = -1;
  m.state = member_state::gone;
}

// Waits until every member announced itself ready or left.
void await_ready(std::vector<member_channel>& members) {
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::size_t> who;
    for (std::size_t i = 0; i < members.size(); ++i)
      if (members[i].state == member_state::starting) {
        fds.push_back({members[i].done_read, POLLIN, 0});
        who.push_back(i);
      }
    if (fds.empty()) return;
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      throw std::runtime_error("lockstep: poll failed");
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      member_channel& m = members[who[k]];
      if (read_token(m.done_read) == 'R')
        m.state = member_state::ready;
      else
        close_channel(m);
    }
  }
}

// One slice of member `m`: the token out and back. A member that has ended leaves the ring.
void run_slice(member_channel& m) {
  if (!write_token(m.go_write, 'G') || read_token(m.done_read) != 'D') return close_channel(m);
  ++m.slices;
}

ring_account coordinate(std::vector<member_channel>& members, std::uint64_t seed) {
  // A write to a member that has just exited must fail with EPIPE, not kill the lab.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  ring_account account;
  await_ready(members);
  std::mt19937_64 shuffler(seed);
  std::vector<std::size_t> order;
  for (;;) {
    order.clear();
    for (std::size_t i = 0; i < members.size(); ++i)
      if (members[i].state == member_state::ready) order.push_back(i);
    if (order.empty()) break;
    std::shuffle(order.begin(), order.end(), shuffler);
    for (std::size_t i : order) run_slice(members[i]);
    ++account.cycles;
  }
  for (const member_channel& m : members) account.slices.push_back(m.slices);
  return account;
}

}  // namespace

ring_account run_ring(const std::vector<std::function<void()>>& members,
                      const ring_options& options) {
  std::vector<member_channel> channels(members.size());
  std::vector<enrolment> enrolments(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    const pipe_ends go = make_pipe(), done = make_pipe();
    channels[i].go_write = go.write;
    channels[i].done_read = done.read;
    enrolments[i] = {go.read, done.write, options.cpu, {}, {}};
  }
  std::vector<std::exception_ptr> errors(members.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < members.size(); ++i)
    threads.emplace_back([&, i] {
      thread_enrolment().go_read = enrolments[i].go_read;  // keeps what a member set itself
      thread_enrolment().done_write = enrolments[i].done_write;
      thread_enrolment().cpu = enrolments[i].cpu;
      try {
        members[i]();
      } catch (...) {
        errors[i] = std::current_exception();
      }
      // A member that started no worker still holds its ends: closing them ends its place.
      if (enrolment& left = thread_enrolment(); left.active()) {
        ::close(left.go_read);
        ::close(left.done_write);
        left = {};
      }
    });
  ring_account account;
  std::exception_ptr failure;
  try {
    account = coordinate(channels, options.seed);
  } catch (...) {
    failure = std::current_exception();
    for (member_channel& m : channels) close_channel(m);  // members go on alone
  }
  for (std::thread& t : threads) t.join();
  for (member_channel& m : channels) close_channel(m);
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (failure) std::rethrow_exception(failure);
  return account;
}

int ring_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) return cpu;
  return -1;
}

}  // namespace alloclab::lab::lockstep
