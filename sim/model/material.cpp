#include "sim/model/material.h"

#include <cmath>
#include <sstream>

namespace cb {
namespace {
std::string bad(const char* name, const char* rule, float v) {
  std::ostringstream s;
  s << name << " must be " << rule << ", got " << v;
  return s.str();
}
}  // namespace

std::string Material::validate() const {
  if (!(density > 0) || !std::isfinite(density)) return bad("density", "> 0 (kg/m^2)", density);
  if (!(stretch_stiffness >= 0) || !std::isfinite(stretch_stiffness)) return bad("stretch", ">= 0 (N/m)", stretch_stiffness);
  if (!(shear_stiffness >= 0) || !std::isfinite(shear_stiffness)) return bad("shear", ">= 0 (N/m)", shear_stiffness);
  if (!(bend_stiffness >= 0) || !std::isfinite(bend_stiffness)) return bad("bend", ">= 0 (N m)", bend_stiffness);
  if (!(damping >= 0) || !std::isfinite(damping)) return bad("damping", ">= 0 (1/s)", damping);
  if (!(thickness >= 0) || !(thickness < 1)) return bad("thickness", "in [0, 1) m", thickness);
  if (!(friction >= 0) || !(friction <= 10)) return bad("friction", "in [0, 10]", friction);
  return "";
}

}  // namespace cb
