// Recording and replay of a session: every mouse and key event that reached the
// 3D view and every UI action (solver switches, parameter edits, play/pause, ...)
// with the app frame at which it was applied. File format (JSON):
//   {"version": 1, "window": [1280, 800], "scene": "scenes/hanging_sheet.json",
//    "events": [{"frame": 12, "type": "mouse_down", "button": 0, "mods": 0, "x": 640, "y": 300},
//               {"frame": 40, "type": "set_solver", "name": "verlet"}, ...]}
// Mouse events may name a cloth vertex instead of a pixel: {"vertex": 39,
// "offset": [dx, dy]} is the vertex's current screen position plus the offset (px),
// which keeps hand-written replays independent of the window size, and
// {"rel": [dx, dy]} is relative to the previous cursor position.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::gui {

class Recorder {
 public:
  /// Starts recording to `path` (written by save()).
  void start(const std::string& path, int width, int height, const std::string& scene);
  bool active() const { return !path_.empty(); }
  /// Appends `event` (an object with "type") stamped with `frame`.
  void add(int frame, nlohmann::json event);
  /// Writes the file; returns "" or why not.
  std::string save() const;
  size_t size() const { return events_.size(); }

 private:
  std::string path_;
  nlohmann::json header_;
  std::vector<nlohmann::json> events_;
};

class Replayer {
 public:
  /// Loads a replay file; throws cb::Error naming the file and the bad event.
  void load(const std::string& path);
  bool active() const { return loaded_; }
  /// The events stamped with `frame`, in file order.
  std::vector<nlohmann::json> take(int frame);
  /// True once every event has been taken.
  bool finished() const { return next_ >= events_.size(); }
  int width() const { return width_; }    ///< 0 when the file gives no window size
  int height() const { return height_; }
  const std::string& scene() const { return scene_; }

 private:
  bool loaded_ = false;
  std::vector<nlohmann::json> events_;  ///< sorted by frame (stable)
  size_t next_ = 0;
  int width_ = 0, height_ = 0;
  std::string scene_;
};

}  // namespace cb::gui
