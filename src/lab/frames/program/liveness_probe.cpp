// liballoclab_program_probe.so: preloaded after the malloc under test into every process of a
// program `alloclab try` runs. Its constructor proves which malloc serves the process with the
// lab's own proof (heap::prove_live: dlsym/dladdr ownership of malloc and free plus the malloc's
// proof symbols) and appends one line to the file ALLOCLAB_PROOF_FILE names:
//   "<pid> ok" or "<pid> failed <why>"
// ALLOCLAB_PROOF_MALLOC names the registry entry to prove. Without both variables it does nothing.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "process/liveness.hpp"
#include "process/malloc_registry.hpp"

namespace {

std::string proof_line() {
  const char* name = std::getenv("ALLOCLAB_PROOF_MALLOC");
  const alloclab::heap::malloc_entry* entry =
      name == nullptr ? nullptr : alloclab::heap::find_malloc(name);
  std::string line = std::to_string(::getpid());
  if (entry == nullptr) return line + " failed unknown malloc '" + (name ? name : "") + "'\n";
  const alloclab::heap::live_allocator live = alloclab::heap::prove_live(*entry);
  return line + (live.ok ? " ok\n" : " failed " + live.detail + "\n");
}

__attribute__((constructor)) void prove_malloc_live() {
  const char* path = std::getenv("ALLOCLAB_PROOF_FILE");
  if (path == nullptr || *path == '\0') return;
  const std::string line = proof_line();
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const ssize_t written = ::write(fd, line.data(), line.size());
  (void)written;
  ::close(fd);
}

}  // namespace
