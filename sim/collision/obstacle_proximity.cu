// ObstacleProximity: an LBVH over the obstacle triangle soup (each triangle's
// box holds its poses at the start and the end of the frame, so every pose
// between) and a nearest-triangle query per point (closest_point_triangle at
// the leaves) at a pose of the frame (FrameSpan::end, by default its end). The
// tree is rebuilt when the triangle count changes and refitted otherwise;
// every kRebuildEvery refits it is rebuilt so that deforming or keyframed
// obstacles keep a good tree.
//
// Normal convention: the unit face normal of the closest triangle (at the
// span's end; the frame's end by default), flipped to a side:
//  - with `from` (where each point was at the start of the span): the side of
//    `from` of the plane through the closest point's material point at the
//    span's start, with that normal (sign of dot(from - (point - displacement
//    over the span), n); +n on that plane). A point that a moving obstacle
//    sweeps past within the frame (a thigh rising 1 cm a frame into a skirt)
//    keeps the side it came from; by the end-of-frame plane its normal pointed
//    into the body, and the I-Cloth solver pushed the cloth inside it.
//  - without: the query point's side of the triangle's end-of-frame plane (sign
//    of dot(x - a, n); +n on the plane), what a solver that pushes a predicted
//    point out to its own side asks (Verlet, PBD).
// For a still obstacle and from = x both are the same. For a point beside an edge
// of an open mesh the normal is still the face normal, not the direction x - point.
//
// Each contact also carries how sharply the mesh bends away from the side its
// normal points to, at the contact's triangle (mesh_curvature.h), computed at
// every update from the frame's end pose: Verlet and pbd hold a vertex farther
// from a convex body so that its edges clear it too (sim/model/edge_clearance.h).
#include "sim/collision/obstacle_proximity.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/collision/lbvh.h"
#include "sim/collision/mesh_curvature.h"
#include "sim/collision/proximity.h"
#include "sim/collision/boxes.h"
#include "sim/core/parallel.h"

namespace cb {
namespace {

constexpr int kRebuildEvery = 16;

void tri_friction(const Context& ctx, const std::vector<MeshRange>& meshes, int ntris, DeviceBuffer<float>& out) {
  std::vector<float> f(size_t(ntris), 0.3f);
  for (const MeshRange& m : meshes)
    for (uint32_t t = m.first_tri; t < m.first_tri + m.num_tris && t < uint32_t(ntris); ++t) f[t] = m.friction;
  out.upload(ctx, f);
}

struct QueryArgs {
  ObstacleMeshView mesh;
  const float* friction;
  float inv_dt;
  FrameSpan span;

  // obstacle vertex v at the span's end
  CB_HD Vec3f at_end(int v) const { return mesh.at(v, span.end); }
};

// the closest triangle to p within radius at the span's end pose; the normal
// oriented by `from` when given, else by p's side of that pose's plane (see the top)
CB_HD ObstacleContact closest_contact(const QueryArgs& a, Vec3f p, const Vec3f* from, float radius) {
  ObstacleContact c;
  int best = -1;
  PointTriResult<float> best_r;
  // the tree's boxes hold each triangle's every pose over the frame
  lbvh_nearest(a.mesh.bvh, p, radius * radius, [&](uint32_t prim, float best2) {
    Int3 t = a.mesh.tris[prim];
    PointTriResult<float> r = closest_point_triangle(p, a.at_end(t.a), a.at_end(t.b), a.at_end(t.c));
    if (r.dist2 <= best2 && (best < 0 || r.dist2 < best_r.dist2)) {
      best = int(prim);
      best_r = r;
    }
    return r.dist2;
  });
  if (best < 0) return c;
  Int3 t = a.mesh.tris[best];
  const Vec3f ta = a.at_end(t.a), tb = a.at_end(t.b), tc = a.at_end(t.c);
  const Vec3f face = normalize(cross(tb - ta, tc - ta));
  Vec3f n = face;
  const Vec3f* mx = a.mesh.x;
  const Vec3f* mx_prev = a.mesh.x_prev;
  Vec3f disp = (mx[t.a] - mx_prev[t.a]) * best_r.w[0] + (mx[t.b] - mx_prev[t.b]) * best_r.w[1] +
               (mx[t.c] - mx_prev[t.c]) * best_r.w[2];  // over the frame
  // point - disp (end - start): the material point at the span's start
  const float side = from ? dot(*from - (best_r.point - disp * (a.span.end - a.span.start)), n)
                          : dot(p - ta, n);
  if (side < 0.f) n = -n;
  c.tri = best;
  c.point = best_r.point;
  c.normal = n;
  c.distance = std::sqrt(best_r.dist2);
  c.velocity = disp * a.inv_dt;
  c.friction = a.friction[best];
  c.curvature = a.mesh.curvature[best].seen_along(n, face);
  return c;
}

void run_queries(const Context& ctx, const QueryArgs& args, const Vec3f* x, const Vec3f* from, int n, float radius,
                 ObstacleContact* out) {
  parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = closest_contact(args, x[i], from ? from + i : nullptr, radius); });
}

// boxes[i]: triangle i at the start and the end of the frame, so at every pose
// between (a query at part of the frame, a sweep); the end pose alone when still
void swept_boxes(const Context& ctx, const Vec3f* x0, const Vec3f* x1, const Int3* tris, int n, Aabb* boxes) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Aabb b = triangle_box(x1, tris[i]);
    b.grow(triangle_box(x0, tris[i]));
    boxes[i] = b;
  });
}

