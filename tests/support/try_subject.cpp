// A tiny program for the program frame's tests (`alloclab try -- try_subject MODE ...`):
//   alloc               allocates and frees a little, prints "ok"
//   which-malloc        prints the file name of the library that serves malloc (malloc-dependent)
//   cat                 copies stdin to stdout
//   pwd                 prints the working directory
//   sleep SECONDS       sleeps
//   fork                a child allocates and exits; the parent waits for it, prints "ok"
//   linger PIDFILE      forks a child that sleeps for a minute, writes both pids, sleeps too
//   daemonize PIDFILE   forks a child that leaves the session (setsid), appends its pid and
//                       sleeps for a minute; the parent exits at once
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Built without PIE (alloclab_try_subject_nopie), code that takes malloc's and free's addresses
// gives the executable canonical PLT entries for them: dlsym(RTLD_DEFAULT, "malloc") then points
// into the executable, as in Debian's python3.11 (malloc, free) and cc1plus (free).
using malloc_type = void* (*)(std::size_t);
using free_type = void (*)(void*);
__attribute__((noinline)) malloc_type address_of_malloc() {
  return &std::malloc;
}
__attribute__((noinline)) free_type address_of_free() {
  return &std::free;
}

int allocate_a_little() {
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(std::malloc(static_cast<std::size_t>(16 + i)));
  for (void* b : blocks) std::free(b);
  return 0;
}

std::string malloc_owner() {
  Dl_info info{};
  void* symbol = dlsym(RTLD_DEFAULT, "malloc");
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "?";
  const std::string path = info.dli_fname;
  return path.substr(path.rfind('/') + 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  static volatile malloc_type taken_malloc = address_of_malloc();
  static volatile free_type taken_free = address_of_free();
  (void)taken_malloc;
  (void)taken_free;
  if (mode == "alloc") {
    allocate_a_little();
    std::cout << "ok\n";
  } else if (mode == "which-malloc") {
    std::cout << malloc_owner() << '\n';
  } else if (mode == "cat") {
    std::cout << std::cin.rdbuf();
  } else if (mode == "pwd") {
    char dir[PATH_MAX];
    std::cout << (::getcwd(dir, sizeof dir) != nullptr ? dir : "?") << '\n';
  } else if (mode == "sleep" && argc > 2) {
    ::sleep(static_cast<unsigned>(std::atoi(argv[2])));
  } else if (mode == "fork") {
    const pid_t child = ::fork();
    if (child == 0) _exit(allocate_a_little());
    int status = 0;
    ::waitpid(child, &status, 0);
    std::cout << "ok\n";
  } else if (mode == "linger" && argc > 2) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::sleep(60);
      _exit(0);
    }
    std::ofstream(argv[2]) << ::getpid() << ' ' << child << '\n';
    ::sleep(60);
  } else if (mode == "daemonize" && argc > 2) {
    int written[2];
    if (::pipe(written) != 0) return 1;
    const pid_t child = ::fork();
    if (child == 0) {
      ::setsid();
      std::ofstream(argv[2], std::ios::app) << ::getpid() << '\n';
      ::close(written[0]);
      ::close(written[1]);  // the parent's read returns: the pid is in the file
      ::sleep(60);
      _exit(0);
    }
    ::close(written[1]);
    char byte = 0;
    while (::read(written[0], &byte, 1) < 0) {
    }
  } else {
    std::cerr << "try_subject: unknown mode '" << mode << "'\n";
    return 2;
  }
  return 0;
}
