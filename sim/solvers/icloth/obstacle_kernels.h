// Cloth-obstacle proximity response of the I-Cloth solver: a velocity filter in
// the form of Bridson et al. 2002 (Sec. 7.1-7.2) — for each vertex whose
// predicted end-of-step position x + h v lies closer than the thickness to an
// obstacle, the relative normal velocity is raised so that the end position sits
// at the thickness (an inelastic repulsion impulse), and Coulomb friction removes
// up to mu times that normal velocity change from the relative tangential velocity.
#pragma once

#include "sim/collision/obstacle_proximity.h"
#include "sim/core/backend.h"
#include "sim/scene/shape.h"

namespace cb::icloth {

/// Contact response relative to an obstacle moving at vo (m/s): raises the
/// relative normal velocity of v along the unit normal n by dvn and takes up to
/// `friction_dv` (Coulomb: mu times the normal velocity change the contact
/// applied) off the relative tangential velocity, never reversing it.
CB_HD inline Vec3f respond(Vec3f v, Vec3f vo, Vec3f n, float dvn, float friction_dv) {
  Vec3f vrel = v - vo;
  float vn = dot(vrel, n);
  Vec3f vt = vrel - n * vn;
  float lt = length(vt);
  if (lt > 0.f) vt *= fmaxf(0.f, 1.f - friction_dv / lt);
  return vo + n * (vn + dvn) + vt;
}

/// Pose of a moving shape at fraction t in [0, 1] between a (t = 0) and b (t = 1):
/// translation interpolated linearly, rotation about the relative rotation's axis.
Shape interpolate_shape(const Shape& a, const Shape& b, float t);

/// Applies the filter for analytic shapes posed at `start` / `end` of the step
/// (nshapes each, backend memory) to v (n, m/s); pinned vertices (w = 0) are left.
/// thickness: (n) m. Returns nothing; `passes` sweeps over the shapes (corners).
void shape_velocity_filter(const Context& ctx, const Shape* start, const Shape* end, int nshapes, const Vec3f* x,
                           Vec3f* v, const float* w, const float* thickness, int n, float h, int passes);

/// The same filter against mesh-obstacle contacts (one per vertex, tri < 0 = none),
/// found at the predicted positions x + h v.
void mesh_velocity_filter(const Context& ctx, const ObstacleContact* contacts, const Vec3f* x, Vec3f* v,
                          const float* w, const float* thickness, int n, float h);

}  // namespace cb::icloth
