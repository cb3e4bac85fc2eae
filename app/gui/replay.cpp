#include "app/gui/replay.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>

#include "sim/core/error.h"

namespace cb::gui {

using nlohmann::json;

namespace {

constexpr double kMaxPixels = 1e6;  // px: a cursor farther off the window is a broken file

bool is_pixel(const json& v) { return v.is_number() && std::fabs(v.get<double>()) <= kMaxPixels; }

// "" or why field `key` of event e is unusable: numbers within +-kMaxPixels,
// whole numbers in [lo, hi], pairs [dx, dy] (the fields of the input events,
// read while the replay runs; the actions check their own)
std::string check_number(const json& e, const char* key) {
  if (!e.contains(key)) return "";
  const json& v = e[key];
  if (!is_pixel(v)) return std::string(key) + ": expected a number within +-1e6, got " + v.dump();
  return "";
}

std::string check_whole(const json& e, const char* key, int64_t lo, int64_t hi) {
  if (!e.contains(key)) return "";
  const json& v = e[key];
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    return std::string(key) + ": expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
           "], got " + v.dump();
  return "";
}

std::string check_pair(const json& e, const char* key) {
  if (!e.contains(key)) return "";
  const json& v = e[key];
  if (!v.is_array() || v.size() != 2 || !is_pixel(v[0]) || !is_pixel(v[1]))
    return std::string(key) + ": expected [dx, dy] within +-1e6 px, got " + v.dump();
  return "";
}

std::string check_input_fields(const json& e) {
  for (const char* k : {"x", "y", "dx", "dy"})
    if (std::string err = check_number(e, k); !err.empty()) return err;
  for (const char* k : {"offset", "rel"})
    if (std::string err = check_pair(e, k); !err.empty()) return err;
  if (std::string err = check_whole(e, "button", 0, 7); !err.empty()) return err;
  if (std::string err = check_whole(e, "mods", 0, 0xffff); !err.empty()) return err;
  if (std::string err = check_whole(e, "vertex", 0, 0x7fffffff); !err.empty()) return err;
  if (e.contains("key") && !e["key"].is_string()) return "key: expected a key name, got " + e["key"].dump();
  return "";
}

}  // namespace

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
  if (j.contains("window")) {
    const json& w = j["window"];
    if (!w.is_array() || w.size() != 2 || !w[0].is_number_integer() || !w[1].is_number_integer() ||
        w[0].get<int64_t>() < 64 || w[0].get<int64_t>() > 16384 || w[1].get<int64_t>() < 64 ||
        w[1].get<int64_t>() > 16384)
      throw Error(path + ": /window: expected [width, height] in px, each in [64, 16384], got " + w.dump());
    width_ = w[0].get<int>();
    height_ = w[1].get<int>();
  }
  if (j.contains("scene") && !j["scene"].is_string())
    throw Error(path + ": /scene: expected a scene file name, got " + j["scene"].dump());
  scene_ = j.value("scene", std::string());
  events_.clear();
  for (size_t i = 0; i < j["events"].size(); ++i) {
    const json& e = j["events"][i];
    if (!e.is_object() || !e.contains("frame") || !e["frame"].is_number_integer() || !e.contains("type") ||
        !e["type"].is_string())
      throw Error(path + ": /events/" + std::to_string(i) + ": expected {\"frame\": int, \"type\": string, ...}");
    if (const std::string err = check_input_fields(e); !err.empty())
      throw Error(path + ": /events/" + std::to_string(i) + "/" + err);
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
