// clothbox-cli bench: time per frame of a scene (after warm-up), or the time to
// load a scene (keyframe sequences).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/world_setup.h"

namespace cb::cli {
namespace {

int bench_load(const Args& args) {
  const int repeats = int(args.get_int("repeats", 3, 1, 100));
  std::vector<double> ms;
  size_t frames = 0;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    SceneSpec s = load_scene_or_obj(args.get("scene"));
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    frames = 0;
    for (const ObstacleSpec& o : s.obstacles) frames += o.motion.frames.size();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("load %s: %zu keyframes, median %.1f ms, min %.1f ms over %d runs\n", args.get("scene").c_str(), frames,
              ms[ms.size() / 2], ms[0], repeats);
  return 0;
}

}  // namespace

int cmd_bench(int argc, char** argv) {
  Args args(argc, argv, 0);
  if (!args.positional().empty() && args.positional()[0] == "keyframes") {
    args.allow_only({"scene", "repeats"});
    return bench_load(args);
  }
  args.allow_only({"scene", "solver", "backend", "frames", "warmup", "params", "dt", "substeps"});
  auto world = make_world(args);
  const int warmup = int(args.get_int("warmup", 5, 0, 100000));
  const int frames = int(args.get_int("frames", 50, 1, 1000000));
  for (int i = 0; i < warmup; ++i) world->step();
  std::vector<double> ms;
  for (int i = 0; i < frames; ++i) {
    world->step();
    ms.push_back(world->stats().step_ms);
  }
  std::sort(ms.begin(), ms.end());
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= double(ms.size());
  std::printf("bench %s solver=%s backend=%s verts=%zu: mean %.3f ms, median %.3f ms, min %.3f ms (%d frames)\n",
              world->scene().path.c_str(), world->solver_name().c_str(), backend_name(world->context().backend),
              world->model().num_vertices(), mean, ms[ms.size() / 2], ms[0], frames);
  for (const auto& st : world->stats().stages) std::printf("  stage %-20s %.3f ms (last frame)\n", st.first.c_str(), st.second);
  return world->stats().has_nan ? 1 : 0;
}

}  // namespace cb::cli
