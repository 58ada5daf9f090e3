// alloclab/detail/fork_handlers.hpp: keeps a resource's locks usable in the
// child of a fork(). Private: not part of the public interface.
//
// A resource derives from fork_participant and calls join_fork_list() once
// built and leave_fork_list() first thing in its destructor (so the handlers
// never see it half made or half destroyed); in between, every fork()
// calls, on the forking thread: before_fork() (take the locks whose state the
// child needs consistent; they must be held only briefly and call nothing),
// then in the parent after_fork_in_parent() and in the child
// after_fork_in_child() (release them, and reset any lock another thread may
// have held: that thread does not exist in the child). One pthread_atfork
// registration per copy of this header's code; the list of participants is
// per copy too, so resources made by different shared libraries all take part.
#pragma once

#include <mutex>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define ALLOCLAB_HAS_PTHREAD_ATFORK 1
#endif

namespace alloclab::detail {

class fork_participant {
 public:
  fork_participant(const fork_participant&) = delete;
  fork_participant& operator=(const fork_participant&) = delete;

  virtual void before_fork() noexcept = 0;
  virtual void after_fork_in_parent() noexcept = 0;
  virtual void after_fork_in_child() noexcept = 0;

 protected:
  fork_participant() noexcept = default;
  ~fork_participant() { leave_fork_list(); }
  void join_fork_list() noexcept { participants().add(this); }
  void leave_fork_list() noexcept { participants().remove(this); }

 private:
  // The live participants, linked through themselves (adding never allocates).
  class participant_list {
   public:
    participant_list() noexcept {
#ifdef ALLOCLAB_HAS_PTHREAD_ATFORK
      (void)::pthread_atfork(&prepare, &in_parent, &in_child);
#endif
    }
    void add(fork_participant* p) noexcept {
      const std::lock_guard<std::mutex> lock{mutex_};
      if (p->listed_) return;
      p->listed_ = true;
      p->next_ = head_;
      p->previous_ = nullptr;
      if (head_ != nullptr) head_->previous_ = p;
      head_ = p;
    }
    void remove(fork_participant* p) noexcept {
      const std::lock_guard<std::mutex> lock{mutex_};
      if (!p->listed_) return;
      p->listed_ = false;
      if (p->previous_ != nullptr) p->previous_->next_ = p->next_;
      if (p->next_ != nullptr) p->next_->previous_ = p->previous_;
      if (head_ == p) head_ = p->next_;
    }

   private:
    static void prepare() noexcept {
      participant_list& self = participants();
      self.mutex_.lock();  // no participant comes or goes until after the fork
      for (fork_participant* p = self.head_; p != nullptr; p = p->next_) p->before_fork();
    }
    static void in_parent() noexcept {
      participant_list& self = participants();
      for (fork_participant* p = self.head_; p != nullptr; p = p->next_) p->after_fork_in_parent();
      self.mutex_.unlock();
    }
    static void in_child() noexcept {
      participant_list& self = participants();
      for (fork_participant* p = self.head_; p != nullptr; p = p->next_) p->after_fork_in_child();
      self.mutex_.unlock();
    }

    std::mutex mutex_;
    fork_participant* head_ = nullptr;
  };

  // Never destroyed: a fork or a resource's destruction during static destruction still finds it.
  static participant_list& participants() noexcept {
    static participant_list* const instance = new participant_list;
    return *instance;
  }

  fork_participant* previous_ = nullptr;
  fork_participant* next_ = nullptr;
  bool listed_ = false;
};

}  // namespace alloclab::detail
