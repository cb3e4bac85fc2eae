#include "render/tessellate.h"

#include <cmath>

namespace cb::render {

namespace {
constexpr float kPi = 3.14159265358979f;

// grid of (slices+1) x (stacks+1) vertices joined into quads
void add_grid_indices(TessMesh& m, uint32_t first, int slices, int stacks) {
  for (int j = 0; j < stacks; ++j)
    for (int i = 0; i < slices; ++i) {
      uint32_t a = first + uint32_t(j * (slices + 1) + i), b = a + 1;
      uint32_t c = a + uint32_t(slices + 1), d = c + 1;
      m.indices.insert(m.indices.end(), {a, b, c, b, d, c});
    }
}

// rings of a sphere split at the equator and pushed apart by +-half_length along y
TessMesh rounded(float radius, float half_length, int slices, int stacks) {
  TessMesh m;
  stacks += stacks % 2;
  for (int j = 0; j <= stacks; ++j) {
    float theta = kPi * float(j) / float(stacks);  // 0 at the top pole
    float shift = j <= stacks / 2 ? half_length : -half_length;
    for (int i = 0; i <= slices; ++i) {
      float phi = 2.f * kPi * float(i) / float(slices);
      Vec3f n{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
      m.normals.push_back(n);
      m.positions.push_back(n * radius + Vec3f{0, shift, 0});
    }
  }
  add_grid_indices(m, 0, slices, stacks);
  if (half_length > 0) {  // the cylinder between the two equator rings
    uint32_t first = uint32_t(m.positions.size());
    for (int j = 0; j <= 1; ++j)
      for (int i = 0; i <= slices; ++i) {
        float phi = 2.f * kPi * float(i) / float(slices);
        Vec3f n{std::cos(phi), 0, std::sin(phi)};
        m.normals.push_back(n);
        m.positions.push_back(n * radius + Vec3f{0, j == 0 ? half_length : -half_length, 0});
      }
    add_grid_indices(m, first, slices, 1);
  }
  return m;
}
}  // namespace

TessMesh tessellate_sphere(float radius, int slices, int stacks) { return rounded(radius, 0.f, slices, stacks); }

TessMesh tessellate_capsule(float radius, float half_length, int slices, int stacks) {
  return rounded(radius, half_length, slices, stacks);
}

TessMesh tessellate_box(Vec3f h) {
  TessMesh m;
  for (int axis = 0; axis < 3; ++axis)
    for (int sign = -1; sign <= 1; sign += 2) {
      Vec3f n{0, 0, 0};
      n[axis] = float(sign);
      int u = (axis + 1) % 3, v = (axis + 2) % 3;
      uint32_t first = uint32_t(m.positions.size());
      for (int k = 0; k < 4; ++k) {
        Vec3f p{0, 0, 0};
        p[axis] = float(sign) * h[axis];
        p[u] = ((k & 1) ? 1.f : -1.f) * h[u];
        p[v] = ((k & 2) ? 1.f : -1.f) * h[v];
        m.positions.push_back(p);
        m.normals.push_back(n);
      }
      // keep counter-clockwise winding seen from outside
      if (sign > 0) m.indices.insert(m.indices.end(), {first, first + 1, first + 3, first, first + 3, first + 2});
      else m.indices.insert(m.indices.end(), {first, first + 3, first + 1, first, first + 2, first + 3});
    }
  return m;
}

TessMesh tessellate_plane(float s) {
  TessMesh m;
  m.positions = {{-s, 0, -s}, {s, 0, -s}, {-s, 0, s}, {s, 0, s}};
  m.normals.assign(4, Vec3f{0, 1, 0});
  m.indices = {0, 2, 1, 1, 2, 3};
  return m;
}

TessMesh tessellate_shape(const Shape& s, float plane_half_size) {
  switch (s.kind) {
    case ShapeKind::Plane: return tessellate_plane(plane_half_size);
    case ShapeKind::Sphere: return tessellate_sphere(s.radius);
    case ShapeKind::Capsule: return tessellate_capsule(s.radius, s.half_length);
    case ShapeKind::Box: return tessellate_box(s.half_extents);
  }
  return {};
}

std::vector<Vec3f> smooth_normals(const std::vector<Vec3f>& x, const std::vector<Int3>& tris) {
  std::vector<Vec3f> n(x.size(), Vec3f{0, 0, 0});
  for (const Int3& t : tris) {
    Vec3f fn = cross(x[t.b] - x[t.a], x[t.c] - x[t.a]);  // length = 2 * area
    n[t.a] += fn;
    n[t.b] += fn;
    n[t.c] += fn;
  }
  for (Vec3f& v : n) v = normalize(v);
  return n;
}

}  // namespace cb::render
