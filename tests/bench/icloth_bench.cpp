// I-Cloth benchmarks (CPU unless a GPU answers), per-stage times (ms per frame,
// averaged over the measured frames) and collision counters reported as counters:
//  - one frame of the small scenes (scenes/icloth_*.json);
//  - BM_IClothLarge*: the sphere, twisting, scarf and funnel scenes refined to
//    about 20,000 triangles (the grids of the JSON scenes at a finer resolution;
//    the dress is the garment mesh as it is: clothbox-cli run on its scene);
//  - BM_IClothGpu*: the same at ~200,000 triangles (the paper's GPU sizes);
//  - *Multigrid: the sphere and funnel with the multigrid-preconditioned PCG;
//  - BM_IClothGpuFunnelWholeBlocks: the 200k funnel with the system's blocks stored
//    whole instead of split by component (IClothParams::split_blocks);
//  - BM_IClothGpuFunnelFine/W: the 200k funnel with the fine-mesh settings after
//    W warm-up frames (5: free fall; 30: stacked);
//  - BM_IClothTimeStep/N: the sphere scene with one implicit step of 1/N s per
//    frame (N = 100, 50, 25; Tang et al. 2018, Fig. 11);
//  - BM_IClothCcdCounts/I: full (I = 0) against incremental (I = 1) CCD box-pair
//    counts on the funnel while the sheets land (Fig. 9);
//  - a pinned sheet at growing sizes without self-collision (forces + PCG only),
//    at 317 x 317 with the system's blocks split and whole (split_blocks).
//   OMP_WAIT_POLICY=passive build-*/tests/bench/icloth_bench [--benchmark_filter=...]
// CLOTHBOX_BENCH_PARAMS="name=value,..." sets solver parameters in every run
// (after the benchmark's own), e.g. product_lanes=2.
// With CLOTHBOX_PROFILE_MEASURED set, the CUDA profiler captures the measured
// frames only (for `ncu --profile-from-start off`; run_on_device.sh kernels).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "sim/model/grid.h"
#include "sim/world.h"

namespace {

using namespace cb;

Context bench_context() { return make_context(BackendRequest::Auto); }

// counters averaged per frame ("<name>") or maxed ("max <name>")
const char* const kMeanCounters[] = {"cg iterations", "proximity pairs", "repulsion pairs", "repulsion passes",
                                     "ccd rounds", "ccd pairs full", "ccd pairs incremental", "impacts", "zones",
                                     "zone iterations", "zone stalls", "rigid rounds", "newton iterations",
                                     "cg newton iterations", "pair friction bound", "pair friction beyond coulomb"};
const char* const kMaxCounters[] = {"fallbacks", "zone failures", "intersecting pairs", "ccd rounds"};

// Sets the solver parameters of CLOTHBOX_BENCH_PARAMS ("name=value,name=value",
// after the benchmark's own): one build's variants compared in one run
// (run_on_device.sh ab, AB_PARAMS). "" or why a parameter was refused.
std::string set_env_params(World& w) {
  const char* env = std::getenv("CLOTHBOX_BENCH_PARAMS");
  std::string list = env ? env : "";
  for (size_t start = 0; start < list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return "CLOTHBOX_BENCH_PARAMS: '" + item + "' is not name=value";
    const std::string err = w.set_solver_param(item.substr(0, eq), item.substr(eq + 1));
    if (!err.empty()) return "CLOTHBOX_BENCH_PARAMS: " + err;
    start = end + 1;
  }
  return "";
}

// runs `warmup` frames, then measures frames; stage times become counters
void run_frames(benchmark::State& state, World& w, int warmup) {
  const std::string err = set_env_params(w);
  if (!err.empty()) {
    state.SkipWithError(err.c_str());
    return;
  }
  for (int i = 0; i < warmup; ++i) w.step();
  std::map<std::string, double> stages, sums, maxes;
  double frames = 0, fallbacks = 0;
  const bool capture = std::getenv("CLOTHBOX_PROFILE_MEASURED") != nullptr;
  if (capture) profiler_capture(w.context(), true);
  for (auto _ : state) {
    w.step();
    const FrameStats& st = w.stats();
    for (const auto& s : st.stages) stages[s.first] += s.second;
    for (const char* c : kMeanCounters) sums[c] += st.get(c);
    for (const char* c : kMaxCounters) maxes[c] = std::max(maxes[c], st.get(c));
    fallbacks += st.get("fallbacks");
    maxes["strain"] = std::max(maxes["strain"], double(st.max_strain));
    frames += 1;
  }
  if (capture) profiler_capture(w.context(), false);
  for (const auto& s : stages) state.counters[s.first + " ms"] = s.second / frames;
  for (const auto& s : sums) state.counters[s.first] = s.second / frames;
  for (const auto& s : maxes) state.counters["max " + s.first] = s.second;
  state.counters["fallback frames"] = fallbacks;
  state.counters["tris"] = double(w.model().num_tris());
  // the paper's "time per step": one implicit step (the frame has `substeps`)
  const int substeps = std::max(1, w.settings().substeps);
  double frame_ms = 0;
  for (const auto& st : stages) frame_ms += st.second / frames;
  state.counters["ms per implicit step (stages)"] = frame_ms / substeps;
}

// the grid of cloth c at nx x ny vertices: bilinear in the old grid's corners
// (the JSON grids are flat), pins moved to the nearest new vertex
void refine_grid(ClothSpec& c, int nx, int ny) {
  const GridInfo g = c.grid;
  const auto& P = c.mesh.positions;
  const Vec3f p00 = P[0], p10 = P[size_t(g.nx - 1)], p01 = P[size_t(g.nx * (g.ny - 1))], p11 = P.back();
  GridSpec spec;
  spec.nx = nx;
  spec.ny = ny;
  TriMesh m = make_grid(spec);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const float u = float(i) / float(nx - 1), v = float(j) / float(ny - 1);
      m.positions[size_t(j * nx + i)] = (p00 * (1 - u) + p10 * u) * (1 - v) + (p01 * (1 - u) + p11 * u) * v;
    }
  std::vector<uint32_t> pins;
  for (uint32_t p : c.pinned) {
    const int i = int(p) % g.nx, j = int(p) / g.nx;
    const int I = int(std::lround(float(i) * float(nx - 1) / float(g.nx - 1)));
    const int J = int(std::lround(float(j) * float(ny - 1) / float(g.ny - 1)));
    pins.push_back(uint32_t(J * nx + I));
  }
  c.mesh = m;
  c.pinned = pins;
  c.grid.nx = nx;
  c.grid.ny = ny;
  c.grid.spacing *= float(g.nx - 1) / float(nx - 1);
  // a thickness above the new edge length would put every vertex in proximity
  // with its own 2-ring (the 200k-triangle funnel: 35 M repulsion pairs, 10 s a
  // frame): keep it at most half an edge
  c.material.thickness = std::min(c.material.thickness, 0.5f * c.grid.spacing);
}

