#include "sim/solvers/param_table.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/core/error.h"

namespace cb {

ParamTable& ParamTable::add_float(const std::string& name, double value, double min, double max,
                                  const std::string& unit, const std::string& help, bool log_scale) {
  ParamInfo p;
  p.name = name;
  p.kind = ParamKind::Float;
  p.value = value;
  p.min = min;
  p.max = max;
  p.unit = unit;
  p.help = help;
  p.log_scale = log_scale;
  p.group = group_;
  entries_.push_back(p);
  return *this;
}

ParamTable& ParamTable::add_int(const std::string& name, int value, int min, int max, const std::string& help) {
  add_float(name, value, min, max, "", help);
  entries_.back().kind = ParamKind::Int;
  return *this;
}

ParamTable& ParamTable::add_bool(const std::string& name, bool value, const std::string& help) {
  add_float(name, value ? 1 : 0, 0, 1, "", help);
  entries_.back().kind = ParamKind::Bool;
  return *this;
}

ParamTable& ParamTable::add_choice(const std::string& name, int value, std::vector<std::string> choices,
                                   const std::string& help) {
  add_float(name, value, 0, double(choices.size()) - 1, "", help);
  entries_.back().kind = ParamKind::Choice;
  entries_.back().choices = std::move(choices);
  return *this;
}

bool ParamInfo::in_range() const {
  if (kind == ParamKind::Float) return float(value) >= float(min) && float(value) <= float(max);
  return value >= min && value <= max;
}

const ParamInfo* ParamTable::find(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

ParamInfo* ParamTable::find_mut(const std::string& name) {
  for (auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

double ParamTable::get(const std::string& name) const {
  const ParamInfo* p = find(name);
  if (!p) throw Error("internal: no parameter '" + name + "'");
  return p->value;
}

std::string ParamTable::set(const std::string& name, double value) {
  ParamInfo* p = find_mut(name);
  if (!p) return "unknown parameter '" + name + "'";
  if (!std::isfinite(value)) return "parameter '" + name + "' must be a finite number";
  if (p->kind != ParamKind::Float && value != std::floor(value))
    return "parameter '" + name + "' must be a whole number";
  if (value < p->min || value > p->max) {
    std::ostringstream s;
    s << "parameter '" << name << "' = " << value << " is outside [" << p->min << ", " << p->max << "]";
    if (!p->unit.empty()) s << " " << p->unit;
    return s.str();
  }
  p->value = value;
  return "";
}

std::string ParamTable::set_text(const std::string& name, const std::string& text) {
  const ParamInfo* p = find(name);
  if (!p) return "unknown parameter '" + name + "'";
  if (p->kind == ParamKind::Choice) {
    for (size_t i = 0; i < p->choices.size(); ++i)
      if (p->choices[i] == text) return set(name, double(i));
  }
  if (p->kind == ParamKind::Bool && (text == "true" || text == "false")) return set(name, text == "true" ? 1 : 0);
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    std::string msg = "parameter '" + name + "': cannot read '" + text + "'";
    if (p->kind == ParamKind::Choice) {
      msg += " (expected one of:";
      for (const auto& c : p->choices) msg += " " + c;
      msg += ")";
    }
    return msg;
  }
  return set(name, v);
}

std::string ParamTable::text(const std::string& name) const {
  const ParamInfo* p = find(name);
  if (!p) return "";
  if (p->kind == ParamKind::Choice) return p->choices[size_t(p->value)];
  if (p->kind == ParamKind::Bool) return p->value != 0 ? "true" : "false";
  std::ostringstream s;
  s << p->value;
  return s.str();
}

}  // namespace cb
