// The thesis's sweep (Zheng 2021, Table 5): quad sheets of 30x60 ... 240x480
// vertices (1 m x 2 m) dropped onto a sphere, timed per frame (1/60 s, 4
// sub-steps) without self-collision and with the hash grid and the dense grid,
// and the all-pairs marble baseline (Wojciechowski & Galaj 2016) for one frame.
// Counters: frame_ms = wall ms of one frame (World::step, 4 sub-steps),
// substep_ms = frame_ms / 4, frame_cpu_ms = process CPU ms (all threads) per
// frame, per-sub-step stage times (integrate, obstacles, detection = grid build +
// contact lists, self-collision = detection + response, finish), the last frame's
// time outside every named stage (unstaged_ms), grid bytes per vertex, contacts. BM_VerletAllPairs runs frames of ONE sub-step.
//
//   build-verlet/tests/bench/verlet_bench --benchmark_filter=... [--benchmark_counters_tabular=true]
//   CLOTHBOX_BENCH_BACKEND=cuda selects the CUDA backend.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

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

// The world's exact triangle-triangle check after each frame is not part of the
// solver and costs more than a frame here: off.
void no_intersection_check(World& w) {
  SimSettings s = w.settings();
  s.check_intersections = false;
  w.set_settings(s);
}

double stage_ms(const FrameStats& s, const std::string& name) {
  for (const auto& st : s.stages)
    if (st.first == name) return st.second;
  return 0;
}

// Process CPU time (user + system, all threads), ms.
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ms = [](const timeval& t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) * 1e-3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

// Times one frame (World::step: all its sub-steps): wall ms and process CPU ms.
struct FrameTimes {
  double wall = 0, cpu = 0;
  int frames = 0;
  void step(World& w) {
    const double c0 = cpu_ms();
    w.step();
    cpu += cpu_ms() - c0;
    wall += w.stats().step_ms;
    frames++;
  }
};

void report(benchmark::State& state, const World& w, const FrameTimes& t, int substeps) {
  const FrameStats& s = w.stats();
  const double detect = stage_ms(s, "verlet sphere grid"), respond = stage_ms(s, "verlet sphere response");
  state.counters["verts"] = double(w.model().num_vertices());
  state.counters["frame_ms"] = t.wall / t.frames;
  state.counters["substep_ms"] = t.wall / t.frames / substeps;
  state.counters["frame_cpu_ms"] = t.cpu / t.frames;
  state.counters["integrate_ms_per_substep"] = stage_ms(s, "verlet integrate") / substeps;
  state.counters["finish_ms_per_substep"] = stage_ms(s, "verlet finish") / substeps;
  state.counters["detect_ms_per_substep"] = detect / substeps;
  state.counters["selfcoll_ms_per_substep"] = (detect + respond) / substeps;
  state.counters["obstacles_ms_per_substep"] = stage_ms(s, "verlet obstacles") / substeps;
  // what the named stages do not cover (the last frame: stats reductions, copies)
  double staged = 0;
  for (const auto& st : s.stages) staged += st.second;
  state.counters["unstaged_ms"] = s.step_ms - staged;
  state.counters["grid_bytes_per_vertex"] = s.get("grid bytes per vertex");
  state.counters["contacts"] = s.get("spheres in contact");
  state.counters["centres_lost"] = s.get("centres lost");
}

// The timed frames of a benchmark (one World::step each, manual time) and
// their counters.
void time_frames(benchmark::State& state, World& w, int substeps) {
  FrameTimes t;
  for (auto _ : state) {
    t.step(w);
    state.SetIterationTime(w.stats().step_ms * 1e-3);
  }
  report(state, w, t, substeps);
}

// args: nx, store (-1 = no self-collision, 0 hash, 1 dense)
void BM_VerletFrame(benchmark::State& state) {
  const int nx = int(state.range(0)), store = int(state.range(1));
  SceneSpec scene = sweep_scene(nx);
  scene.self_collision = store >= 0;
  World w(bench_context(), scene);
  no_intersection_check(w);
  if (store >= 0) w.set_solver_param("store", store == 0 ? "hash" : "dense");
  for (int f = 0; f < kWarmup; ++f) w.step();
  time_frames(state, w, scene.substeps);
}

