// Mouse and keys in the 3D view (the same code for live input and replay):
//   right-drag orbit, middle-drag (or shift+right-drag) pan, wheel zoom, F frame all;
//   left-drag on the cloth grabs the surface point under the cursor; left-drag on a
//   pin marker moves the pin; ctrl+click (or click in pin mode) toggles the pin of the
//   nearest vertex; shift+drag paints pins with the brush, ctrl+shift+drag erases them;
//   left-drag on empty space orbits.
// Events are JSON objects (see replay.h): mouse_down/mouse_up/mouse_move with
// "button", "mods", "x", "y" (px, window coordinates) or "vertex"+"offset";
// scroll with "dy"; key with "key" ("F", "SPACE", ...).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/app.h"

namespace cb::gui {

/// Modifier bits as GLFW reports them.
enum Mods { kModShift = 1, kModCtrl = 2, kModAlt = 4 };

/// Applies one input event; returns true when it changed something (then it is recorded).
bool handle_input(App& app, const nlohmann::json& ev);
/// True for the event types handle_input understands.
bool is_input_event(const std::string& type);
/// The key name for a GLFW key code ("" for keys the app does not use).
std::string key_name(int glfw_key);
/// Frames the camera on the cloth and the bounded obstacles.
void frame_all(App& app);

}  // namespace cb::gui
