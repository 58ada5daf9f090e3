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
#include <sstream>
#include <utility>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "trace/record_target.hpp"
#include "trace/replay_trust.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::trace {

namespace {

namespace fs = std::filesystem;

constexpr int exit_program_failed = 1;
constexpr int exit_bad_input = 2;

int bad_input(const std::string& message) {
  std::cerr << "alloclab: error: " << message << '\n';
  return exit_bad_input;
}

/// What the recorder's status lines (src/record/recorder.cpp) told about the run.
struct recorder_news {
  int images = 0;          ///< images that loaded the recorder
  int unrecorded = 0;      ///< of which recorded nothing
  bool exec = false;       ///< the program record started called execve
  int write_error = 0;     ///< errno of a failed trace write
  int flushed_signal = 0;  ///< the trace was finished at this signal
  int lost_signal = 0;     ///< this signal came while the recorder ran: buffers lost
};

/// The status lines on `fd`; `program` is the pid of the program record started.
recorder_news read_news(int fd, long program) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  recorder_news news;
  std::istringstream lines(text);
  std::string word;
  long value = 0;
  while (lines >> word >> value) {
    if (word == "recording" || word == "image") ++news.images;
    if (word == "image") ++news.unrecorded;
    if (word == "exec" && value == program) news.exec = true;  // not a forked child's exec
    if (word == "write-failed") news.write_error = static_cast<int>(value);
    if (word == "signal-flushed") news.flushed_signal = static_cast<int>(value);
    if (word == "signal-lost") news.lost_signal = static_cast<int>(value);
  }
  return news;
}

// The recorded program's pid while `record` waits for it: SIGTERM, SIGINT, SIGHUP and SIGQUIT
// sent to `record` by another process are passed on (a terminal's Ctrl-C already reached the
// program through its process group, so kernel-sent ones are not sent twice).
volatile sig_atomic_t recorded_child = 0;
constexpr int forwarded_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

void forward_signal(int signal, siginfo_t* info, void*) {
  if (recorded_child > 0 && info != nullptr && info->si_code <= 0)
    ::kill(static_cast<pid_t>(recorded_child), signal);
}

