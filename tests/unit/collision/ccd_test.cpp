// CCD: analytic cases, the minimum-separation option, the work cap, backends
// agree, and zero false negatives on every file of ../shared/data/ccd (through the
// library and through `clothbox-cli ccd`).
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "sim/collision/ccd_batch.h"
#include "sim/collision/ccd_benchmark.h"
#include "sim/core/buffer.h"
#include "sim/core/error.h"
#include "support/test_support.h"

namespace cb {
namespace {

// a point falling through the unit right triangle in the z = 0 plane
CcdResult vf_drop(Vec3d p0, Vec3d p1, const CcdOptions& o = {}) {
  Vec3d x0[4] = {p0, Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 1, 0)};
  Vec3d x1[4] = {p1, Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 1, 0)};
  return ccd_vertex_face(x0, x1, o);
}

TEST(Ccd, VertexFaceAnalytic) {
  CcdResult r = vf_drop(Vec3d(0.2, 0.2, 1), Vec3d(0.2, 0.2, -1));
  EXPECT_TRUE(r.hit);
  EXPECT_LE(r.toi, 0.5);
  EXPECT_GE(r.toi, 0.5 - 1e-5);
  EXPECT_FALSE(vf_drop(Vec3d(0.8, 0.8, 1), Vec3d(0.8, 0.8, -1)).hit);   // beside the hypotenuse
  EXPECT_FALSE(vf_drop(Vec3d(0.2, 0.2, 1), Vec3d(0.2, 0.2, 0.1)).hit);  // stops short
  EXPECT_EQ(vf_drop(Vec3d(0.2, 0.2, 1), Vec3d(0.2, 0.2, 0.1)).boxes, 0);  // never coplanar: no search
  EXPECT_TRUE(vf_drop(Vec3d(0.2, 0.2, 1), Vec3d(0.2, 0.2, 0)).hit);     // touches at t = 1
  EXPECT_TRUE(vf_drop(Vec3d(0.5, 0.5, 1), Vec3d(0.5, 0.5, -1)).hit);    // through the hypotenuse
  EXPECT_TRUE(vf_drop(Vec3d(-1, 0.3, 0), Vec3d(1, 0.3, 0)).hit);        // slides in the plane
}

TEST(Ccd, MovingTriangleHitsStillPoint) {
  // the triangle sweeps up through the point; relative motion is what counts
  Vec3d x0[4] = {Vec3d(0.3, 0.3, 0.5), Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 1, 0)};
  Vec3d x1[4] = {Vec3d(0.3, 0.3, 0.5), Vec3d(0, 0, 1), Vec3d(1, 0, 1), Vec3d(0, 1, 1)};
  CcdResult r = ccd_vertex_face(x0, x1);
  EXPECT_TRUE(r.hit);
  EXPECT_NEAR(r.toi, 0.5, 1e-5);
  EXPECT_LE(r.toi, 0.5);
}

TEST(Ccd, EdgeEdgeAnalytic) {
  // edge a along x at z = 1 moving down to z = -1; edge b along y at z = 0
  auto ee = [](double ya, double zend, const CcdOptions& o = {}) {
    Vec3d x0[4] = {Vec3d(-1, ya, 1), Vec3d(1, ya, 1), Vec3d(0, -1, 0), Vec3d(0, 1, 0)};
    Vec3d x1[4] = {Vec3d(-1, ya, zend), Vec3d(1, ya, zend), Vec3d(0, -1, 0), Vec3d(0, 1, 0)};
    return ccd_edge_edge(x0, x1, o);
  };
  EXPECT_TRUE(ee(0.5, -1).hit);
  EXPECT_FALSE(ee(1.5, -1).hit);  // passes beyond the end of b
  EXPECT_FALSE(ee(0.5, 0.01).hit);
  EXPECT_TRUE(ee(0.5, 0).hit);    // touches at t = 1
  // minimum separation: 0.01 short of touching is a hit with min_distance 0.02
  CcdOptions o;
  o.min_distance = 0.02;
  EXPECT_TRUE(ee(0.5, 0.01, o).hit);
  o.min_distance = 0.005;
  EXPECT_FALSE(ee(0.5, 0.01, o).hit);
  // parallel edges sliding onto each other along their line
  Vec3d p0[4] = {Vec3d(-3, 0, 0), Vec3d(-2, 0, 0), Vec3d(0, 0, 0), Vec3d(1, 0, 0)};
  Vec3d p1[4] = {Vec3d(-1, 0, 0), Vec3d(0.5, 0, 0), Vec3d(0, 0, 0), Vec3d(1, 0, 0)};
  EXPECT_TRUE(ccd_edge_edge(p0, p1).hit);
  Vec3d q1[4] = {Vec3d(-2, 0, 1e-3), Vec3d(-0.5, 0, 1e-3), Vec3d(0, 0, 0), Vec3d(1, 0, 0)};
  EXPECT_FALSE(ccd_edge_edge(p0, q1).hit);
}

TEST(Ccd, WorkCapAnswersConservatively) {
  CcdOptions o;
  o.max_boxes = 1;
  o.tolerance = 1e-12;
  CcdResult r = vf_drop(Vec3d(0.8, 0.8, 1), Vec3d(0.8, 0.8, -1), o);  // a miss needs a few boxes
  EXPECT_TRUE(r.hit);
  EXPECT_TRUE(r.capped);
  EXPECT_EQ(r.toi, 0.0);
}

