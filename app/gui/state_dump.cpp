#include "app/gui/state_dump.h"

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "render/renderer.h"

namespace cb::gui {

using nlohmann::json;

namespace {
json vec(Vec3f v) { return json::array({v.x, v.y, v.z}); }
}  // namespace

void record_step(App& app) {
  HostState h = app.world->host_state();
  StepRecord r;
  r.frame = app.frame;
  r.solver = app.world->solver_name();
  r.step_ms = app.world->stats().step_ms;
  for (size_t i = 0; i < h.x.size(); ++i) {
    if (!is_finite(h.x[i]) || !is_finite(h.v[i])) r.has_nan = true;
    double d = length(h.x[i] - h.x_prev[i]);
    if (std::isfinite(d) && d > r.max_displacement) r.max_displacement = d;
  }
  app.steps.push_back(r);
}

std::string write_state_dump(const App& app, const std::string& path) {
  const World& w = *app.world;
  json j;
  j["frame"] = app.frame;
  j["sim_frame"] = w.frame();
  j["time"] = w.time();
  j["solver"] = w.solver_name();
  j["backend"] = backend_name(w.context().backend);
  j["scene"] = app.scene_path;
  json params = json::object();
  if (w.solver()) {
    ParamTable t = w.solver()->params();
    for (const ParamInfo& p : t.entries()) params[p.name] = t.text(p.name);
  }
  j["solver_params"] = std::move(params);
  HostState h = w.host_state();
  json pos = json::array(), vel = json::array();
  bool nan = false;
  for (size_t i = 0; i < h.x.size(); ++i) {
    nan |= !is_finite(h.x[i]) || !is_finite(h.v[i]);
    pos.push_back(vec(h.x[i]));
    vel.push_back(vec(h.v[i]));
  }
  j["positions"] = std::move(pos);
  j["velocities"] = std::move(vel);
  j["has_nan"] = nan;
  j["pinned"] = w.pinned_vertices();
  const Grab& g = w.grab();
  j["grab"] = {{"active", g.active},
               {"verts", {g.verts.a, g.verts.b, g.verts.c}},
               {"bary", vec(g.bary)},
               {"target", vec(g.target)},
               {"point", vec(render::grab_point(w))}};
  json stats = {{"min_strain", w.stats().min_strain}, {"max_strain", w.stats().max_strain}};
  for (const auto& c : w.stats().counters) stats[c.first] = c.second;
  j["stats"] = std::move(stats);  // the last frame's (intersecting pairs, kinetic energy, ...)
  j["warnings"] = w.warnings();    // the scene's, as listed under its title
  j["message"] = app.message;      // the last notice or refusal, as shown in the window
  json steps = json::array();
  for (const StepRecord& r : app.steps)
    steps.push_back({{"frame", r.frame}, {"solver", r.solver}, {"max_displacement", r.max_displacement},
                     {"has_nan", r.has_nan}, {"step_ms", r.step_ms}});
  j["steps"] = std::move(steps);
  std::ofstream f(path);
  if (!f) return "cannot write " + path;
  f << j.dump() << "\n";
  return f ? "" : "cannot write " + path;
}

}  // namespace cb::gui
