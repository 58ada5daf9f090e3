#include "model_harness.hpp"

#include <alloclab/alloclab.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

namespace alloclab::testing {
namespace {

struct block_record {
  std::byte* p;
  std::size_t size;
  std::size_t alignment;
  unsigned char pattern;
};

// What the harness knows about one resource under test.
struct subject {
  checked_resource upstream_checker{std::pmr::new_delete_resource()};
  virtual ~subject() = default;
  virtual std::pmr::memory_resource& resource() = 0;
  // True when a request may legitimately throw std::bad_alloc.
  virtual bool may_refuse() const { return false; }
  virtual bool can_release() const { return false; }
  virtual bool can_rewind() const { return false; }
  virtual void release() {}
  virtual void mark() {}
  virtual void rewind() {}
  // Subject-specific invariants given the live blocks.
  virtual std::string check(const std::vector<block_record>&) const { return {}; }
  // Called after a successful allocation, for subjects that count.
  virtual void on_allocated(std::byte*, std::size_t, std::size_t) {}
  // Bytes taken from the upstream so far (cumulative), for scope loops.
  virtual std::size_t upstream_bytes_taken() const { return 0; }
};

std::size_t live_bytes(const std::vector<block_record>& live) {
  std::size_t total = 0;
  for (const block_record& b : live) total += b.size;
  return total;
}

struct arena_subject : subject {
  alignas(std::max_align_t) std::byte buffer[1024];
  arena_resource arena;
  std::vector<arena_mark> marks;
  explicit arena_subject(bool may_grow)
      : arena(
            buffer, sizeof buffer, may_grow ? &upstream_checker : std::pmr::null_memory_resource(),
            arena_options{
                may_grow ? overflow_policy::grow : overflow_policy::throw_bad_alloc, 2.0, 0, {}}) {}
  std::pmr::memory_resource& resource() override { return arena; }
  bool may_refuse() const override { return arena.upstream() == std::pmr::null_memory_resource(); }
  bool can_release() const override { return true; }
  bool can_rewind() const override { return true; }
  void release() override {
    arena.release();
    marks.clear();
  }
  void mark() override { marks.push_back(arena.mark()); }
  void rewind() override {
    arena.rewind(marks.back());
    marks.pop_back();
  }
  std::size_t upstream_bytes_taken() const override { return arena.upstream_bytes(); }
  std::string check(const std::vector<block_record>& live) const override {
    if (arena.used() < live_bytes(live)) return "arena used() below the live bytes";
    if (upstream_checker.blocks_in_use() > arena.upstream_allocations()) {
      return "arena holds more upstream blocks than it counted";
    }
    return {};
  }
};

// The pool's oracle is the documented rule, not the implementation's
// formula: a request fits when bytes <= the block size and alignment <= the
// largest power of two dividing it. The two pools below have 64- and 32-byte
// blocks (multiples of 16, so not rounded), hence alignments 64 and 32.
struct pool_subject : subject {
  static constexpr std::size_t growing_block = 64;
  static constexpr std::size_t fixed_block = 32;
  alignas(std::max_align_t) std::byte buffer[8192];
  pool_resource pool;
  std::size_t block;
  std::size_t oversize_expected = 0;
  explicit pool_subject(bool fixed)
      : pool(fixed ? pool_resource(fixed_block, fixed_buffer{buffer})
                   : pool_resource(growing_block, &upstream_checker)),
        block(fixed ? fixed_block : growing_block) {}
  std::pmr::memory_resource& resource() override { return pool; }
  bool may_refuse() const override { return pool.fixed_capacity(); }
  bool can_release() const override { return true; }
  void release() override { pool.release(); }
  bool fits(std::size_t bytes, std::size_t alignment) const {
    return bytes <= block && alignment <= block;
  }
  bool in_buffer(const std::byte* p) const { return p >= buffer && p < buffer + sizeof buffer; }
  void on_allocated(std::byte* p, std::size_t bytes, std::size_t alignment) override {
    if (!fits(bytes, alignment)) ++oversize_expected;
    if (pool.fixed_capacity() && !in_buffer(p)) fixed_outside = true;
  }
  bool fixed_outside = false;
  std::string check(const std::vector<block_record>&) const override {
    if (pool.oversize_allocations() != oversize_expected)
      return "pool oversize count differs from the model";
    if (fixed_outside) return "fixed pool served a block outside its buffer";
    return {};
  }
};

// multipool_resource (from the upstream or a fixed buffer) and
// concurrent_multipool_resource, used from one thread here.
template <class Pool>
struct multipool_subject_of : subject {
  alignas(std::max_align_t) std::byte buffer[16 * 1024];
  Pool pool;
  std::size_t oversize_expected = 0;
  explicit multipool_subject_of(bool fixed) : pool(make(fixed)) {}
  Pool make(bool fixed) {
    if constexpr (std::is_same_v<Pool, multipool_resource>) {
      if (fixed) return Pool(fixed_buffer{buffer}, multipool_options{1024});
      return Pool(&upstream_checker, multipool_options{1024});
    } else {
      return Pool(&upstream_checker, concurrent_multipool_options{1024});
    }
  }
  std::pmr::memory_resource& resource() override { return pool; }
  bool may_refuse() const override {
    if constexpr (std::is_same_v<Pool, multipool_resource>) return pool.fixed_capacity();
    return false;
  }
  bool can_release() const override { return true; }
  void release() override { pool.release(); }
  void on_allocated(std::byte*, std::size_t bytes, std::size_t alignment) override {
    if (pool.class_of(bytes, alignment) == Pool::no_class) ++oversize_expected;
  }
  std::string check(const std::vector<block_record>& live) const override {
    if (pool.oversize_allocations() != oversize_expected)
      return "multipool oversize count differs from the model";
    std::size_t pooled = 0;
    for (const block_record& b : live)
      pooled += pool.class_of(b.size, b.alignment) != Pool::no_class;
    std::size_t in_use = 0;
    for (std::size_t i = 0; i < pool.class_count(); ++i) {
      const multipool_class_stats stats = pool.class_stats(i);
      in_use += stats.blocks_in_use;
      if (stats.chunks == 0 && stats.blocks_in_use + stats.blocks_free != 0)
        return "multipool class without chunks reports blocks";
    }
    if (in_use != pooled) return "multipool blocks in use differ from the model";
    return {};
  }
};

using multipool_subject = multipool_subject_of<multipool_resource>;
using concurrent_multipool_subject = multipool_subject_of<concurrent_multipool_resource>;

struct tracking_subject : subject {
  tracking_resource tracker{&upstream_checker};
  std::pmr::memory_resource& resource() override { return tracker; }
  std::string check(const std::vector<block_record>& live) const override {
    if (tracker.blocks().current != live.size())
      return "tracking block count differs from the model";
    if (tracker.bytes().current != live_bytes(live))
      return "tracking byte count differs from the model";
    if (tracker.bytes().peak < tracker.bytes().current) return "tracking peak below current";
    return {};
  }
};

struct limit_subject : subject {
  static constexpr std::size_t budget = 64 * 1024;
  limit_resource limit{&upstream_checker, {budget}};
  std::pmr::memory_resource& resource() override { return limit; }
  bool may_refuse() const override { return true; }
  std::string check(const std::vector<block_record>& live) const override {
    if (limit.bytes_in_use() != live_bytes(live)) return "limit budget differs from the model";
    if (limit.bytes_in_use() > budget) return "limit exceeded its budget";
    return {};
  }
};

struct checked_subject : subject {
  checked_resource checker{&upstream_checker, misuse_reaction::record};
  std::pmr::memory_resource& resource() override { return checker; }
  void release() override { checker.release_quarantine(); }
  std::string check(const std::vector<block_record>& live) const override {
    if (checker.blocks_in_use() != live.size()) return "checked block count differs from the model";
    if (checker.total_misuses() != 0)
      return "checked resource reported a misuse: " + checker.last_misuse();
    return {};
  }
};

// A deliberately broken resource: every fourth request gets the previous
// block again. The harness must notice.
struct sabotaged_subject : subject {
  struct overlapping_resource final : std::pmr::memory_resource {
    std::pmr::memory_resource* upstream;
    void* previous = nullptr;
    std::size_t requests = 0;
    explicit overlapping_resource(std::pmr::memory_resource* u) : upstream(u) {}
    void* do_allocate(std::size_t bytes, std::size_t alignment) override {
      if (++requests % 4 == 0 && previous) return previous;
      return previous = upstream->allocate(bytes < 64 ? 64 : bytes, alignment);
    }
    void do_deallocate(void*, std::size_t, std::size_t) override {}
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
      return this == &o;
    }
  };
  arena_resource backing{nullptr, 0, &upstream_checker};
  overlapping_resource broken{&backing};
  std::pmr::memory_resource& resource() override { return broken; }
  bool can_release() const override { return true; }
  void release() override { backing.release(); }
};

constexpr std::size_t subject_count = 10;

std::unique_ptr<subject> make_subject(std::size_t index) {
  switch (index) {
    case 0:
      return std::make_unique<arena_subject>(true);
    case 1:
      return std::make_unique<arena_subject>(false);
    case 2:
      return std::make_unique<pool_subject>(false);
    case 3:
      return std::make_unique<pool_subject>(true);
    case 4:
      return std::make_unique<tracking_subject>();
    case 5:
      return std::make_unique<limit_subject>();
    case 6:
      return std::make_unique<checked_subject>();
    case 7:
      return std::make_unique<multipool_subject>(false);
    case 8:
      return std::make_unique<multipool_subject>(true);
    case 9:
      return std::make_unique<concurrent_multipool_subject>(false);
    default:
      return std::make_unique<sabotaged_subject>();
  }
}

class byte_reader {
 public:
  byte_reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

std::size_t decode_size(std::uint8_t b) {
  if (b < 200) return b;
  if (b < 240) return std::size_t{b - 199u} * 64;
  return std::size_t{b - 239u} * 4096;
}

std::size_t decode_alignment(std::uint8_t b) {
  if (b % 16 == 15) return 4096;
  return std::size_t{1} << (b % 8);
}

bool overlaps(const block_record& a, const std::byte* p, std::size_t size) {
  if (a.size == 0 || size == 0) return false;
  return p < a.p + a.size && a.p < p + size;
}

bool intact(const block_record& b) {
  for (std::size_t i = 0; i < b.size; ++i) {
    if (b.p[i] != std::byte{b.pattern}) return false;
  }
  return true;
}

class model_run {
 public:
  explicit model_run(std::size_t subject_index) : subject_(make_subject(subject_index)) {}

