// Small vector math shared by host and device code. Plain structs (no CUDA
// vector types) so the CPU-only build needs no CUDA header.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/core/hd.h"

namespace cb {

template <class T>
struct Vec3T {
  T x, y, z;
  CB_HD Vec3T() : x(0), y(0), z(0) {}
  CB_HD Vec3T(T a, T b, T c) : x(a), y(b), z(c) {}
  template <class U>
  CB_HD explicit Vec3T(const Vec3T<U>& o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}
  CB_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  CB_HD T operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};
using Vec3f = Vec3T<float>;
using Vec3d = Vec3T<double>;

struct Vec2f {
  float x = 0, y = 0;
};
struct Int2 {
  int32_t a = 0, b = 0;
};
struct Int3 {
  int32_t a = 0, b = 0, c = 0;
  CB_HD int32_t operator[](int i) const { return i == 0 ? a : (i == 1 ? b : c); }
};
struct Int4 {
  int32_t a = 0, b = 0, c = 0, d = 0;
};

template <class T> CB_HD CB_INLINE Vec3T<T> operator+(Vec3T<T> a, Vec3T<T> b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> CB_HD CB_INLINE Vec3T<T> operator-(Vec3T<T> a, Vec3T<T> b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> CB_HD CB_INLINE Vec3T<T> operator-(Vec3T<T> a) { return {-a.x, -a.y, -a.z}; }
template <class T> CB_HD CB_INLINE Vec3T<T> operator*(Vec3T<T> a, T s) { return {a.x * s, a.y * s, a.z * s}; }
template <class T> CB_HD CB_INLINE Vec3T<T> operator*(T s, Vec3T<T> a) { return {a.x * s, a.y * s, a.z * s}; }
template <class T> CB_HD CB_INLINE Vec3T<T> operator/(Vec3T<T> a, T s) { return {a.x / s, a.y / s, a.z / s}; }
template <class T> CB_HD CB_INLINE Vec3T<T>& operator+=(Vec3T<T>& a, Vec3T<T> b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
template <class T> CB_HD CB_INLINE Vec3T<T>& operator-=(Vec3T<T>& a, Vec3T<T> b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }
template <class T> CB_HD CB_INLINE Vec3T<T>& operator*=(Vec3T<T>& a, T s) { a.x *= s; a.y *= s; a.z *= s; return a; }
template <class T> CB_HD CB_INLINE bool operator==(Vec3T<T> a, Vec3T<T> b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
template <class T> CB_HD CB_INLINE bool operator!=(Vec3T<T> a, Vec3T<T> b) { return !(a == b); }

template <class T> CB_HD CB_INLINE T dot(Vec3T<T> a, Vec3T<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> CB_HD CB_INLINE Vec3T<T> cross(Vec3T<T> a, Vec3T<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> CB_HD CB_INLINE T length2(Vec3T<T> a) { return dot(a, a); }
template <class T> CB_HD CB_INLINE T length(Vec3T<T> a) { return std::sqrt(dot(a, a)); }
/// Unit vector along a; the zero vector stays zero.
template <class T> CB_HD CB_INLINE Vec3T<T> normalize(Vec3T<T> a) {
  T l = length(a);
  return l > T(0) ? a / l : Vec3T<T>{};
}
template <class T> CB_HD CB_INLINE Vec3T<T> cmin(Vec3T<T> a, Vec3T<T> b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
template <class T> CB_HD CB_INLINE Vec3T<T> cmax(Vec3T<T> a, Vec3T<T> b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
template <class T> CB_HD CB_INLINE Vec3T<T> lerp(Vec3T<T> a, Vec3T<T> b, T t) { return a + (b - a) * t; }
template <class T> CB_HD CB_INLINE bool is_finite(Vec3T<T> a) {
  return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
}
CB_HD CB_INLINE float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// Host: the largest |b[i] - a[i]| (m) over two position arrays of a.size()
/// entries (containers of Vec3f, such as one obstacle's vertices at the start
/// and the end of a step); 0 when empty.
template <class Positions> float largest_distance(const Positions& a, const Positions& b) {
  float d = 0.f;
  for (decltype(a.size()) i = 0; i < a.size(); ++i) {
    const float di = length(b[i] - a[i]);
    d = di > d ? di : d;
  }
  return d;
}

/// Row-major 3x3 matrix.
struct Mat3f {
  float m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  CB_HD Vec3f operator*(Vec3f v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
  CB_HD Mat3f transposed() const {
    Mat3f t;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) t.m[i][j] = m[j][i];
    return t;
  }
};
CB_HD CB_INLINE Mat3f operator*(const Mat3f& a, const Mat3f& b) {
  Mat3f r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
  return r;
}
/// Rotation by `angle` radians about the unit axis `u` (Rodrigues).
CB_HD CB_INLINE Mat3f rotation(Vec3f u, float angle) {
  float c = std::cos(angle), s = std::sin(angle), t = 1.f - c;
  Mat3f r;
  r.m[0][0] = c + u.x * u.x * t;       r.m[0][1] = u.x * u.y * t - u.z * s; r.m[0][2] = u.x * u.z * t + u.y * s;
  r.m[1][0] = u.y * u.x * t + u.z * s; r.m[1][1] = c + u.y * u.y * t;       r.m[1][2] = u.y * u.z * t - u.x * s;
  r.m[2][0] = u.z * u.x * t - u.y * s; r.m[2][1] = u.z * u.y * t + u.x * s; r.m[2][2] = c + u.z * u.z * t;
  return r;
}

/// Rigid transform p' = R p + t.
struct Transform {
  Mat3f R;
  Vec3f t;
  CB_HD Vec3f apply(Vec3f p) const { return R * p + t; }
  CB_HD Vec3f apply_inverse(Vec3f p) const { return R.transposed() * (p - t); }
};

/// Axis-aligned box; empty when lo > hi.
struct Aabb {
  Vec3f lo{1e30f, 1e30f, 1e30f};
  Vec3f hi{-1e30f, -1e30f, -1e30f};
  CB_HD void grow(Vec3f p) { lo = cmin(lo, p); hi = cmax(hi, p); }
  CB_HD void grow(const Aabb& b) { lo = cmin(lo, b.lo); hi = cmax(hi, b.hi); }
  CB_HD bool empty() const { return lo.x > hi.x; }
  CB_HD bool contains(Vec3f p) const {
    return p.x >= lo.x && p.y >= lo.y && p.z >= lo.z && p.x <= hi.x && p.y <= hi.y && p.z <= hi.z;
  }
  CB_HD Vec3f center() const { return (lo + hi) * 0.5f; }
  CB_HD Vec3f extent() const { return hi - lo; }
};
CB_HD CB_INLINE bool overlaps(const Aabb& a, const Aabb& b) {
  return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
         b.lo.z <= a.hi.z;
}

}  // namespace cb
