// OBJ read/write: round trip, polygons triangulated, UV seams share positions,
// welding, and real garments from ../shared.
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/error.h"
#include "sim/io/obj.h"
#include "support/test_support.h"

namespace cb {
namespace {

std::string write_text(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Obj, QuadIsTriangulatedAndUvSeamKeepsOnePosition) {
  // two quads sharing an edge whose vertices carry different UVs on each side
  std::string p = write_text("seam.obj",
                             "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\n"
                             "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0\nvt 0.5 1\n"
                             "f 1/1 2/2 3/3 4/4\nf 2/5 5/2 6/3 3/6\n");
  TriMesh m = read_obj(p);
  EXPECT_EQ(m.positions.size(), 6u) << "positions are shared across the UV seam";
  EXPECT_EQ(m.tris.size(), 4u);
  ASSERT_EQ(m.uvs.size(), 6u);
  EXPECT_FLOAT_EQ(m.uvs[1].x, 1.f) << "first UV seen is kept";
}

TEST(Obj, WriteThenReadRoundTrips) {
  std::vector<Vec3f> x = {{0, 0, 0}, {1.25f, 0, 0}, {0, 2.5f, -1}};
  std::vector<Int3> t = {{0, 1, 2}};
  std::vector<Vec2f> uv = {{0, 0}, {1, 0}, {0, 1}};
  std::string p = testing::TempDir() + "/rt.obj";
  write_obj(p, x, t, &uv);
  TriMesh m = read_obj(p);
  ASSERT_EQ(m.positions.size(), 3u);
  EXPECT_EQ(m.positions[2], x[2]);
  EXPECT_EQ(m.tris[0].c, 2);
  EXPECT_FLOAT_EQ(m.uvs[2].y, 1.f);
}

TEST(Obj, MissingFileNamesThePath) {
  try {
    read_obj("/nonexistent/cloth.obj");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/cloth.obj: cannot open the file (missing or unreadable)");
  }
}

TEST(Obj, WeldMergesDuplicatedSeamVertices) {
  TriMesh m;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  m.tris = {{0, 1, 2}, {3, 5, 4}};
  EXPECT_EQ(weld_vertices(m, 1e-4f), 2u);
  EXPECT_EQ(m.positions.size(), 4u);
  EXPECT_EQ(m.tris[1].a, 1);
  EXPECT_EQ(m.tris[1].c, 2);
}

TEST(Obj, SharedGarmentLoadsAndWelds) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/skirt4K.obj");
  TriMesh m = read_obj(test::shared_path("data/meshes/codim-ipc/skirt4K.obj"));
  EXPECT_EQ(m.positions.size(), 4004u);
  EXPECT_EQ(m.tris.size(), 7496u);
}

}  // namespace
}  // namespace cb
