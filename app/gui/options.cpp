#include "app/gui/options.h"

#include <cstdio>
#include <fstream>

#include "app/cli/args.h"
#include "sim/core/error.h"

namespace cb::gui {

const char* usage_text() {
  return "clothbox: the interactive cloth sandbox\n\n"
         "usage: clothbox [--scene FILE.json|FILE.obj] [--solver NAME] [--backend auto|cpu|cuda]\n"
         "                [--record FILE.json] [--replay FILE.json]\n"
         "                [--frames N] [--screenshot out.png] [--exit] [--dump-state out.json]\n"
         "                [--size WxH] [--hide-ui] [--texture IMAGE]\n\n"
         "Without a display use clothbox-cli (clothbox-cli run --scene FILE ...).\n";
}

std::string default_scene_path() {
  const std::string rel = "scenes/hanging_sheet.json";
  if (std::ifstream(rel).good()) return rel;
  return std::string(CLOTHBOX_SOURCE_DIR) + "/" + rel;
}

static void parse_size(const std::string& s, GuiOptions& o) {
  int w = 0, h = 0;
  if (std::sscanf(s.c_str(), "%dx%d", &w, &h) != 2 || w < 64 || h < 64 || w > 8192 || h > 8192)
    throw Error("--size expects WxH (64..8192), got '" + s + "'");
  o.width = w;
  o.height = h;
  o.size_given = true;
}

GuiOptions parse_options(int argc, char** argv) {
  cli::Args a(argc, argv, 1, {"exit", "hide-ui", "help"});
  a.allow_only({"scene", "solver", "backend", "record", "replay", "frames", "screenshot", "exit", "dump-state",
                "size", "hide-ui", "texture", "help"});
  if (!a.positional().empty()) throw Error("unexpected argument '" + a.positional()[0] + "'");
  GuiOptions o;
  o.scene = a.get("scene", default_scene_path());
  o.solver = a.get("solver");
  o.backend = a.get("backend", "auto");
  o.record = a.get("record");
  o.replay = a.get("replay");
  o.frames = int(a.get_int("frames", -1, 1, 100000000));
  o.screenshot = a.get("screenshot");
  o.exit_after = a.has("exit");
  o.dump_state = a.get("dump-state");
  o.hide_ui = a.has("hide-ui");
  o.texture = a.get("texture");
  if (a.has("size")) parse_size(a.get("size"), o);
  if (o.exit_after && o.frames < 0) throw Error("--exit needs --frames N");
  return o;
}

}  // namespace cb::gui