  std::string execute(byte_reader& in) {
    for (std::size_t step = 0; !in.done() && error_.empty(); ++step) {
      apply(in.next(), in);
      if (step % 16 == 0 && error_.empty()) verify();
    }
    if (error_.empty()) verify();
    if (error_.empty()) finish();
    return error_;
  }

 private:
  void apply(std::uint8_t op, byte_reader& in) {
    switch (op % 9) {
      case 0:
      case 1:
      case 2:
        allocate(decode_size(in.next()), decode_alignment(in.next()));
        break;
      case 3:
      case 4:
        deallocate(in.next());
        break;
      case 5:
        release();
        break;
      case 6:
        mark();
        break;
      case 7:
        rewind();
        break;
      default:
        scope_loop(in.next());
        break;
    }
  }

  // A request loop in a scope: mark, allocate, rewind, pass after pass. The
  // upstream bytes a pass takes may not grow (review defect 1).
  void scope_loop(std::uint8_t b) {
    if (!subject_->can_rewind() || marks_.size() >= 8) return;
    const std::size_t size = 256 + std::size_t{b} * 64;
    std::size_t first_pass = 0;
    for (int pass = 0; pass < 12 && error_.empty(); ++pass) {
      const std::size_t before = subject_->upstream_bytes_taken();
      mark();
      allocate(size, 8);
      rewind();
      const std::size_t taken = subject_->upstream_bytes_taken() - before;
      if (pass == 0) first_pass = taken;
      if (taken > first_pass) fail("a scope loop takes more upstream bytes pass after pass");
    }
  }

