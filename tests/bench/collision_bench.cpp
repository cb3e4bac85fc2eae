// Collision core benchmarks (backend: CUDA where a device answers, else CPU):
// CCD candidate broad phase and the penetration counter on a ~200k-triangle
// crumpled sheet, LBVH build / refit on 1M triangles, obstacle proximity queries,
// and CCD narrow-phase time per query on the shared benchmark files.
// Run: build/tests/bench/collision_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>

#include "sim/collision/ccd_benchmark.h"
#include "sim/collision/ccd_candidates.h"
#include "sim/collision/lbvh.h"
#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/obstacle_sweep.h"
#include "sim/collision/penetration.h"
#include "sim/core/buffer.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"

namespace cb {
namespace {

Context bench_ctx() { return make_context(BackendRequest::Auto); }

// an nx x nx sheet (2 (nx-1)^2 triangles) folded into waves, and a small motion
struct Sheet {
  TriMesh mesh;
  std::vector<Vec3f> x1;
};

Sheet crumpled_sheet(int nx) {
  GridSpec s;
  s.nx = nx;
  s.ny = nx;
  Sheet out{make_grid(s), {}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  float h = 1.f / float(nx - 1);
  for (Vec3f& p : out.mesh.positions) p = Vec3f(p.x, p.y, 0.05f * std::sin(p.x * 40.f) * std::cos(p.y * 30.f));
  out.x1 = out.mesh.positions;
  for (Vec3f& p : out.x1) p += Vec3f(u(rng), u(rng), u(rng)) * (0.3f * h);
  return out;
}

void BM_CcdCandidates(benchmark::State& st) {
  Context ctx = bench_ctx();
  Sheet s = crumpled_sheet(int(st.range(0)));
  Topology topo = build_topology(s.mesh.positions.size(), s.mesh.tris);
  CcdTopology t;
  t.upload(ctx, s.mesh.positions.size(), s.mesh.tris, topo);
  DeviceBuffer<Vec3f> x0(ctx, s.mesh.positions), x1(ctx, s.x1);
  CcdCandidates c;
  for (auto _ : st) {
    find_ccd_candidates(ctx, x0.data(), x1.data(), t.view(), 1e-3f, 0.f, c);
    synchronize(ctx);
  }
  st.counters["tris"] = double(s.mesh.tris.size());
  st.counters["tri_pairs"] = double(c.tri_pairs.size());
  st.counters["vf"] = double(c.vf.size());
  st.counters["ee"] = double(c.ee.size());
  st.SetLabel(backend_name(ctx.backend));
}
BENCHMARK(BM_CcdCandidates)->Arg(101)->Arg(317)->Unit(benchmark::kMillisecond)->UseRealTime();

// Args: the sheet's nx; 0 crumpled, 1 flat in the plane z = 0 (a sheet hanging in
// its own plane, a flat start), 2 flat in a plane tilted about x. On the flat ones
// the orientation filter decides no coplanar pair (orient3d, predicates.h)
void BM_PenetrationCount(benchmark::State& st) {
  Context ctx = bench_ctx();
  Sheet s = crumpled_sheet(int(st.range(0)));
  if (st.range(1) != 0) {
    GridSpec g;
    g.nx = g.ny = int(st.range(0));
    s.mesh = make_grid(g);  // positions (x, y, 0)
    if (st.range(1) == 2)   // tilted by 30 degrees about x
      for (Vec3f& p : s.mesh.positions) p = Vec3f(p.x, 0.8660254f * p.y, 0.5f * p.y + 0.3f);
  }
  DeviceBuffer<Vec3f> x(ctx, s.mesh.positions);
  DeviceBuffer<Int3> t(ctx, s.mesh.tris);
  IntersectionCounts c;
  for (auto _ : st) c = count_intersections(ctx, TriSet{x.data(), t.data(), int(s.mesh.tris.size())}, TriSet{});
  st.counters["tris"] = double(s.mesh.tris.size());
  st.counters["tested"] = double(c.candidates);
  st.counters["found"] = double(c.total());
  st.SetLabel(backend_name(ctx.backend));
}
BENCHMARK(BM_PenetrationCount)->Args({317, 0})->Args({317, 1})->Args({317, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

std::vector<Aabb> soup_boxes(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  float size = 1.f / std::cbrt(float(n));
  std::vector<Aabb> b(static_cast<size_t>(n));
  for (auto& x : b) {
    Vec3f c(u(rng), u(rng), u(rng));
    x.lo = c - Vec3f(u(rng), u(rng), u(rng)) * size;
    x.hi = c + Vec3f(u(rng), u(rng), u(rng)) * size;
  }
  return b;
}

void BM_LbvhBuild(benchmark::State& st) {
  Context ctx = bench_ctx();
  auto boxes = soup_boxes(int(st.range(0)), 2);
  DeviceBuffer<Aabb> d(ctx, boxes);
  Lbvh bvh;
  for (auto _ : st) {
    bvh.build(ctx, d.data(), int(boxes.size()));
    synchronize(ctx);
  }
  st.SetLabel(backend_name(ctx.backend));
}
BENCHMARK(BM_LbvhBuild)->Arg(1000000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LbvhRefit(benchmark::State& st) {
  Context ctx = bench_ctx();
  auto boxes = soup_boxes(int(st.range(0)), 2);
  DeviceBuffer<Aabb> d(ctx, boxes);
  Lbvh bvh;
  bvh.build(ctx, d.data(), int(boxes.size()));
  for (auto _ : st) {
    bvh.refit(ctx, d.data());
    synchronize(ctx);
  }
  st.SetLabel(backend_name(ctx.backend));
}
BENCHMARK(BM_LbvhRefit)->Arg(1000000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The crumpled sheet (~200k triangles) as a still mesh obstacle on ctx.
ObstacleSet crumpled_obstacle(const Context& ctx) {
  Sheet s = crumpled_sheet(317);
  ObstacleSet o;
  o.mesh_x = o.mesh_x_prev = s.mesh.positions;
  o.mesh_tris = s.mesh.tris;
  o.mesh_version = 1;
  o.sync(ctx);
  return o;
}

void BM_ObstacleProximityQuery(benchmark::State& st) {
  Context ctx = bench_ctx();
  const ObstacleSet o = crumpled_obstacle(ctx);
  ObstacleProximity prox;
  prox.update(ctx, o, 0.01f);
  std::vector<Vec3f> pts(static_cast<size_t>(st.range(0)));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (auto& p : pts) p = Vec3f(u(rng) - 0.5f, u(rng) - 0.5f, 0.1f * (u(rng) - 0.5f));
  DeviceBuffer<Vec3f> dx(ctx, pts);
  DeviceBuffer<ObstacleContact> out(ctx, pts.size());
  for (auto _ : st) {
    prox.query(ctx, dx.data(), int(pts.size()), 0.02f, out.data());
    synchronize(ctx);
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * st.range(0));
  st.SetLabel(backend_name(ctx.backend));
}
BENCHMARK(BM_ObstacleProximityQuery)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The continuous query (obstacle_sweep.h) against the same ~200k-triangle
// obstacle as BM_ObstacleProximityQuery: every point moves 30 mm across the
// crumpled sheet's layer, farther than the 10 mm reach, so every one is swept
// (the worst case; a point moving less than the reach costs a length test).
void BM_ObstacleSweep(benchmark::State& st) {
  Context ctx = bench_ctx();
  const ObstacleSet o = crumpled_obstacle(ctx);
  ObstacleProximity prox;
  prox.update(ctx, o, 0.01f);
  std::vector<Vec3f> p0(static_cast<size_t>(st.range(0))), p1(p0.size());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (size_t i = 0; i < p0.size(); ++i) {
    p0[i] = Vec3f(u(rng) - 0.5f, u(rng) - 0.5f, 0.1f * (u(rng) - 0.5f));
    p1[i] = p0[i] + Vec3f(0, 0, -0.03f);
  }
  DeviceBuffer<Vec3f> d0(ctx, p0), d1(ctx, p1);
  DeviceBuffer<SweepHit> out(ctx, p0.size());
  for (auto _ : st) {
    sweep_points(ctx, prox.mesh_view(), d0.data(), d1.data(), int(p0.size()), 0.f, 1.f, 0.01f, 1.f, out.data());
    synchronize(ctx);
  }
  size_t hits = 0;
  for (const SweepHit& h : out.to_host()) hits += h.tri >= 0;
  st.counters["hits"] = double(hits);
  st.SetItemsProcessed(int64_t(st.iterations()) * st.range(0));
  st.SetLabel(backend_name(ctx.backend));
}
BENCHMARK(BM_ObstacleSweep)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

// CCD narrow phase, one thread, every query of one shared benchmark file per run
void BM_CcdSharedFile(benchmark::State& st, const std::string& rel) {
  std::string path = std::string(CLOTHBOX_SHARED_DIR) + "/data/ccd/" + rel;
  CcdBenchFile f;
  try {
    f = read_ccd_file(path);
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  CcdOptions opt;
  size_t hits = 0;
  for (auto _ : st) {
    hits = 0;
    for (const CcdQuery& q : f.queries)
      hits += (f.edge_edge ? ccd_edge_edge(q.x0, q.x1, opt) : ccd_vertex_face(q.x0, q.x1, opt)).hit;
  }
  st.counters["ns_per_query"] =
      benchmark::Counter(double(f.queries.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  st.counters["hits"] = double(hits);
}
BENCHMARK_CAPTURE(BM_CcdSharedFile, unit_vf, std::string("unit-tests/vertex-face/data_0_1.csv"));
BENCHMARK_CAPTURE(BM_CcdSharedFile, unit_ee, std::string("unit-tests/edge-edge/data_0_1.csv"));
BENCHMARK_CAPTURE(BM_CcdSharedFile, hole_vf, std::string("erleben-spike-hole/vertex-face/data_0_0.csv"));
BENCHMARK_CAPTURE(BM_CcdSharedFile, hole_ee, std::string("erleben-spike-hole/edge-edge/data_0_0.csv"));

}  // namespace
}  // namespace cb

BENCHMARK_MAIN();
