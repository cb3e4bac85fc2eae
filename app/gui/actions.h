// UI actions: everything the panels and keys change, as JSON objects, so that a
// session can be recorded and replayed. Types and fields:
//   play {on}, step, reset, set_dt {value s}, set_substeps {value}, self_collision {on},
//   set_solver {name}, set_param {name, value (text)}, clear_pins, pin_mode {on},
//   brush_radius {value px}, load_scene {path}, reload, surface {mode 0..2},
//   texture {on}, overlays {on}, frame_all, dump_state {path}, screenshot {path}
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/app.h"

namespace cb::gui {

/// Applies one action; returns "" or why it was refused (the app shows it).
/// Does not record: the frame loop records every event it applies.
std::string apply_action(App& app, const nlohmann::json& action);

/// Builds a World for `path` (scene JSON or bare OBJ) with the app's backend and
/// installs it (renderer, camera, history). `solver` overrides the scene's when
/// not empty. Returns "" or why not (the old world stays).
std::string load_world(App& app, const std::string& path, const std::string& solver = "");

}  // namespace cb::gui
