#include "app/cli/args.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/core/error.h"

namespace cb::cli {

Args::Args(int argc, char** argv, int first, const std::vector<std::string>& flags) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      pos_.push_back(a);
      continue;
    }
    std::string key = a.substr(2);
    size_t eq = key.find('=');
    if (eq != std::string::npos) {
      opts_[key.substr(0, eq)] = key.substr(eq + 1);
    } else if (std::find(flags.begin(), flags.end(), key) != flags.end()) {
      opts_[key] = "1";
    } else {
      if (i + 1 >= argc) throw Error("option --" + key + " needs a value");
      opts_[key] = argv[++i];
    }
  }
}

std::string Args::get(const std::string& key, const std::string& def) const {
  auto it = opts_.find(key);
  return it == opts_.end() ? def : it->second;
}

long Args::get_int(const std::string& key, long def, long lo, long hi) const {
  if (!has(key)) return def;
  const std::string& s = opts_.at(key);
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || v < lo || v > hi)
    throw Error("--" + key + " expects a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got '" + s + "'");
  return v;
}

double Args::get_double(const std::string& key, double def, double lo, double hi) const {
  if (!has(key)) return def;
  const std::string& s = opts_.at(key);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !std::isfinite(v) || v < lo || v > hi)
    throw Error("--" + key + " expects a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
                s + "'");
  return v;
}

void Args::allow_only(const std::vector<std::string>& known) const {
  for (const auto& kv : opts_)
    if (std::find(known.begin(), known.end(), kv.first) == known.end())
      throw Error("unknown option --" + kv.first);
}

}  // namespace cb::cli
