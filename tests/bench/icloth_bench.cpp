// I-Cloth benchmarks (CPU unless a GPU answers): one frame of the small scenes and
// of a pinned sheet at growing sizes without self-collision (forces + PCG only).
// Per-stage times (ms per frame, averaged) are reported as counters.
//   build-*/tests/bench/icloth_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "sim/model/grid.h"
#include "sim/world.h"

namespace {

using namespace cb;

Context bench_context() { return make_context(BackendRequest::Auto); }

// runs `warmup` frames, then measures frames; stage times become counters
void run_frames(benchmark::State& state, World& w, int warmup) {
  for (int i = 0; i < warmup; ++i) w.step();
  std::map<std::string, double> stages;
  double cg = 0, impacts = 0, frames = 0;
  for (auto _ : state) {
    w.step();
    for (const auto& s : w.stats().stages) stages[s.first] += s.second;
    cg += w.stats().get("cg iterations");
    impacts += w.stats().get("impacts");
    frames += 1;
  }
  for (const auto& s : stages) state.counters[s.first + " ms"] = s.second / frames;
  state.counters["cg it"] = cg / frames;
  state.counters["impacts"] = impacts / frames;
  state.counters["tris"] = double(w.model().num_tris());
}

void scene_bench(benchmark::State& state, const char* file) {
  World w(bench_context(), load_scene(std::string(CLOTHBOX_SOURCE_DIR) + "/scenes/" + file));
  run_frames(state, w, 20);
}

void BM_IClothSphere(benchmark::State& s) { scene_bench(s, "icloth_sphere.json"); }
void BM_IClothTwisting(benchmark::State& s) { scene_bench(s, "icloth_twisting.json"); }
void BM_IClothScarf(benchmark::State& s) { scene_bench(s, "icloth_scarf.json"); }
void BM_IClothFunnel(benchmark::State& s) { scene_bench(s, "icloth_funnel.json"); }

// an n x n sheet pinned at two corners, one implicit step per frame, no collisions
void BM_IClothPinnedSheet(benchmark::State& state) {
  const int n = int(state.range(0));
  SceneSpec s;
  ClothSpec c;
  GridSpec g;
  g.nx = g.ny = n;
  c.mesh = make_grid(g);
  c.pinned = {uint32_t(n * (n - 1)), uint32_t(n * n - 1)};
  s.cloths.push_back(c);
  s.solver = "icloth";
  s.solver_params["self_collision"] = "false";
  s.solver_params["count_intersections"] = "false";
  s.substeps = 1;
  World w(bench_context(), s);
  run_frames(state, w, 5);
}

BENCHMARK(BM_IClothSphere)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothTwisting)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothScarf)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothFunnel)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothPinnedSheet)->Arg(32)->Arg(64)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
