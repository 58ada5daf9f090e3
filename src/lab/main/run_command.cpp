#include "run_command.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "measure/build_guard.hpp"
#include "measure/runner.hpp"
#include "report/atomic_write.hpp"
#include "report/claims.hpp"
#include "report/markdown.hpp"
#include "report/results.hpp"
#include "report/schema_check.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

namespace lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string join_names(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

template <class Registry>
std::vector<std::string> all_names(const Registry& registry) {
    std::vector<std::string> names;
    for (const auto& entry : registry) names.push_back(entry.name);
    return names;
}

// Requested names in registry order; an unknown one is a usage error listing the valid ones.
template <class Registry>
std::vector<std::string> select(const std::vector<std::string>& requested, const Registry& registry, const char* kind,
                                const char* kinds) {
    const std::vector<std::string> valid = all_names(registry);
    if (requested.empty()) return valid;
    for (const auto& name : requested)
        if (std::find(valid.begin(), valid.end(), name) == valid.end())
            throw usage_error(fmt::format("unknown {} '{}'; valid {}: {}", kind, name, kinds, join_names(valid)));
    std::vector<std::string> chosen;
    for (const auto& name : valid)
        if (std::find(requested.begin(), requested.end(), name) != requested.end()) chosen.push_back(name);
    return chosen;
}

std::string utc_now(const char* pattern) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[64];
    std::strftime(text, sizeof text, pattern, &utc);
    return text;
}

// results/<UTC timestamp>, with a suffix if a run in the same second already took the name.
fs::path fresh_run_directory(const fs::path& root) {
    const std::string stamp = utc_now("%Y%m%dT%H%M%SZ");
    fs::path candidate = root / stamp;
    for (int n = 2; fs::exists(candidate); ++n) candidate = root / fmt::format("{}-{}", stamp, n);
    return candidate;
}

// Progress on stderr: one rewritten line on a terminal, plain lines otherwise.
progress_callback make_progress_printer() {
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    return [tty](const progress_event& e) {
        const std::string line =
            e.repetition == 0
                ? fmt::format("[prepare] {}", e.what)
                : fmt::format("[rep {}/{}] {} ({}/{} cells)", e.repetition, e.repetitions, e.what, e.cells_done,
                              e.cells_total);
        if (tty)
            std::cerr << "\r\033[K" << line << std::flush;
        else
            std::cerr << line << '\n';
    };
}

void end_progress_line() {
    if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

// Refuses an unoptimised build unless --allow-debug; returns whether the output is stamped DEBUG.
bool check_build_or_refuse(bool allow_debug) {
    const build_facts facts = current_build();
    switch (judge_build(facts, allow_debug)) {
        case build_verdict::publish: return false;
        case build_verdict::refuse:
            throw usage_error(fmt::format("this binary is not benchmark-ready ({}, build type {}); rebuild with "
                                          "`cmake --preset release` or pass --allow-debug to get DEBUG-stamped output",
                                          facts.describe(), facts.build_type));
        case build_verdict::stamp_debug:
            std::cerr << "alloclab: WARNING: DEBUG build (" << facts.describe() << "); every output is stamped DEBUG\n";
            return true;
    }
    return true;
}

json measure(const run_config& config, const run_request& request, const progress_callback& progress) {
    const run_measurement run = run_suite(config, progress);
    json results = build_results(run, results_context{current_build(), request.command_line,
                                                      utc_now("%Y-%m-%dT%H:%M:%SZ")});
    results["claims"] = judge_claims(results, seed_claims());
    return results;
}

json read_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw usage_error(fmt::format("cannot read results file '{}'", path));
    try {
        return json::parse(in);
    } catch (const json::parse_error& e) {
        throw usage_error(fmt::format("'{}' is not valid JSON: {}", path, e.what()));
    }
}

}  // namespace

run_config resolve_config(const run_request& request) {
    run_config config;
    config.workloads = select(request.workloads, workload_registry(), "workload", "workloads");
    config.strategies = select(request.strategies, strategy_registry(), "strategy", "strategies");
    config.quick = request.quick;
    config.samples_per_repetition = request.iterations.value_or(request.quick ? quick_samples : default_samples);
    config.repetitions = request.repetitions.value_or(request.quick ? quick_repetitions : default_repetitions);
    config.seed = request.seed;
    return config;
}

int execute_run(const run_request& request) {
    const run_config config = resolve_config(request);
    const fs::path root = request.out;
    try {
        ensure_writable_directory(root);
    } catch (const std::system_error& e) {
        throw usage_error(fmt::format("--out '{}' is not writable: {}", request.out, e.what()));
    }
    const bool debug = check_build_or_refuse(request.allow_debug);

    const json results = measure(config, request, make_progress_printer());
    end_progress_line();

    const fs::path directory = fresh_run_directory(root);
    fs::create_directories(directory);
    write_file_atomically(directory / "results.json", results.dump(2) + "\n");
    write_file_atomically(directory / "report.md", render_report(results));
    replace_symlink_atomically(root / "latest", directory.filename());

    std::cout << render_headline(results) << '\n';
    for (const auto& warning : results["warnings"]) std::cout << "warning: " << warning.get<std::string>() << '\n';
    std::cout << (debug ? "DEBUG report: " : "report: ") << (directory / "report.md").string() << '\n';
    return 0;
}

int execute_worker(const run_request& request) {
    const run_config config = resolve_config(request);
    if (config.workloads.size() != 1 || config.strategies.size() != 1)
        throw usage_error("worker measures exactly one --workloads name and one --strategies name");
    check_build_or_refuse(request.allow_debug);
    std::cout << measure(config, request, [](const progress_event&) {}).dump() << '\n';
    return 0;
}

int execute_list() {
    std::cout << "workloads:\n";
    for (const auto& w : workload_registry()) std::cout << fmt::format("  {:<26} {}\n", w.name, w.description);
    std::cout << "strategies:\n";
    for (const auto& s : strategy_registry()) std::cout << fmt::format("  {:<26} {}\n", s.name, s.description);
    return 0;
}

int execute_report(const std::string& results_path, const std::string& output_path) {
    json results = read_json_file(results_path);
    if (auto problems = schema_violations(results, results_schema()); !problems.empty())
        throw usage_error(fmt::format("'{}' does not match the results schema: {}", results_path, problems.front()));
    results["claims"] = judge_claims(results, seed_claims());  // re-judged with the current claims file
    const std::string report = render_report(results);
    if (output_path.empty() || output_path == "-")
        std::cout << report;
    else
        write_file_atomically(output_path, report);
    return 0;
}

int execute_validate(const std::string& results_path) {
    const json results = read_json_file(results_path);
    const auto problems = schema_violations(results, results_schema());
    for (const auto& p : problems) std::cout << p << '\n';
    if (!problems.empty()) {
        std::cerr << fmt::format("alloclab: error: '{}' has {} schema violation(s)\n", results_path, problems.size());
        return 1;
    }
    std::cout << results_path << ": valid (schema_version " << results["schema_version"] << ")\n";
    return 0;
}

}  // namespace lab