void clear_contacts(const Context& ctx, int n, ObstacleContact* out) {
  parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = ObstacleContact{}; });
}

// m: the largest |x - x_prev| over the mesh vertices (host arrays, O(n) per
// changed frame; 0 without a previous frame)
float largest_displacement(const ObstacleSet& o) {
  return o.mesh_x_prev.size() == o.mesh_x.size() ? largest_distance(o.mesh_x_prev, o.mesh_x) : 0.f;
}

}  // namespace

struct ObstacleProximity::Impl {
  Lbvh bvh;
  DeviceBuffer<Aabb> boxes;      // (ntris)
  DeviceBuffer<Vec3f> x, x_prev; // (nverts) copies of the obstacle positions
  DeviceBuffer<Int3> tris;       // (ntris)
  DeviceBuffer<float> friction;  // (ntris)
  DeviceBuffer<Int3> nbrs;       // (ntris) the triangles across each edge (mesh_curvature.h)
  DeviceBuffer<TriangleBend> curvature; // (ntris) at the frame's end
  std::vector<Int3> host_tris;  // (ntris) to notice a changed triangle list of equal size
  uint64_t version = ~0ull;
  int ntris = 0;
  int refits = 0;
  float inv_dt = 0.f;
  float max_disp = 0.f;  // m, the largest vertex displacement over the frame
};

ObstacleProximity::ObstacleProximity() : impl_(new Impl) {}
ObstacleProximity::~ObstacleProximity() = default;

void ObstacleProximity::update(const Context& ctx, const ObstacleSet& obstacles, float dt) {
  Impl& m = *impl_;
  m.inv_dt = dt > 0.f ? 1.f / dt : 0.f;
  int ntris = int(obstacles.mesh_tris.size());
  if (ntris == 0) {
    m.ntris = 0;
    m.max_disp = 0.f;
    return;
  }
  bool same_backend = m.boxes.context().backend == ctx.backend;
  if (obstacles.mesh_version == m.version && ntris == m.ntris && same_backend) return;
  m.max_disp = largest_displacement(obstacles);
  // copy the soup (device copies when synced, else from the host arrays)
  if (obstacles.d_mesh_x.size() == obstacles.mesh_x.size() && obstacles.d_mesh_x.context().backend == ctx.backend) {
    m.x.copy_from(obstacles.d_mesh_x);
    m.x_prev.copy_from(obstacles.d_mesh_x_prev);
  } else {
    m.x.upload(ctx, obstacles.mesh_x);
    m.x_prev.upload(ctx, obstacles.mesh_x_prev.size() == obstacles.mesh_x.size() ? obstacles.mesh_x_prev
                                                                                   : obstacles.mesh_x);
  }
  bool same_tris = ntris == m.ntris && std::equal(m.host_tris.begin(), m.host_tris.end(), obstacles.mesh_tris.begin(),
                                                   [](Int3 a, Int3 b) { return a.a == b.a && a.b == b.b && a.c == b.c; });
  bool rebuild = !same_tris || !same_backend || ++m.refits >= kRebuildEvery;
  if (rebuild) {
    m.host_tris = obstacles.mesh_tris;
    m.tris.upload(ctx, obstacles.mesh_tris);
    tri_friction(ctx, obstacles.meshes, ntris, m.friction);
    if (!same_tris || !same_backend) m.nbrs.upload(ctx, triangle_neighbours(obstacles.mesh_tris));
    m.boxes.resize(ctx, size_t(ntris));
    m.curvature.resize(ctx, size_t(ntris));
  }
  triangle_curvature(ctx, m.x.data(), m.tris.data(), m.nbrs.data(), ntris, m.curvature.data());
  swept_boxes(ctx, m.x_prev.data(), m.x.data(), m.tris.data(), ntris, m.boxes.data());
  if (rebuild) {
    m.bvh.build(ctx, m.boxes.data(), ntris);
    m.refits = 0;
  } else {
    m.bvh.refit(ctx, m.boxes.data());
  }
  m.ntris = ntris;
  m.version = obstacles.mesh_version;
}

void ObstacleProximity::query(const Context& ctx, const Vec3f* x, int n, float radius, ObstacleContact* out,
                              const Vec3f* from, FrameSpan span) const {
  const Impl& m = *impl_;
  if (m.ntris == 0) {
    clear_contacts(ctx, n, out);
    return;
  }
  QueryArgs args{mesh_view(), m.friction.data(), m.inv_dt, span};
  run_queries(ctx, args, x, from, n, radius, out);
}

float ObstacleProximity::max_displacement() const { return impl_->max_disp; }

ObstacleMeshView ObstacleProximity::mesh_view() const {
  const Impl& m = *impl_;
  ObstacleMeshView v;
  if (m.ntris == 0) return v;
  v.bvh = m.bvh.view();
  v.x = m.x.data();
  v.x_prev = m.x_prev.data();
  v.tris = m.tris.data();
  v.ntris = m.ntris;
  v.max_disp = m.max_disp;
  v.curvature = m.curvature.data();
  return v;
}

size_t ObstacleProximity::device_bytes() const {
  const Impl& m = *impl_;
  return m.bvh.device_bytes() + m.boxes.bytes() + m.x.bytes() + m.x_prev.bytes() + m.tris.bytes() +
         m.friction.bytes() + m.nbrs.bytes() + m.curvature.bytes();
}

}  // namespace cb
