// A program whose allocations are known exactly, for the recorder tests. Its worker threads are
// raw pthreads that allocate nothing but what is listed here, so their event counts are exact
// (the main thread also carries the C library's own allocations).
//
// Usage: trace_recorded_program threads   four workers (below); prints "tids T1 T2 T3 T4"
//        trace_recorded_program kill      allocates 200000 blocks, then SIGKILLs itself
//        trace_recorded_program fork      while a second thread allocates, a forked child frees a
//                                         block it inherited, allocates 1000 blocks of 7777 bytes
//                                         and forks a grandchild that allocates 500 of 5555
//        trace_recorded_program abort     allocates 5000 blocks of 4321 bytes, then abort()s
//        trace_recorded_program interrupt allocates 5000 blocks of 4321 bytes, then ends itself
//                                         with SIGINT as python does after KeyboardInterrupt
//        trace_recorded_program wait      allocates 5000 blocks of 4321 bytes, prints
//                                         "ready PID", then sleeps (up to 120 s) until a signal
//        trace_recorded_program late-free  one malloc arena; a worker allocates 20 blocks of 4000
//                                         bytes between blocks it keeps, and frees them in a
//                                         thread-key destructor that runs after the recorder's;
//                                         then main allocates such blocks until it holds one at
//                                         each of those addresses, and a third thread frees
//                                         those; prints "tids MAIN WORKER FREER" and "reused N"
//                                         (main's blocks at a worker's address)
//        trace_recorded_program random-threads SEED
//                                         four workers in a ring run a random mix of malloc,
//                                         realloc, free and frees of blocks the previous worker
//                                         handed over; each prints "worker TID LIVE_BLOCKS
//                                         LIVE_BYTES CROSS_FREES": what it allocated and left
//                                         alive (wherever it went), and its cross-thread frees
//
// threads: T1 malloc 100, realloc 55 (5 of them through reallocarray), memalign 10,
//             posix_memalign 10, aligned_alloc 10, calloc 5, malloc_usable_size 7, free 95;
//             leaves 40 blocks to T2.
//          T2 (after T1 ended) frees those 40 (cross-thread), malloc 10 + free 10.
//          T3 and T4 run together: T3 mallocs 1000 blocks of 24 B, T4 frees each (cross-thread).
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int handed_over = 40;
constexpr int queue_length = 1000;
void* blocks[100];
void* queue[queue_length];
std::atomic<int> queued{0};
long tids[4];

long self_tid() {
  return static_cast<long>(syscall(SYS_gettid));
}

void* first_worker(void*) {
  tids[0] = self_tid();
  for (int i = 0; i < 100; ++i) blocks[i] = std::malloc(static_cast<std::size_t>(i + 1));
  for (int i = 0; i < 50; ++i)
    blocks[i] = std::realloc(blocks[i], static_cast<std::size_t>(2 * (i + 1)));
  for (int i = 50; i < 55; ++i)
    blocks[i] = reallocarray(blocks[i], 2, static_cast<std::size_t>(i + 1));
  void* aligned[35];
  for (int i = 0; i < 10; ++i) aligned[i] = memalign(64, 32);
  for (int i = 10; i < 20; ++i)
    if (posix_memalign(&aligned[i], 64, 48) != 0) std::abort();
  for (int i = 20; i < 30; ++i) aligned[i] = std::aligned_alloc(64, 64);
  for (int i = 30; i < 35; ++i) aligned[i] = std::calloc(4, 8);
  std::size_t usable = 0;
  for (int i = 0; i < 7; ++i) usable += malloc_usable_size(blocks[i]);
  if (usable == 0) std::abort();
  for (int i = 0; i < 100 - handed_over; ++i) std::free(blocks[i]);
  for (void* p : aligned) std::free(p);
  return nullptr;
}

void* second_worker(void*) {
  tids[1] = self_tid();
  for (int i = 100 - handed_over; i < 100; ++i) std::free(blocks[i]);
  void* own[10];
  void* volatile* escape = own;  // the compiler may not elide what it cannot see freed
  for (int i = 0; i < 10; ++i) escape[i] = std::malloc(1000);
  for (void* p : own) std::free(p);
  return nullptr;
}

void* producer(void*) {
  tids[2] = self_tid();
  for (int i = 0; i < queue_length; ++i) {
    queue[i] = std::malloc(24);
    queued.store(i + 1, std::memory_order_release);
  }
  return nullptr;
}

void* consumer(void*) {
  tids[3] = self_tid();
  for (int i = 0; i < queue_length; ++i) {
    while (queued.load(std::memory_order_acquire) <= i) sched_yield();
    std::free(queue[i]);
  }
  return nullptr;
}

void run(void* (*body)(void*), pthread_t& t) {
  if (pthread_create(&t, nullptr, body, nullptr) != 0) std::abort();
}

