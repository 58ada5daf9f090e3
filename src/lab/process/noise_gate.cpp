#include "process/noise_gate.hpp"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <mutex>
#include <sstream>
#include <thread>

namespace alloclab::process {
namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

double ticks_per_second() {
  const long hz = ::sysconf(_SC_CLK_TCK);
  return hz > 0 ? static_cast<double>(hz) : 100.0;
}

std::vector<std::string> directory_names(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return names;
  while (const dirent* e = ::readdir(dir)) names.emplace_back(e->d_name);
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "cpu0".."cpuN" lines of /proc/stat.
int count_cpus(const std::string& stat) {
  std::istringstream in(stat);
  int cpus = 0;
  for (std::string line; std::getline(in, line);)
    if (line.size() > 3 && line.compare(0, 3, "cpu") == 0 && line[3] >= '0' && line[3] <= '9')
      ++cpus;
  return cpus;
}

std::string fmt_warning(double other, double steal, int cpus,
                        const std::vector<lab::model::busy_process>& busiest) {
  char line[256];
  std::snprintf(line, sizeof line,
                "the machine was busy: other processes used %.2f of its %d CPUs on average "
                "during the run, steal time %.1f %%",
                other, cpus, 100 * steal);
  std::string text = line;
  if (!busiest.empty()) {
    text += " (busiest: ";
    for (std::size_t i = 0; i < busiest.size(); ++i) {
      std::snprintf(line, sizeof line, "%s%s %.2f", i ? ", " : "", busiest[i].name.c_str(),
                    busiest[i].cpus);
      text += line;
    }
    text += ")";
  }
  return text + "; intervals are wider than on a quiet machine and timings may shift";
}

}  // namespace

std::optional<cpu_ticks> parse_proc_stat(const std::string& text) {
  std::istringstream in(text);
  std::string label;
  cpu_ticks t;
  if (!(in >> label) || label != "cpu") return std::nullopt;
  if (!(in >> t.user >> t.nice >> t.system >> t.idle)) return std::nullopt;
  in >> t.iowait >> t.irq >> t.softirq >> t.steal;  // older kernels stop earlier: zeros
  return t;
}

std::optional<double> parse_loadavg(const std::string& text) {
  std::istringstream in(text);
  double one = 0;
  if (!(in >> one) || one < 0) return std::nullopt;
  return one;
}

std::optional<machine_snapshot::process_ticks> parse_process_stat(const std::string& text) {
  const std::size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> fields;  // fields 3.. of proc(5)
  for (std::string f; rest >> f;) fields.push_back(f);
  if (fields.size() < 13 || !all_digits(fields[11]) || !all_digits(fields[12])) return std::nullopt;
  machine_snapshot::process_ticks p;
  p.name = text.substr(open + 1, close - open - 1);
  p.ticks = std::stoull(fields[11]) + std::stoull(fields[12]);  // utime (14), stime (15)
  p.parent = all_digits(fields[1]) ? std::atoi(fields[1].c_str()) : 0;
  return p;
}

std::optional<std::string> bracketed_choice(const std::string& text) {
  const std::size_t open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  return text.substr(open + 1, close - open - 1);
}

noise_probe::noise_probe(std::string root) : root_(std::move(root)) {
  if (root_.empty() || root_.back() != '/') root_ += '/';
}

host_settings noise_probe::settings() const {
  host_settings s;
  const std::string cpu_dir = root_ + "sys/devices/system/cpu/";
  std::set<std::string> governors;
  for (const std::string& name : directory_names(cpu_dir))
    if (name.size() > 3 && name.compare(0, 3, "cpu") == 0 && all_digits(name.substr(3)))
      if (auto g = read_text(cpu_dir + name + "/cpufreq/scaling_governor"))
        governors.insert(trimmed(*g));
  s.governors.assign(governors.begin(), governors.end());
  if (auto boost = read_text(cpu_dir + "cpufreq/boost"))
    s.boost = trimmed(*boost) == "1";
  else if (auto no_turbo = read_text(cpu_dir + "intel_pstate/no_turbo"))
    s.boost = trimmed(*no_turbo) == "0";
  if (auto thp = read_text(root_ + "sys/kernel/mm/transparent_hugepage/enabled"))
    s.thp = bracketed_choice(*thp);
  if (auto aslr = read_text(root_ + "proc/sys/kernel/randomize_va_space"))
    if (all_digits(trimmed(*aslr))) s.aslr = std::atoi(aslr->c_str());
  if (auto stat = read_text(root_ + "proc/stat")) s.cpus = count_cpus(*stat);
  return s;
}

machine_snapshot noise_probe::snapshot(double seconds) const {
  machine_snapshot m;
  m.seconds = seconds;
  if (auto stat = read_text(root_ + "proc/stat")) m.cpu = parse_proc_stat(*stat);
  if (auto load = read_text(root_ + "proc/loadavg")) m.load_1min = parse_loadavg(*load);
  for (const std::string& pid : directory_names(root_ + "proc"))
    if (all_digits(pid))
      if (auto text = read_text(root_ + "proc/" + pid + "/stat"))
        if (auto p = parse_process_stat(*text)) m.processes[std::atoi(pid.c_str())] = *p;
  return m;
}

noise_watch::noise_watch(host_settings settings, int own_pid)
    : own_pid_(own_pid), settings_(std::move(settings)) {}

void noise_watch::add(machine_snapshot now) {
  if (!looks_.empty()) {
    const machine_snapshot& before = looks_.back();
    for (const auto& [pid, p] : now.processes) {
      if (pid == own_pid_ || p.parent == own_pid_) continue;  // this run and its workers
      const auto old = before.processes.find(pid);
      const std::uint64_t since = old != before.processes.end() && old->second.ticks <= p.ticks
                                      ? old->second.ticks
                                      : 0;  // new since the last look: all of its time
      if (p.ticks > since) other_ticks_[p.name] += static_cast<double>(p.ticks - since);
    }
  }
  // Only the first look's process table is needed besides the last: keep memory flat.
  if (looks_.size() >= 2) looks_.pop_back();
  looks_.push_back(std::move(now));
}

lab::model::noise_gate noise_watch::gate(double own_cpu_seconds) const {
  lab::model::noise_gate gate;
  gate.settings.governors = settings_.governors;
  gate.settings.boost = settings_.boost;
  gate.settings.transparent_hugepages = settings_.thp;
  gate.settings.aslr = settings_.aslr;
  gate.settings.cpus = settings_.cpus;
  if (looks_.empty()) return gate;
  const machine_snapshot& first = looks_.front();
  const machine_snapshot& last = looks_.back();
  gate.before.emplace().load_1min = first.load_1min;
  const double wall = last.seconds - first.seconds;
  if (looks_.size() < 2 || !first.cpu || !last.cpu || !(wall > 0)) return gate;
  const double hz = ticks_per_second();
  const double busy = static_cast<double>(last.cpu->busy() - first.cpu->busy()) / hz;
  const double total = static_cast<double>(last.cpu->total() - first.cpu->total());
  const double steal =
      total > 0 ? static_cast<double>(last.cpu->steal - first.cpu->steal) / total : 0.0;
  const double other = std::max(0.0, busy - own_cpu_seconds) / wall;
  lab::model::load_during& during = gate.during.emplace();
  during.seconds = wall;
  during.load_1min_at_end = last.load_1min;
  during.own_cpus = own_cpu_seconds / wall;
  during.other_cpus = other;
  during.steal_share = steal;
  std::vector<std::pair<double, std::string>> busiest;
  for (const auto& [name, ticks] : other_ticks_) busiest.emplace_back(ticks / hz / wall, name);
  std::sort(busiest.rbegin(), busiest.rend());
  for (std::size_t i = 0; i < busiest.size() && i < 5 && busiest[i].first >= 0.02; ++i)
    gate.busy_processes.push_back({busiest[i].second, busiest[i].first});
  gate.busy = other > busy_other_cpus || steal > busy_steal_share;
  if (gate.busy) gate.warning = fmt_warning(other, steal, settings_.cpus, gate.busy_processes);
  return gate;
}

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_seconds_so_far() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    if (::getrusage(who, &u) != 0) continue;
    total += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
             static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

}  // namespace

struct periodic_noise_watch::impl {
  noise_probe probe{"/"};
  noise_watch watch{probe.settings(), static_cast<int>(::getpid())};
  void look() { watch.add(probe.snapshot(steady_seconds())); }
  double cpu_at_start = cpu_seconds_so_far();
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;
};

periodic_noise_watch::periodic_noise_watch(double period_seconds) : impl_(new impl) {
  impl_->look();
  // The watch thread takes no SIGINT or SIGTERM: they go to the thread that runs the workers.
  sigset_t stop_signals, previous;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
  impl_->thread = std::thread([this, period_seconds] {
    std::unique_lock<std::mutex> lock(impl_->mutex);
    while (!impl_->wake.wait_for(lock, std::chrono::duration<double>(period_seconds),
                                 [this] { return impl_->stopping; }))
      impl_->look();
  });
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

periodic_noise_watch::~periodic_noise_watch() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  delete impl_;
}

lab::model::noise_gate periodic_noise_watch::finish() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->look();
  return impl_->watch.gate(cpu_seconds_so_far() - impl_->cpu_at_start);
}

}  // namespace alloclab::process
