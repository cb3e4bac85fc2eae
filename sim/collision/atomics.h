// Atomic helpers usable from kernels on both backends (CUDA atomics on the
// device, GCC __atomic builtins in the OpenMP loop on the CPU).
#pragma once

#include <cstdint>

#include "sim/core/hd.h"

namespace cb {

/// Atomically adds v to *p and returns the old value. Acquire-release on the CPU;
/// on the device callers put __threadfence() before it when they publish data.
CB_HD CB_INLINE int32_t atomic_add_i32(int32_t* p, int32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
#endif
}

CB_HD CB_INLINE uint32_t atomic_add_u32(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
#endif
}

/// Atomically ors v into *p and returns the old value.
CB_HD CB_INLINE uint32_t atomic_or_u32(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicOr(p, v);
#else
  return __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL);
#endif
}

/// Makes this thread's earlier writes visible to other threads before a flag update.
CB_HD CB_INLINE void memory_fence() {
#if defined(__CUDA_ARCH__)
  __threadfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

}  // namespace cb
