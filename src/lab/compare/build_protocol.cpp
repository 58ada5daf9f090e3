#include "compare/build_protocol.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/slice_gate.hpp"
#include "plan/request.hpp"
#include "process/worker.hpp"
#include "results/build_revision.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

constexpr const char* protocol_command = "__protocol";

json protocol_json(const build_protocol& p) {
  return {{"worker_protocol", p.worker},
          {"lockstep_protocol", p.lockstep},
          {"revision", p.revision ? json(*p.revision) : json(nullptr)}};
}

void check_executable(const std::string& binary) {
  std::error_code ec;
  if (!std::filesystem::exists(binary, ec))
    throw usage_error(fmt::format("binary '{}' does not exist", binary));
  if (std::filesystem::is_directory(binary, ec) || ::access(binary.c_str(), X_OK) != 0)
    throw usage_error(fmt::format("'{}' is not an executable file", binary));
}

}  // namespace

build_protocol this_protocol() {
  const std::string revision = build_revision();
  return {worker_protocol_version, lockstep::protocol_version,
          revision.empty() ? std::nullopt : std::optional<std::string>(revision)};
}

int print_protocol(std::ostream& out) {
  out << protocol_json(this_protocol()).dump() << '\n';
  return out ? 0 : 1;
}

build_protocol ask_protocol(const std::string& binary) {
  check_executable(binary);
  alloclab::process::worker_request request;
  request.argv = {binary, protocol_command};
  request.timeout = std::chrono::seconds(30);
  request.stdout_max_bytes = 4096;
  const alloclab::process::worker_outcome o = alloclab::process::run_worker(request);
  const std::string refused = fmt::format(
      "'{}' does not say its worker protocol (`{} {}`: {}): not an alloclab lab binary, or one "
      "built before `compare --paired`",
      binary, binary, protocol_command, o.describe());
  if (!o.succeeded()) throw usage_error(refused);
  try {
    const json j = json::parse(o.stdout_text);
    build_protocol p;
    p.worker = j.at("worker_protocol");
    p.lockstep = j.at("lockstep_protocol");
    if (j.at("revision").is_string()) p.revision = j.at("revision").get<std::string>();
    return p;
  } catch (const json::exception&) {
    throw usage_error(refused);
  }
}

std::string protocol_mismatch(const build_protocol& ours, const build_protocol& theirs) {
  if (ours.worker != theirs.worker)
    return fmt::format("worker protocol {} where this alloclab speaks {}", theirs.worker,
                       ours.worker);
  if (ours.lockstep != theirs.lockstep)
    return fmt::format("lockstep protocol {} where this alloclab speaks {}", theirs.lockstep,
                       ours.lockstep);
  return {};
}

}  // namespace alloclab::lab
