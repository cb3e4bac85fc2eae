// The takeover untangle (contour_untangle.h): intersection contour
// minimisation on hand-built crossings, its gradient against the contours'
// length. A Verlet swing handed to I-Cloth crossed: tangled_start_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/collision/penetration.h"
#include "sim/model/grid.h"
#include "sim/solvers/icloth/contour_untangle.h"

namespace cb {
namespace {

using icloth::ContourInput;
using icloth::ContourResult;
using icloth::ContourSettings;

// Two pieces of 0.2 m: a flat sheet A (y = 0) and a sheet B 1 cm below it whose
// vertices within `radius` of the centre are lifted into a cone that pokes
// `poke` m through A: one closed intersection contour around the cone.
struct Poke {
  std::vector<Vec3f> x;
  std::vector<Int3> tris;
  std::vector<uint32_t> piece;
  std::vector<float> inv_mass;
  size_t b_first = 0;
  size_t apex = 0;  ///< B's vertex nearest the centre
};

Poke poked_sheets(int n, float poke, float radius) {
  GridSpec g;
  g.nx = g.ny = n;
  g.width = g.height = 0.2f;
  const TriMesh m = make_grid(g);
  Poke s;
  float best = 1e30f;
  for (int sheet = 0; sheet < 2; ++sheet) {
    const int off = int(s.x.size());
    if (sheet == 1) s.b_first = size_t(off);
    for (const Vec3f& p : m.positions) {
      if (sheet == 0) {
        s.x.push_back(Vec3f{p.x, 0.f, p.y});
        continue;
      }
      const Vec3f q{p.x + 0.0041f, -0.01f, p.y + 0.0023f};  // off A's lattice: no touching vertices
      const float r = std::sqrt(q.x * q.x + q.z * q.z);
      const float lift = r < radius ? (0.01f + poke) * (1.f - r / radius) : 0.f;
      s.x.push_back(Vec3f{q.x, q.y + lift, q.z});
      if (r < best) best = r, s.apex = s.x.size() - 1;
    }
    for (const Int3& t : m.tris) {
      s.tris.push_back({t.a + off, t.b + off, t.c + off});
      s.piece.push_back(uint32_t(sheet));
    }
  }
  s.inv_mass.assign(s.x.size(), 1.f);
  return s;
}

size_t crossed(const Poke& s, const std::vector<Vec3f>& x) {
  const TriSet cloth{x.data(), s.tris.data(), int(s.tris.size()), s.piece.data()};
  return size_t(count_intersections(Context{}, cloth, TriSet{}).total());
}

TEST(ContourUntangle, APokeThroughASheetIsPulledBackAndNothingElseMoves) {
  Poke s = poked_sheets(20, 0.01f, 0.05f);
  ASSERT_GT(crossed(s, s.x), 4u) << "the cone should cross A around its tip";
  const std::vector<Vec3f> x0 = s.x;
  const ContourInput in{&s.tris, &s.piece, &s.inv_mass, nullptr, nullptr};
  const ContourResult r = icloth::untangle_contours(in, ContourSettings{}, s.x);
  EXPECT_EQ(r.end_pairs, 0u);
  EXPECT_EQ(crossed(s, s.x), 0u) << "the result says clean, the count does not";
  EXPECT_EQ(r.end_length, 0.0);
  EXPECT_GT(r.start_length, 0.01) << "a contour around a cone 1 cm through the sheet";
  // only vertices near the contour move, and no more than the poke's depth and a little
  float far_moved = 0, moved = 0;
  for (size_t v = 0; v < s.x.size(); ++v) {
    const float d = length(s.x[v] - x0[v]);
    moved = std::max(moved, d);
    const float r_xz = std::sqrt(x0[v].x * x0[v].x + x0[v].z * x0[v].z);
    if (r_xz > 0.06f) far_moved = std::max(far_moved, d);
  }
  EXPECT_EQ(far_moved, 0.f) << "a vertex away from the contour moved";
  EXPECT_LT(moved, 0.03f);
  // the cone's tip is under A again (or A over it): below A's vertex nearest it
  size_t above = 0;
  float nearest = 1e30f;
  for (size_t v = 0; v < s.b_first; ++v) {
    const float dx = s.x[v].x - s.x[s.apex].x, dz = s.x[v].z - s.x[s.apex].z;
    if (dx * dx + dz * dz < nearest) nearest = dx * dx + dz * dz, above = v;
  }
  EXPECT_LT(s.x[s.apex].y, s.x[above].y);
  EXPECT_GT(x0[s.apex].y, x0[above].y) << "the tip started above A";
}

TEST(ContourUntangle, TheDescentShortensTheContours) {
  // the gradient is that of the contours' length: a small step along it shortens them
  Poke s = poked_sheets(20, 0.008f, 0.06f);
  const ContourInput in{&s.tris, &s.piece, &s.inv_mass, nullptr, nullptr};
  std::vector<Vec3f> grad;
  size_t pairs = 0;
  const double L0 = icloth::contour_descent(in, s.x, grad, &pairs);
  ASSERT_GT(pairs, 0u);
  ASSERT_GT(L0, 0.0);
  for (float h : {1e-4f, 3e-4f, 1e-3f}) {
    std::vector<Vec3f> x = s.x, g2;
    for (size_t v = 0; v < x.size(); ++v) x[v] += h * grad[v];
    const double L1 = icloth::contour_descent(in, x, g2);
    EXPECT_LT(L1, L0) << "step " << h << " m";
  }
  // and the other way lengthens them
  std::vector<Vec3f> x = s.x, g2;
  for (size_t v = 0; v < x.size(); ++v) x[v] -= 3e-4f * grad[v];
  EXPECT_GT(icloth::contour_descent(in, x, g2), L0);
}

TEST(ContourUntangle, PinnedVerticesAndObstaclesStayWhereTheyAre) {
  // B as an obstacle, A's vertices near the cone pinned but one ring: A moves
  // around its pins, the obstacle not at all, and the crossing is undone
  Poke s = poked_sheets(20, 0.01f, 0.05f);
  std::vector<Int3> cloth_tris, obs_tris;
  std::vector<uint32_t> piece;
  for (size_t t = 0; t < s.tris.size(); ++t) {
    if (s.piece[t] == 0) {
      cloth_tris.push_back(s.tris[t]);
      piece.push_back(0);
    } else {
      const int off = int(s.b_first);
      obs_tris.push_back(Int3{s.tris[t].a - off, s.tris[t].b - off, s.tris[t].c - off});
    }
  }
  std::vector<Vec3f> x(s.x.begin(), s.x.begin() + long(s.b_first));
  const std::vector<Vec3f> obs(s.x.begin() + long(s.b_first), s.x.end());
  const std::vector<Vec3f> obs_before = obs;
  std::vector<float> inv_mass(x.size(), 1.f);
  size_t pinned = 0;
  for (size_t v = 0; v < x.size(); ++v)
    if (std::fabs(x[v].x) > 0.03f) inv_mass[v] = 0.f, ++pinned;
  const std::vector<Vec3f> x0 = x;
  const ContourInput in{&cloth_tris, &piece, &inv_mass, &obs, &obs_tris};
  const TriSet before_cloth{x.data(), cloth_tris.data(), int(cloth_tris.size()), piece.data()};
  const TriSet obst{obs.data(), obs_tris.data(), int(obs_tris.size()), nullptr};
  ASSERT_GT(count_intersections(Context{}, before_cloth, obst).cloth_obstacle, 0u);
  const ContourResult r = icloth::untangle_contours(in, ContourSettings{}, x);
  EXPECT_EQ(r.end_pairs, 0u);
  const TriSet after_cloth{x.data(), cloth_tris.data(), int(cloth_tris.size()), piece.data()};
  EXPECT_EQ(count_intersections(Context{}, after_cloth, obst).total(), 0u);
  for (size_t v = 0; v < x.size(); ++v)
    if (inv_mass[v] == 0.f) EXPECT_EQ(x[v], x0[v]) << "pinned vertex " << v << " moved";
  EXPECT_GT(pinned, 0u);
  for (size_t v = 0; v < obs.size(); ++v) EXPECT_EQ(obs[v], obs_before[v]);
}

// Each vertex moves at most its max_move in one iteration (a garment's
// sub-millimetre seam edges would be stretched many-fold by the common step):
// one iteration with a cap of a twentieth of the step on every vertex of the
// cone (B) moves those vertices no more than that, and A's by up to the step.
TEST(ContourUntangle, NoVertexMovesMoreThanItsCapInAnIteration) {
  Poke s = poked_sheets(20, 0.01f, 0.05f);
  ContourSettings cs;
  cs.max_iterations = 1;
  cs.step = 2e-3f;
  const float cap = cs.step / 20.f;
  std::vector<float> max_move(s.x.size(), 1.f);
  for (size_t v = s.b_first; v < s.x.size(); ++v) max_move[v] = cap;
  const ContourInput in{&s.tris, &s.piece, &s.inv_mass, nullptr, nullptr, &max_move};
  std::vector<Vec3f> x = s.x;
  const ContourResult r = icloth::untangle_contours(in, cs, x);
  ASSERT_EQ(r.iterations, 1);
  ASSERT_LT(r.end_pairs, r.start_pairs) << "the iterate is kept only when it crosses less";
  float a_moved = 0, b_moved = 0;
  for (size_t v = 0; v < x.size(); ++v) {
    float& moved = v < s.b_first ? a_moved : b_moved;
    moved = std::max(moved, length(x[v] - s.x[v]));
  }
  EXPECT_GT(b_moved, 0.f) << "the cone moves";
  EXPECT_LE(b_moved, cap * 1.0001f);
  EXPECT_GT(a_moved, cap * 2.f) << "the sheet A takes the full step";
  EXPECT_LE(a_moved, cs.step * 1.0001f);
}

TEST(ContourUntangle, ACleanStateIsLeftAsItIs) {
  Poke s = poked_sheets(12, -0.005f, 0.05f);  // the cone stops 5 mm below A
  ASSERT_EQ(crossed(s, s.x), 0u);
  const std::vector<Vec3f> x0 = s.x;
  const ContourInput in{&s.tris, &s.piece, &s.inv_mass, nullptr, nullptr};
  const ContourResult r = icloth::untangle_contours(in, ContourSettings{}, s.x);
  EXPECT_EQ(r.start_pairs, 0u);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(s.x, x0);
}

}  // namespace
}  // namespace cb