/// Installs forward_signal for the signals not ignored, returns the previous dispositions.
std::vector<std::pair<int, struct sigaction>> forward_signals() {
  std::vector<std::pair<int, struct sigaction>> previous;
  for (const int signal : forwarded_signals) {
    struct sigaction old {};
    ::sigaction(signal, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // e.g. under nohup: the program inherits that
    struct sigaction forward {};
    forward.sa_sigaction = forward_signal;
    forward.sa_flags = SA_SIGINFO | SA_RESTART;
    ::sigaction(signal, &forward, nullptr);
    previous.emplace_back(signal, old);
  }
  return previous;
}

/// fork + exec with the recorder's environment; the child's pid names the recorded process.
/// Returns the wait status; `news` gets the recorder's status lines.
int run_recorded(const fs::path& program, const record_request& r, const fs::path& interposer,
                 const fs::path& output, recorder_news& news) {
  std::vector<char*> argv;
  std::vector<std::string> args = r.command;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string preload = interposer.string();
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0')
    preload += std::string(":") + existing;
  const std::string level = std::to_string(r.zstd_level);
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));

  const auto previous = forward_signals();
  sigset_t forwarded, old_mask;
  sigemptyset(&forwarded);
  for (const int signal : forwarded_signals) sigaddset(&forwarded, signal);
  ::sigprocmask(SIG_BLOCK, &forwarded, &old_mask);  // until recorded_child is set
  const pid_t child = ::fork();
  if (child == 0) {
    for (const auto& [signal, old] : previous) ::sigaction(signal, &old, nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    // Every image loading the recorder may report; the pipe stays non-blocking, so that a
    // program starting thousands of images never waits for record (lines past 64 KiB are lost).
    ::fcntl(status_pipe[1], F_SETFD, 0);
    char pid[32];
    std::snprintf(pid, sizeof pid, "%ld", static_cast<long>(::getpid()));
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("ALLOCLAB_RECORD_FILE", output.c_str(), 1);
    ::setenv("ALLOCLAB_RECORD_PID", pid, 1);
    ::setenv("ALLOCLAB_RECORD_STATUS_FD", std::to_string(status_pipe[1]).c_str(), 1);
    ::setenv("ALLOCLAB_RECORD_TIMESTAMPS", r.no_timestamps ? "0" : "1", 1);
    ::setenv("ALLOCLAB_RECORD_ZSTD", level.c_str(), 1);
    for (const auto& [name, on] : {std::pair{"ALLOCLAB_RECORD_FOLLOW_EXEC", r.follow_exec},
                                   std::pair{"ALLOCLAB_RECORD_FOLLOW_FORK", r.follow_fork}}) {
      if (on)
        ::setenv(name, "1", 1);
      else
        ::unsetenv(name);
    }
    ::execv(program.c_str(), argv.data());
    std::fprintf(stderr, "alloclab: error: cannot execute '%s': %s\n", program.c_str(),
                 std::strerror(errno));
    ::_exit(127);
  }
  const int fork_error = errno;
  ::close(status_pipe[1]);
  recorded_child = child;
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  int status = 0;
  if (child > 0) {
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  recorded_child = 0;
  for (const auto& [signal, old] : previous) ::sigaction(signal, &old, nullptr);
  news = read_news(status_pipe[0], static_cast<long>(child));
  ::close(status_pipe[0]);
  if (child < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(fork_error));
  return status;
}

/// "recorded N calls from T threads into PATH (...)", from a readable trace.
void print_recorded(const trace_file& trace, const fs::path& output) {
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
  std::cerr << ")"
            << (trace.truncated() ? "; TRUNCATED (no footer: the program's last buffers are lost)"
                                  : "")
            << (calls == 0 && !trace.truncated() ? "; the program made no malloc-family call" : "")
            << '\n';
}

/// Renames each image's trace PARTIAL.N to TARGET.N and prints what it holds; removes older
/// traces TARGET.N past the last one. False (errno set) when a rename failed.
bool publish_image_traces(const output_target& output) {
  const std::vector<std::string> images = image_traces(output.partial.string());
  for (std::size_t n = 1; n <= images.size(); ++n) {
    const fs::path target = output.path.string() + "." + std::to_string(n);
    try {
      print_recorded(trace_file(images[n - 1]), target);
    } catch (const trace_error& e) {
      std::cerr << "alloclab: note: the trace of image " << n << " is damaged (" << e.what()
                << ")\n";
    }
    if (::rename(images[n - 1].c_str(), target.c_str()) != 0) return false;
  }
  std::error_code ec;
  for (std::size_t n = images.size() + 1;; ++n) {
    const fs::path stale = output.path.string() + "." + std::to_string(n);
    if (!fs::is_regular_file(stale, ec) || !fs::remove(stale, ec)) break;
  }
  return true;
}

/// The console's account of the program's end; returns record's exit code.
int report_program_end(int status, const recorder_news& news) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    std::cerr << "alloclab: the program was killed by signal " << signal << " ("
              << ::strsignal(signal) << "); "
              << (news.exec                       ? "the trace had ended at its execve"
                  : news.flushed_signal == signal ? "the recorder finished its trace at the signal"
                  : news.lost_signal == signal
                      ? "the signal came inside the recorder: its buffers were lost"
                      : "its last buffers were lost (the trace has no footer)")
              << '\n';
    return 128 + signal;
  }
  if (WEXITSTATUS(status) != 0) {
    std::cerr << "alloclab: the program exited with status " << WEXITSTATUS(status) << '\n';
    return exit_program_failed;
  }
  return 0;
}

