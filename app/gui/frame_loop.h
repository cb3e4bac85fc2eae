// The window and its frame loop: GLFW + glad + ImGui set-up, input callbacks that
// queue events, and per frame: apply queued events (or the replay's), step the
// world, publish and draw, panels, screenshot, swap.
#pragma once

#include "app/gui/app.h"

namespace cb::gui {

/// Exit status when no display can be opened (the message points to clothbox-cli).
constexpr int kExitNoDisplay = 3;

/// Opens the window, loads the scene and runs until closed (or --frames with
/// --exit). Returns the process exit status.
int run_app(const GuiOptions& opt);

}  // namespace cb::gui