  void allocate(std::size_t size, std::size_t alignment) {
    if (live_.size() >= 256) return;
    auto* limit = dynamic_cast<limit_subject*>(subject_.get());
    const bool over_budget = limit && live_bytes(live_) + size > limit_subject::budget;
    void* p = nullptr;
    try {
      p = subject_->resource().allocate(size, alignment);
    } catch (const std::bad_alloc&) {
      if (!subject_->may_refuse()) error_ = "allocation refused by a resource that may not refuse";
      if (limit && !over_budget) error_ = "limit refused a request within its budget";
      return;
    }
    if (over_budget) return fail("limit granted a request beyond its budget");
    check_new_block(static_cast<std::byte*>(p), size, alignment);
    subject_->on_allocated(static_cast<std::byte*>(p), size, alignment);
  }

  void check_new_block(std::byte* p, std::size_t size, std::size_t alignment) {
    if (p == nullptr) return fail("allocate returned null");
    if (!detail::is_aligned(p, alignment)) return fail("misaligned block");
    for (const block_record& b : live_) {
      if (overlaps(b, p, size)) return fail("new block overlaps a live block");
    }
    const auto pattern = static_cast<unsigned char>(++counter_ * 31 + 7);
    std::memset(p, pattern, size);
    live_.push_back({p, size, alignment, pattern});
  }