void report_unrecorded_images(const recorder_news& news, const std::string& program) {
  if (news.exec && news.unrecorded > 0)
    std::cerr << "alloclab: note: " << program
              << " called execve: the trace ends there (the new program was not recorded)\n";
  if (news.unrecorded > 0)
    std::cerr << "alloclab: note: " << news.images << " process images loaded the recorder; "
              << news.unrecorded << " of them (programs " << program
              << " exec'd, directly or in child processes) were not recorded: the trace covers "
                 "only "
              << program << '\n';
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
  // Each negation is a flag of its own: CLI11 would list "!--no-follow-exec" as
  // "--no-follow-exec{false}", read as a default of false.
  const std::shared_ptr<record_request> request = request_;
  record_->add_flag("--follow-exec", request_->follow_exec,
                    "Record every process image the program starts (exec), each into its own "
                    "trace OUTPUT.1, OUTPUT.2... in order of start (default on)");
  record_->add_flag_callback(
      "--no-follow-exec", [request] { request->follow_exec = false; },
      "Record the program's own image only");
  record_->add_flag("--follow-fork", request_->follow_fork,
                    "Record every process the program forks without exec (in it or in any "
                    "descendant), each into its own trace, numbered with the exec'd images "
                    "(default off)");
  record_->add_flag_callback(
      "--no-follow-fork", [request] { request->follow_fork = false; },
      "Record no forked process (the default)");
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
  if (!interposer)
    return bad_input(std::string(interposer_name) +
                     " is neither next to the alloclab binary nor in " + installed_library_dir +
                     " beside it (install with cmake --install)");
  auto prepared = prepare_output(request.output, *program);
  if (const auto* reason = std::get_if<std::string>(&prepared)) return bad_input(*reason);
  const output_target output = std::get<output_target>(std::move(prepared));
  struct partial_files {  // removed unless renamed over the targets
    const fs::path& path;
    ~partial_files() {
      std::error_code ignored;
      fs::remove(path, ignored);
      for (const std::string& image : image_traces(path.string())) fs::remove(image, ignored);
    }
  } cleanup{output.partial};

  recorder_news news;
  const int status = run_recorded(*program, request, *interposer, output.partial, news);
  if (request.follow_exec) news.exec = false;  // the exec'd image has a trace of its own
  std::error_code ec;
  const bool empty = fs::file_size(output.partial, ec) == 0 || ec;
  const std::string untouched =
      fs::exists(output.path, ec) ? "; '" + request.output + "' was left as it was" : "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && empty)
    return bad_input("'" + program->string() + "' could not be executed");
  if (news.write_error != 0) {
    std::cerr << "alloclab: error: the trace could not be written: "
              << std::strerror(news.write_error) << "; no trace written" << untouched << '\n';
    report_program_end(status, news);
    return exit_program_failed;
  }
  if (empty)
    return bad_input("'" + program->string() +
                     (news.images == 0 ? "' never loaded the recorder (statically linked, setuid, "
                                         "or it clears LD_PRELOAD)"
                                       : "' loaded the recorder, which wrote nothing") +
                     ": no trace written" + untouched);
  try {
    const trace_file trace(output.partial.string());
    print_recorded(trace, output.path);
    if (::rename(output.partial.c_str(), output.path.c_str()) != 0 ||
        !publish_image_traces(output)) {
      std::cerr << "alloclab: error: cannot write '" << request.output
                << "': " << std::strerror(errno) << '\n';
      return exit_program_failed;
    }
  } catch (const trace_error& e) {
    std::cerr << "alloclab: error: the trace is damaged (" << e.what() << "); no trace written"
              << untouched << '\n';
    report_program_end(status, news);
    return exit_program_failed;
  }
  report_unrecorded_images(news, program->filename().string());
  return report_program_end(status, news);
}

int execute_trace_info(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return bad_input("'" + path + "' is a directory, not a trace written by `alloclab record`");
  try {
    const trace_file trace(path);
    const trace_summary summary = summarize(trace);
    std::cout << render_summary(trace, summary) << render_replay_trust(assess_replay(summary))
              << render_images(path) << std::flush;
  } catch (const trace_error& e) {
    return bad_input(e.what());
  }
  if (!std::cout) {
    std::cerr << "alloclab: error: cannot write to standard output"
              << (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()) << '\n';
    return exit_program_failed;
  }
  return 0;
}

}  // namespace alloclab::trace
