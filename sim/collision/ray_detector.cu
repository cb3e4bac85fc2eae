// RayTracedDetector kernels; see ray_detector.h and ray_classify.h.
#include "sim/collision/ray_detector.h"

#include <algorithm>

#include "sim/collision/boxes.h"
#include "sim/core/parallel.h"

namespace cb {
namespace {

constexpr int kClothRebuildEvery = 8;

void vertex_normals(const Context& ctx, const Vec3f* x, const Int3* tris, const uint32_t* off, const uint32_t* idx,
                    int n, Vec3f* out) {
  parallel_for(ctx, n, [=] CB_HD(int v) {
    Vec3f s;
    for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
      Int3 t = tris[idx[k]];
      s += cross(x[t.b] - x[t.a], x[t.c] - x[t.a]);  // area weighted
    }
    out[v] = normalize(s);
  });
}

struct Soup {
  const Vec3f* x = nullptr;
  const Int3* tris = nullptr;
  LbvhView bvh;
};

struct Hit {
  int tri = -1;
  RayHit h;
};

// closest hit of o + t d (t in [0, tmax]) on the soup, skipping triangles that contain vertex `skip`
CB_HD inline Hit trace(const Soup& s, Vec3f o, Vec3f d, float tmax, int skip) {
  Hit best;
  lbvh_ray_closest(s.bvh, o, d, 0.f, tmax, [&](uint32_t f, float lim) {
    Int3 t = s.tris[f];
    if (t.a == skip || t.b == skip || t.c == skip) return -1.f;
    RayHit h = ray_triangle(o, d, s.x[t.a], s.x[t.b], s.x[t.c], 0.f, lim);
    if (h.t >= 0.f) {
      best.tri = int(f);
      best.h = h;
    }
    return h.t;
  });
  return best;
}

CB_HD CB_INLINE Vec3f face_normal(const Vec3f* x, Int3 t) { return normalize(cross(x[t.b] - x[t.a], x[t.c] - x[t.a])); }

CB_HD CB_INLINE void set_hit(RayContact* c, const Hit& h) {
  c->tri = h.tri;
  c->w[0] = 1.f - h.h.u - h.h.v;
  c->w[1] = h.h.u;
  c->w[2] = h.h.v;
}

// the previous position projected on the previous triangle's plane lies inside it (small tolerance)
CB_HD inline bool projects_inside(Vec3f p, Vec3f a, Vec3f b, Vec3f c) {
  Vec3f n = cross(b - a, c - a);
  float nn = dot(n, n);
  if (!(nn > 0.f)) return false;
  Vec3f q = p - n * (dot(p - a, n) / nn);
  float wa = dot(cross(c - b, q - b), n) / nn, wb = dot(cross(a - c, q - c), n) / nn;
  const float tol = -1e-3f;
  return wa >= tol && wb >= tol && 1.f - wa - wb >= tol;
}

struct ClothRayArgs {
  Soup cloth, obs;
  const Vec3f* x_prev;
  const Vec3f* normals;
  int nobs_tris;
  RayDetectorParams p;
};

CB_HD inline void cloth_hit(const ClothRayArgs& a, int v, Vec3f o, Vec3f d, RayContact* c) {
  Hit h = trace(a.cloth, o, d, a.p.max_distance, v);
  if (h.tri < 0) return;
  Int3 t = a.cloth.tris[h.tri];
  Vec3f nf = face_normal(a.cloth.x, t);
  const Vec3f* xp = a.x_prev;
  Vec3f nfp = face_normal(xp, t);
  int side_now = dot(o - a.cloth.x[t.a], nf) >= 0.f ? 1 : -1;
  int side_prev = dot(xp[v] - xp[t.a], nfp) >= 0.f ? 1 : -1;
  bool inside_prev = projects_inside(xp[v], xp[t.a], xp[t.b], xp[t.c]);
  classify_cloth_cloth(d, nf, h.h.t, 2.f * a.p.thickness, a.p.prediction, side_now, side_prev, inside_prev, c);
  set_hit(c, h);
}

CB_HD inline void cloth_vertex_rays(const ClothRayArgs& a, int v, RayContact* out) {
  Vec3f o = a.cloth.x[v], n = a.normals[v];
  for (int k = 0; k < 4; ++k) {
    out[k] = RayContact{};
    out[k].vertex = v;
  }
  if (length2(n) == 0.f) return;
  for (int r = 0; r < 2; ++r) {
    Vec3f d = r == 0 ? n : -n;
    if (a.p.cloth_obstacle && a.nobs_tris > 0) {
      Hit h = trace(a.obs, o, d, a.p.max_distance, -1);
      if (h.tri >= 0) {
        classify_cloth_obstacle(d, face_normal(a.obs.x, a.obs.tris[h.tri]), h.h.t, a.p.thickness, a.p.prediction,
                                &out[2 * r]);
        set_hit(&out[2 * r], h);
      }
    }
    if (a.p.cloth_cloth) cloth_hit(a, v, o, d, &out[2 * r + 1]);
  }
  // inside a closed object both rays may exit: keep the nearer exit only
  RayContact& c0 = out[0];
  RayContact& c1 = out[2];
  bool back0 = c0.cls == kRayCollision && dot(n, c0.normal) > 0.f && c0.depth > a.p.thickness;
  bool back1 = c1.cls == kRayCollision && dot(-n, c1.normal) > 0.f && c1.depth > a.p.thickness;
  if (back0 && back1) (c0.depth <= c1.depth ? c1 : c0).cls = kRayNone;
}

void run_cloth_rays(const Context& ctx, const ClothRayArgs& a, int nverts, RayContact* out) {
  parallel_for(ctx, nverts, [=] CB_HD(int v) { cloth_vertex_rays(a, v, out + 4 * v); });
}

void run_obstacle_rays(const Context& ctx, const Soup& obs, const Soup& cloth, const Vec3f* obs_normals, int nobs_verts,
                       RayDetectorParams p, RayContact* out) {
  parallel_for(ctx, nobs_verts, [=] CB_HD(int j) {
    RayContact c;
    c.vertex = j;
    c.kind = kObstacleCloth;
    Vec3f n = obs_normals[j];
    if (length2(n) > 0.f) {
      Vec3f o = obs.x[j], d = -n;
      // exit distance of the inward ray (2 max_distance when it does not leave within that)
      Hit e = trace(obs, o, d, 2.f * p.max_distance, j);
      float exit = e.tri >= 0 ? e.h.t : 2.f * p.max_distance;
      Hit h = trace(cloth, o, d, 0.5f * exit, -1);
      if (h.tri >= 0) {
        classify_obstacle_cloth(n, h.h.t, exit, p.thickness, &c);
        set_hit(&c, h);
      }
    }
    out[j] = c;
  });
}

}  // namespace