TEST(Ccd, RandomQueriesNeverMissSampledContacts) {
  // a sampled contact (point within 1e-9 of the triangle at some sample time) must be a hit
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  int hits = 0;
  for (int q = 0; q < 2000; ++q) {
    Vec3d x0[4], x1[4];
    for (int i = 0; i < 4; ++i) {
      x0[i] = Vec3d(u(rng), u(rng), u(rng));
      x1[i] = x0[i] + Vec3d(u(rng), u(rng), u(rng)) * 0.5;
    }
    // force a contact at t = 0.37 for half the queries: put p on the triangle then
    if (q % 2 == 0) {
      double t = 0.37, a = 0.2, b = 0.3;
      Vec3d at = lerp(x0[1], x1[1], t), bt = lerp(x0[2], x1[2], t), ct = lerp(x0[3], x1[3], t);
      Vec3d on = at * (1 - a - b) + bt * a + ct * b;
      Vec3d shift = on - lerp(x0[0], x1[0], t);
      x0[0] += shift;
      x1[0] += shift;
    }
    CcdResult r = ccd_vertex_face(x0, x1);
    if (q % 2 == 0) {
      ASSERT_TRUE(r.hit) << "query " << q;
      ASSERT_LE(r.toi, 0.37 + 1e-9);
    }
    hits += r.hit;
  }
  EXPECT_LT(hits, 2000) << "random misses must not all be hits";
}

TEST(Ccd, BackendsAgreeWithHostCalls) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<CcdQuery> qs(3000);
  for (auto& q : qs)
    for (int i = 0; i < 4; ++i) {
      q.x0[i] = Vec3d(u(rng), u(rng), u(rng)) * 0.3;
      q.x1[i] = q.x0[i] + Vec3d(u(rng), u(rng), u(rng)) * 0.3;
    }
  for (const Context& ctx : test::backends()) {
    for (bool ee : {false, true}) {
      DeviceBuffer<CcdQuery> dq(ctx, qs);
      DeviceBuffer<CcdResult> dr(ctx, qs.size());
      ccd_batch(ctx, dq.data(), int(qs.size()), ee, CcdOptions{}, dr.data());
      auto h = dr.to_host();
      int hits = 0;
      for (size_t i = 0; i < qs.size(); ++i) {
        CcdResult c = ee ? ccd_edge_edge(qs[i].x0, qs[i].x1) : ccd_vertex_face(qs[i].x0, qs[i].x1);
        ASSERT_EQ(h[i].hit, c.hit) << i;
        ASSERT_EQ(h[i].toi, c.toi) << i;
        hits += c.hit;
      }
      EXPECT_GT(hits, 10);
    }
  }
}

std::vector<std::string> benchmark_files() {
  std::vector<std::string> out;
  std::string root = test::shared_path("data/ccd");
  for (const char* scene : {"unit-tests", "erleben-cube-cliff-edges", "erleben-spikes", "erleben-sliding-spike",
                            "erleben-spike-crack", "erleben-spike-hole"})
    for (const char* kind : {"vertex-face", "edge-edge"}) {
      std::string dir = root + "/" + scene + "/" + kind;
      DIR* d = opendir(dir.c_str());
      if (!d) continue;
      while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 4 && n.substr(n.size() - 4) == ".csv") out.push_back(dir + "/" + n);
      }
      closedir(d);
    }
  return out;
}

TEST(Ccd, SharedBenchmarkHasNoFalseNegatives) {
  CB_REQUIRE_SHARED("data/ccd");
  auto files = benchmark_files();
  ASSERT_EQ(files.size(), 22u);
  CcdBenchStats total;
  for (const auto& f : files) {
    CcdBenchFile file = read_ccd_file(f);
    CcdBenchStats s = run_ccd_file(file, CcdOptions{});
    EXPECT_EQ(s.false_negatives, 0u) << f;
    total.add(s);
  }
  EXPECT_EQ(total.queries, 4779u);
  EXPECT_EQ(total.collisions, 277u);
  EXPECT_LT(double(total.false_positives), 0.06 * double(total.queries - total.collisions));
}

TEST(Ccd, CliReportsEveryFileWithoutFalseNegatives) {
  CB_REQUIRE_SHARED("data/ccd");
  std::string cmd = std::string(CLOTHBOX_CLI) + " ccd";
  for (const auto& f : benchmark_files()) cmd += " '" + f + "'";
  std::string out;
  int rc = test::run_command(cmd, &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("total                                                   4779    277    0"), std::string::npos)
      << out;
}

TEST(Ccd, ReaderRejectsBrokenFiles) {
  std::string path = ::testing::TempDir() + "/broken_ccd.csv";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fprintf(f, "1,3,0,1,0,1,0\n");  // 1/3 is not a double
  std::fclose(f);
  EXPECT_THROW(read_ccd_file(path), Error);
  f = std::fopen(path.c_str(), "w");
  std::fprintf(f, "1,2,0,1,0,1,0\n");  // one row, not 8
  std::fclose(f);
  EXPECT_THROW(read_ccd_file(path), Error);
  EXPECT_THROW(read_ccd_file(path + ".missing"), Error);
}

}  // namespace
}  // namespace cb
