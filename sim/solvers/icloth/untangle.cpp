#include "sim/solvers/icloth/untangle.h"

#include <cmath>
#include <limits>

#include "sim/collision/tri_tri.h"

namespace cb::icloth {
namespace {

// Sweeps over the pairs: a push can move a vertex another pair holds, which
// the next sweep sees.
constexpr int kSweeps = 3;

// Pairs crossed deeper than this many thicknesses are left alone: that is no
// poke a step left behind (the dress's were 1.1 and 1.8 thicknesses deep), and
// a vertex moved by centimetres in one step drags its neighbours through pairs
// that are not tangled (before this cap, and before the zones' check of the
// pushes in collision_handler.cpp, pushes froze a Verlet swing handed over).
constexpr float kMaxDepth = 3.f;

// One candidate: `count` cloth vertices each displaced by `shift` (m).
struct Push {
  float cost = std::numeric_limits<float>::infinity();  // m, the crossing depth it undoes
  int verts[3] = {-1, -1, -1};
  int count = 0;
  Vec3f shift;
};

struct SoupView {
  const TangleSoup& soup;
  const std::vector<Vec3f>& x1;
  Vec3f at(int v) const {
    const size_t i = size_t(v);
    return i < soup.ncloth_verts ? x1[i] : (*soup.obs_x1)[i - soup.ncloth_verts];
  }
  bool movable(int v) const { return size_t(v) < soup.ncloth_verts && (*soup.inv_mass)[size_t(v)] > 0.f; }
  float thickness(int v) const { return size_t(v) < soup.ncloth_verts ? (*soup.thickness)[size_t(v)] : 0.f; }
};

// The vertex of p alone (strictly) on its side of q's plane: its index 0-2 and
// signed distance d (m, along q's unit normal n); -1 when none.
int lone_vertex(const SoupView& s, const Int3& p, const Int3& q, float& d, Vec3f& n) {
  const Vec3f q0 = s.at(q[0]);
  n = cross(s.at(q[1]) - q0, s.at(q[2]) - q0);
  const float len = length(n);
  if (!(len > 0.f)) return -1;
  n = n * (1.f / len);
  float dist[3];
  for (int k = 0; k < 3; ++k) dist[k] = dot(s.at(p[k]) - q0, n);
  for (int k = 0; k < 3; ++k)
    if (dist[k] * dist[(k + 1) % 3] < 0.f && dist[k] * dist[(k + 2) % 3] < 0.f) {
      d = dist[k];
      return k;
    }
  return -1;
}

// p's lone vertex back through q's plane to a thickness beyond it; where that
// vertex cannot move (obstacle, pinned), q moves the other way instead
Push lone_through(const SoupView& s, const Int3& p, const Int3& q) {
  Push best;
  float d = 0.f;
  Vec3f n;
  const int k = lone_vertex(s, p, q, d, n);
  if (k < 0) return best;
  const int lone = p[k];
  const Vec3f back = n * (d > 0.f ? -1.f : 1.f);  // unit, towards p's other two vertices
  if (s.movable(lone)) {
    if (std::fabs(d) > kMaxDepth * s.thickness(lone)) return best;
    best.cost = std::fabs(d);
    best.verts[0] = lone;
    best.count = 1;
    best.shift = back * (std::fabs(d) + s.thickness(lone));
    return best;
  }
  if (!s.movable(q[0]) || !s.movable(q[1]) || !s.movable(q[2])) return best;
  const float thick = std::fmax(s.thickness(q[0]), std::fmax(s.thickness(q[1]), s.thickness(q[2])));
  if (std::fabs(d) > kMaxDepth * thick) return best;
  best.cost = std::fabs(d);
  for (int i = 0; i < 3; ++i) best.verts[i] = q[i];
  best.count = 3;
  best.shift = back * -(std::fabs(d) + thick);  // q's plane past the lone vertex
  return best;
}

bool intersecting(const SoupView& s, const Int3& a, const Int3& b) {
  const Vec3f p[3] = {s.at(a[0]), s.at(a[1]), s.at(a[2])};
  const Vec3f q[3] = {s.at(b[0]), s.at(b[1]), s.at(b[2])};
  return triangles_intersect(p, q);
}

}  // namespace

UntangleStats push_tangles_apart(const std::vector<Int2>& pairs, const TangleSoup& soup, std::vector<Vec3f>& x1) {
  UntangleStats st;
  const SoupView s{soup, x1};
  const std::vector<Int3>& tris = *soup.tris;
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    size_t pushed = 0;
    for (const Int2& pr : pairs) {
      const Int3& a = tris[size_t(pr.a)];
      const Int3& b = tris[size_t(pr.b)];
      if (!intersecting(s, a, b)) continue;
      const Push ab = lone_through(s, a, b), ba = lone_through(s, b, a);
      const Push& push = ba.cost < ab.cost ? ba : ab;
      if (push.count == 0) continue;
      for (int i = 0; i < push.count; ++i) x1[size_t(push.verts[i])] += push.shift;
      pushed++;
    }
    st.pushed += pushed;
    if (pushed == 0) break;
  }
  for (const Int2& pr : pairs) st.left += intersecting(s, tris[size_t(pr.a)], tris[size_t(pr.b)]) ? 1 : 0;
  return st;
}

}  // namespace cb::icloth