Csr vertex_triangles(size_t nverts, const std::vector<Int3>& tris) {
  Csr c;
  c.offsets.assign(nverts + 1, 0);
  for (const Int3& t : tris)
    for (int k = 0; k < 3; ++k) c.offsets[size_t(t[k]) + 1]++;
  for (size_t v = 0; v < nverts; ++v) c.offsets[v + 1] += c.offsets[v];
  c.indices.resize(c.offsets[nverts]);
  std::vector<uint32_t> fill(c.offsets.begin(), c.offsets.end() - 1);
  for (size_t f = 0; f < tris.size(); ++f)
    for (int k = 0; k < 3; ++k) c.indices[fill[size_t(tris[f][k])]++] = uint32_t(f);
  return c;
}

void RayTracedDetector::set_cloth(const Context& ctx, size_t nverts, const std::vector<Int3>& tris,
                                  const Csr& vert_tris) {
  nverts_ = int(nverts);
  tris_.upload(ctx, tris);
  vt_offsets_.upload(ctx, vert_tris.offsets);
  vt_indices_.upload(ctx, vert_tris.indices);
  normals_.resize(ctx, nverts);
  cloth_boxes_.resize(ctx, tris.size());
  cloth_refits_ = -1;  // build on the first detect
}

void RayTracedDetector::update_obstacles(const Context& ctx, const ObstacleSet& o) {
  int nt = int(o.mesh_tris.size()), nv = int(o.mesh_x.size());
  if (nt == 0) return;
  bool same_tris = obs_tris_host_.size() == o.mesh_tris.size() &&
                   std::equal(obs_tris_host_.begin(), obs_tris_host_.end(), o.mesh_tris.begin(),
                              [](Int3 a, Int3 b) { return a.a == b.a && a.b == b.b && a.c == b.c; });
  if (same_tris && o.mesh_version == obs_version_) return;
  if (!same_tris) {
    obs_tris_host_ = o.mesh_tris;
    Csr c = vertex_triangles(size_t(nv), o.mesh_tris);
    ovt_offsets_.upload(ctx, c.offsets);
    ovt_indices_.upload(ctx, c.indices);
    obs_normals_.resize(ctx, size_t(nv));
    obs_boxes_.resize(ctx, size_t(nt));
  }
  vertex_normals(ctx, o.d_mesh_x.data(), o.d_mesh_tris.data(), ovt_offsets_.data(), ovt_indices_.data(), nv,
                 obs_normals_.data());
  triangle_boxes(ctx, o.d_mesh_x.data(), o.d_mesh_tris.data(), nt, obs_boxes_.data());
  if (!same_tris) obs_bvh_.build(ctx, obs_boxes_.data(), nt);
  else obs_bvh_.refit(ctx, obs_boxes_.data());
  obs_version_ = o.mesh_version;
}

