// The thesis's sweep (Zheng 2021, Table 5): quad sheets of 30x60 ... 240x480
// vertices (1 m x 2 m) dropped onto a sphere, timed per frame (1/60 s, 4
// sub-steps) without self-collision and with the hash grid and the dense grid,
// and the all-pairs marble baseline (Wojciechowski & Galaj 2016) for one frame.
// Counters: ms per frame, self-collision ms per sub-step (grid build + contact
// lists + response), detection ms per sub-step, grid bytes per vertex, contacts.
//
//   build-verlet/tests/bench/verlet_bench --benchmark_filter=... [--benchmark_counters_tabular=true]
//   CLOTHBOX_BENCH_BACKEND=cuda selects the CUDA backend.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "sim/model/grid.h"
#include "sim/world.h"

namespace cb {
namespace {

constexpr int kSweep[] = {30, 68, 110, 140, 176, 215, 240};  // nx; ny = 2 nx
constexpr int kWarmup = 20;  // frames before timing (the sheet reaches the sphere)

Context bench_context() {
  const char* b = std::getenv("CLOTHBOX_BENCH_BACKEND");
  return make_context(b ? parse_backend(b) : BackendRequest::Cpu);
}

SceneSpec sweep_scene(int nx) {
  SceneSpec s;
  s.path = "verlet-sweep-" + std::to_string(nx);
  ClothSpec c;
  c.name = "sheet";
  GridSpec g;
  g.nx = nx, g.ny = 2 * nx, g.width = 1.f, g.height = 2.f;
  c.mesh = make_grid(g);
  for (Vec3f& p : c.mesh.positions) p = Vec3f{p.x, 0.9f, -p.y};
  c.grid = {GridLayout::Quad, g.nx, g.ny, grid_spacing(g)};
  s.cloths.push_back(c);
  ObstacleSpec ball;
  ball.kind = ObstacleKind::Sphere;
  ball.radius = 0.3f;
  ball.pose.t = Vec3f{0, 0.5f, 0};
  s.obstacles.push_back(ball);
  s.solver = "verlet";
  s.substeps = 4;
  return s;
}

double stage_ms(const FrameStats& s, const std::string& name) {
  for (const auto& st : s.stages)
    if (st.first == name) return st.second;
  return 0;
}

void report(benchmark::State& state, const World& w, double frame_ms_sum, int frames, int substeps) {
  const FrameStats& s = w.stats();
  const double detect = stage_ms(s, "verlet sphere grid"), respond = stage_ms(s, "verlet sphere response");
  state.counters["verts"] = double(w.model().num_vertices());
  state.counters["frame_ms"] = frame_ms_sum / frames;
  state.counters["detect_ms_per_substep"] = detect / substeps;
  state.counters["selfcoll_ms_per_substep"] = (detect + respond) / substeps;
  state.counters["grid_bytes_per_vertex"] = s.get("grid bytes per vertex");
  state.counters["contacts"] = s.get("spheres in contact");
  state.counters["centres_lost"] = s.get("centres lost");
}

// args: nx, store (-1 = no self-collision, 0 hash, 1 dense)
void BM_VerletFrame(benchmark::State& state) {
  const int nx = int(state.range(0)), store = int(state.range(1));
  SceneSpec scene = sweep_scene(nx);
  scene.self_collision = store >= 0;
  World w(bench_context(), scene);
  if (store >= 0) w.set_solver_param("store", store == 0 ? "hash" : "dense");
  for (int f = 0; f < kWarmup; ++f) w.step();
  double sum = 0;
  int frames = 0;
  for (auto _ : state) {
    w.step();
    sum += w.stats().step_ms;
    frames++;
    state.SetIterationTime(w.stats().step_ms * 1e-3);
  }
  report(state, w, sum, frames, scene.substeps);
}

// The all-pairs baseline: warm up with the hash grid, then one frame of one
// sub-step with the hash grid and one with all-pairs, in the same run.
void BM_VerletAllPairs(benchmark::State& state) {
  const int nx = int(state.range(0));
  SceneSpec scene = sweep_scene(nx);
  World w(bench_context(), scene);
  for (int f = 0; f < kWarmup; ++f) w.step();
  w.set_solver_param("substeps", "1");
  w.step();
  const double hash_detect = stage_ms(w.stats(), "verlet sphere grid");
  w.set_solver_param("store", "all-pairs");
  double sum = 0;
  int frames = 0;
  for (auto _ : state) {
    w.step();
    sum += w.stats().step_ms;
    frames++;
    state.SetIterationTime(w.stats().step_ms * 1e-3);
  }
  report(state, w, sum, frames, 1);
  state.counters["hash_detect_ms_same_run"] = hash_detect;
  state.counters["speedup_hash_vs_all_pairs"] = stage_ms(w.stats(), "verlet sphere grid") / hash_detect;
}

void sweep_args(benchmark::internal::Benchmark* b) {
  for (int nx : kSweep)
    for (int store : {-1, 0, 1}) b->Args({nx, store});
}

BENCHMARK(BM_VerletFrame)->Apply(sweep_args)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VerletAllPairs)
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (int nx : kSweep) b->Arg(nx);
    })
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cb

BENCHMARK_MAIN();
