#include "app/gui/replay.h"

#include <algorithm>
#include <fstream>

#include "sim/core/error.h"

namespace cb::gui {

using nlohmann::json;

void Recorder::start(const std::string& path, int width, int height, const std::string& scene) {
  path_ = path;
  header_ = {{"version", 1}, {"window", {width, height}}, {"scene", scene}};
  events_.clear();
}

void Recorder::add(int frame, json event) {
  if (!active()) return;
  json e = {{"frame", frame}};
  e.update(event);
  events_.push_back(std::move(e));
}

std::string Recorder::save() const {
  if (!active()) return "";
  json out = header_;
  out["events"] = events_;
  std::ofstream f(path_);
  if (!f) return "cannot write " + path_;
  f << out.dump(1) << "\n";
  return f ? "" : "cannot write " + path_;
}

void Replayer::load(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot open replay file " + path);
  json j;
  try {
    f >> j;
  } catch (const std::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("events") || !j["events"].is_array())
    throw Error(path + ": expected an object with an \"events\" array");
  if (j.contains("window") && j["window"].is_array() && j["window"].size() == 2) {
    width_ = j["window"][0].get<int>();
    height_ = j["window"][1].get<int>();
  }
  scene_ = j.value("scene", std::string());
  events_.clear();
  for (size_t i = 0; i < j["events"].size(); ++i) {
    const json& e = j["events"][i];
    if (!e.is_object() || !e.contains("frame") || !e["frame"].is_number_integer() || !e.contains("type") ||
        !e["type"].is_string())
      throw Error(path + ": /events/" + std::to_string(i) + ": expected {\"frame\": int, \"type\": string, ...}");
    events_.push_back(e);
  }
  std::stable_sort(events_.begin(), events_.end(),
                   [](const json& a, const json& b) { return a["frame"].get<int>() < b["frame"].get<int>(); });
  next_ = 0;
  loaded_ = true;
}

std::vector<json> Replayer::take(int frame) {
  std::vector<json> out;
  while (next_ < events_.size() && events_[next_]["frame"].get<int>() <= frame) out.push_back(events_[next_++]);
  return out;
}

}  // namespace cb::gui
