// Typed reads from a parsed JSON document with errors that name the file, the
// JSON path and what was expected:
//   "scenes/bad.json: /cloths/0/material/density: expected a number > 0, got "heavy""
// Unknown keys become warnings naming the key. Internal to the scene loader.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "sim/core/math.h"

namespace cb {

class JsonReader {
 public:
  using json = nlohmann::json;
  JsonReader(std::string file, std::vector<std::string>* warnings)
      : file_(std::move(file)), warnings_(warnings ? warnings : &dropped_) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const;
  void warn(const std::string& path, const std::string& what) const;
  const std::string& file() const { return file_; }
  /// Where warnings go (never null: a reader without a sink drops them into its own list).
  std::vector<std::string>& warnings() const { return *warnings_; }

  /// Warns about every key of `obj` not in `known`.
  void check_keys(const json& obj, const std::string& path, std::initializer_list<const char*> known) const;
  /// obj must be an object (else fail).
  void require_object(const json& obj, const std::string& path) const;

  /// Reads obj[key] as a number in [lo, hi]; `def` when absent.
  float number(const json& obj, const char* key, const std::string& path, float def, float lo, float hi) const;
  int integer(const json& obj, const char* key, const std::string& path, int def, int lo, int hi) const;
  bool boolean(const json& obj, const char* key, const std::string& path, bool def) const;
  std::string string(const json& obj, const char* key, const std::string& path, const std::string& def) const;
  /// A required string.
  std::string required_string(const json& obj, const char* key, const std::string& path) const;
  /// Bound of every component of a vector read with vec3: positions (m), angles
  /// (degrees), gravity (m/s^2), wind (m/s) beyond a million are typos, and
  /// overflow the simulation's squared lengths (gravity 1e30 was accepted).
  static constexpr float kMaxComponent = 1e6f;
  /// [x, y, z] of finite numbers within +-kMaxComponent.
  Vec3f vec3(const json& obj, const char* key, const std::string& path, Vec3f def) const;
  Vec3f vec3_value(const json& v, const std::string& path) const;

  static std::string describe(const json& v);  ///< short text of a value for messages

 private:
  std::string file_;
  std::vector<std::string>* warnings_;
  mutable std::vector<std::string> dropped_;
};

}  // namespace cb
