// The Dear ImGui panels. They never change the world directly: each edit is sent
// as an action (actions.h) applied at the start of the next frame, which is what
// makes every UI change recordable and replayable.
#pragma once

#include <nlohmann/json.hpp>

#include "app/gui/app.h"

namespace cb::gui {

/// Draws all panels for this frame.
void draw_panels(App& app);

/// Queues an action for the next frame.
void send(App& app, nlohmann::json action);

// one per file
void draw_scene_panel(App& app);
void draw_simulation_panel(App& app);
void draw_solver_panel(App& app);
void draw_collision_panel(App& app);
void draw_stats_panel(App& app);
void draw_view_panel(App& app);
void draw_help_panel(App& app);
/// The brush outline and the status line drawn over the 3D view.
void draw_view_overlay(App& app);

/// Width in pixels of the labels' column: the widest label the panels show (the
/// active solver's parameter names included), so no label is cut at the edge.
float label_column_width(const App& app);

/// True for solver parameters shown in the Collisions panel rather than the Solver panel.
bool is_collision_param(const std::string& name);

}  // namespace cb::gui
