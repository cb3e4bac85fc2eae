// Solver parameters as a table of named values: the one mechanism behind scene
// files, the UI (which draws a widget per entry), input replay and the CLI. Each
// solver keeps its typed params struct and converts to and from a table.
#pragma once

#include <string>
#include <vector>

namespace cb {

enum class ParamKind { Float, Int, Bool, Choice };

struct ParamInfo {
  std::string name;   ///< key in scene files and the UI, e.g. "iterations"
  ParamKind kind = ParamKind::Float;
  double value = 0;   ///< current value (Bool: 0/1, Choice: index into choices)
  double min = 0, max = 1;  ///< allowed closed range (Float, Int)
  bool log_scale = false;   ///< UI hint: slider in log scale (compliances, stiffnesses)
  std::vector<std::string> choices;  ///< Choice names
  std::string unit;   ///< "s", "m", "N/m", ...
  std::string help;   ///< one line for the UI tooltip
  std::string group;  ///< UI section the entry is listed under ("": before any section)
  /// value within [min, max]. A Float is compared as the float it is stored in
  /// (a solver's parameters are floats): the bounds 1e-8, 0.01 and 0.1 are not
  /// floats, and their float values fell outside the double range, so the
  /// documented ends of cg_tolerance, weft_ratio and thickness were refused.
  bool in_range() const;
};

class ParamTable {
 public:
  ParamTable& add_float(const std::string& name, double value, double min, double max, const std::string& unit,
                        const std::string& help, bool log_scale = false);
  ParamTable& add_int(const std::string& name, int value, int min, int max, const std::string& help);
  ParamTable& add_bool(const std::string& name, bool value, const std::string& help);
  ParamTable& add_choice(const std::string& name, int value, std::vector<std::string> choices, const std::string& help);
  /// The entries added from now on are listed under UI section `name` (the
  /// solver panels draw one collapsible node per section, the first one open).
  ParamTable& group(const std::string& name) {
    group_ = name;
    return *this;
  }

  const std::vector<ParamInfo>& entries() const { return entries_; }
  std::vector<ParamInfo>& entries() { return entries_; }
  const ParamInfo* find(const std::string& name) const;
  /// Value of `name`; throws cb::Error when absent (a solver bug, not user input).
  double get(const std::string& name) const;
  int get_int(const std::string& name) const { return int(get(name)); }
  bool get_bool(const std::string& name) const { return get(name) != 0; }

  /// Sets `name`; returns "" or why it was refused (unknown name, NaN, out of
  /// range, not an integer). Nothing changes on refusal.
  std::string set(const std::string& name, double value);
  /// Sets a Choice by its name, or any kind from text ("0.5", "true", "jacobi").
  std::string set_text(const std::string& name, const std::string& text);
  /// Text of the value (Choice: its name).
  std::string text(const std::string& name) const;

 private:
  std::vector<ParamInfo> entries_;
  std::string group_;  ///< the section of the entries being added
  ParamInfo* find_mut(const std::string& name);
};

}  // namespace cb