int threads() {
  pthread_t t[4];
  run(first_worker, t[0]);
  pthread_join(t[0], nullptr);
  run(second_worker, t[1]);
  pthread_join(t[1], nullptr);
  run(producer, t[2]);
  run(consumer, t[3]);
  pthread_join(t[2], nullptr);
  pthread_join(t[3], nullptr);
  std::printf("tids %ld %ld %ld %ld\n", tids[0], tids[1], tids[2], tids[3]);
  return 0;
}

// random-threads: a block remembers its allocating worker and requested size in a side table
// (the workers allocate nothing else, so the trace's worker calls are exactly these).
constexpr int ring_workers = 4;
constexpr int ring_slots = 64;
constexpr int own_slots = 32;
constexpr int ring_rounds = 20000;

struct handed_block {
  void* pointer = nullptr;
  int owner = 0;
  std::size_t size = 0;
};
struct ring_worker {
  std::uint64_t random = 0;
  long tid = 0;
  long live_blocks = 0;  // allocated by this worker and not freed (by anyone)
  long live_bytes = 0;
  long cross_frees = 0;
  std::atomic<handed_block*> inbox[ring_slots] = {};
};
ring_worker ring[ring_workers];
std::atomic<long> freed_blocks[ring_workers];
std::atomic<long> freed_bytes[ring_workers];

