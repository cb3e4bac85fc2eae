// Running the clothbox window from a test: under xvfb-run, with a replay file the
// test writes, reading back the state dump (JSON) and the screenshot (PNG).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::test {

/// True when xvfb-run is installed (window tests skip otherwise).
bool have_xvfb();
/// A fresh scratch folder for one test (under the working directory).
std::string scratch_dir(const std::string& name);
/// Writes a replay file {"version": 1, "window": [w, h], "events": events}.
void write_replay(const std::string& path, const nlohmann::json& events, int width = 800, int height = 600);
/// Runs `clothbox <args>` under xvfb-run; returns the exit status, output in *log.
int run_window(const std::string& args, std::string* log);
/// Parses a JSON file (throws on error).
nlohmann::json read_json(const std::string& path);

/// An RGB image read with stb_image.
struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  ///< (height * width * 3), top row first
};
bool read_png(const std::string& path, Image* out);

}  // namespace cb::test
