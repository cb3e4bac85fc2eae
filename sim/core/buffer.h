// DeviceBuffer<T>: an array that lives where the backend computes — device memory
// for CUDA, host memory for the CPU backend. Trivially copyable T only.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/backend.h"

namespace cb {

namespace detail {
void* buffer_alloc(const Context& ctx, size_t bytes);
void buffer_free(const Context& ctx, void* p);
/// Copies between backend memory and host memory (to_host: backend -> host).
void buffer_copy_to_host(const Context& ctx, void* host, const void* dev, size_t bytes);
void buffer_copy_from_host(const Context& ctx, void* dev, const void* host, size_t bytes);
void buffer_copy_on_device(const Context& ctx, void* dst, const void* src, size_t bytes);
void buffer_fill_zero(const Context& ctx, void* p, size_t bytes);
}  // namespace detail

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable<T>::value, "DeviceBuffer holds trivially copyable types");

 public:
  DeviceBuffer() = default;
  DeviceBuffer(const Context& ctx, size_t n) { resize(ctx, n); }
  DeviceBuffer(const Context& ctx, const std::vector<T>& host) { upload(ctx, host); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }

  /// Resizes without keeping contents; the n elements are zeroed. The memory is
  /// kept while n fits in it (a buffer sized every step, like the proximity
  /// pairs, is not freed and allocated again each time: on the CPU that cost
  /// page faults, on the GPU a synchronising cudaFree/cudaMalloc); growing an
  /// allocated buffer leaves half again as much room.
  void resize(const Context& ctx, size_t n) {
    reserve_for(ctx, n);
    size_ = n;
    if (n) detail::buffer_fill_zero(ctx_, data_, n * sizeof(T));
  }
  void upload(const Context& ctx, const std::vector<T>& host) {
    reserve_for(ctx, host.size());
    size_ = host.size();
    if (size_) detail::buffer_copy_from_host(ctx_, data_, host.data(), size_ * sizeof(T));
  }
  void download(std::vector<T>& host) const {
    host.resize(size_);
    if (size_) detail::buffer_copy_to_host(ctx_, host.data(), data_, size_ * sizeof(T));
  }
  std::vector<T> to_host() const {
    std::vector<T> h;
    download(h);
    return h;
  }
  void copy_from(const DeviceBuffer& o) {
    reserve_for(o.ctx_, o.size_);  // no zeroing: every element is written below
    size_ = o.size_;
    if (size_) detail::buffer_copy_on_device(ctx_, data_, o.data_, size_ * sizeof(T));
  }
  void fill_zero() {
    if (size_) detail::buffer_fill_zero(ctx_, data_, size_ * sizeof(T));
  }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ctx_, o.ctx_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t bytes() const { return size_ * sizeof(T); }
  const Context& context() const { return ctx_; }

 private:
  // Memory for n elements on ctx's backend: the present allocation when it
  // fits, else a new one (contents not kept).
  void reserve_for(const Context& ctx, size_t n) {
    if (data_ && ctx.backend == ctx_.backend && n <= capacity_) return;
    const size_t grown = data_ && ctx.backend == ctx_.backend ? capacity_ + capacity_ / 2 : 0;
    release();
    ctx_ = ctx;
    if (n == 0) return;
    capacity_ = n > grown ? n : grown;
    data_ = static_cast<T*>(detail::buffer_alloc(ctx, capacity_ * sizeof(T)));
  }
  void release() {
    if (data_) detail::buffer_free(ctx_, data_);
    data_ = nullptr;
    size_ = 0;
    capacity_ = 0;
  }
  Context ctx_{};
  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;  ///< elements allocated (>= size_)
};

}  // namespace cb