std::uint64_t next_random(std::uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

void forget(const handed_block& b) {
  freed_blocks[b.owner].fetch_add(1, std::memory_order_relaxed);
  freed_bytes[b.owner].fetch_add(static_cast<long>(b.size), std::memory_order_relaxed);
}

void* ring_worker_body(void* self_pointer) {
  const int self = static_cast<int>(reinterpret_cast<std::intptr_t>(self_pointer));
  ring_worker& me = ring[self];
  ring_worker& next = ring[(self + 1) % ring_workers];
  me.tid = self_tid();
  handed_block own[own_slots];
  // Handed-over records live in static storage: the workers call malloc only for their blocks.
  static handed_block records[ring_workers][ring_rounds];
  for (int round = 0; round < ring_rounds; ++round) {
    const std::uint64_t r = next_random(me.random);
    handed_block& b = own[r % own_slots];
    const auto size = static_cast<std::size_t>(1 + (r >> 8) % 700);
    switch ((r >> 20) % 4) {
      case 0:  // free (a no-op on an empty slot is not recorded) and allocate anew
        if (b.pointer != nullptr) forget(b);
        std::free(b.pointer);
        b = {std::malloc(size), self, size};
        if (b.pointer == nullptr) std::abort();
        me.live_blocks += 1;
        me.live_bytes += static_cast<long>(size);
        break;
      case 1:  // realloc: the old block ends, a new one (of this worker) starts
        if (b.pointer != nullptr) forget(b);
        b = {std::realloc(b.pointer, size), self, size};
        if (b.pointer == nullptr) std::abort();
        me.live_blocks += 1;
        me.live_bytes += static_cast<long>(size);
        break;
      case 2: {  // hand a fresh block to the next worker; free what it had not taken
        handed_block& h = records[self][round];
        h = {std::malloc(size), self, size};
        me.live_blocks += 1;
        me.live_bytes += static_cast<long>(size);
        handed_block* old = next.inbox[(r >> 32) % ring_slots].exchange(&h);
        if (old != nullptr) {
          forget(*old);
          std::free(old->pointer);
          me.cross_frees += old->owner != self;
        }
        break;
      }
      default: {  // free a block the previous worker handed over
        handed_block* in = me.inbox[(r >> 32) % ring_slots].exchange(nullptr);
        if (in != nullptr) {
          forget(*in);
          std::free(in->pointer);
          me.cross_frees += in->owner != self;
        }
      }
    }
  }
  return nullptr;
}

int random_threads(const char* seed) {
  const auto base = static_cast<std::uint64_t>(std::strtoull(seed, nullptr, 10));
  for (int w = 0; w < ring_workers; ++w)
    ring[w].random = (base + 1) * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(w);
  pthread_t t[ring_workers];
  for (int w = 0; w < ring_workers; ++w)
    if (pthread_create(&t[w], nullptr, ring_worker_body,
                       reinterpret_cast<void*>(static_cast<std::intptr_t>(w))) != 0)
      std::abort();
  for (pthread_t& thread : t) pthread_join(thread, nullptr);
  for (int w = 0; w < ring_workers; ++w)
    std::printf("worker %ld %ld %ld %ld\n", ring[w].tid,
                ring[w].live_blocks - freed_blocks[w].load(),
                ring[w].live_bytes - freed_bytes[w].load(), ring[w].cross_frees);
  return 0;
}

// late-free: blocks freed by a thread after the recorder ended its recording (a later thread-key
// destructor) must not be taken for the blocks that reuse their addresses.
constexpr int late_blocks = 20;
constexpr std::size_t late_size = 4000;  // above the tcache's sizes: freed to the arena's bins
void* late[late_blocks];
void* kept[late_blocks + 1];  // around each late block: a freed one stays apart, the same size
std::uintptr_t worker_addresses[late_blocks];
pthread_key_t late_key;

void free_late(void*) {
  for (void* p : late) std::free(p);
}

void* late_worker(void*) {
  tids[1] = self_tid();
  kept[late_blocks] = std::malloc(late_size);
  for (int i = 0; i < late_blocks; ++i) {
    late[i] = std::malloc(late_size);
    worker_addresses[i] = reinterpret_cast<std::uintptr_t>(late[i]);
    kept[i] = std::malloc(late_size);
  }
  pthread_setspecific(late_key, late);  // destructor keys run in creation order: after ours
  return nullptr;
}

int late_reused = 0;  // main's blocks at a worker's address, in late[]

void* late_freer(void*) {
  tids[2] = self_tid();
  for (int i = 0; i < late_reused; ++i) std::free(late[i]);
  return nullptr;
}

int late_free() {
  mallopt(M_ARENA_MAX, 1);  // the worker's blocks in main's arena: its free blocks are main's
  tids[0] = self_tid();
  if (pthread_key_create(&late_key, free_late) != 0) std::abort();
  pthread_t t;
  run(late_worker, t);
  pthread_join(t, nullptr);
  // Main allocates until it holds a block at each of the worker's addresses (or gives up); the
  // others it frees itself at the end.
  static void* others[4000];
  int other_count = 0;
  while (late_reused < late_blocks && other_count < 4000) {
    void* p = std::malloc(late_size);
    bool was_workers = false;
    for (const std::uintptr_t a : worker_addresses)
      was_workers = was_workers || reinterpret_cast<std::uintptr_t>(p) == a;
    if (was_workers)
      late[late_reused++] = p;
    else
      others[other_count++] = p;
  }
  run(late_freer, t);
  pthread_join(t, nullptr);
  for (int i = 0; i < other_count; ++i) std::free(others[i]);
  for (void* p : kept) std::free(p);  // (read, so that the compiler keeps them)
  std::printf("tids %ld %ld %ld\nreused %d\n", tids[0], tids[1], tids[2], late_reused);
  return 0;
}

int killed() {
  for (int i = 0; i < 200000; ++i) static_cast<volatile char*>(std::malloc(16))[0] = 1;
  std::fflush(stdout);
  syscall(SYS_kill, getpid(), SIGKILL);  // as from outside: no chance to finish the trace
  return 0;
}

std::atomic<bool> stop_allocating{false};
std::atomic<long> busy_calls{0};

void* allocate_until_stopped(void*) {
  while (!stop_allocating.load()) {
    void* volatile p = std::malloc(99);
    std::free(p);
    busy_calls.fetch_add(1);
  }
  return nullptr;
}

// Forks, runs `body` in the child and returns whether the child exited with 0.
template <class Body>
bool in_child(Body body) {
  const pid_t child = fork();
  if (child == 0) std::exit(body() ? 0 : 1);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void allocate_and_free(int count, std::size_t size) {
  for (int i = 0; i < count; ++i) {
    void* volatile p = std::malloc(size);  // volatile: the compiler may not elide the pair
    std::free(p);
  }
}

int forked() {
  void* volatile mine = std::malloc(1234);
  pthread_t busy;
  run(allocate_until_stopped, busy);
  while (busy_calls.load() < 1000) sched_yield();
  const bool ok = in_child([&] {
    std::free(mine);  // inherited from the parent: a pointer this process never allocated
    allocate_and_free(1000, 7777);
    return in_child([] {
      allocate_and_free(500, 5555);
      return true;
    });
  });
  stop_allocating.store(true);
  pthread_join(busy, nullptr);
  std::free(mine);
  return ok ? 0 : 1;
}

void allocate_known_blocks() {
  for (int i = 0; i < 5000; ++i) static_cast<volatile char*>(std::malloc(4321))[0] = 1;
}

int aborted() {
  allocate_known_blocks();
  std::abort();
}

int interrupted() {
  allocate_known_blocks();
  std::signal(SIGINT, SIG_DFL);
  kill(getpid(), SIGINT);
  return 0;
}

int waiting() {
  allocate_known_blocks();
  std::printf("ready %ld\n", static_cast<long>(getpid()));
  std::fflush(stdout);
  sleep(120);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "threads") == 0) return threads();
  if (std::strcmp(mode, "kill") == 0) return killed();
  if (std::strcmp(mode, "fork") == 0) return forked();
  if (std::strcmp(mode, "abort") == 0) return aborted();
  if (std::strcmp(mode, "interrupt") == 0) return interrupted();
  if (std::strcmp(mode, "wait") == 0) return waiting();
  if (std::strcmp(mode, "random-threads") == 0 && argc > 2) return random_threads(argv[2]);
  if (std::strcmp(mode, "late-free") == 0) return late_free();
  std::fprintf(stderr,
               "usage: %s threads|kill|fork|abort|interrupt|wait|late-free|random-threads SEED\n",
               argv[0]);
  return 2;
}
