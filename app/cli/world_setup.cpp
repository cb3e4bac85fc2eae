#include "app/cli/world_setup.h"

#include <cstdio>

#include "sim/core/error.h"

namespace cb::cli {

SceneSpec load_scene_or_obj(const std::string& path) {
  bool obj = path.size() > 4 && path.compare(path.size() - 4, 4, ".obj") == 0;
  return obj ? scene_from_obj(path) : load_scene(path);
}

void apply_params(World& w, const std::string& list, const std::string& option) {
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    std::string kv = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? list.size() : comma + 1;
    size_t eq = kv.find('=');
    if (eq == std::string::npos) throw Error(option + " expects name=value pairs, got '" + kv + "'");
    std::string err = w.set_solver_param(kv.substr(0, eq), kv.substr(eq + 1));
    if (!err.empty()) throw Error(option + ": " + err);
  }
}

std::unique_ptr<World> make_world(const Args& args) {
  if (!args.has("scene")) throw Error("--scene FILE is required");
  std::string note;
  Context ctx = make_context(parse_backend(args.get("backend", "auto")), &note);
  if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
  SceneSpec scene = load_scene_or_obj(args.get("scene"));
  if (args.has("solver")) {
    use_solver(scene, args.get("solver"));  // the scene's parameters for that solver, if it gives any
  }
  auto world = std::make_unique<World>(ctx, std::move(scene));
  for (const std::string& w : world->warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
  SimSettings s = world->settings();
  s.dt = float(args.get_double("dt", s.dt, 1e-6, 0.1));
  s.substeps = int(args.get_int("substeps", s.substeps, 1, 1000));
  std::string err = world->set_settings(s);
  if (!err.empty()) throw Error(err);
  if (args.has("params")) apply_params(*world, args.get("params"), "--params");
  return world;
}

}  // namespace cb::cli
