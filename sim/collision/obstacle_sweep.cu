// Vertex–face CCD of moving points against moving obstacle triangles (see
// obstacle_sweep.h).
#include "sim/collision/obstacle_sweep.h"

#include "sim/collision/ccd.h"
#include "sim/collision/proximity.h"
#include "sim/core/parallel.h"

namespace cb {
namespace {

CB_HD CB_INLINE Vec3d to_d(Vec3f p) { return Vec3d(p.x, p.y, p.z); }

// The earliest touch of the point p0 -> p1 with triangle `tri` over [t0, t1];
// toi 1 and no hit when there is none.
CB_HD inline CcdResult touch(const ObstacleMeshView& m, Vec3f p0, Vec3f p1, int tri, float t0, float t1) {
  const Int3 t = m.tris[tri];
  const Vec3d a[4] = {to_d(p0), to_d(m.at(t.a, t0)), to_d(m.at(t.b, t0)), to_d(m.at(t.c, t0))};
  const Vec3d b[4] = {to_d(p1), to_d(m.at(t.a, t1)), to_d(m.at(t.b, t1)), to_d(m.at(t.c, t1))};
  return ccd_vertex_face(a, b);
}

// Where on triangle `tri` the point touches at `toi`, carried to the interval's
// end, and the face normal there to the side p0 starts on.
CB_HD inline SweepHit hit_at(const ObstacleMeshView& m, Vec3f p0, Vec3f p1, int tri, float toi, float t0, float t1) {
  const Int3 t = m.tris[tri];
  const float s = t0 + (t1 - t0) * toi;
  const Vec3f p = p0 + (p1 - p0) * toi;
  const PointTriResult<float> r = closest_point_triangle(p, m.at(t.a, s), m.at(t.b, s), m.at(t.c, s));
  const Vec3f a1 = m.at(t.a, t1), b1 = m.at(t.b, t1), c1 = m.at(t.c, t1);
  const Vec3f a0 = m.at(t.a, t0), b0 = m.at(t.b, t0), c0 = m.at(t.c, t0);
  const Vec3f n0 = cross(b0 - a0, c0 - a0);
  const Vec3f face = normalize(cross(b1 - a1, c1 - a1));  // not degenerate (sweep_one)
  const Vec3f n = dot(p0 - a0, n0) < 0.f ? -face : face;
  SweepHit h;
  h.tri = tri;
  h.toi = toi;
  h.point = a1 * r.w[0] + b1 * r.w[1] + c1 * r.w[2];
  h.normal = n;
  h.curvature = m.curvature[tri].seen_along(n, face);
  return h;
}

CB_HD inline SweepHit sweep_one(const ObstacleMeshView& m, Vec3f p0, Vec3f p1, float t0, float t1, float reach,
                                float query_pose) {
  // a surface point crossed in the interval is at most the obstacle's move from
  // t0 to the query's pose from where it is there, so within |p1 - p0| + that of p1
  if (length(p1 - p0) + m.max_disp * (query_pose - t0) <= reach) return SweepHit{};
  Aabb q;  // the tree's boxes hold every pose of the frame
  q.grow(p0);
  q.grow(p1);
  int best = -1;
  double best_toi = 2.0;
  lbvh_query_box(m.bvh, q, [&](uint32_t prim) {
    // a triangle of no area at the interval's end has no face to be stopped on
    // (a point touches it only on a line; its neighbours hold the surface)
    const Int3 t = m.tris[prim];
    const Vec3f a1 = m.at(t.a, t1);
    if (!(length2(cross(m.at(t.b, t1) - a1, m.at(t.c, t1) - a1)) > 0.f)) return;
    const CcdResult r = touch(m, p0, p1, int(prim), t0, t1);
    if (r.hit && r.toi < best_toi) best_toi = r.toi, best = int(prim);
  });
  if (best < 0) return SweepHit{};
  return hit_at(m, p0, p1, best, float(best_toi), t0, t1);
}

}  // namespace

void sweep_points(const Context& ctx, const ObstacleMeshView& mesh, const Vec3f* x0, const Vec3f* x1, int n, float t0,
                  float t1, float reach, float query_pose, SweepHit* out) {
  if (mesh.ntris == 0) {
    parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = SweepHit{}; });
    return;
  }
  parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = sweep_one(mesh, x0[i], x1[i], t0, t1, reach, query_pose); });
}

}  // namespace cb
