// The clothbox command line:
//   clothbox [--scene FILE] [--solver NAME] [--backend auto|cpu|cuda] [--record FILE.json]
//            [--replay FILE.json] [--frames N] [--screenshot out.png] [--exit]
//            [--dump-state out.json] [--size WxH] [--hide-ui] [--texture IMAGE]
#pragma once

#include <string>

namespace cb::gui {

struct GuiOptions {
  std::string scene;       ///< scene JSON or bare OBJ ("" = the default scene)
  std::string solver;      ///< registry name overriding the scene's ("" = keep)
  std::string backend = "auto";
  std::string record;      ///< write the session's events here on exit
  std::string replay;      ///< play these events at their frame numbers
  int frames = -1;         ///< stop after N frames (-1 = run until closed)
  std::string screenshot;  ///< PNG written after the last frame (--frames) or at exit
  bool exit_after = false; ///< close once --frames are done
  std::string dump_state;  ///< JSON state written at exit
  int width = 1280, height = 800;  ///< px, window size (a replay's recorded size wins unless --size)
  bool size_given = false;
  bool hide_ui = false;    ///< no panels (clean screenshots)
  std::string texture;     ///< cloth texture image ("" = the built-in check)
};

/// Parses argv; throws cb::Error with a readable message for a bad option.
GuiOptions parse_options(int argc, char** argv);
/// The usage text.
const char* usage_text();

/// The default scene: scenes/hanging_sheet.json in the working directory, else in the source tree.
std::string default_scene_path();

}  // namespace cb::gui
