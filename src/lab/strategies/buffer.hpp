// A heap-allocated, pre-touched byte buffer for arena strategies (allocated once per cell,
// outside every measured pass).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>

namespace alloclab::lab {

class owned_buffer {
 public:
  explicit owned_buffer(std::size_t size)
      : bytes_(static_cast<std::byte*>(::operator new (size, std::align_val_t{64}))), size_(size) {
    std::memset(bytes_.get(), 0, size);  // fault every page in now, not in the timed region
  }
  std::byte* data() const { return bytes_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct aligned_delete {
    void operator()(std::byte* p) const { ::operator delete (p, std::align_val_t{64}); }
  };
  std::unique_ptr<std::byte, aligned_delete> bytes_;
  std::size_t size_;
};

}  // namespace alloclab::lab
