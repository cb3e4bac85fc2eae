#include "sim/scene/json_reader.h"

#include <cmath>
#include <sstream>

#include "sim/core/error.h"

namespace cb {

void JsonReader::fail(const std::string& path, const std::string& what) const {
  throw Error(file_ + ": " + (path.empty() ? "/" : path) + ": " + what);
}

void JsonReader::warn(const std::string& path, const std::string& what) const {
  warnings_->push_back(file_ + ": " + path + ": " + what);
}

std::string JsonReader::describe(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

void JsonReader::require_object(const json& obj, const std::string& path) const {
  if (!obj.is_object()) fail(path, "expected an object, got " + describe(obj));
}

void JsonReader::check_keys(const json& obj, const std::string& path, std::initializer_list<const char*> known) const {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) warn(path + "/" + it.key(), "unknown key (ignored)");
  }
}

float JsonReader::number(const json& obj, const char* key, const std::string& path, float def, float lo,
                         float hi) const {
  auto it = obj.find(key);
  if (it == obj.end()) return def;
  const std::string p = path + "/" + key;
  std::ostringstream range;
  range << "[" << lo << ", " << hi << "]";
  if (!it->is_number()) fail(p, "expected a number in " + range.str() + ", got " + describe(*it));
  double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) fail(p, "expected a number in " + range.str() + ", got " + describe(*it));
  return float(v);
}

int JsonReader::integer(const json& obj, const char* key, const std::string& path, int def, int lo, int hi) const {
  auto it = obj.find(key);
  if (it == obj.end()) return def;
  const std::string p = path + "/" + key;
  std::string want = "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got ";
  if (!it->is_number_integer() && !(it->is_number_float() && std::floor(it->get<double>()) == it->get<double>()))
    fail(p, want + describe(*it));
  double v = it->get<double>();
  if (v < lo || v > hi) fail(p, want + describe(*it));
  return int(v);
}

bool JsonReader::boolean(const json& obj, const char* key, const std::string& path, bool def) const {
  auto it = obj.find(key);
  if (it == obj.end()) return def;
  if (!it->is_boolean()) fail(path + "/" + key, "expected true or false, got " + describe(*it));
  return it->get<bool>();
}

std::string JsonReader::string(const json& obj, const char* key, const std::string& path, const std::string& def) const {
  auto it = obj.find(key);
  if (it == obj.end()) return def;
  if (!it->is_string()) fail(path + "/" + key, "expected a string, got " + describe(*it));
  return it->get<std::string>();
}

std::string JsonReader::required_string(const json& obj, const char* key, const std::string& path) const {
  if (!obj.contains(key)) fail(path + "/" + key, "missing (a string is required)");
  return string(obj, key, path, "");
}

Vec3f JsonReader::vec3_value(const json& v, const std::string& path) const {
  if (!v.is_array() || v.size() != 3) fail(path, "expected [x, y, z], got " + describe(v));
  Vec3f out;
  for (int i = 0; i < 3; ++i) {
    if (!v[size_t(i)].is_number() || !std::isfinite(v[size_t(i)].get<double>()))
      fail(path, "expected [x, y, z] of finite numbers, got " + describe(v));
    if (!(std::fabs(v[size_t(i)].get<double>()) <= double(kMaxComponent)))
      fail(path, "expected [x, y, z] within +-1e6, got " + describe(v));
    out[i] = v[size_t(i)].get<float>();
  }
  return out;
}

Vec3f JsonReader::vec3(const json& obj, const char* key, const std::string& path, Vec3f def) const {
  auto it = obj.find(key);
  if (it == obj.end()) return def;
  return vec3_value(*it, path + "/" + key);
}

}  // namespace cb
