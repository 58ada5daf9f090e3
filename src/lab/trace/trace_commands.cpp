#include "trace/trace_commands.hpp"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::trace {

namespace {

namespace fs = std::filesystem;

constexpr int exit_program_failed = 1;
constexpr int exit_bad_input = 2;
constexpr const char* interposer_name = "liballoclab_record.so";

int bad_input(const std::string& message) {
  std::cerr << "alloclab: error: " << message << '\n';
  return exit_bad_input;
}

/// PROGRAM as execvp would find it; nullopt when it does not exist or is not executable.
std::optional<fs::path> find_program(const std::string& name) {
  const auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (usable(name)) return fs::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate =
        fs::path(end == start ? "." : dirs.substr(start, end - start)) / name;
    if (usable(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

/// An ELF executable with no PT_INTERP has no dynamic loader, so LD_PRELOAD cannot apply.
/// Scripts and other non-ELF files are not judged here (their interpreter is).
bool statically_linked(const fs::path& program) {
  const int fd = ::open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Ehdr eh{};
  bool is_static = false;
  if (::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_phentsize == sizeof(Elf64_Phdr)) {
    is_static = true;
    for (Elf64_Half i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph{};
      const auto offset = static_cast<off_t>(eh.e_phoff + i * sizeof ph);
      if (::pread(fd, &ph, sizeof ph, offset) != static_cast<ssize_t>(sizeof ph)) break;
      if (ph.p_type == PT_INTERP) is_static = false;
    }
  }
  ::close(fd);
  return is_static;
}

/// The interposer next to this binary (the build and install layouts both put it there).
std::optional<fs::path> find_interposer() {
  if (const char* forced = std::getenv("ALLOCLAB_RECORD_LIBRARY"); forced != nullptr)
    return fs::path(forced);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const fs::path& candidate :
       {self.parent_path() / interposer_name,
        self.parent_path().parent_path() / "lib" / "alloclab" / interposer_name}) {
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

/// fork + exec with the recorder's environment; the child's pid names the recorded process.
int run_recorded(const fs::path& program, const record_request& r, const fs::path& interposer,
                 const fs::path& output) {
  std::vector<char*> argv;
  std::vector<std::string> args = r.command;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string preload = interposer.string();
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0')
    preload += std::string(":") + existing;
  const std::string level = std::to_string(r.zstd_level);

  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);  // like system(): Ctrl-C stops the program, not us
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t child = ::fork();
  if (child == 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    char pid[32];
    std::snprintf(pid, sizeof pid, "%ld", static_cast<long>(::getpid()));
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("ALLOCLAB_RECORD_FILE", output.c_str(), 1);
    ::setenv("ALLOCLAB_RECORD_PID", pid, 1);
    ::setenv("ALLOCLAB_RECORD_TIMESTAMPS", r.no_timestamps ? "0" : "1", 1);
    ::setenv("ALLOCLAB_RECORD_ZSTD", level.c_str(), 1);
    ::execv(program.c_str(), argv.data());
    std::fprintf(stderr, "alloclab: error: cannot execute '%s': %s\n", program.c_str(),
                 std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  if (child > 0) {
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (child < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  return status;
}

}  // namespace

trace_commands::trace_commands(CLI::App& app) {
  record_ = app.add_subcommand(
      "record",
      "Run a program under the allocation recorder: alloclab record [-o TRACE] -- PROGRAM ARGS");
  record_->add_option("-o,--output", request_->output, "Trace to write (default: alloclab.trace)");
  record_->add_flag("--no-timestamps", request_->no_timestamps,
                    "Record no timestamps or RSS samples (phases will be unknown)");
  record_
      ->add_option("--zstd-level", request_->zstd_level,
                   "zstd level of each 64 KiB chunk (default 1; 0 = store raw)")
      ->check(CLI::Range(0, 19));
  record_->add_option("command", request_->command, "PROGRAM and its arguments (after --)")
      ->required();

  trace_ = app.add_subcommand("trace", "Inspect a recorded trace");
  trace_->require_subcommand(1);
  info_ = trace_->add_subcommand(
      "info", "Events by kind and thread, size histogram, lifetimes, peak live bytes, phases");
  info_->add_option("trace", *trace_path_, "Trace written by `alloclab record`")->required();
}

bool trace_commands::parsed() const {
  return record_->parsed() || trace_->parsed();
}

int trace_commands::execute() const {
  if (record_->parsed()) return execute_record(*request_);
  return execute_trace_info(*trace_path_);
}

int execute_record(const record_request& request) {
  const std::string& name = request.command.front();
  const std::optional<fs::path> program = find_program(name);
  if (!program) return bad_input("program '" + name + "' not found or not executable");
  if (statically_linked(*program)) {
    return bad_input("'" + program->string() +
                     "' is statically linked: LD_PRELOAD cannot interpose its malloc, so there "
                     "is nothing to record");
  }
  const std::optional<fs::path> interposer = find_interposer();
  if (!interposer) {
    std::cerr << "alloclab: FAILED: " << interposer_name
              << " not found next to the alloclab binary\n";
    return exit_program_failed;
  }
  std::error_code ec;
  const fs::path output = fs::absolute(request.output, ec);
  if (const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      fd < 0) {
    return bad_input("cannot write '" + output.string() + "': " + std::strerror(errno));
  } else {
    ::close(fd);  // the recorder truncates it again; left empty, it means nothing was recorded
  }
  const int status = run_recorded(*program, request, *interposer, output);
  const bool empty = fs::file_size(output, ec) == 0 || ec;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && empty) {
    return bad_input("'" + program->string() + "' could not be executed");
  }
  if (empty) {
    return bad_input("'" + program->string() +
                     "' never loaded the recorder (statically linked, setuid, or it clears "
                     "LD_PRELOAD): no trace written");
  }
  try {
    const trace_file trace(output.string());
    std::uint64_t calls = 0;  // the footer counts them; a truncated trace is read through
    if (trace.footer()) {
      calls = trace.footer()->events;
    } else {
      trace.for_each_event([&](const event& e) { calls += e.kind < event_kind::thread_start; });
    }
    std::cerr << "alloclab: recorded " << calls << " calls from " << trace.threads().size()
              << " threads into " << output.string() << " (" << trace.file_bytes() << " bytes";
    if (calls > 0)
      std::cerr << ", " << static_cast<double>(trace.file_bytes()) / static_cast<double>(calls)
                << " bytes per call";
    std::cerr << ")" << (trace.truncated() ? "; TRUNCATED (no footer)" : "")
              << (calls == 0 ? "; the program made no malloc-family call" : "") << '\n';
  } catch (const trace_error& e) {
    std::cerr << "alloclab: warning: the trace is damaged: " << e.what() << '\n';
  }
  if (WIFSIGNALED(status)) {
    std::cerr << "alloclab: the program was killed by signal " << WTERMSIG(status) << " ("
              << ::strsignal(WTERMSIG(status)) << "); its trace is marked truncated\n";
    return exit_program_failed;
  }
  if (WEXITSTATUS(status) != 0) {
    std::cerr << "alloclab: the program exited with status " << WEXITSTATUS(status) << '\n';
    return exit_program_failed;
  }
  return 0;
}

int execute_trace_info(const std::string& path) {
  try {
    const trace_file trace(path);
    std::cout << render_summary(trace, summarize(trace));
    return 0;
  } catch (const trace_error& e) {
    return bad_input(e.what());
  }
}

}  // namespace alloclab::trace
