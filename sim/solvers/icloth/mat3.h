// Small 3x3 matrix algebra for the I-Cloth kernels (host and device), templated on
// the scalar so the finite-difference tests can run the same code in double.
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb::icloth {

/// Row-major 3x3 matrix, zero by default.
template <class T>
struct M3T {
  T m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  CB_HD static M3T identity(T s = T(1)) {
    M3T r;
    r.m[0][0] = r.m[1][1] = r.m[2][2] = s;
    return r;
  }
  CB_HD Vec3T<T> operator*(Vec3T<T> v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
  CB_HD M3T transposed() const {
    M3T t;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) t.m[i][j] = m[j][i];
    return t;
  }
  CB_HD M3T& operator+=(const M3T& o) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] += o.m[i][j];
    return *this;
  }
};
using M3 = M3T<float>;

template <class T> CB_HD CB_INLINE M3T<T> operator+(M3T<T> a, const M3T<T>& b) { return a += b; }
template <class T> CB_HD CB_INLINE M3T<T> operator*(M3T<T> a, T s) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.m[i][j] *= s;
  return a;
}
/// a b^T
template <class T> CB_HD CB_INLINE M3T<T> outer(Vec3T<T> a, Vec3T<T> b) {
  M3T<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = a[i] * b[j];
  return r;
}
/// Adds s * a b^T to r.
template <class T> CB_HD CB_INLINE void add_outer(M3T<T>& r, T s, Vec3T<T> a, Vec3T<T> b) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] += s * a[i] * b[j];
}

/// Inverse of a 3x3 matrix by cofactors; returns false (and r = 0) when |det| is
/// below `eps` times the scale of the entries cubed.
template <class T> CB_HD inline bool invert(const M3T<T>& a, M3T<T>& r, T eps = T(1e-12)) {
  const T(*m)[3] = a.m;
  T c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
  T c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
  T c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
  T det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
  T scale = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) scale = scale > std::fabs(m[i][j]) ? scale : std::fabs(m[i][j]);
  r = M3T<T>{};
  if (!(std::fabs(det) > eps * scale * scale * scale)) return false;
  T inv = T(1) / det;
  r.m[0][0] = c00 * inv;
  r.m[1][0] = c01 * inv;
  r.m[2][0] = c02 * inv;
  r.m[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * inv;
  r.m[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * inv;
  r.m[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * inv;
  r.m[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * inv;
  r.m[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * inv;
  r.m[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * inv;
  return true;
}

}  // namespace cb::icloth
