// Picking on the CPU copy of the cloth: the exact ray-triangle test
// (Moller & Trumbore 1997, "Fast, minimum storage ray/triangle intersection"),
// the nearest vertex of a hit, and the vertices inside a screen-space brush.
// Brute force over all triangles (OpenMP); one pick costs ~1 ms for 100k triangles.
#pragma once

#include <cstdint>
#include <vector>

#include "render/camera.h"
#include "sim/core/math.h"

namespace cb::render {

struct Hit {
  int tri = -1;                 ///< triangle id, -1 = nothing hit
  float t = 0;                  ///< m, distance along the ray
  Vec3f bary{0, 0, 0};          ///< barycentric weights of the hit point
  Vec3f point{0, 0, 0};         ///< m, world position of the hit
  bool hit() const { return tri >= 0; }
};

/// Exact ray-triangle test (both faces; the collision core's, sim/collision/ray.h,
/// with a wider edge slack). Returns the ray parameter t >= 0 and the barycentric
/// weights (u, v) of b and c, or false.
bool ray_triangle(const Ray& r, Vec3f a, Vec3f b, Vec3f c, float* t, float* u, float* v);

/// The nearest triangle hit by the ray. x: (nverts) m, tris: (ntris).
Hit pick_triangle(const Ray& r, const Vec3f* x, const std::vector<Int3>& tris);

/// The vertex of the hit triangle nearest to the hit point.
int nearest_vertex_of_hit(const Hit& h, const Vec3f* x, const std::vector<Int3>& tris);

/// Among `candidates` (vertex ids), the one whose screen position is nearest to
/// (px, py) and within `radius_px`; -1 when none.
int nearest_vertex_on_screen(const OrbitCamera& cam, float width, float height, const Vec3f* x,
                             const std::vector<uint32_t>& candidates, float px, float py, float radius_px);

/// All vertices of x (nverts) whose screen position lies within `radius_px` of (px, py).
std::vector<uint32_t> vertices_in_circle(const OrbitCamera& cam, float width, float height, const Vec3f* x,
                                         size_t nverts, float px, float py, float radius_px);

/// Where the ray meets the plane through `p` with unit normal `n`; false when parallel or behind.
bool ray_plane(const Ray& r, glm::vec3 p, glm::vec3 n, glm::vec3* out);

}  // namespace cb::render
