// The CPU form of one row of the stiffness product, s + sum_b (K_b (p_col(b) - pi)) c,
// in SSE registers. It rounds exactly as the scalar form (system_kernels.h,
// add_stiffness_row): per block and component ((k_r0 x + k_r1 y) + k_r2 z) c,
// added to s block by block in stored order. Only the arithmetic's lanes
// change: the three components of a block go through one 4-wide register
// (lane 3 carries a copy and is dropped), so every trajectory stays bit for
// bit what the scalar code gives. Host only; x86-64 always has SSE2.
#pragma once

#if !defined(__CUDA_ARCH__) && defined(__SSE2__)
#define CB_STIFFNESS_ROW_SSE 1
#include <xmmintrin.h>

#include <cstdint>

#include "sim/solvers/icloth/mat3.h"

namespace cb::icloth {

/// Column j of the row-major block at m (9 floats) in lanes 0-2: the three
/// loads stay inside the block (no read past its last float).
struct BlockColumns {
  __m128 c0, c1, c2;
};

inline BlockColumns block_columns(const float* m) {
  const __m128 a = _mm_loadu_ps(m);      // m00 m01 m02 m10
  const __m128 b = _mm_loadu_ps(m + 4);  // m11 m12 m20 m21
  const __m128 e = _mm_load_ss(m + 8);   // m22 0 0 0
  const __m128 u1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 0, 1, 1));  // m01 m01 m11 m21
  const __m128 u2 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));  // m02 m02 m12 m12
  return {_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 2, 3, 0)),           // m00 m10 m20 m20
          _mm_shuffle_ps(u1, u1, _MM_SHUFFLE(3, 3, 2, 0)),         // m01 m11 m21 m21
          _mm_shuffle_ps(u2, e, _MM_SHUFFLE(0, 0, 2, 0))};         // m02 m12 m22 m22
}

/// s + sum over b < len of (K[start + b] (p[cols[start + b]] - pi)) c: a row in CSR order.
inline Vec3f add_stiffness_row_sse(const M3* K, const uint32_t* cols, uint32_t start, uint32_t len, const Vec3f* p,
                                   Vec3f pi, float c, Vec3f s) {
  __m128 acc = _mm_setr_ps(s.x, s.y, s.z, 0.f);
  const __m128 cv = _mm_set1_ps(c);
  for (uint32_t b = 0; b < len; ++b) {
    const uint32_t k = start + b;
    const BlockColumns col = block_columns(&K[k].m[0][0]);
    const Vec3f q = p[cols[k]] - pi;
    __m128 t = _mm_mul_ps(col.c0, _mm_set1_ps(q.x));
    t = _mm_add_ps(t, _mm_mul_ps(col.c1, _mm_set1_ps(q.y)));
    t = _mm_add_ps(t, _mm_mul_ps(col.c2, _mm_set1_ps(q.z)));
    acc = _mm_add_ps(acc, _mm_mul_ps(t, cv));
  }
  alignas(16) float out[4];
  _mm_store_ps(out, acc);
  return {out[0], out[1], out[2]};
}

}  // namespace cb::icloth
#endif
