#include "render/picking.h"

#include <cmath>
#include <limits>

#include "sim/collision/ray.h"

namespace cb::render {

namespace {
glm::vec3 g(Vec3f v) { return {v.x, v.y, v.z}; }
// barycentric slack: a ray through a vertex or an edge must not slip between the
// triangles around it or off the cloth's border by rounding (float positions a few
// metres from the eye carry ~1e-6 m of error, ~1e-4 of a 1 cm edge)
constexpr float kEdgeSlack = 2e-4f;
}  // namespace

bool ray_triangle(const Ray& r, Vec3f a, Vec3f b, Vec3f c, float* t, float* u, float* v) {
  const RayHit h = cb::ray_triangle(Vec3f{r.origin.x, r.origin.y, r.origin.z}, Vec3f{r.dir.x, r.dir.y, r.dir.z}, a,
                                    b, c, 0.f, std::numeric_limits<float>::max(), kEdgeSlack);
  if (h.t < 0.f) return false;
  *t = h.t;
  *u = h.u;
  *v = h.v;
  return true;
}

Hit pick_triangle(const Ray& r, const Vec3f* x, const std::vector<Int3>& tris) {
  const int n = int(tris.size());
  float best_t = std::numeric_limits<float>::max();
  int best = -1;
  // each thread keeps its nearest hit; the nearest of those wins (ties: lowest id)
#pragma omp parallel
  {
    float tb = std::numeric_limits<float>::max();
    int ib = -1;
#pragma omp for nowait
    for (int i = 0; i < n; ++i) {
      float t, u, v;
      const Int3& f = tris[size_t(i)];
      if (ray_triangle(r, x[f.a], x[f.b], x[f.c], &t, &u, &v) && t < tb) {
        tb = t;
        ib = i;
      }
    }
#pragma omp critical
    if (ib >= 0 && (tb < best_t || (tb == best_t && ib < best))) {
      best_t = tb;
      best = ib;
    }
  }
  Hit h;
  if (best < 0) return h;
  const Int3& f = tris[size_t(best)];
  float t, u, v;
  ray_triangle(r, x[f.a], x[f.b], x[f.c], &t, &u, &v);
  h.tri = best;
  h.t = t;
  h.bary = {1.f - u - v, u, v};
  h.point = x[f.a] * h.bary.x + x[f.b] * h.bary.y + x[f.c] * h.bary.z;
  return h;
}

int nearest_vertex_of_hit(const Hit& h, const Vec3f* x, const std::vector<Int3>& tris) {
  if (!h.hit()) return -1;
  const Int3& f = tris[size_t(h.tri)];
  int best = f.a;
  for (int k = 1; k < 3; ++k)
    if (length2(x[f[k]] - h.point) < length2(x[best] - h.point)) best = f[k];
  return best;
}

int nearest_vertex_on_screen(const OrbitCamera& cam, float width, float height, const Vec3f* x,
                             const std::vector<uint32_t>& candidates, float px, float py, float radius_px) {
  int best = -1;
  float best_d2 = radius_px * radius_px;
  for (uint32_t v : candidates) {
    glm::vec3 s;
    if (!cam.project(g(x[v]), width, height, &s)) continue;
    float d2 = (s.x - px) * (s.x - px) + (s.y - py) * (s.y - py);
    if (d2 <= best_d2) {
      best_d2 = d2;
      best = int(v);
    }
  }
  return best;
}

std::vector<uint32_t> vertices_in_circle(const OrbitCamera& cam, float width, float height, const Vec3f* x,
                                         size_t nverts, float px, float py, float radius_px) {
  std::vector<uint32_t> out;
  for (size_t v = 0; v < nverts; ++v) {
    glm::vec3 s;
    if (!cam.project(g(x[v]), width, height, &s)) continue;
    if ((s.x - px) * (s.x - px) + (s.y - py) * (s.y - py) <= radius_px * radius_px) out.push_back(uint32_t(v));
  }
  return out;
}

bool ray_plane(const Ray& r, glm::vec3 p, glm::vec3 n, glm::vec3* out) {
  float d = glm::dot(r.dir, n);
  if (std::fabs(d) < 1e-8f) return false;
  float t = glm::dot(p - r.origin, n) / d;
  if (t < 0) return false;
  *out = r.origin + r.dir * t;
  return true;
}

}  // namespace cb::render