SceneSpec scene_file(const char* file) { return load_scene(std::string(CLOTHBOX_SOURCE_DIR) + "/scenes/" + file); }

void scene_bench(benchmark::State& state, const char* file) {
  World w(bench_context(), scene_file(file));
  run_frames(state, w, 20);
}

// a scene with every cloth grid refined to n x n vertices; springs: the
// cloth-cloth springs' proximity_stiffness (10: the default; 0: the repulsion
// filter alone); multigrid: the PCG's multigrid preconditioner (multigrid.h)
// fine: the fine-mesh settings (stiffness product on differences, the PCG's
// coarse start; opt-in, RESULTS.md, twentieth session)
// split_blocks: IClothParams::split_blocks (the default: true)
void large_bench(benchmark::State& state, const char* file, int n, int warmup, int64_t springs = 10,
                 bool multigrid = false, bool fine = false, bool split_blocks = true) {
  SceneSpec s = scene_file(file);
  for (ClothSpec& c : s.cloths) refine_grid(c, n, n);
  s.solver_params["proximity_stiffness"] = std::to_string(springs);
  s.solver_params["multigrid"] = multigrid ? "true" : "false";
  s.solver_params["stiffness_on_differences"] = fine ? "true" : "false";
  s.solver_params["cg_coarse_start"] = fine ? "true" : "false";
  s.solver_params["split_blocks"] = split_blocks ? "true" : "false";
  World w(bench_context(), s);
  run_frames(state, w, warmup);
}

// ~20,000 triangles: 2 x 71^2 grids (19,600), 1 x 100^2 (19,602), 3 x 58^2 (19,494)
void BM_IClothLargeSphere(benchmark::State& s) { large_bench(s, "icloth_sphere.json", 71, 30); }
void BM_IClothLargeTwisting(benchmark::State& s) { large_bench(s, "icloth_twisting.json", 100, 40); }
void BM_IClothLargeFunnel(benchmark::State& s) { large_bench(s, "icloth_funnel.json", 58, 30, s.range(0)); }

// the scarf refined to 318 x 33 vertices (20,288 triangles, the strip's 11:1
// aspect), both short ends pinned along their whole edge as in the JSON (the
// refinement alone would keep only the old ends' 4 vertices each)
void BM_IClothLargeScarf(benchmark::State& state) {
  SceneSpec s = scene_file("icloth_scarf.json");
  ClothSpec& c = s.cloths.at(0);
  const int nx = 318, ny = 33;
  refine_grid(c, nx, ny);
  c.pinned.clear();
  for (int j = 0; j < ny; ++j) {
    c.pinned.push_back(uint32_t(j * nx));
    c.pinned.push_back(uint32_t(j * nx + nx - 1));
  }
  World w(bench_context(), s);
  run_frames(state, w, 30);
}

