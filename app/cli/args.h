// Minimal command-line parsing for clothbox-cli: "--key value" and "--flag".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cb::cli {

class Args {
 public:
  /// Parses argv[first..]; words not starting with "--" are positional.
  /// `flags` are options that take no value.
  Args(int argc, char** argv, int first, const std::vector<std::string>& flags = {});
  bool has(const std::string& key) const { return opts_.count(key) != 0; }
  /// Value of --key or `def`.
  std::string get(const std::string& key, const std::string& def = "") const;
  /// Value of --key as an integer in [lo, hi]; throws cb::Error with a clear message.
  long get_int(const std::string& key, long def, long lo, long hi) const;
  double get_double(const std::string& key, double def, double lo, double hi) const;
  const std::vector<std::string>& positional() const { return pos_; }
  /// Throws cb::Error naming the first option not in `known`.
  void allow_only(const std::vector<std::string>& known) const;

 private:
  std::map<std::string, std::string> opts_;
  std::vector<std::string> pos_;
};

}  // namespace cb::cli
