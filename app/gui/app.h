// The window's state: one object the frame loop, the input handlers, the panels
// and the replay all work on (GLFW callbacks reach it through the window user
// pointer). No globals.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/options.h"
#include "app/gui/replay.h"
#include "render/camera.h"
#include "render/renderer.h"
#include "sim/world.h"

struct GLFWwindow;

namespace cb::gui {

/// What the left mouse button is doing.
enum class DragMode { None, Orbit, Pan, Grab, MovePin, Brush };

/// The state of a mouse interaction in the 3D view.
struct Interaction {
  DragMode mode = DragMode::None;
  float last_x = 0, last_y = 0;    ///< px, window coordinates
  glm::vec3 plane_point{0.f};      ///< m, the drag plane (faces the camera)
  glm::vec3 plane_normal{0.f, 0.f, 1.f};
  /// MovePin: the pin under the cursor first, then the pins joined to it by
  /// pinned edges (a pinned end of a scarf, a painted patch), moved with it
  /// rigidly, and their offsets from it (m)
  std::vector<uint32_t> pin_group;
  std::vector<Vec3f> pin_offset;
  bool brush_pin = true;           ///< Brush: pin (true) or unpin
  bool pin_mode = false;           ///< left click toggles pins instead of grabbing
  float brush_radius = 24.f;       ///< px
  float hover_x = -1, hover_y = -1;  ///< px, last cursor position (brush outline)
};

/// Per-frame numbers kept for the Stats panel plot.
struct StatsHistory {
  std::vector<std::string> stages;           ///< stage names in first-seen order
  std::vector<std::vector<float>> samples;   ///< (stages) x (frames) ms
  std::vector<float> step_ms;                ///< (frames)
  size_t capacity = 300;
  void push(const FrameStats& s);
  void clear();
};

/// Per-step record for --dump-state: how far the cloth moved, which solver ran.
struct StepRecord {
  int frame = 0;
  std::string solver;
  double max_displacement = 0;  ///< m, max over vertices of |x - x_prev| in this step
  bool has_nan = false;
  double step_ms = 0;           ///< wall time of World::step
};

struct App {
  GuiOptions opt;
  GLFWwindow* window = nullptr;
  Context ctx;
  std::string backend_note;
  std::string scene_path;
  std::unique_ptr<World> world;
  std::unique_ptr<render::Renderer> renderer;  ///< owns GL objects: reset before the context goes
  render::OrbitCamera camera;
  render::ViewOptions view;
  Interaction input;
  StatsHistory history;
  std::vector<StepRecord> steps;  ///< filled when track_steps
  bool track_steps = false;

  bool playing = true;
  bool step_once = false;
  bool show_ui = true;
  bool show_help = false;
  int frame = 0;                  ///< app frames since start (replay clock)

  std::deque<nlohmann::json> pending;  ///< UI actions and input events applied at the next frame start
  Recorder recorder;
  Replayer replayer;

  std::string scene_field;        ///< the Scene panel's path field
  std::string screenshot_pending; ///< PNG to write after this frame is drawn

  std::string message;            ///< last notice or refusal, shown in the UI
  bool message_is_error = false;
  /// A solver switched in over a crossed cloth said so (actions.cpp): that
  /// notice and the pairs it counted, until a frame counts no crossing
  /// (frame_loop.cpp, follow_crossing_notice); empty when none stands.
  std::string crossing_notice;
  long crossing_pairs = 0;
  std::string solver_message;     ///< last solver-parameter refusal

  /// Window size in screen coordinates (mouse coordinates).
  void window_size(int* w, int* h) const;
  void notify(const std::string& text, bool error);
};

}  // namespace cb::gui
