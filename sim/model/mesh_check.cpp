#include "sim/model/mesh_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/error.h"
#include "sim/model/near_points.h"
#include "sim/model/topology.h"

namespace cb {
namespace {

std::string where(const TriMesh& m) { return m.source.empty() ? std::string("mesh") : m.source; }

void check_vertices(const TriMesh& m, MeshReport& r) {
  std::string problem;
  const int64_t v = first_coordinate_problem(m.positions, &problem);
  if (v >= 0) r.errors.push_back(where(m) + ": vertex " + std::to_string(v + 1) + " " + problem);
}

bool check_triangles(const TriMesh& m, MeshReport& r) {
  const int64_t n = int64_t(m.positions.size());
  size_t zero_area = 0, first_zero = 0;
  for (size_t t = 0; t < m.tris.size(); ++t) {
    const Int3& f = m.tris[t];
    for (int k = 0; k < 3; ++k)
      if (f[k] < 0 || f[k] >= n) {
        r.errors.push_back(where(m) + ": triangle " + std::to_string(t) + " refers to vertex " +
                           std::to_string(int64_t(f[k]) + 1) + " but the mesh has " + std::to_string(n) + " vertices");
        return false;
      }
    if (f.a == f.b || f.b == f.c || f.a == f.c) {
      r.errors.push_back(where(m) + ": triangle " + std::to_string(t) + " is degenerate (uses a vertex twice)");
      return false;
    }
    Vec3f a = m.positions[f.a], b = m.positions[f.b], c = m.positions[f.c];
    float area2 = length(cross(b - a, c - a));
    float scale = std::max(length2(b - a), std::max(length2(c - a), length2(c - b)));
    if (!(area2 > 1e-7f * scale)) {
      if (zero_area++ == 0) first_zero = t;
    }
  }
  if (zero_area)
    r.warnings.push_back(where(m) + ": " + std::to_string(zero_area) + " zero-area triangle(s) (first: triangle " +
                         std::to_string(first_zero) + ")");
  return true;
}

// Vertices that coincide with an earlier one, within kCoincide of the mesh's
// size (the bounds' diagonal; relative, so a placed copy gives the same count):
// a sewn garment exported with its seam vertices duplicated. Each side of such a
// seam moves on its own, and the collision handling sees coincident features.
constexpr float kCoincide = 1e-5f;

void check_coincident(const TriMesh& m, MeshReport& r) {
  const float tol = kCoincide * length(bounds(m).extent());
  if (!(tol > 0.f)) return;
  NearPoints earlier(tol);
  size_t count = 0;
  uint32_t first_a = 0, first_b = 0;
  for (uint32_t i = 0; i < m.positions.size(); ++i) {
    const int32_t j = earlier.find(m.positions, m.positions[i]);
    if (j >= 0 && count++ == 0) first_a = uint32_t(j), first_b = i;
    earlier.add(m.positions[i], i);
  }
  if (count)
    r.warnings.push_back(where(m) + ": " + std::to_string(count) + " vertices coincide with another vertex (first: " +
                         std::to_string(first_a + 1) + " and " + std::to_string(first_b + 1) +
                         "): seams exported unwelded? A scene's cloth \"weld\" (m) merges them");
}

}  // namespace

std::string coordinate_problem(Vec3f v) {
  if (!is_finite(v)) return "has a non-finite coordinate (NaN or inf)";
  const float far = std::max(std::fabs(v.x), std::max(std::fabs(v.y), std::fabs(v.z)));
  if (far <= kMaxCoordinate) return "";
  char buf[128];
  std::snprintf(buf, sizeof buf, "lies %.3g m from the origin, beyond the %.0e m a scene may span (wrong units?)",
                double(far), double(kMaxCoordinate));
  return buf;
}

int64_t first_coordinate_problem(const std::vector<Vec3f>& x, std::string* problem) {
  for (size_t v = 0; v < x.size(); ++v) {
    *problem = coordinate_problem(x[v]);
    if (!problem->empty()) return int64_t(v);
  }
  return -1;
}

MeshReport check_mesh(const TriMesh& m) {
  MeshReport r;
  if (m.positions.empty() || m.tris.empty()) {
    r.errors.push_back(where(m) + ": the mesh is empty (" + std::to_string(m.positions.size()) + " vertices, " +
                       std::to_string(m.tris.size()) + " triangles)");
    return r;
  }
  check_vertices(m, r);
  if (!check_triangles(m, r)) return r;
  check_coincident(m, r);
  Topology topo = build_topology(m.positions.size(), m.tris);
  if (!topo.nonmanifold_edges.empty()) {
    Int2 e = topo.edges[topo.nonmanifold_edges[0]];
    r.warnings.push_back(where(m) + ": " + std::to_string(topo.nonmanifold_edges.size()) +
                         " non-manifold edge(s) shared by three or more triangles (first: vertices " +
                         std::to_string(e.a + 1) + "-" + std::to_string(e.b + 1) + ")");
  }
  return r;
}

void require_valid_mesh(const TriMesh& m, std::vector<std::string>* warnings) {
  MeshReport r = check_mesh(m);
  if (!r.errors.empty()) throw Error(r.errors.front());
  if (warnings) warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
}

}  // namespace cb