// A frame with self-collision (hash store) at the strain limit's reach
// (strain_reach: 0 = springs only) and with or without the hoops (the sheet's
// edge is one), to price the long constraints and the hoops in one run.
void BM_VerletFrameReach(benchmark::State& state) {
  const SceneSpec scene = sweep_scene(int(state.range(0)));
  World w(bench_context(), scene);
  no_intersection_check(w);
  w.set_solver_param("strain_reach", std::to_string(state.range(1)));
  w.set_solver_param("hoops", state.range(2) ? "true" : "false");
  for (int f = 0; f < kWarmup; ++f) w.step();
  time_frames(state, w, scene.substeps);
  state.counters["max strain"] = w.stats().max_strain;
}

// The sweep scene warmed up (the sheet reaches the sphere) with the given store,
// then set to one sub-step per frame, so that a frame's detection stage is one
// sub-step's detection.
std::unique_ptr<World> warmed_one_substep_world(int nx, const char* store) {
  auto w = std::make_unique<World>(bench_context(), sweep_scene(nx));
  no_intersection_check(*w);
  w->set_solver_param("store", store);
  for (int f = 0; f < kWarmup; ++f) w->step();
  w->set_solver_param("substeps", "1");
  return w;
}

// Steps one frame; returns its detection time (grid build + contact lists), ms.
double step_detect_ms(World& w) {
  w.step();
  return stage_ms(w.stats(), "verlet sphere grid");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The all-pairs baseline: warm up with the hash grid, then frames of one
// sub-step: five with the hash grid (median detection time) and one with
// all-pairs, in the same run.
void BM_VerletAllPairs(benchmark::State& state) {
  std::unique_ptr<World> w = warmed_one_substep_world(int(state.range(0)), "hash");
  // hash detection: median of 5 frames (one frame can land on a load spike)
  std::vector<double> hash_ms;
  for (int f = 0; f < 5; ++f) hash_ms.push_back(step_detect_ms(*w));
  const double hash_detect = median(hash_ms);
  w->set_solver_param("store", "all-pairs");
  time_frames(state, *w, 1);
  state.counters["hash_detect_ms_same_run"] = hash_detect;
  state.counters["speedup_hash_vs_all_pairs"] = stage_ms(w->stats(), "verlet sphere grid") / hash_detect;
}

// Detection alone (grid build + contact lists, stage "verlet sphere grid"),
// frames of one sub-step after the warm-up; args: nx, store (0 hash, 1 dense).
// The time is the median over the iterations' detection stages.
void BM_VerletDetect(benchmark::State& state) {
  std::unique_ptr<World> w = warmed_one_substep_world(int(state.range(0)), state.range(1) == 0 ? "hash" : "dense");
  std::vector<double> ms;
  for (auto _ : state) {
    ms.push_back(step_detect_ms(*w));
    state.SetIterationTime(ms.back() * 1e-3);
  }
  state.counters["detect_ms_median"] = median(ms);
  state.counters["detect_ms_min"] = *std::min_element(ms.begin(), ms.end());
  state.counters["contacts"] = w->stats().get("spheres in contact");
}

void sweep_args(benchmark::internal::Benchmark* b) {
  for (int nx : kSweep)
    for (int store : {-1, 0, 1}) b->Args({nx, store});
}

BENCHMARK(BM_VerletFrame)->Apply(sweep_args)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
// The H100 target's size, 708 x 1416 = 1,002,528 vertices (run it with
// CLOTHBOX_BENCH_BACKEND=cuda; the dense grid over this box is not run).
constexpr int kGpuNx = 708;
// The long strain constraints' and the hoops' price in one run, here and at the GPU size.
BENCHMARK(BM_VerletFrameReach)
    ->Args({240, 0, 0})
    ->Args({240, 8, 0})
    ->Args({240, 8, 1})
    ->Args({kGpuNx, 0, 0})
    ->Args({kGpuNx, 8, 0})
    ->Args({kGpuNx, 8, 1})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VerletFrame)
    ->Args({kGpuNx, -1})
    ->Args({kGpuNx, 0})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VerletDetect)
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (int nx : kSweep) b->Args({nx, 0});
      b->Args({240, 1});
      b->Args({kGpuNx, 0});
    })
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
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
