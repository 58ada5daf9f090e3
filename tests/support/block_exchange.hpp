// A queue of blocks handed from one thread to another, for the concurrent pool tests.
#pragma once

#include <deque>
#include <mutex>

namespace alloclab::testing {

template <class Block>
class block_exchange {
 public:
  void put(const Block& b) {
    const std::lock_guard<std::mutex> lock{mutex_};
    queue_.push_back(b);
  }
  bool take(Block& b) {
    const std::lock_guard<std::mutex> lock{mutex_};
    if (queue_.empty()) return false;
    b = queue_.front();
    queue_.pop_front();
    return true;
  }

 private:
  std::mutex mutex_;
  std::deque<Block> queue_;
};

}  // namespace alloclab::testing
