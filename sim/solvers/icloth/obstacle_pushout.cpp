#include "sim/solvers/icloth/obstacle_pushout.h"

#include "sim/collision/penetration.h"
#include "sim/collision/ray_detector.h"

namespace cb::icloth {
namespace {

// The move (m) that takes a vertex at x out of an obstacle, from its two
// rays' obstacle slots (ray_detector.h: [4v + 2r], r = 0 along the normal n,
// 1 against it): inside when a ray's first hit is a back face (the detector
// keeps the shallower of a vertex's two exits); then to e beyond the exit
// point, along the exit face's outward normal. Zero when not inside.
// (Moving by the depth along the face's normal instead, to e beyond the
// face's plane, left the kick skirt at scale 0.5 at strain 2.9 after its
// first frame instead of 0.40: an oblique exit's plane runs off the body.)
Vec3f way_out(const RayContact* c, Vec3f n, Vec3f x, const ObstacleSet& o, float e) {
  for (int r = 0; r < 2; ++r) {
    const RayContact& h = c[2 * r];
    const Vec3f dir = r == 0 ? n : -n;
    if (h.cls != kRayCollision || !(dot(dir, h.normal) > 0.f)) continue;  // not a back face
    const Int3 t = o.mesh_tris[size_t(h.tri)];
    const Vec3f exit = o.mesh_x[size_t(t.a)] * h.w[0] + o.mesh_x[size_t(t.b)] * h.w[1] + o.mesh_x[size_t(t.c)] * h.w[2];
    return exit + h.normal * e - x;
  }
  return Vec3f{0, 0, 0};
}

// The cloth triangles that cross an obstacle triangle at x (backend memory).
std::vector<int> crossing_tris(const Context& ctx, const DeviceBuffer<Vec3f>& x, const DeviceBuffer<Int3>& tris,
                               const ObstacleSet& o) {
  const TriSet cloth{x.data(), tris.data(), int(tris.size()), nullptr};
  const TriSet obst{o.d_mesh_x.data(), o.d_mesh_tris.data(), int(o.mesh_tris.size()), nullptr};
  std::vector<Int2> pairs;
  count_intersections(ctx, cloth, obst, &pairs);
  std::vector<int> out;
  for (const Int2& p : pairs)
    if (p.b >= int(tris.size())) out.push_back(p.a);
  return out;
}

// The rim: a vertex of a triangle that still crosses an obstacle, not moved
// yet, takes the mean move of its moved neighbours; a round per ring.
size_t carry_rim(const Context& ctx, const std::vector<Int3>& tris, const Csr& ring1, const ObstacleSet& o,
                 const std::vector<float>& inv_mass, const std::vector<uint8_t>& near, const std::vector<Vec3f>& x0,
                 int rounds, DeviceBuffer<Vec3f>& x) {
  const DeviceBuffer<Int3> d_tris(ctx, tris);
  size_t moved = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::vector<int> crossing = crossing_tris(ctx, x, d_tris, o);
    std::vector<Vec3f> h = x.to_host();
    std::vector<Vec3f> next = h;
    size_t now = 0;
    for (int t : crossing)
      for (int k = 0; k < 3; ++k) {
        const size_t v = size_t(tris[size_t(t)][k]);
        if (!near[v] || !(inv_mass[v] > 0.f) || next[v] != x0[v]) continue;
        Vec3f sum{0, 0, 0};
        int n = 0;
        for (uint32_t i = ring1.offsets[v]; i < ring1.offsets[v + 1]; ++i) {
          const size_t u = ring1.indices[i];
          if (h[u] != x0[u]) sum += h[u] - x0[u], ++n;
        }
        if (n == 0) continue;
        next[v] = x0[v] + sum / float(n);
        ++now;
      }
    if (now == 0) break;
    x.upload(ctx, next);
    moved += now;
  }
  return moved;
}

}  // namespace

PushOutResult push_out_of_obstacles(const Context& ctx, const std::vector<Int3>& tris, const Csr& vert_tris,
                                    const Csr& ring1, const ObstacleSet& obstacles, const std::vector<float>& inv_mass,
                                    const std::vector<uint8_t>& near, const PushOutSettings& s,
                                    DeviceBuffer<Vec3f>& x) {
  PushOutResult r;
  if (!obstacles.has_meshes()) return r;
  const std::vector<Vec3f> x0 = x.to_host();
  RayTracedDetector det;
  det.set_cloth(ctx, x.size(), tris, vert_tris);
  RayDetectorParams p;
  p.thickness = s.half_thickness;
  p.prediction = 0.f;
  p.max_distance = s.ray_length;
  p.cloth_cloth = false;
  p.obstacle_cloth = false;
  for (int pass = 0; pass < s.max_passes; ++pass) {
    det.detect(ctx, x.data(), x.data(), obstacles, p);
    const std::vector<RayContact> c = det.contacts().to_host();
    const std::vector<Vec3f> n = det.normals().to_host();
    std::vector<Vec3f> h = x.to_host();
    size_t moved = 0;
    for (size_t v = 0; v < h.size(); ++v) {
      if (!near[v] || !(inv_mass[v] > 0.f)) continue;
      const Vec3f d = way_out(&c[4 * v], n[v], h[v], obstacles, s.half_thickness);
      if (d == Vec3f{0, 0, 0}) continue;
      h[v] += d;
      ++moved;
    }
    if (moved == 0) break;
    x.upload(ctx, h);
    r.moved += moved;
    ++r.passes;
  }
  if (r.moved > 0) r.rim = carry_rim(ctx, tris, ring1, obstacles, inv_mass, near, x0, s.rim_rounds, x);
  return r;
}

}  // namespace cb::icloth