// (the funnels' argument: proximity_stiffness, 0 or 10)
// the paper's GPU sizes, ~200,000 triangles: 2 x 224^2 grids (198,916), 1 x 317^2
// (199,712), 3 x 183^2 (198,744); the warm-ups of the 20k versions, so that the
// measured frames are in contact (the funnel's sheets land at frames ~20-30;
// with 20 warm-up frames the first H100 measurement timed the free fall)
void BM_IClothGpuSphere(benchmark::State& s) { large_bench(s, "icloth_sphere.json", 224, 30); }
void BM_IClothGpuTwisting(benchmark::State& s) { large_bench(s, "icloth_twisting.json", 317, 40); }
void BM_IClothGpuFunnel(benchmark::State& s) { large_bench(s, "icloth_funnel.json", 183, 30, s.range(0)); }

// the same with the multigrid-preconditioned PCG
void BM_IClothLargeSphereMultigrid(benchmark::State& s) { large_bench(s, "icloth_sphere.json", 71, 30, 10, true); }
void BM_IClothLargeFunnelMultigrid(benchmark::State& s) { large_bench(s, "icloth_funnel.json", 58, 30, 10, true); }
void BM_IClothGpuSphereMultigrid(benchmark::State& s) { large_bench(s, "icloth_sphere.json", 224, 30, 10, true); }
void BM_IClothGpuFunnelMultigrid(benchmark::State& s) { large_bench(s, "icloth_funnel.json", 183, 30, 10, true); }

// the funnel with K and the Jacobi blocks stored as whole 36-byte blocks
// instead of split by component (IClothParams::split_blocks): the layout's
// effect in one run
void BM_IClothGpuFunnelWholeBlocks(benchmark::State& s) {
  large_bench(s, "icloth_funnel.json", 183, 30, s.range(0), false, false, false);
}

// the funnel with the fine-mesh settings, in free fall (Arg 5: frames 6-8) and
// stacked (Arg 30: frames 31-33)
void BM_IClothGpuFunnelFine(benchmark::State& s) {
  large_bench(s, "icloth_funnel.json", 183, int(s.range(0)), 10, false, true);
}
// and with the multigrid too: on the CPU at 58^2 the stacked sheets' first
// solves take 109 instead of 365 PCG iterations a frame with it (RESULTS.md,
// twenty-first session); its V-cycle's cost on the device is what this measures
void BM_IClothGpuFunnelFineMultigrid(benchmark::State& s) {
  large_bench(s, "icloth_funnel.json", 183, int(s.range(0)), 10, true, true);
}

// one implicit step of 1/N s per frame on the sphere scene (Fig. 11)
void BM_IClothTimeStep(benchmark::State& state) {
  SceneSpec s = scene_file("icloth_sphere.json");
  s.dt = 1.f / float(state.range(0));
  s.substeps = 1;
  World w(bench_context(), s);
  run_frames(state, w, int(state.range(0)) / 2);  // warm up for half a second
}

// full CCD in every round (0) against incremental rounds (1) on the funnel, the
// frames where the sheets land on the funnel and on each other
void BM_IClothCcdCounts(benchmark::State& state) {
  SceneSpec s = scene_file("icloth_funnel.json");
  s.solver_params["incremental_ccd"] = state.range(0) ? "true" : "false";
  World w(bench_context(), s);
  run_frames(state, w, 15);
}

void BM_IClothSphere(benchmark::State& s) { scene_bench(s, "icloth_sphere.json"); }
void BM_IClothTwisting(benchmark::State& s) { scene_bench(s, "icloth_twisting.json"); }
void BM_IClothScarf(benchmark::State& s) { scene_bench(s, "icloth_scarf.json"); }
void BM_IClothFunnel(benchmark::State& s) { scene_bench(s, "icloth_funnel.json"); }

// an n x n sheet pinned at two corners, one implicit step per frame, no
// collisions (forces and the PCG); the second argument: split_blocks (1, the
// default; 0: whole blocks). At n = 317 (200,704 triangles) the two layouts'
// PCG iterations compared in one run on a device
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
  s.solver_params["split_blocks"] = state.range(1) ? "true" : "false";
  s.substeps = 1;
  World w(bench_context(), s);
  run_frames(state, w, 5);
}

BENCHMARK(BM_IClothSphere)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothTwisting)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothScarf)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothFunnel)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothTimeStep)->Arg(100)->Arg(50)->Arg(25)->Unit(benchmark::kMillisecond)->Iterations(60);
BENCHMARK(BM_IClothCcdCounts)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_IClothLargeSphere)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothLargeTwisting)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothLargeScarf)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothLargeFunnel)->Arg(0)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothGpuFunnel)->Arg(0)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothLargeSphereMultigrid)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothLargeFunnelMultigrid)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_IClothGpuSphereMultigrid)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothGpuFunnelMultigrid)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothGpuFunnelWholeBlocks)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothGpuFunnelFine)->Arg(5)->Arg(30)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothGpuFunnelFineMultigrid)->Arg(5)->Arg(30)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothGpuSphere)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothGpuTwisting)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IClothPinnedSheet)
    ->Args({32, 1})
    ->Args({64, 1})
    ->Args({100, 1})
    ->Args({317, 1})
    ->Args({317, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
