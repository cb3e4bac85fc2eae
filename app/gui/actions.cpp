#include "app/gui/actions.h"

#include <algorithm>

#include "app/cli/world_setup.h"
#include "app/gui/input.h"
#include "app/gui/state_dump.h"

namespace cb::gui {

using nlohmann::json;

std::string load_world(App& app, const std::string& path, const std::string& solver) {
  std::unique_ptr<World> w;
  try {
    SceneSpec scene = cli::load_scene_or_obj(path);
    if (!solver.empty()) {
      use_solver(scene, solver);  // the scene's parameters for that solver, if it gives any
    }
    w = std::make_unique<World>(app.ctx, std::move(scene));
  } catch (const std::exception& e) {
    return e.what();
  }
  if (app.world && app.input.mode == DragMode::Grab) app.world->grab_end();
  app.world = std::move(w);
  app.scene_path = path;
  app.renderer->set_world(*app.world);
  const CameraSpec& c = app.world->scene().camera;
  app.camera.look_at({c.eye.x, c.eye.y, c.eye.z}, {c.target.x, c.target.y, c.target.z}, c.fov_deg);
  app.input.mode = DragMode::None;
  app.history.clear();
  const size_t nw = app.world->warnings().size();  // listed under the scene's title (panels_sim.cpp)
  app.notify("loaded " + path + (nw == 0 ? "" : nw == 1 ? " (1 warning, under the title)"
                                                        : " (" + std::to_string(nw) + " warnings, under the title)"),
             false);
  return "";
}

namespace {

// A solver switched in over a cloth that already crosses itself or an obstacle
// (the last frame's check): say so, and show where. No solver here promises to
// remove crossings it is handed (docs/icloth.md, Open defects: tangled hand-overs), and
// I-Cloth's promise of no new ones holds only from a clean state.
void note_crossings_taken_over(App& app, const std::string& solver) {
  const World& w = *app.world;
  const double crossed = w.stats().get("intersecting pairs");
  if (w.time() <= 0 || crossed <= 0) return;
  app.view.intersections = true;
  // a solver with a takeover untangle (icloth: contour_untangle.h) says so through its parameter
  const ParamTable params = w.solver()->params();
  const ParamInfo* untangle = params.find("untangle_iterations");
  const std::string what =
      untangle && untangle->value > 0
          ? " triangle pairs (magenta). It first moves the cloth to shorten the intersection curves until "
            "nothing crosses (untangle_iterations); pairs it cannot free may last many frames, and such frames "
            "run slower."
          : " triangle pairs (magenta). Crossings handed over may last many frames or grow, and such frames "
            "run slower: this solver does not promise to remove them.";
  app.notify(solver + " takes over a cloth that already crosses itself or an obstacle in " +
                 std::to_string(long(crossed)) + what,
             false);
  app.crossing_notice = app.message;
  app.crossing_pairs = long(crossed);
}

std::string set_settings(App& app, const json& a, const std::string& type) {
  SimSettings s = app.world->settings();
  if (type == "set_dt") s.dt = a.at("value").get<float>();
  if (type == "set_substeps") s.substeps = a.at("value").get<int>();
  if (type == "self_collision") s.self_collision = a.at("on").get<bool>();
  return app.world->set_settings(s);
}

std::string set_param(App& app, const json& a) {
  std::string value = a.at("value").is_string() ? a.at("value").get<std::string>() : a.at("value").dump();
  std::string err = app.world->set_solver_param(a.at("name").get<std::string>(), value);
  app.solver_message = err;
  return err;
}

// actions that only change the view or the interaction mode
bool view_action(App& app, const json& a, const std::string& type) {
  if (type == "pin_mode") app.input.pin_mode = a.at("on").get<bool>();
  else if (type == "brush_radius") app.input.brush_radius = a.at("value").get<float>();
  else if (type == "surface") app.view.surface = render::SurfaceMode(std::clamp(a.at("mode").get<int>(), 0, 2));
  else if (type == "texture") app.view.texture = a.at("on").get<bool>();
  else if (type == "overlays") app.view.debug_overlays = a.at("on").get<bool>();
  else if (type == "intersections") app.view.intersections = a.at("on").get<bool>();
  else if (type == "frame_all") frame_all(app);
  else if (type == "screenshot") app.screenshot_pending = a.at("path").get<std::string>();
  else return false;
  return true;
}

std::string dispatch(App& app, const json& a, const std::string& type) {
  if (view_action(app, a, type)) return "";
  if (type == "load_scene") return load_world(app, a.at("path").get<std::string>());
  if (type == "reload") return load_world(app, app.scene_path, app.world->solver_name());
  if (type == "play") app.playing = a.at("on").get<bool>();
  else if (type == "step") app.step_once = true;
  else if (type == "reset") {
    app.world->reset();
    app.crossing_notice.clear();
    app.input.mode = DragMode::None;
    app.history.clear();
  }
  else if (type == "set_dt" || type == "set_substeps" || type == "self_collision") return set_settings(app, a, type);
  else if (type == "set_solver") {
    const std::string name = a.at("name").get<std::string>();
    std::string err = app.world->set_solver(name);
    app.solver_message = err;
    app.crossing_notice.clear();
    if (err.empty()) note_crossings_taken_over(app, name);
    return err;
  } else if (type == "set_param") return set_param(app, a);
  else if (type == "clear_pins") app.world->clear_pins();
  else if (type == "dump_state") return write_state_dump(app, a.at("path").get<std::string>());
  else return "unknown action '" + type + "'";
  return "";
}

}  // namespace

std::string apply_action(App& app, const json& a) {
  if (!app.world) return "no scene loaded";
  const std::string type = a.value("type", std::string());
  try {
    return dispatch(app, a, type);
  } catch (const json::exception& e) {
    return "action '" + type + "': bad or missing field (" + e.what() + ")";
  }
}

}  // namespace cb::gui
