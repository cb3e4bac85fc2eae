// Cloth-obstacle velocity filter (see obstacle_kernels.h).
#include "sim/solvers/icloth/obstacle_kernels.h"

#include <cmath>

#include "sim/core/parallel.h"

namespace cb::icloth {

Shape interpolate_shape(const Shape& a, const Shape& b, float t) {
  Shape s = b;
  s.pose.t = lerp(a.pose.t, b.pose.t, t);
  Mat3f rel = b.pose.R * a.pose.R.transposed();
  float tr = rel.m[0][0] + rel.m[1][1] + rel.m[2][2];
  float angle = std::acos(clampf(0.5f * (tr - 1.f), -1.f, 1.f));
  Vec3f axis{rel.m[2][1] - rel.m[1][2], rel.m[0][2] - rel.m[2][0], rel.m[1][0] - rel.m[0][1]};
  if (angle < 1e-7f || length(axis) < 1e-12f) {
    s.pose.R = t < 0.5f ? a.pose.R : b.pose.R;
    return s;
  }
  s.pose.R = rotation(normalize(axis), angle * t) * a.pose.R;
  return s;
}

void shape_velocity_filter(const Context& ctx, const Shape* start, const Shape* end, int nshapes, const Vec3f* x,
                           Vec3f* v, const float* w, const float* thickness, int n, float h, int passes) {
  if (nshapes == 0) return;
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (w[i] == 0.f) return;
    Vec3f vi = v[i];
    for (int pass = 0; pass < passes; ++pass)
      for (int s = 0; s < nshapes; ++s) {
        Vec3f xp = x[i] + vi * h, nrm;
        float d = shape_distance(end[s], xp, &nrm);
        if (!(d < thickness[i])) continue;
        Vec3f vo = shape_point_velocity(end[s], start[s], xp, h);
        const float dvn = (thickness[i] - d) / h;
        vi = respond(vi, vo, nrm, dvn, end[s].friction * dvn);
      }
    v[i] = vi;
  });
}

void mesh_velocity_filter(const Context& ctx, const ObstacleContact* contacts, const Vec3f* x, Vec3f* v,
                          const float* w, const float* thickness, int n, float h) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const ObstacleContact c = contacts[i];
    if (w[i] == 0.f || c.tri < 0) return;
    Vec3f xp = x[i] + v[i] * h;
    float d = dot(xp - c.point, c.normal);  // signed: negative when crossed to the far side
    if (!(d < thickness[i])) return;
    const float dvn = (thickness[i] - d) / h;
    v[i] = respond(v[i], c.velocity, c.normal, dvn, c.friction * dvn);
  });
}

}  // namespace cb::icloth
