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

  /// Resizes without keeping contents; new memory is zeroed.
  void resize(const Context& ctx, size_t n) {
    if (n == size_ && ctx.backend == ctx_.backend && data_) {
      detail::buffer_fill_zero(ctx_, data_, n * sizeof(T));
      return;
    }
    release();
    ctx_ = ctx;
    size_ = n;
    if (n) {
      data_ = static_cast<T*>(detail::buffer_alloc(ctx, n * sizeof(T)));
      detail::buffer_fill_zero(ctx, data_, n * sizeof(T));
    }
  }
  void upload(const Context& ctx, const std::vector<T>& host) {
    if (host.size() != size_ || ctx.backend != ctx_.backend || !data_) {
      release();
      ctx_ = ctx;
      size_ = host.size();
      if (size_) data_ = static_cast<T*>(detail::buffer_alloc(ctx, size_ * sizeof(T)));
    }
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
    if (o.size_ != size_ || o.ctx_.backend != ctx_.backend) resize(o.ctx_, o.size_);
    if (size_) detail::buffer_copy_on_device(ctx_, data_, o.data_, size_ * sizeof(T));
  }
  void fill_zero() {
    if (size_) detail::buffer_fill_zero(ctx_, data_, size_ * sizeof(T));
  }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ctx_, o.ctx_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t bytes() const { return size_ * sizeof(T); }
  const Context& context() const { return ctx_; }

 private:
  void release() {
    if (data_) detail::buffer_free(ctx_, data_);
    data_ = nullptr;
    size_ = 0;
  }
  Context ctx_{};
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cb
