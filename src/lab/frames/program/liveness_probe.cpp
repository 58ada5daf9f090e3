// liballoclab_program_probe.so: preloaded after the malloc under test into every process of a
// program `alloclab try` runs. Its constructor proves which malloc serves the process with the
// lab's own proof (mallocs::prove_live: dlsym/dladdr ownership of malloc and free plus the malloc's
// proof symbols) and appends to the file ALLOCLAB_PROOF_FILE names, in one write:
//   "<pid> ok" or "<pid> failed <why>"
//   "<pid> knob NAME VALUE HOW" per knob ALLOCLAB_PROOF_KNOBS names (comma-separated): what the
//   malloc itself reports it uses (mallocs/knob_readback.hpp), "?" when it cannot say
// ALLOCLAB_PROOF_MALLOC names the registry entry to prove. Without both variables it does nothing.
// Its destructor (at exit()) appends "<pid> peak_rss KIB": the process's own VmHWM. wait4's
// ru_maxrss cannot give it: exec keeps the high-water mark of the image it replaced, here the
// `alloclab` parent's (posix_spawn shares the parent's memory until exec).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "mallocs/knob_readback.hpp"
#include "mallocs/liveness.hpp"
#include "mallocs/malloc_table.hpp"

namespace {

std::string proof_line() {
  const char* name = std::getenv("ALLOCLAB_PROOF_MALLOC");
  const alloclab::mallocs::malloc_entry* entry =
      name == nullptr ? nullptr : alloclab::mallocs::find_malloc(name);
  std::string line = std::to_string(::getpid());
  if (entry == nullptr) return line + " failed unknown malloc '" + (name ? name : "") + "'\n";
  const alloclab::mallocs::live_allocator live = alloclab::mallocs::prove_live(*entry);
  return line + (live.ok ? " ok\n" : " failed " + live.detail + "\n");
}

std::vector<std::string> knobs_to_read() {
  const char* list = std::getenv("ALLOCLAB_PROOF_KNOBS");
  std::vector<std::string> knobs;
  std::string rest = list == nullptr ? "" : list;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (comma != 0) knobs.push_back(rest.substr(0, comma));
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return knobs;
}

std::string knob_lines() {
  const char* name = std::getenv("ALLOCLAB_PROOF_MALLOC");
  std::string lines;
  for (const auto& r : alloclab::mallocs::read_knobs(name == nullptr ? "" : name, knobs_to_read()))
    lines += std::to_string(::getpid()) + " " + alloclab::mallocs::reading_line(r) + "\n";
  return lines;
}

// The "VmHWM:" line of /proc/self/status, in KiB; empty when it cannot be read.
std::string own_peak_kib() {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char text[4096];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return {};
  const std::string status(text, static_cast<std::size_t>(n));
  const std::size_t at = status.find("VmHWM:");
  if (at == std::string::npos) return {};
  const std::size_t digits = status.find_first_of("0123456789", at);
  const std::size_t end = status.find_first_not_of("0123456789", digits);
  return digits == std::string::npos ? std::string() : status.substr(digits, end - digits);
}

void append_to_proof_file(const std::string& text) {
  const char* path = std::getenv("ALLOCLAB_PROOF_FILE");
  if (path == nullptr || *path == '\0') return;
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const ssize_t written = ::write(fd, text.data(), text.size());
  (void)written;
  ::close(fd);
}

__attribute__((constructor)) void prove_malloc_live() {
  const char* path = std::getenv("ALLOCLAB_PROOF_FILE");
  if (path == nullptr || *path == '\0') return;
  append_to_proof_file(proof_line() + knob_lines());
}

__attribute__((destructor)) void report_own_peak() {
  const std::string kib = own_peak_kib();
  if (!kib.empty()) append_to_proof_file(std::to_string(::getpid()) + " peak_rss " + kib + "\n");
}

}  // namespace
