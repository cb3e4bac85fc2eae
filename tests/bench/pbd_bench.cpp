// Benchmarks of the pbd solver (issue 5), CPU backend unless CLOTHBOX_BENCH_BACKEND=cuda.
//  BM_PbdStep/<n>/<iterations>: one step = one substep of `iterations` coloured
//    Gauss-Seidel iterations on an n x n hanging sheet (the seed paper's 2/20/100
//    iterations per step); items_per_second = steps per second.
//  BM_PbdResidual/<mode>/<iterations>: RMS constraint residual |C + alpha~ lambda|
//    after one frame (1 substep of N iterations) of a 64 x 64 sheet that was
//    settled first; mode 0 = coloured Gauss-Seidel, 1 = Jacobi. Compare the
//    counter `residual` at equal time (real_time) between the modes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "sim/model/grid.h"
#include "unit/solvers/pbd/pbd_scenes.h"
#include "sim/solvers/pbd/solver.h"
#include "sim/world.h"

namespace cb {
namespace {

Context bench_context() {
  const char* b = std::getenv("CLOTHBOX_BENCH_BACKEND");
  return make_context(b && std::string(b) == "cuda" ? BackendRequest::Cuda : BackendRequest::Cpu);
}

std::unique_ptr<World> hanging_sheet(const Context& ctx, int n) {
  return test::pbd_world(ctx, test::pbd_hanging_sheet(n));
}

void BM_PbdStep(benchmark::State& state) {
  const int n = int(state.range(0)), iters = int(state.range(1));
  auto w = hanging_sheet(bench_context(), n);
  w->set_solver_param("substeps", "1");
  w->set_solver_param("iterations", std::to_string(iters));
  w->step();  // warm up (allocations)
  for (auto _ : state) w->step();
  state.SetItemsProcessed(state.iterations());
  state.counters["vertices"] = double(n) * n;
}
BENCHMARK(BM_PbdStep)
    ->ArgsProduct({{64, 256}, {2, 20, 100}})
    ->Args({1024, 2})
    ->Args({1024, 20})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_PbdResidual(benchmark::State& state) {
  const int mode = int(state.range(0)), iters = int(state.range(1));
  auto w = hanging_sheet(bench_context(), 64);
  w->set_solver_param("mode", mode ? "jacobi" : "gauss-seidel");
  w->set_solver_param("stretch_compliance", "1e-3");  // a sheet that visibly stretches: residual is not ~0
  for (int f = 0; f < 30; ++f) w->step();           // settle with the defaults
  w->set_solver_param("substeps", "1");
  w->set_solver_param("iterations", std::to_string(iters));
  w->set_solver_param("measure_residual", "true");
  double res = 0;
  for (auto _ : state) {
    w->step();
    res = dynamic_cast<const PbdSolver&>(*w->solver()).last_residual();
  }
  state.counters["residual"] = res;
  state.counters["iterations"] = iters;
}
BENCHMARK(BM_PbdResidual)
    ->ArgsProduct({{0, 1}, {5, 10, 20, 50, 100}})
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace cb

BENCHMARK_MAIN();