  void deallocate(std::uint8_t which) {
    if (live_.empty()) return;
    const std::size_t index = which % live_.size();
    const block_record b = live_[index];
    if (!intact(b)) return fail("block contents changed while live");
    subject_->resource().deallocate(b.p, b.size, b.alignment);
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  void release() {
    if (!subject_->can_release()) return;
    // Oversize blocks of a pool live upstream; return them before releasing.
    if (dynamic_cast<pool_subject*>(subject_.get()) ||
        dynamic_cast<multipool_subject*>(subject_.get()) ||
        dynamic_cast<concurrent_multipool_subject*>(subject_.get()))
      free_all_live();
    subject_->release();
    live_.clear();
    marks_.clear();
  }

  void mark() {
    if (!subject_->can_rewind() || marks_.size() >= 8) return;
    subject_->mark();
    marks_.push_back(live_);
  }

  void rewind() {
    if (!subject_->can_rewind() || marks_.empty()) return;
    subject_->rewind();
    const std::vector<block_record> at_mark = std::move(marks_.back());
    marks_.pop_back();
    auto was_live_at_mark = [&](const block_record& b) {
      return std::any_of(at_mark.begin(), at_mark.end(),
                         [&](const block_record& m) { return m.p == b.p; });
    };
    live_.erase(std::remove_if(live_.begin(), live_.end(),
                               [&](const block_record& b) { return !was_live_at_mark(b); }),
                live_.end());
  }

  void verify() {
    for (const block_record& b : live_) {
      if (!intact(b)) return fail("block contents changed while live");
    }
    const std::string problem = subject_->check(live_);
    if (!problem.empty()) fail(problem);
  }

  void free_all_live() {
    for (const block_record& b : live_) subject_->resource().deallocate(b.p, b.size, b.alignment);
    live_.clear();
  }

  // Returns everything, then audits what the subject did to its upstream.
  void finish() {
    free_all_live();
    subject_->release();
    const checked_resource& upstream = subject_->upstream_checker;
    if (upstream.blocks_in_use() != 0) return fail("resource kept upstream blocks after release");
    if (upstream.total_misuses() != 0)
      fail("resource misused its upstream: " + upstream.last_misuse());
  }

  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

  std::unique_ptr<subject> subject_;
  std::vector<block_record> live_;
  std::vector<std::vector<block_record>> marks_;
  std::size_t counter_ = 0;
  std::string error_;
};

}  // namespace

std::size_t model_subject_count() {
  return subject_count;
}

std::string run_model(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  byte_reader in{data + 1, size - 1};
  model_run run{data[0] % subject_count};
  return run.execute(in);
}

std::string run_model_on_sabotaged_resource(const std::uint8_t* data, std::size_t size) {
  byte_reader in{data, size};
  model_run run{subject_count};
  return run.execute(in);
}

}  // namespace alloclab::testing