void RayTracedDetector::detect(const Context& ctx, const Vec3f* x, const Vec3f* x_prev, const ObstacleSet& obstacles,
                               const RayDetectorParams& p) {
  int nt = int(tris_.size()), nov = obstacles.has_meshes() ? int(obstacles.mesh_x.size()) : 0;
  contacts_.resize(ctx, size_t(4) * nverts_ + size_t(nov));
  if (nverts_ == 0) return;
  update_obstacles(ctx, obstacles);
  vertex_normals(ctx, x, tris_.data(), vt_offsets_.data(), vt_indices_.data(), nverts_, normals_.data());
  triangle_boxes(ctx, x, tris_.data(), nt, cloth_boxes_.data());
  if (cloth_refits_ < 0 || ++cloth_refits_ >= kClothRebuildEvery) {
    cloth_bvh_.build(ctx, cloth_boxes_.data(), nt);
    cloth_refits_ = 0;
  } else {
    cloth_bvh_.refit(ctx, cloth_boxes_.data());
  }
  Soup cloth{x, tris_.data(), cloth_bvh_.view()};
  Soup obs;
  if (nov > 0) obs = Soup{obstacles.d_mesh_x.data(), obstacles.d_mesh_tris.data(), obs_bvh_.view()};
  ClothRayArgs a{cloth, obs, x_prev, normals_.data(), nov > 0 ? int(obstacles.mesh_tris.size()) : 0, p};
  run_cloth_rays(ctx, a, nverts_, contacts_.data());
  if (nov > 0 && p.obstacle_cloth)
    run_obstacle_rays(ctx, obs, cloth, obs_normals_.data(), nov, p, contacts_.data() + size_t(4) * nverts_);
}

RayDetectorCounts RayTracedDetector::count() const {
  RayDetectorCounts c;
  for (const RayContact& r : contacts_.to_host()) {
    c.collisions += r.cls == kRayCollision;
    c.predictions += r.cls == kRayPrediction;
    c.inversions += r.inverted;
  }
  return c;
}

size_t RayTracedDetector::device_bytes() const {
  return tris_.bytes() + vt_offsets_.bytes() + vt_indices_.bytes() + normals_.bytes() + cloth_boxes_.bytes() +
         cloth_bvh_.device_bytes() + ovt_offsets_.bytes() + ovt_indices_.bytes() + obs_normals_.bytes() +
         obs_boxes_.bytes() + obs_bvh_.device_bytes() + contacts_.bytes();
}

}  // namespace cb
