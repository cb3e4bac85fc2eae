#include "gui/gui_run.h"

#include <cstdlib>
#include <fstream>
#include <filesystem>

#include <stb_image.h>

#include "support/test_support.h"

namespace cb::test {

bool have_xvfb() { return std::system("command -v xvfb-run >/dev/null 2>&1") == 0; }

std::string scratch_dir(const std::string& name) {
  std::string d = "gui_scratch/" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

void write_replay(const std::string& path, const nlohmann::json& events, int width, int height) {
  nlohmann::json j = {{"version", 1}, {"window", {width, height}}, {"events", events}};
  std::ofstream(path) << j.dump(1) << "\n";
}

int run_window(const std::string& args, std::string* log) {
  std::string cmd = "xvfb-run -a -s \"-screen 0 1280x800x24\" " + std::string(CLOTHBOX_GUI_APP) + " " + args;
  return run_command(cmd, log);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  nlohmann::json j;
  f >> j;
  return j;
}

bool read_png(const std::string& path, Image* out) {
  int comp = 0;
  unsigned char* px = stbi_load(path.c_str(), &out->width, &out->height, &comp, 3);
  if (!px) return false;
  out->rgb.assign(px, px + size_t(out->width) * out->height * 3);
  stbi_image_free(px);
  return true;
}

}  // namespace cb::test
