// How one rigid impact zone moves (rigid_zones.h).
#include "sim/solvers/icloth/rigid_zones.h"

#include <algorithm>
#include <cmath>

#include "sim/collision/proximity.h"
#include "sim/solvers/icloth/collision_handler.h"
#include "sim/solvers/icloth/mat3.h"
#include "sim/solvers/icloth/rigid_fit.h"

namespace cb::icloth {
namespace {

// One rigid motion carries the zone when it misses no fixed point by more than
// this many thicknesses. A zone across a hip and a kicking thigh missed by 3.5 mm
// against a 1 mm thickness (RESULTS.md, fourteenth session); the zones that
// cleared missed by 0.1 to 0.6 mm.
constexpr double kRigidFitTolerance = 0.5;

// m: in a local fit, fixed point i weighs 1 / (r_i^2 + s^2)^2 with r_i its
// distance from the vertex at the start of the step and s this length: a vertex
// follows the few fixed points within a few millimetres (the mannequin's edges
// are about 1 cm). Over twelve dress trajectories 2 mm and a length shrinking
// from 1 cm to 2 mm over the rounds did alike; 1 cm still left a zone across
// the hip crease crossing the body (RESULTS.md, fifteenth session).
constexpr double kLocalFitLength = 0.002;

// The fixed vertices (obstacle vertices and pinned cloth vertices) among the
// zone's impacts, each as often as it occurs: at the start (p0) and the end
// (p1) of the step. Empty when the zone has none.
void zone_fixed_points(const std::vector<int>& ids, const std::vector<Impact>& imps, const CollisionInput& in,
                       size_t nverts, std::vector<Vec3d>& p0, std::vector<Vec3d>& p1) {
  for (int j : ids)
    for (int k = 0; k < 4; ++k) {
      const Impact& im = imps[size_t(j)];
      if (im.w[k] == 0.f) continue;
      const size_t v = size_t(im.v[k]);
      if (v >= nverts) {
        p0.push_back(Vec3d((*in.obs_x0)[v - nverts]));
        p1.push_back(Vec3d((*in.obs_x1)[v - nverts]));
      } else if ((*in.inv_mass)[v] == 0.f) {
        p0.push_back(Vec3d((*in.x0)[v]));
        p1.push_back(Vec3d((*in.x_free)[v]));
      }
    }
}

// The rigid motion of the fixed points near x (weights: kLocalFitLength; w is
// scratch).
RigidFit local_fit(Vec3d x, const std::vector<Vec3d>& p0, const std::vector<Vec3d>& p1, std::vector<double>& w) {
  constexpr double s2 = kLocalFitLength * kLocalFitLength;
  w.resize(p0.size());
  for (size_t i = 0; i < p0.size(); ++i) {
    const Vec3d r = p0[i] - x;
    const double q = dot(r, r) + s2;
    w[i] = 1.0 / (q * q);
  }
  return fit_rigid_motion(p0, p1, &w);
}

// Orthonormal frame of triangle (a, b, c) as the columns of *F: the first
// edge's direction, the normal, and their cross product. False for a triangle
// without one (an edge or its normal of no length).
bool triangle_frame(Vec3d a, Vec3d b, Vec3d c, M3T<double>* F) {
  const Vec3d e = b - a, n = cross(b - a, c - a);
  if (!(dot(e, e) > 0) || !(dot(n, n) > 1e-20 * dot(e, e) * dot(e, e))) return false;
  const Vec3d eu = normalize(e), nu = normalize(n), f = cross(nu, eu);
  for (int r = 0; r < 3; ++r) F->m[r][0] = eu[r], F->m[r][1] = f[r], F->m[r][2] = nu[r];
  return true;
}

// Where the obstacle carries x over the step: x's closest point on the triangles
// `tris` (ids into in.obs_tris, not empty) at the start goes to the same
// barycentric point at the end, x's offset from it turning with that triangle's
// frame. Exact for a body that deforms (a skinned hip), where a fitted rigid
// motion is not.
Vec3d carried_by_obstacle(Vec3d x, const std::vector<int>& tris, const CollisionInput& in) {
  const auto& o0 = *in.obs_x0;
  const auto& o1 = *in.obs_x1;
  double best = 1e300;
  int bt = -1;
  double bw[3] = {0, 0, 0};
  for (int t : tris) {
    const Int3 f = (*in.obs_tris)[size_t(t)];
    const PointTriResult<double> r =
        closest_point_triangle(x, Vec3d(o0[size_t(f[0])]), Vec3d(o0[size_t(f[1])]), Vec3d(o0[size_t(f[2])]));
    if (r.dist2 < best) best = r.dist2, bt = t, bw[0] = r.w[0], bw[1] = r.w[1], bw[2] = r.w[2];
  }
  const Int3 f = (*in.obs_tris)[size_t(bt)];
  const Vec3d a0(o0[size_t(f[0])]), b0(o0[size_t(f[1])]), c0(o0[size_t(f[2])]);
  const Vec3d a1(o1[size_t(f[0])]), b1(o1[size_t(f[1])]), c1(o1[size_t(f[2])]);
  const Vec3d p0 = a0 * bw[0] + b0 * bw[1] + c0 * bw[2], p1 = a1 * bw[0] + b1 * bw[1] + c1 * bw[2];
  M3T<double> F0, F1;
  if (!triangle_frame(a0, b0, c0, &F0) || !triangle_frame(a1, b1, c1, &F1))
    return p1 + (x - p0);  // a sliver: its point's translation alone
  return p1 + F1 * (F0.transposed() * (x - p0));
}

// The obstacle triangles with a vertex among the zone's impacts (one pass over
// all of them: this runs in late rigid rounds of a failing step only).
std::vector<int> zone_obstacle_tris(const std::vector<int>& ids, const std::vector<Impact>& imps, size_t nverts,
                                    const CollisionInput& in) {
  std::vector<int> out;
  if (!in.obs_x0 || !in.obs_tris) return out;
  std::vector<uint8_t> mark(in.obs_x0->size(), 0);
  for (int j : ids)
    for (int k = 0; k < 4; ++k) {
      const Impact& im = imps[size_t(j)];
      if (im.w[k] != 0.f && size_t(im.v[k]) >= nverts) mark[size_t(im.v[k]) - nverts] = 1;
    }
  for (size_t t = 0; t < in.obs_tris->size(); ++t) {
    const Int3 f = (*in.obs_tris)[t];
    if (mark[size_t(f[0])] || mark[size_t(f[1])] || mark[size_t(f[2])]) out.push_back(int(t));
  }
  return out;
}

// A zone with fixed vertices p0 -> p1 (from its impacts ids): one fitted
// motion, or one per vertex (move_rigid_zone).
void move_with_fixed(const std::vector<int>& verts, const std::vector<int>& ids, const std::vector<Impact>& imps,
                     const std::vector<Vec3d>& p0, const std::vector<Vec3d>& p1, const CollisionInput& in,
                     size_t nverts, const std::vector<uint8_t>* carried, std::vector<Vec3f>& x1) {
  const auto& x0 = *in.x0;
  const bool carries = carried && std::any_of(verts.begin(), verts.end(), [&](int v) { return (*carried)[size_t(v)]; });
  if (!carries) {  // a zone that carries a vertex moves by local fits, however well one motion fits
    const RigidFit fit = fit_rigid_motion(p0, p1);
    double th = 0;
    for (int v : verts) th = std::max(th, double((*in.thickness)[size_t(v)]));
    if (largest_miss(fit, p0, p1) <= kRigidFitTolerance * th) {
      for (int v : verts) x1[size_t(v)] = Vec3f(fit.apply(Vec3d(x0[size_t(v)])));
      return;
    }
  }
  const std::vector<int> otris = carries ? zone_obstacle_tris(ids, imps, nverts, in) : std::vector<int>{};
  std::vector<double> w;
  for (int v : verts) {
    const Vec3d xv(x0[size_t(v)]);
    if (carries && (*carried)[size_t(v)] && !otris.empty())
      x1[size_t(v)] = Vec3f(carried_by_obstacle(xv, otris, in));
    else
      x1[size_t(v)] = Vec3f(local_fit(xv, p0, p1, w).apply(xv));
  }
}

// A free zone: the mass-weighted mean translation and the rotation of the
// angular momentum about the centre of mass, omega = I^-1 L (over the step).
void move_free(const std::vector<int>& verts, const CollisionInput& in, std::vector<Vec3f>& x1) {
  const auto& x0 = *in.x0;
  const auto& xf = *in.x_free;
  const auto& m = *in.mass;
  double M = 0;
  Vec3d c{}, dcm{};
  for (int v : verts) {
    M += m[size_t(v)];
    c += Vec3d(x0[size_t(v)]) * double(m[size_t(v)]);
    dcm += Vec3d(xf[size_t(v)] - x0[size_t(v)]) * double(m[size_t(v)]);
  }
  c = c / M;
  dcm = dcm / M;
  Vec3d L{};
  M3T<double> I;
  for (int v : verts) {
    Vec3d r = Vec3d(x0[size_t(v)]) - c, d = Vec3d(xf[size_t(v)] - x0[size_t(v)]) - dcm;
    L += cross(r, d) * double(m[size_t(v)]);
    I += M3T<double>::identity(dot(r, r) * m[size_t(v)]);
    add_outer(I, -double(m[size_t(v)]), r, r);
  }
  M3T<double> Ii;
  Vec3d w = invert(I, Ii) ? Ii * L : Vec3d{};
  double ang = length(w);
  Mat3f R = ang > 1e-12 ? rotation(Vec3f(w / ang), float(ang)) : Mat3f{};
  for (int v : verts) x1[size_t(v)] = Vec3f(c + dcm) + R * Vec3f(Vec3d(x0[size_t(v)]) - c);
}

}  // namespace

void move_rigid_zone(const std::vector<int>& verts, const std::vector<int>& ids, const std::vector<Impact>& imps,
                     const CollisionInput& in, size_t nverts, std::vector<Vec3f>& x1,
                     const std::vector<uint8_t>* carried) {
  std::vector<Vec3d> p0, p1;
  zone_fixed_points(ids, imps, in, nverts, p0, p1);
  if (p0.empty())
    move_free(verts, in, x1);
  else
    move_with_fixed(verts, ids, imps, p0, p1, in, nverts, carried, x1);
}

void mark_against_obstacle(const std::vector<Impact>& imps, size_t nverts, std::vector<uint8_t>& carried) {
  for (const Impact& im : imps) {
    if (!against_obstacle(im, nverts)) continue;
    for (int k = 0; k < 4; ++k)
      if (im.w[k] != 0.f && size_t(im.v[k]) < nverts) carried[size_t(im.v[k])] = 1;
  }
}

}  // namespace cb::icloth
