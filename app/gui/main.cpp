// clothbox: the interactive cloth sandbox window (GLFW + OpenGL + Dear ImGui).
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/gui/frame_loop.h"
#include "app/gui/options.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(cb::gui::usage_text(), stdout);
      return 0;
    }
  cb::gui::GuiOptions opt;
  try {
    opt = cb::gui::parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clothbox: %s\n\n%s", e.what(), cb::gui::usage_text());
    return 2;
  }
  return cb::gui::run_app(opt);
}
