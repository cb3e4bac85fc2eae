// Mesh checks: errors and warnings name the file and the element.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/model/mesh_check.h"

namespace cb {
namespace {

TriMesh square() {
  TriMesh m;
  m.source = "square.obj";
  m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  m.tris = {{0, 1, 2}, {0, 2, 3}};
  return m;
}

TEST(MeshCheck, CleanMeshPasses) {
  MeshReport r = check_mesh(square());
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(MeshCheck, EmptyNanOutOfRangeDegenerate) {
  TriMesh e;
  e.source = "empty.obj";
  EXPECT_EQ(check_mesh(e).errors.at(0), "empty.obj: the mesh is empty (0 vertices, 0 triangles)");
  TriMesh n = square();
  n.positions[2].y = std::nanf("");
  EXPECT_EQ(check_mesh(n).errors.at(0), "square.obj: vertex 3 has a non-finite coordinate (NaN or inf)");
  TriMesh o = square();
  o.tris[1].c = 9;
  EXPECT_EQ(check_mesh(o).errors.at(0), "square.obj: triangle 1 refers to vertex 10 but the mesh has 4 vertices");
  TriMesh d = square();
  d.tris[0] = {1, 1, 2};
  EXPECT_EQ(check_mesh(d).errors.at(0), "square.obj: triangle 0 is degenerate (uses a vertex twice)");
}

// a mesh in the wrong units (or a typo) far beyond any scene: an error that says
// how far, where the simulation would overflow its squared lengths into NaN (an
// OBJ vertex at 3.4e38 m once loaded and turned NaN in the first frame)
TEST(MeshCheck, AVertexBeyondTheSceneIsAnError) {
  TriMesh far = square();
  far.positions[1].x = -2e6f;
  EXPECT_EQ(check_mesh(far).errors.at(0),
            "square.obj: vertex 2 lies 2e+06 m from the origin, beyond the 1e+06 m a scene may span (wrong units?)");
  TriMesh edge = square();
  edge.positions[1].x = kMaxCoordinate;  // the bound itself is allowed
  EXPECT_TRUE(check_mesh(edge).errors.empty());
}

TEST(MeshCheck, ZeroAreaAndNonManifoldAreWarnings) {
  TriMesh z = square();
  z.positions.push_back({2, 0, 0});
  z.tris.push_back({0, 1, 4});  // collinear
  MeshReport r = check_mesh(z);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings[0], "square.obj: 1 zero-area triangle(s) (first: triangle 2)");
  TriMesh nm = square();
  nm.positions.push_back({0.5f, 0.5f, 1});
  nm.tris.push_back({0, 2, 4});  // third triangle on edge 0-2
  r = check_mesh(nm);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("non-manifold edge"), std::string::npos) << r.warnings[0];
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// Two squares side by side whose shared edge is two pairs of coincident vertices
// (a seam exported unwelded): a warning naming the count and the first pair.
TEST(MeshCheck, CoincidentVerticesAreAWarning) {
  TriMesh m = square();
  m.positions.push_back({1, 0, 0});  // 5: a copy of 2 (1-based)
  m.positions.push_back({2, 0, 0});
  m.positions.push_back({2, 1, 0});
  m.positions.push_back({1, 1, 0});  // 8: a copy of 3
  m.tris.push_back({4, 5, 6});
  m.tris.push_back({4, 6, 7});
  MeshReport r = check_mesh(m);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "square.obj: 2 vertices coincide with another vertex (first: 2 and 5): seams exported unwelded? A scene's "
            "cloth \"weld\" (m) merges them");
  // the same squares a hair apart, well above the tolerance (1e-5 of the size): no warning
  for (size_t v = 4; v < m.positions.size(); ++v) m.positions[v].x += 1e-3f;
  EXPECT_TRUE(check_mesh(m).warnings.empty()) << check_mesh(m).warnings[0];
}

}  // namespace
}  // namespace cb
