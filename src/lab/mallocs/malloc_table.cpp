#include "mallocs/malloc_table.hpp"

#include "mallocs/preload_libraries.hpp"

#include <deque>

namespace alloclab::mallocs {

namespace {

#ifndef ALLOCLAB_PRELOAD_DIR
#define ALLOCLAB_PRELOAD_DIR "."
#endif

#define ALLOCLAB_DLMALLOC_LIBRARY ALLOCLAB_PRELOAD_DIR "/liballoclab_dlmalloc.so"
#define ALLOCLAB_NEWLIB_LIBRARY ALLOCLAB_PRELOAD_DIR "/liballoclab_newlib.so"
#define ALLOCLAB_NEWLIB_NANO_LIBRARY ALLOCLAB_PRELOAD_DIR "/liballoclab_newlib_nano.so"

constexpr std::string_view newlib_how =
    "built by CMake from Debian's newlib-source tarball: apt install newlib-source, then "
    "reconfigure and build alloclab";
constexpr malloc_package libc6{"libc6", package_route::base_system, {}};

malloc_knobs glibc_knobs() {
  return {knob_style::glibc_tunables,
          {{"arena_max", knob_value::count_from_1, {}},
           {"trim_threshold", knob_value::count, {}},
           {"mmap_threshold", knob_value::count, {}},
           {"top_pad", knob_value::count, {}}},
          read_glibc_knob};
}

malloc_knobs jemalloc_knobs() {
  return {knob_style::malloc_conf,
          {{"dirty_decay_ms", knob_value::decay_ms, {}},
           {"muzzy_decay_ms", knob_value::decay_ms, {}},
           {"background_thread", knob_value::boolean, {}}},
          read_jemalloc_knob};
}

malloc_knobs mimalloc_knobs() {
  // mimalloc 2.1 renamed decommit_delay to purge_delay; Debian 12 ships 2.0.9, so set both.
  // arena_eager_commit is 2.1's; 2.0 commits segments eagerly under eager_commit.
  return {
      knob_style::one_variable_each,
      {{"purge_delay", knob_value::decay_ms, {"MIMALLOC_PURGE_DELAY", "MIMALLOC_DECOMMIT_DELAY"}},
       {"arena_eager_commit",
        knob_value::eager_commit,
        {"MIMALLOC_ARENA_EAGER_COMMIT", "MIMALLOC_EAGER_COMMIT"}}},
      read_mimalloc_knob};
}

malloc_knobs tcmalloc_knobs() {
  return {knob_style::one_variable_each,
          {{"release_rate", knob_value::rate, {"TCMALLOC_RELEASE_RATE"}}},
          read_tcmalloc_knob};
}

malloc_knobs dlmalloc_knobs() {
  // Read by the lab's dlmalloc preload at load (src/preload), passed to dlmallopt (an int).
  return {knob_style::one_variable_each,
          {{"trim_threshold", knob_value::int_count, {"ALLOCLAB_DLMALLOC_TRIM_THRESHOLD"}},
           {"mmap_threshold", knob_value::int_count, {"ALLOCLAB_DLMALLOC_MMAP_THRESHOLD"}}},
          read_dlmalloc_knob};
}

constexpr malloc_statistics glibc_statistics{read_glibc_stats, {}};
constexpr symbol_proof glibc_proof{"mallinfo2", "libc.so.6"};

// One glibc tuning variant: glibc, with `env` set and no knobs of its own.
malloc_entry glibc_variant(std::string_view name, std::string_view description,
                           std::vector<env_var> env) {
  return {name,
          description,
          libc6,
          {},
          std::move(env),
          "libc.so.6",
          {glibc_proof},
          false,
          {},
          glibc_statistics,
          purge_kind::glibc_malloc_trim};
}

std::deque<malloc_entry>& mutable_table() {
  // clang-format off
  static std::deque<malloc_entry> table{
    {"glibc", "glibc ptmalloc2, the native allocator (no preload)", libc6,
     {}, {}, "libc.so.6", {glibc_proof},
     true, glibc_knobs(), glibc_statistics, purge_kind::glibc_malloc_trim},
    glibc_variant("glibc_arena2", "glibc with MALLOC_ARENA_MAX=2 (fewer arenas, less "
                  "fragmentation)", {{"MALLOC_ARENA_MAX", "2"}}),
    glibc_variant("glibc_trim", "glibc with MALLOC_TRIM_THRESHOLD_=131072 (trims the heap top "
                  "sooner)", {{"MALLOC_TRIM_THRESHOLD_", "131072"}}),
    glibc_variant("glibc_nocliff", "glibc with memmove's rep-movsb threshold raised (no "
                  "relative-alignment copy cliff; see docs/placement.md)",
                  {{"GLIBC_TUNABLES", rep_movsb_off_tunables}}),
    {"jemalloc", "jemalloc 5 (LD_PRELOAD)", {"libjemalloc2", package_route::apt, {}},
     {"libjemalloc.so.2"}, {}, "libjemalloc.so.2", {{"mallctl", "libjemalloc.so.2"}},
     true, jemalloc_knobs(), {read_jemalloc_stats, {}}, purge_kind::jemalloc_mallctl},
    {"mimalloc", "Microsoft mimalloc 2.0 (LD_PRELOAD)", {"libmimalloc2.0", package_route::apt, {}},
     {"libmimalloc.so.2"}, {}, "libmimalloc.so.2", {{"mi_version", "libmimalloc.so.2"}},
     true, mimalloc_knobs(), {read_mimalloc_stats, {}}, purge_kind::mimalloc_collect},
    {"tcmalloc", "gperftools tcmalloc, minimal build (LD_PRELOAD)",
     {"libtcmalloc-minimal4", package_route::apt, {}},
     {"libtcmalloc_minimal.so.4"}, {}, "libtcmalloc_minimal.so.4",
     {{"MallocExtension_ReleaseFreeMemory", "libtcmalloc_minimal.so.4"},
      {"tc_malloc", "libtcmalloc_minimal.so.4"}},
     true, tcmalloc_knobs(), {read_tcmalloc_stats, {}}, purge_kind::tcmalloc_release},
    {"tbbmalloc", "oneTBB scalable allocator via its malloc proxy (LD_PRELOAD)",
     {"libtbbmalloc2", package_route::apt, {}},
     {"libtbbmalloc_proxy.so.2"}, {}, "libtbbmalloc_proxy.so.2",
     {{"__TBB_malloc_proxy", "libtbbmalloc_proxy.so.2"},
      {"scalable_malloc", "libtbbmalloc.so.2"}},
     true, {}, {nullptr, "tbbmalloc exports no statistics call"}, purge_kind::tbbmalloc_clean},
    {"dlmalloc", "Doug Lea's dlmalloc 2.8.6, seed 003's allocator, with locks (LD_PRELOAD of "
     "the lab's build of Debian's emscripten copy)",
     {"emscripten", package_route::fetched_from,
      "built by CMake from dlmalloc.c in Debian's emscripten package: run "
      "scripts/fetch-dlmalloc.sh, then reconfigure and build alloclab"},
     {ALLOCLAB_DLMALLOC_LIBRARY}, {}, ALLOCLAB_DLMALLOC_LIBRARY,
     {{"dlmallopt", ALLOCLAB_DLMALLOC_LIBRARY}, {"dlmalloc_footprint", ALLOCLAB_DLMALLOC_LIBRARY}},
     true, dlmalloc_knobs(), {read_dlmalloc_stats, {}}, purge_kind::dlmalloc_trim},
    {"newlib", "newlib 3.3's malloc (mallocr.c, from dlmalloc 2.6), the embedded toolchain's "
     "(LD_PRELOAD of the lab's host build)",
     {"newlib-source", package_route::built_from, newlib_how},
     {ALLOCLAB_NEWLIB_LIBRARY}, {}, ALLOCLAB_NEWLIB_LIBRARY,
     {{"_malloc_trim_r", ALLOCLAB_NEWLIB_LIBRARY}, {"alloclab_newlib_trim", ALLOCLAB_NEWLIB_LIBRARY}},
     false, {}, {read_newlib_stats, {}}, purge_kind::newlib_trim},
    // newlib-nano has no purge, so a live newlib_nano is not recognised (purge none).
    {"newlib_nano", "newlib-nano's malloc (nano-mallocr.c, a first-fit list; Cortex-M with "
     "nano.specs), 16-byte aligned (LD_PRELOAD of the lab's host build)",
     {"newlib-source", package_route::built_from, newlib_how},
     {ALLOCLAB_NEWLIB_NANO_LIBRARY}, {}, ALLOCLAB_NEWLIB_NANO_LIBRARY,
     {{"_malloc_r", ALLOCLAB_NEWLIB_NANO_LIBRARY},
      {"alloclab_newlib_heap_bytes", ALLOCLAB_NEWLIB_NANO_LIBRARY}},
     false, {}, {nullptr, "newlib-nano is not recognised live (it has no purge)"},
     purge_kind::none},
  };
  // clang-format on
  return table;
}

}  // namespace

std::string_view preload_build_dir() noexcept {
  return ALLOCLAB_PRELOAD_DIR;
}

const std::deque<malloc_entry>& malloc_registry() {
  return mutable_table();
}

const malloc_entry* find_malloc(std::string_view name) noexcept {
  for (const malloc_entry& e : malloc_registry()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> malloc_names() {
  std::vector<std::string> names;
  for (const malloc_entry& e : malloc_registry()) names.emplace_back(e.name);
  return names;
}

std::vector<std::string> try_default_mallocs() {
  std::vector<std::string> names;
  for (const malloc_entry& e : malloc_registry())
    if (e.try_default) names.emplace_back(e.name);
  return names;
}

const malloc_entry* malloc_purged_by(purge_kind kind) noexcept {
  if (kind == purge_kind::none) return nullptr;
  for (const malloc_entry& e : malloc_registry())
    if (e.purge == kind) return &e;
  return nullptr;
}

scoped_malloc_entry::scoped_malloc_entry(malloc_entry entry) {
  mutable_table().push_back(std::move(entry));
}

scoped_malloc_entry::~scoped_malloc_entry() {
  mutable_table().pop_back();
}

}  // namespace alloclab::mallocs
