// Sphere-sphere time of impact (Zheng 2021, Sec. 4.3): two spheres whose centres
// move linearly over a sub-step touch when |p0 + t dp| = D, with p0 the centre
// offset at t = 0, dp the change of that offset over the sub-step and D the sum
// of the radii. Squaring gives the quadratic
//     a t^2 + 2 b t + c = 0,   a = dp.dp,  b = p0.dp,  c = p0.p0 - D^2,
// whose smaller root is the first contact. The thesis's listing divides by a and
// takes the square root of b^2 - a c unguarded; here every degenerate case has a
// defined answer:
//   - c <= 0: already touching at t = 0                      -> Overlapping, t = 0
//   - a ~ 0 (no relative motion) and c > 0: never touch       -> Separate
//   - b >= 0 (not approaching) and c > 0: distance only grows -> Separate
//   - b^2 - a c < 0 (no real root): closest approach > D      -> Separate
//   - first root > 1: contact after the sub-step              -> Separate
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

enum class ToiResult : int { Separate = 0, Overlapping = 1, Hit = 2 };

/// First t in [0, 1] with |p0 + t dp| = D (m). Writes t (Hit: the root;
/// Overlapping: 0; Separate: 1).
CB_HD inline ToiResult sphere_toi(Vec3f p0, Vec3f dp, float D, float* t) {
  const float c = dot(p0, p0) - D * D;
  if (c <= 0.f) {
    *t = 0.f;
    return ToiResult::Overlapping;
  }
  *t = 1.f;
  const float a = dot(dp, dp), b = dot(p0, dp);
  if (b >= 0.f || a <= 1e-30f) return ToiResult::Separate;
  const float disc = b * b - a * c;
  if (disc < 0.f) return ToiResult::Separate;
  // smaller root, written as c / (-b + sqrt(disc)) to avoid cancellation (b < 0)
  const float root = c / (-b + std::sqrt(disc));
  if (root > 1.f) return ToiResult::Separate;
  *t = root < 0.f ? 0.f : root;
  return ToiResult::Hit;
}

/// Unit contact normal from sphere i towards sphere j for the response: the
/// offset at the time of impact, or for Separate the end offset p1. A zero
/// offset falls back to `fallback` (e.g. the rest-shape offset), then to +-y by
/// index order, so that n(i, j) = -n(j, i) always.
CB_HD inline Vec3f contact_normal(Vec3f p0, Vec3f dp, Vec3f p1, ToiResult r, float t, Vec3f fallback, bool i_less_j) {
  Vec3f p = r == ToiResult::Separate ? p1 : p0 + dp * t;
  float l2 = length2(p);
  if (l2 > 1e-24f) return p / std::sqrt(l2);
  l2 = length2(fallback);
  if (l2 > 1e-24f) return fallback / std::sqrt(l2);
  return Vec3f{0.f, i_less_j ? 1.f : -1.f, 0.f};
}

}  // namespace cb
